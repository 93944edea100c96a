/**
 * The title search of the Sessions view, built to answer within a frame at a million sessions.
 *
 * The rule (search.ts): every word of the query in the title, as a substring or as scattered letters; ranked
 * by tier (how well the words matched), then newest first; the best {@link MAX_RESULTS} shown.
 *
 * How it stays fast:
 * - Best first: each agent's scoped sessions are scanned newest first, so every match found is the newest of
 *   its tier so far. Once more than {@link MAX_RESULTS} sessions matched at the best tier, nothing later can
 *   make the list: the scan stops there ("more than 2,000 match"). Typing one or two letters usually stops
 *   after a few thousand titles.
 * - Cheap rejection: a title whose character mask lacks a letter of a word is skipped without reading it.
 * - Narrowing: a query that extends the previous one skips every session the previous one tested and found
 *   not to match.
 * - Slices: a scan stops when its time budget is spent and goes on later from where it stopped ({@link
 *   TitleSearch.scan}); the matches so far are shown meanwhile.
 * - Incremental: a run follows its agent's changes ({@link SlotListener}): a changed session is taken out of
 *   its tier and tested again, so a new page or a renamed session costs O(changed sessions), not a new scan.
 */
import { AgentSessions, type SlotKey, type SlotListener } from './agentSessions';
import { charMask, letterBit, MAX_RESULTS, tierOf } from './search';
import { SortedSlots } from './sortedSlots';

/** A slot's state in a run: not tested yet (the previous run may know it does not match). */
const UNTESTED = 0;
const NO_MATCH = 1;
/** 2 + tier: matched at that tier. */
const MATCHED = 2;
/** Changed since the run began: not tested yet, and what the previous run knew about it no longer holds. */
const CHANGED = 255;
const MAX_TIER = CHANGED - MATCHED - 1;
/** Sessions looked at between two looks at the clock (smaller lists are always searched in one go). */
const CHECK_EVERY = 2048;

/** One agent's scan for one query. */
export class TitleSearchRun implements SlotListener {
  /** Every bit of every word's character mask: a title lacking one cannot match. */
  private readonly needed: number;
  /** When every word is one letter a–z: their bits (the masks alone decide); else undefined. */
  private readonly letters: readonly number[] | undefined;
  private state: Uint8Array;
  /** Per tier, the matched slots in the agent's order. */
  private readonly tiers: (SortedSlots | undefined)[] = [];
  /** The last slot scanned, as its key was then: everything at or before it in the scope's order is tested. */
  private cursor: SlotKey | undefined;
  /** Where the scan goes on, valid while the sessions' stamp is `positionStamp`. */
  private position = 0;
  private positionStamp = -1;
  private previous: Uint8Array | undefined;
  private readonly subscription: { dispose(): void };
  private disposed = false;
  /** Scanned to the end of the scope. */
  exhaustive = false;
  /** Stopped once more than {@link MAX_RESULTS} matched at tier 0 (nothing after that point can be shown). */
  stoppedEarly = false;
  /** Bumped whenever the matches change. */
  version = 0;
  readonly slotGeneration: number;

  /**
   * @param narrowFrom the run of a query this one extends (or of the same query), over the same slots:
   *   sessions it found not to match are skipped (it stops following changes; this run takes over).
   */
  constructor(
    readonly sessions: AgentSessions,
    readonly words: readonly string[],
    narrowFrom?: TitleSearchRun,
    /** Counts the titles tested (tests and benchmarks read it). */
    private readonly counter: { titleTests: number } = { titleTests: 0 },
  ) {
    this.needed = words.reduce((bits, word) => bits | charMask(word), 0);
    const letters = words.map((word) => (word.length === 1 ? letterBit(word.charCodeAt(0)) : 0));
    this.letters = letters.every((bit) => bit !== 0) ? letters : undefined;
    this.state = sessions.borrowBytes();
    this.slotGeneration = sessions.slotGeneration;
    if (narrowFrom && narrowFrom.slotGeneration === sessions.slotGeneration && narrowFrom.sessions === sessions && !narrowFrom.disposed) {
      // Its state is ours to read until this scan is done; then the buffer goes back.
      narrowFrom.subscription.dispose();
      narrowFrom.disposed = true;
      this.previous = narrowFrom.state;
    }
    this.subscription = sessions.listen(this);
  }

  get finished(): boolean {
    return this.exhaustive || this.stoppedEarly;
  }

  /** Stops following the sessions' changes and gives its buffers back. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.subscription.dispose();
    this.sessions.releaseBytes(this.state);
    this.dropPrevious();
  }

  private dropPrevious(): void {
    if (this.previous) this.sessions.releaseBytes(this.previous);
    this.previous = undefined;
  }

  /** The matches of a tier whose place is settled (everything before them was tested), in order. */
  settled(tier: number): { readonly slots: SortedSlots; readonly count: number } | undefined {
    const slots = this.tiers[tier];
    if (!slots) return undefined;
    if (this.exhaustive) return { slots, count: slots.length };
    const cursor = this.cursor;
    if (!cursor) return undefined;
    return { slots, count: slots.partition((slot) => this.sessions.atOrBefore(slot, cursor)) };
  }

  /** Whether a slot's title is known to match (tested, in scope or not). */
  matches(slot: number): boolean {
    const state = slot < this.state.length ? this.state[slot]! : UNTESTED;
    return state >= MATCHED && state !== CHANGED;
  }

  /** How many tiers there may be. */
  get tierCount(): number {
    return this.tiers.length;
  }

  /** How many sessions matched in the settled part. */
  matched(): number {
    let count = 0;
    for (let tier = 0; tier < this.tiers.length; tier++) count += this.settled(tier)?.count ?? 0;
    return count;
  }

  /** Scans on until done or `expired()` says the time is up (asked every {@link CHECK_EVERY} sessions looked at). */
  scan(expired: () => boolean): void {
    if (this.finished) return;
    const scoped = this.sessions.scoped;
    let position = this.positionStamp === this.sessions.stamp ? this.position : this.resumePosition();
    const slots = scoped.view();
    const previous = this.previous;
    const states = this.state;
    // The loop reads the columns directly: it runs a million times, often before the JIT has compiled it.
    const masks = this.sessions.maskColumn();
    const needed = this.needed;
    let sinceCheck = 0;
    for (; position < slots.length; position++) {
      const slot = slots[position]!;
      const state = states[slot]!;
      if (state !== UNTESTED && state !== CHANGED) continue;
      if (++sinceCheck === CHECK_EVERY) {
        sinceCheck = 0;
        if (expired()) {
          this.suspend(position);
          return;
        }
      }
      if (state === UNTESTED && previous !== undefined && slot < previous.length && previous[slot] === NO_MATCH) {
        states[slot] = NO_MATCH;
        continue;
      }
      const mask = masks[slot]!;
      if (mask === 0 || (mask & needed) !== needed) {
        // Untitled, or a letter of the query is missing: no need to read the title.
        this.counter.titleTests++;
        states[slot] = NO_MATCH;
        continue;
      }
      const tier = this.test(slot);
      if (tier === 0 && this.tiers[0]!.length > MAX_RESULTS && this.settledBest(slot) > MAX_RESULTS) {
        this.cursor = this.sessions.keyOf(slot);
        this.stoppedEarly = true;
        this.dropPrevious();
        return;
      }
    }
    this.exhaustive = true;
    this.dropPrevious();
  }

  /** Stops before `position` (time is up); the scan goes on from there. */
  private suspend(position: number): void {
    this.position = position;
    this.positionStamp = this.sessions.stamp;
    if (position > 0) this.cursor = this.sessions.keyOf(this.sessions.scoped.at(position - 1));
  }

  beforeChange(slots: readonly number[]): void {
    const byTier = new Map<number, number[]>();
    for (const slot of slots) {
      if (slot >= this.state.length) continue;
      const state = this.state[slot]!;
      if (state >= MATCHED && state !== CHANGED) {
        const list = byTier.get(state - MATCHED);
        if (list) list.push(slot);
        else byTier.set(state - MATCHED, [slot]);
      }
    }
    for (const [tier, list] of byTier) this.tiers[tier]!.remove(list);
    if (byTier.size > 0) this.version++;
  }

  afterChange(slots: readonly number[]): void {
    this.ensure(this.sessions.capacity);
    const cursor = this.cursor;
    for (const slot of slots) {
      this.state[slot] = CHANGED;
      if (!this.sessions.inScope(slot)) continue;
      // In the part already scanned (or all of it): tested now. Further on: the scan will come to it.
      if (this.exhaustive || (cursor !== undefined && this.sessions.atOrBefore(slot, cursor))) this.test(slot);
    }
  }

  private test(slot: number): number {
    this.counter.titleTests++;
    const sessions = this.sessions;
    const mask = sessions.maskAt(slot);
    const needed = this.needed;
    let tier = mask === 0 || (mask & needed) !== needed ? -1 : 0;
    if (tier === 0 && this.letters) {
      // Single letters: in the title (the mask says so), at a word start or not.
      const starts = sessions.wordStartsAt(slot);
      for (const bit of this.letters) if ((starts & bit) === 0) tier++;
    } else if (tier === 0) {
      const title = sessions.titleAt(slot);
      for (const word of this.words) {
        const t = tierOf(title, word);
        if (t < 0) {
          tier = -1;
          break;
        }
        tier += t;
      }
    }
    if (tier < 0) {
      this.state[slot] = NO_MATCH;
      return tier;
    }
    tier = Math.min(tier, MAX_TIER);
    this.state[slot] = MATCHED + tier;
    let list = this.tiers[tier];
    if (!list) {
      list = new SortedSlots(sessions.order);
      while (this.tiers.length < tier) this.tiers.push(undefined);
      this.tiers[tier] = list;
    }
    list.add(slot);
    this.version++;
    return tier;
  }

  /** How many tier-0 matches come at or before `slot` (the one just tested). */
  private settledBest(slot: number): number {
    const key = this.sessions.keyOf(slot);
    return this.tiers[0]!.partition((s) => this.sessions.atOrBefore(s, key));
  }

  private resumePosition(): number {
    const cursor = this.cursor;
    return cursor === undefined ? 0 : this.sessions.scoped.partition((slot) => this.sessions.atOrBefore(slot, cursor));
  }

  private ensure(capacity: number): void {
    if (capacity <= this.state.length) return;
    const grown = new Uint8Array(Math.max(capacity, Math.ceil(this.state.length * 1.5)));
    grown.set(this.state);
    this.state = grown;
  }
}

/** A title match to show: a session (its agent's sessions and slot) and its tier. */
export interface TitleHit {
  readonly sessions: AgentSessions;
  readonly slot: number;
  readonly tier: number;
}

/** One query's title search over the shown agents: their runs, scanned in slices, and the best hits merged. */
export class TitleSearch {
  private hitsCache: { versions: string; hits: TitleHit[] } | undefined;

  constructor(
    readonly query: string,
    readonly words: readonly string[],
    readonly runs: readonly TitleSearchRun[],
  ) {}

  get finished(): boolean {
    return this.runs.every((run) => run.finished);
  }

  /** Whether every match was found (no run stopped early). */
  get exhaustive(): boolean {
    return this.runs.every((run) => run.exhaustive);
  }

  /** Scans each unfinished run in turn until all are done or `expired()` (each slice makes progress, whatever the clock says). */
  scan(expired: () => boolean): void {
    let scanned = false;
    for (const run of this.runs) {
      if (run.finished) continue;
      if (scanned && expired()) return;
      run.scan(expired);
      scanned = true;
    }
  }

  /** How many sessions matched so far (a lower bound until {@link exhaustive}). */
  matched(): number {
    return this.runs.reduce((sum, run) => sum + run.matched(), 0);
  }

  /** The best {@link MAX_RESULTS} matches so far: by tier, then newest first across agents. */
  hits(): TitleHit[] {
    const versions = this.runs.map((run) => `${run.version}:${run.finished}:${run.sessions.stamp}`).join(',');
    if (this.hitsCache?.versions === versions) return this.hitsCache.hits;
    const hits: TitleHit[] = [];
    const tiers = Math.max(0, ...this.runs.map((run) => run.tierCount));
    for (let tier = 0; tier < tiers && hits.length < MAX_RESULTS; tier++) {
      const parts: TierPart[] = this.runs.map((run) => ({ run, settled: run.settled(tier), next: 0 }));
      while (hits.length < MAX_RESULTS) {
        // The newest head among the agents' lists of this tier (a handful of agents: a linear pick).
        let best: TierPart | undefined;
        for (const part of parts) {
          if (!part.settled || part.next >= part.settled.count) continue;
          if (!best || before(part, best)) best = part;
        }
        if (!best) break;
        hits.push({ sessions: best.run.sessions, slot: best.settled!.slots.at(best.next), tier });
        best.next++;
      }
    }
    this.hitsCache = { versions, hits };
    return hits;
  }

  dispose(): void {
    for (const run of this.runs) run.dispose();
  }
}

interface TierPart {
  readonly run: TitleSearchRun;
  readonly settled: { readonly slots: SortedSlots; readonly count: number } | undefined;
  next: number;
}

function before(a: TierPart, b: TierPart): boolean {
  return AgentSessions.before(a.run.sessions, a.settled!.slots.at(a.next), b.run.sessions, b.settled!.slots.at(b.next));
}
