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
import { charMask, MAX_RESULTS, tierOf } from './search';
import { SortedSlots } from './sortedSlots';

/** A slot's state in a run: not tested yet (the previous run may know it does not match). */
const UNTESTED = 0;
const NO_MATCH = 1;
/** 2 + tier: matched at that tier. */
const MATCHED = 2;
/** Changed since the run began: not tested yet, and what the previous run knew about it no longer holds. */
const CHANGED = 255;
const MAX_TIER = CHANGED - MATCHED - 1;
/** Titles tested between two looks at the clock (small lists are always searched in one go). */
const CHECK_EVERY = 1024;

/** One agent's scan for one query. */
export class TitleSearchRun implements SlotListener {
  private readonly masks: number[];
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
  /** Scanned to the end of the scope. */
  exhaustive = false;
  /** Stopped once more than {@link MAX_RESULTS} matched at tier 0 (nothing after that point can be shown). */
  stoppedEarly = false;
  /** Titles tested so far (tests and benchmarks read it). */
  tested = 0;
  /** Bumped whenever the matches change. */
  version = 0;
  readonly slotGeneration: number;

  /**
   * @param narrowFrom the run of a query this one extends, over the same slots: sessions it found not to
   *   match are skipped (it stops following changes; this run takes over).
   */
  constructor(
    readonly sessions: AgentSessions,
    readonly words: readonly string[],
    narrowFrom?: TitleSearchRun,
  ) {
    this.masks = words.map(charMask);
    this.state = new Uint8Array(sessions.capacity);
    this.slotGeneration = sessions.slotGeneration;
    if (narrowFrom && narrowFrom.slotGeneration === sessions.slotGeneration && narrowFrom.sessions === sessions) {
      narrowFrom.dispose();
      this.previous = narrowFrom.state;
    }
    this.subscription = sessions.listen(this);
  }

  get finished(): boolean {
    return this.exhaustive || this.stoppedEarly;
  }

  /** Stops following the sessions' changes. */
  dispose(): void {
    this.subscription.dispose();
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

  /** Scans on until done or `expired()` says the time is up (asked every {@link CHECK_EVERY} tests). */
  scan(expired: () => boolean): void {
    if (this.finished) return;
    const scoped = this.sessions.scoped;
    let position = this.positionStamp === this.sessions.stamp ? this.position : this.resumePosition();
    const slots = scoped.view();
    const previous = this.previous;
    let sinceCheck = 0;
    for (; position < slots.length; position++) {
      const slot = slots[position]!;
      const state = this.state[slot]!;
      if (state !== UNTESTED && state !== CHANGED) continue;
      if (state === UNTESTED && previous !== undefined && slot < previous.length && previous[slot] === NO_MATCH) {
        this.state[slot] = NO_MATCH;
        continue;
      }
      const tier = this.test(slot);
      if (tier === 0 && this.tiers[0]!.length > MAX_RESULTS && this.settledBest(slot) > MAX_RESULTS) {
        this.cursor = this.sessions.keyOf(slot);
        this.stoppedEarly = true;
        this.previous = undefined;
        return;
      }
      if (++sinceCheck === CHECK_EVERY) {
        sinceCheck = 0;
        if (expired()) {
          this.cursor = this.sessions.keyOf(slot);
          this.position = position + 1;
          this.positionStamp = this.sessions.stamp;
          return;
        }
      }
    }
    this.exhaustive = true;
    this.previous = undefined;
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
    this.tested++;
    const sessions = this.sessions;
    const mask = sessions.maskAt(slot);
    let tier = 0;
    if (mask === 0) tier = -1;
    else {
      for (let w = 0; w < this.masks.length; w++) {
        const wordMask = this.masks[w]!;
        if ((mask & wordMask) !== wordMask) {
          tier = -1;
          break;
        }
      }
    }
    if (tier === 0) {
      const title = sessions.searchKeyAt(slot);
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
    const grown = new Uint8Array(Math.max(capacity, this.state.length * 2));
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

  /** Scans each unfinished run in turn until all are done or `expired()`. */
  scan(expired: () => boolean): void {
    for (const run of this.runs) {
      if (expired()) return;
      run.scan(expired);
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
