/**
 * One agent's part of the Sessions view, kept up to date incrementally: every session the agent lists (its
 * catalog; when it lists none, the client's own records of it), with what the list needs of each session in
 * columns by slot (its time, its title's character mask, its root list, pinned and hidden), and the sessions
 * in order, newest first: all of them, and those of the current scope. A session's title is the catalog's
 * own string (no copy) unless the client's record or cleaning changed it.
 *
 * {@link AgentSessions.sync} reads what changed in the catalog and in the records since the last call (their
 * journals) and updates only those sessions: O(changed sessions) plus one move in each ordered list. The full
 * SessionView of a session is built only when a row shows it ({@link AgentSessions.viewAt}).
 */
import type { AgentCatalog } from './catalog';
import type { JournalCursor } from './changeJournal';
import type { LocalRecord, LocalSessionIndex } from './localIndex';
import { RootLists, type RootList } from './rootLists';
import { writeMasks } from './search';
import { cleanTitle } from './sessionTitle';
import { viewOf, type SessionView } from './sessionView';
import { SortedSlots, type SlotOrder } from './sortedSlots';

/** Where a slot was in the order (its key, copied), so a position survives the slot changing. */
export interface SlotKey {
  readonly time: number;
  readonly slot: number;
}

/** Told about changes to an agent's sessions, in two steps so ordered lists can find a slot by its old key. */
export interface SlotListener {
  /** These slots are about to change or go (their old keys are still in place). */
  beforeChange(slots: readonly number[]): void;
  /** These slots changed (some may be gone: see {@link AgentSessions.alive}). */
  afterChange(slots: readonly number[]): void;
}

const ALIVE = 1;
const TITLED = 2;
const PINNED = 4;
const HIDDEN = 8;
/** Only while rebuilding: the slot has a record. */
const RECORDED = 16;
/** The title is not the catalog's (a record's, or cleaned): it is in `ownTitles`. */
const OWN_TITLE = 32;

const NO_DIRECTORIES: readonly string[] = Object.freeze([]);

export class AgentSessions {
  private source: AgentCatalog | undefined | null = null;
  private catalogCursor: JournalCursor | undefined;
  private indexCursor: JournalCursor | undefined;
  /** Without a catalog, the records have slots of their own. */
  private localSlots = new Map<string, number>();
  private localIds: (string | undefined)[] = [];
  private localFree: number[] = [];

  // Columns by slot.
  private times = new Float64Array(16);
  private masks = new Uint32Array(16);
  private startMasks = new Uint32Array(16);
  private flags = new Uint8Array(16);
  private rootIds = new Int32Array(16);
  /** The client's records of the sessions that have one (a few thousand at most). */
  private records = new Map<number, LocalRecord>();
  /** Titles that are not the catalog's own string (sessions with a record, titles that needed cleaning). */
  private ownTitles = new Map<number, string>();
  private rootLists = new RootLists();

  /** Newest first (then in the order they were listed): every session. */
  readonly all: SortedSlots;
  /** The same order: the sessions of the current scope (see {@link setScope}). */
  readonly scoped: SortedSlots;
  private scopeKey: string | undefined;
  private scopeTest: (roots: RootList) => boolean = () => false;
  private showHidden = false;
  /** Per root list: 0 not decided yet, 1 out of scope, 2 in scope. */
  private membership = new Uint8Array(16);
  private readonly listeners = new Set<SlotListener>();
  private spareBytes: Uint8Array[] = [];
  private withText: { key: string; count: number } | undefined;
  /** Bumped on every change of the sessions; caches key on it. */
  stamp = 0;
  /** Bumped when the scoped list is rebuilt. */
  scopeGeneration = 0;
  /** Bumped when everything is rebuilt: slots name other sessions now (searches start over). */
  slotGeneration = 0;
  /** How often everything was rebuilt, and how many sessions were updated one by one (tests and benchmarks read it). */
  readonly work = { rebuilds: 0, updated: 0, scopes: 0 };

  /**
   * Newest first, sessions without a time last; equal times in the order the sessions were listed (by slot):
   * never two equal, and keyed only by what this class keeps (a slot is found by its old key while it changes).
   */
  readonly order: SlotOrder = (a, b) => {
    const ta = this.times[a]!;
    const tb = this.times[b]!;
    if (ta !== tb) return ta > tb ? -1 : 1;
    return a - b;
  };

  constructor(
    readonly agentName: string,
    private readonly index: LocalSessionIndex,
  ) {
    this.all = new SortedSlots(this.order);
    this.scoped = new SortedSlots(this.order);
  }

  /**
   * A zeroed byte per slot for a search's state. Searches come and go with every keystroke; at a million
   * sessions a fresh megabyte each time makes the garbage collector run in the middle of a keystroke, so
   * buffers are reused ({@link releaseBytes} gives one back).
   */
  borrowBytes(): Uint8Array {
    const capacity = this.flags.length;
    let bytes = this.spareBytes.pop();
    while (bytes && bytes.length < capacity) bytes = this.spareBytes.pop();
    if (!bytes) return new Uint8Array(capacity);
    bytes.fill(0);
    return bytes;
  }

  releaseBytes(bytes: Uint8Array): void {
    if (this.spareBytes.length < 2 && bytes.length >= this.flags.length) this.spareBytes.push(bytes);
  }

  /** Follows a listener's changes until it is disposed. */
  listen(listener: SlotListener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /**
   * Catches up with the agent's catalog (undefined: it lists nothing, its records are its history) and the
   * records. True when something changed.
   */
  sync(catalog: AgentCatalog | undefined): boolean {
    if (catalog !== this.source || this.catalogCursor === undefined || this.indexCursor === undefined) {
      this.rebuild(catalog);
      return true;
    }
    const fromCatalog = catalog ? catalog.changes.since(this.catalogCursor) : [];
    const fromIndex = this.index.recordChanges.since(this.indexCursor);
    if (fromCatalog === undefined || fromIndex === undefined) {
      this.rebuild(catalog);
      return true;
    }
    this.catalogCursor = catalog ? catalog.changes.cursor : this.catalogCursor;
    this.indexCursor = this.index.recordChanges.cursor;
    const changed = new Set<number>(fromCatalog);
    const prefix = `${this.agentName}\u0000`;
    for (const key of fromIndex) {
      if (!key.startsWith(prefix)) continue;
      const sessionId = key.slice(prefix.length);
      const slot = catalog ? catalog.slotOf(sessionId) : this.localSlot(sessionId);
      if (slot !== undefined) changed.add(slot);
    }
    if (changed.size === 0) return false;
    this.apply([...changed]);
    return true;
  }

  /** Whether these are the sessions of `catalog` (undefined: of the records alone), as of the last sync. */
  follows(catalog: AgentCatalog | undefined): boolean {
    return this.source === catalog;
  }

  /** One more than the highest slot. */
  get capacity(): number {
    return this.flags.length;
  }

  /** Whether a slot holds a session. */
  alive(slot: number): boolean {
    return slot < this.flags.length && (this.flags[slot]! & ALIVE) !== 0;
  }

  /** Whether the session in a slot is in the current scope (and shown: not hidden, unless hidden ones are). */
  inScope(slot: number): boolean {
    const flags = this.flags[slot]!;
    if ((flags & ALIVE) === 0 || (!this.showHidden && (flags & HIDDEN) !== 0)) return false;
    return this.member(this.rootIds[slot]!);
  }

  /**
   * Sets the scope (`key` names it: the same key keeps the current list): the sessions whose root list
   * `test` takes, hidden ones only when `showHidden`. True when the scoped list was rebuilt.
   */
  setScope(key: string, test: (roots: RootList) => boolean, showHidden: boolean): boolean {
    if (key === this.scopeKey) return false;
    this.scopeKey = key;
    this.scopeTest = test;
    this.showHidden = showHidden;
    this.membership = new Uint8Array(Math.max(16, this.rootLists.size));
    this.scoped.filterFrom(this.all, (slot) => this.inScope(slot));
    this.scopeGeneration++;
    this.work.scopes++;
    return true;
  }

  /** A slot's place in the order as it is now (kept by a search as where it stopped). */
  keyOf(slot: number): SlotKey {
    return { time: this.times[slot]!, slot };
  }

  /** Whether a slot comes at or before `key` in the order. */
  atOrBefore(slot: number, key: SlotKey): boolean {
    const time = this.times[slot]!;
    if (time !== key.time) return time > key.time;
    return slot <= key.slot;
  }

  /** Whether `a` comes strictly before `b` across agents (newer): how searches merge their hits. */
  static before(a: AgentSessions, slotA: number, b: AgentSessions, slotB: number): boolean {
    return a.times[slotA]! > b.times[slotB]!;
  }

  timeAt(slot: number): number | undefined {
    const time = this.times[slot]!;
    return time === -Infinity ? undefined : time;
  }

  /** The title searched ('' when the session has only a placeholder title). */
  titleAt(slot: number): string {
    const flags = this.flags[slot]!;
    if ((flags & TITLED) === 0) return '';
    return (flags & OWN_TITLE) !== 0 ? this.ownTitles.get(slot)! : this.source!.titleAt(slot)!;
  }

  maskAt(slot: number): number {
    return this.masks[slot]!;
  }

  /** Which characters begin a word of the title (see search.ts). */
  wordStartsAt(slot: number): number {
    return this.startMasks[slot]!;
  }

  /** The character masks by slot (valid until the next change: a search reads it within one slice). */
  maskColumn(): Uint32Array {
    return this.masks;
  }

  pinned(slot: number): boolean {
    return (this.flags[slot]! & PINNED) !== 0;
  }

  sessionIdAt(slot: number): string | undefined {
    return this.source ? this.source.sessionIdAt(slot) : this.localIds[slot];
  }

  slotOf(sessionId: string): number | undefined {
    return this.source ? this.source.slotOf(sessionId) : this.localSlots.get(sessionId);
  }

  /** The session in a slot as the view shows it (built on demand: only shown rows and actions need it). */
  viewAt(slot: number): SessionView | undefined {
    if (!this.alive(slot)) return undefined;
    return viewOf(this.agentName, this.source ? this.source.entryAt(slot) : undefined, this.records.get(slot));
  }

  /** The pinned sessions of the scope, in order. */
  pinnedInScope(): number[] {
    const pinned: number[] = [];
    for (const slot of this.records.keys()) if (this.pinned(slot) && this.inScope(slot)) pinned.push(slot);
    return pinned.sort(this.order);
  }

  /** How many sessions of the scope have transcript text recorded (kept until they, the scope or the records change). */
  withTextInScope(): number {
    const key = `${this.stamp}:${this.scopeGeneration}:${this.index.version}`;
    if (this.withText?.key === key) return this.withText.count;
    let count = 0;
    for (const [slot, record] of this.records) {
      if (!this.inScope(slot)) continue;
      // A record gaining text is not in the journal (only the index's version says so): read it again.
      if (record.hasText || this.index.get(this.agentName, record.sessionId)?.hasText) count++;
    }
    this.withText = { key, count };
    return count;
  }

  // ---- updating -------------------------------------------------------------------------------------

  private rebuild(catalog: AgentCatalog | undefined): void {
    this.work.rebuilds++;
    this.source = catalog;
    this.catalogCursor = catalog ? catalog.changes.cursor : { epoch: 0, position: 0 };
    this.indexCursor = this.index.recordChanges.cursor;
    this.records = new Map();
    this.ownTitles = new Map();
    this.rootLists = new RootLists();
    this.spareBytes = [];
    this.localSlots = new Map();
    this.localIds = [];
    this.localFree = [];
    const ownRecords = this.index.forAgent(this.agentName);
    const capacity = catalog ? catalog.capacity : ownRecords.length;
    // Room for a few more pages before the columns grow.
    this.times = new Float64Array(Math.max(16, capacity + (capacity >> 4)));
    this.masks = new Uint32Array(this.times.length);
    this.startMasks = new Uint32Array(this.times.length);
    this.flags = new Uint8Array(this.times.length);
    this.rootIds = new Int32Array(this.times.length);
    for (const record of ownRecords) {
      const slot = catalog ? catalog.slotOf(record.sessionId) : this.localSlot(record.sessionId);
      if (slot === undefined) continue;
      this.records.set(slot, record);
      this.flags[slot] = RECORDED;
    }
    const alive: number[] = [];
    let sorted = true;
    for (let slot = 0; slot < capacity; slot++) {
      if (catalog && (this.flags[slot]! & RECORDED) === 0) {
        // Most sessions: only what the agent listed, read straight from the catalog's columns.
        if (catalog.sessionIdAt(slot) === undefined) {
          this.times[slot] = -Infinity;
          continue;
        }
        this.loadListed(catalog, slot);
      } else {
        this.load(slot);
        if (!this.alive(slot)) continue;
      }
      // Agents list newest first, so the slots usually come in order already: then nothing needs sorting.
      if (sorted && alive.length > 0 && this.order(alive[alive.length - 1]!, slot) > 0) sorted = false;
      alive.push(slot);
    }
    if (sorted) this.all.resetSorted(alive);
    else this.all.reset(alive);
    this.scoped.clear();
    this.scopeKey = undefined;
    this.scopeGeneration++;
    this.slotGeneration++;
    this.stamp++;
  }

  private apply(changed: number[]): void {
    this.work.updated += changed.length;
    const present = changed.filter((slot) => this.alive(slot));
    this.all.remove(present);
    this.scoped.remove(present);
    for (const listener of this.listeners) listener.beforeChange(present);
    for (const slot of changed) this.load(slot, true);
    const alive = changed.filter((slot) => this.alive(slot));
    this.all.insert(alive);
    if (this.scopeKey !== undefined) this.scoped.insert(alive.filter((slot) => this.inScope(slot)));
    for (const slot of changed) {
      if (this.source || this.alive(slot)) continue;
      // A record that went: its local slot is free for the next one.
      const sessionId = this.localIds[slot];
      if (sessionId !== undefined) this.localSlots.delete(sessionId);
      this.localIds[slot] = undefined;
      this.localFree.push(slot);
    }
    for (const listener of this.listeners) listener.afterChange(changed);
    this.stamp++;
  }

  /** Fills a slot's columns from the catalog and the record (looked up again when `lookUp`). */
  private load(slot: number, lookUp = false): void {
    this.ensure(slot + 1);
    const catalog = this.source;
    const sessionId = catalog ? catalog.sessionIdAt(slot) : this.localIds[slot];
    let record: LocalRecord | undefined;
    if (lookUp) {
      record = sessionId === undefined ? undefined : this.index.get(this.agentName, sessionId);
      if (record) this.records.set(slot, record);
      else this.records.delete(slot);
    } else if ((this.flags[slot]! & RECORDED) !== 0) record = this.records.get(slot);
    if ((this.flags[slot]! & OWN_TITLE) !== 0) this.ownTitles.delete(slot);
    if (sessionId === undefined || (!catalog && !record)) {
      this.flags[slot] = 0;
      this.times[slot] = -Infinity;
      return;
    }
    if (catalog && !record) {
      this.loadListed(catalog, slot);
      return;
    }
    const view = viewOf(this.agentName, catalog?.entryAt(slot), record)!;
    if (view.titled) this.ownTitles.set(slot, view.title);
    if (view.titled) writeMasks(view.title, this.masks, this.startMasks, slot);
    else this.masks[slot] = this.startMasks[slot] = 0;
    this.times[slot] = view.updatedAt ?? -Infinity;
    this.rootIds[slot] = this.rootLists.idOf(view.cwd, view.additionalDirectories);
    this.flags[slot] = ALIVE | (view.titled ? TITLED | OWN_TITLE : 0) | (view.pinned ? PINNED : 0) | (view.hidden ? HIDDEN : 0);
  }

  /** A session only the agent's listing knows (no record): no object is made for it, a clean title is not copied. */
  private loadListed(catalog: AgentCatalog, slot: number): void {
    const raw = catalog.titleAt(slot);
    const title = cleanTitle(raw);
    let flags = ALIVE;
    if (title === undefined) this.masks[slot] = this.startMasks[slot] = 0;
    else {
      flags |= TITLED;
      if (title !== raw) {
        flags |= OWN_TITLE;
        this.ownTitles.set(slot, title);
      }
      writeMasks(title, this.masks, this.startMasks, slot);
    }
    this.times[slot] = catalog.updatedAtAt(slot) ?? -Infinity;
    this.rootIds[slot] = this.rootLists.idOf(catalog.cwdAt(slot), catalog.directoriesAt(slot) ?? NO_DIRECTORIES);
    this.flags[slot] = flags;
  }

  /** The local slot of a session the agent does not list (a new one when a record for it exists). */
  private localSlot(sessionId: string): number | undefined {
    const known = this.localSlots.get(sessionId);
    if (known !== undefined) return known;
    if (!this.index.get(this.agentName, sessionId)) return undefined;
    const slot = this.localFree.pop() ?? this.localIds.length;
    this.localIds[slot] = sessionId;
    this.localSlots.set(sessionId, slot);
    return slot;
  }

  private member(rootId: number): boolean {
    if (rootId >= this.membership.length) {
      const grown = new Uint8Array(Math.max(rootId + 1, this.membership.length * 2));
      grown.set(this.membership);
      this.membership = grown;
    }
    let decided = this.membership[rootId]!;
    if (decided === 0) {
      decided = this.scopeTest(this.rootLists.at(rootId)) ? 2 : 1;
      this.membership[rootId] = decided;
    }
    return decided === 2;
  }

  private ensure(capacity: number): void {
    if (capacity <= this.times.length) return;
    // Half again, not double: at a million sessions each column is megabytes.
    const size = Math.max(capacity, Math.ceil(this.times.length * 1.5));
    const grow = <T extends Float64Array | Uint32Array | Uint8Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(old);
      return next;
    };
    this.times = grow(this.times, (n) => new Float64Array(n));
    this.masks = grow(this.masks, (n) => new Uint32Array(n));
    this.startMasks = grow(this.startMasks, (n) => new Uint32Array(n));
    this.flags = grow(this.flags, (n) => new Uint8Array(n));
    this.rootIds = grow(this.rootIds, (n) => new Int32Array(n));
  }
}
