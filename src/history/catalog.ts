/**
 * One agent's sessions as `session/list` reports them. The method can only filter by exact `cwd` and pages
 * with opaque cursors, so the catalog keeps several sources (unfiltered, and one per folder), pages through
 * whichever a view needs, merges everything by `sessionId` and leaves scoping and search to the client.
 *
 * Cursors live only in memory for the current paging run: never stored, parsed or changed. A failing page
 * keeps what was loaded and waits for a retry; a retry after the agent rejected a cursor starts that source
 * again from its first page (duplicates merge away). A page whose caller cancelled it (background paging
 * stopped) is no failure: the source stays where it was, and a page the agent still answers is kept.
 *
 * Built for a million sessions: fields are kept in columns by slot (folders and folder lists interned), a page
 * merges in O(page) and notes only the sessions that actually changed in {@link AgentCatalog.changes}, so the
 * Sessions model follows the catalog without copying it.
 */
import type { ListedSession } from '../acp/port/agentConnection';
import { ChangeJournal } from './changeJournal';
import { errorMessage } from '../common/errors';

export interface ListPage {
  readonly sessions: readonly ListedSession[];
  readonly nextCursor?: string;
}

/**
 * `session/list` for one agent (the connection's, in the extension). An aborted `signal` asks the agent to
 * cancel the request (`$/cancel_request`); the promise still settles with what the agent answers.
 */
export type Lister = (params: { cwd?: string; cursor?: string }, signal?: AbortSignal) => Promise<ListPage>;

export interface CatalogEntry {
  readonly sessionId: string;
  readonly cwd: string;
  /** The authoritative ordered list when the agent gave one; undefined when it did not say. */
  readonly additionalDirectories?: readonly string[];
  readonly title?: string;
  /** Epoch ms, when the agent gave a readable time. */
  readonly updatedAt?: number;
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** Which pages a view needs, in order: `undefined` = the unfiltered list, a path = `cwd` filter. */
export type SourcePlan = readonly (string | undefined)[];

interface SourceState {
  cursor: string | undefined;
  pages: number;
  done: boolean;
  error: string | undefined;
  /** The agent rejected the request's parameters (most likely the cursor): a retry starts over. */
  restart: boolean;
}

/** Upper bound of pages read from one source, so an agent that never ends its list cannot loop us forever. */
export const MAX_PAGES_PER_SOURCE = 10_000;

/** An error from the lister: its JSON-RPC code tells an invalid cursor (-32602) from other failures. */
function errorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

export class AgentCatalog {
  /** Sessions by id: the slot their fields are kept in. */
  private readonly slots = new Map<string, number>();
  // One column per field, indexed by slot (a removed session's slot is reused): at a million sessions, a
  // few arrays cost far less than an object per session, and readers (the Sessions model) follow a slot
  // without allocating anything.
  private ids: (string | undefined)[] = [];
  private cwds: string[] = [];
  private directories: (readonly string[] | undefined)[] = [];
  private titles: (string | undefined)[] = [];
  /** Epoch ms; NaN when the agent gave no readable time. */
  private times = new Float64Array(64);
  /** Only once an agent sends `_meta` (most send none: a million empty slots would still cost 4 MB). */
  private metas: (Readonly<Record<string, unknown>> | undefined)[] | undefined;
  private free: number[] = [];
  private readonly interned = new Interned();
  private readonly sources = new Map<string, SourceState>();
  private readonly listeners = new Set<() => void>();
  private loading: Promise<boolean> | undefined;
  private generation = 0;
  /** Bumped on every change (entries, loading, errors); views memoize on it. */
  version = 0;
  /** The slots whose session was added, changed or removed, for readers that follow the catalog incrementally. */
  readonly changes = new ChangeJournal<number>(() => this.slots.size);

  constructor(
    readonly agentName: string,
    private readonly lister: Lister,
  ) {}

  get size(): number {
    return this.slots.size;
  }

  get isLoading(): boolean {
    return this.loading !== undefined;
  }

  /** One more than the highest slot in use: slots are `0 … capacity - 1`, some of them free. */
  get capacity(): number {
    return this.ids.length;
  }

  /** A copy of one session's fields (callers that follow many sessions read the slot accessors instead). */
  get(sessionId: string): CatalogEntry | undefined {
    const slot = this.slots.get(sessionId);
    return slot === undefined ? undefined : this.entryAt(slot);
  }

  /** The slot a session's fields are kept in. */
  slotOf(sessionId: string): number | undefined {
    return this.slots.get(sessionId);
  }

  /** The session in a slot; undefined when the slot is free. */
  sessionIdAt(slot: number): string | undefined {
    return this.ids[slot];
  }

  cwdAt(slot: number): string {
    return this.cwds[slot]!;
  }

  /** The agent's ordered list of other roots (interned: the same list is the same array); undefined when it did not say. */
  directoriesAt(slot: number): readonly string[] | undefined {
    return this.directories[slot];
  }

  titleAt(slot: number): string | undefined {
    return this.titles[slot];
  }

  /** Epoch ms, or undefined when the agent gave no readable time. */
  updatedAtAt(slot: number): number | undefined {
    const time = this.times[slot]!;
    return Number.isNaN(time) ? undefined : time;
  }

  entryAt(slot: number): CatalogEntry | undefined {
    const sessionId = this.ids[slot];
    if (sessionId === undefined) return undefined;
    const additionalDirectories = this.directories[slot];
    const title = this.titles[slot];
    const updatedAt = this.updatedAtAt(slot);
    const meta = this.metas?.[slot];
    return {
      sessionId,
      cwd: this.cwds[slot]!,
      ...(additionalDirectories !== undefined ? { additionalDirectories } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(updatedAt !== undefined ? { updatedAt } : {}),
      ...(meta !== undefined ? { meta } : {}),
    };
  }

  /** True when `plan` still has pages to read (everything is read once the unfiltered list is complete). */
  hasMore(plan: SourcePlan): boolean {
    return this.next(plan) !== null;
  }

  /** The error that stops `plan` from loading further, if any. */
  errorFor(plan: SourcePlan): string | undefined {
    const source = this.next(plan);
    return source === null ? undefined : this.state(source)?.error;
  }

  /**
   * Reads the next page `plan` needs. Resolves true when a page arrived; false when there is nothing left,
   * a page failed (see {@link errorFor}), the catalog was reset meanwhile, or `signal` aborted before the
   * agent answered (that is no failure: the source stays where it was). One page at a time.
   */
  loadMore(plan: SourcePlan, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.loading) return this.loading.then(() => this.loadMore(plan, signal));
    const source = this.next(plan);
    if (source === null) return Promise.resolve(false);
    const state = this.ensure(source);
    if (state.error !== undefined) return Promise.resolve(false);
    const generation = this.generation;
    const params = { ...(source !== undefined ? { cwd: source } : {}), ...(state.cursor !== undefined ? { cursor: state.cursor } : {}) };
    const request = this.lister(params, signal).then(
      (page) => {
        if (generation !== this.generation) return false;
        this.receive(state, page);
        return true;
      },
      (error: unknown) => {
        if (generation !== this.generation) return false;
        // The caller cancelled it (the agent answered -32800, or the request never went out): the cursor
        // still points at this page, so paging can go on from here later.
        if (signal?.aborted) {
          this.changed();
          return false;
        }
        state.error = errorMessage(error);
        state.restart = errorCode(error) === -32602 && state.cursor !== undefined;
        this.changed();
        return false;
      },
    );
    this.loading = request.finally(() => {
      this.loading = undefined;
    });
    this.changed();
    return this.loading;
  }

  /** Clears the error of the source `plan` is stuck on, so paging can go on (from the start after a cursor error). */
  retry(plan: SourcePlan): void {
    const source = this.next(plan);
    if (source === null) return;
    const state = this.state(source);
    if (!state?.error) return;
    if (state.restart) {
      state.cursor = undefined;
      state.pages = 0;
    }
    state.error = undefined;
    state.restart = false;
    this.changed();
  }

  /**
   * Reads the first page of the plan's first source again and merges it (sessions created elsewhere since
   * appear; nothing loaded is dropped, and paging state is left alone). Failures are ignored: this is a
   * courtesy refresh, and the list still shows what it had.
   */
  async refreshFirstPage(plan: SourcePlan): Promise<void> {
    const source = plan[0];
    const generation = this.generation;
    try {
      const page = await this.lister(source !== undefined ? { cwd: source } : {});
      if (generation !== this.generation) return;
      for (const info of page.sessions) this.merge(info);
      this.changed();
    } catch {
      // Keep what is shown; the next explicit load reports errors.
    }
  }

  /** Forgets everything loaded (the refresh button); the next {@link loadMore} starts from the first page. */
  reset(): void {
    this.generation++;
    this.slots.clear();
    this.ids = [];
    this.cwds = [];
    this.directories = [];
    this.titles = [];
    this.times = new Float64Array(64);
    this.metas = undefined;
    this.free = [];
    this.interned.clear();
    this.changes.clear();
    this.sources.clear();
    this.loading = undefined;
    this.changed();
  }

  /** A session the client created, opened or renamed: shown at once, without waiting for a listing. */
  upsert(entry: Partial<CatalogEntry> & Pick<CatalogEntry, 'sessionId'>): void {
    let slot = this.slots.get(entry.sessionId);
    if (slot === undefined) {
      if (entry.cwd === undefined) return;
      slot = this.allocate(entry.sessionId, entry.cwd);
    } else if (entry.cwd !== undefined) this.cwds[slot] = this.interned.string(entry.cwd);
    if (entry.additionalDirectories !== undefined) this.directories[slot] = this.interned.list(entry.additionalDirectories);
    if (entry.title !== undefined) this.titles[slot] = entry.title;
    if (entry.updatedAt !== undefined) this.times[slot] = entry.updatedAt;
    if (entry.meta !== undefined) this.setMeta(slot, entry.meta);
    this.changes.note(slot);
    this.changed();
  }

  remove(sessionId: string): void {
    const slot = this.slots.get(sessionId);
    if (slot === undefined) return;
    this.slots.delete(sessionId);
    this.ids[slot] = undefined;
    this.cwds[slot] = '';
    this.directories[slot] = undefined;
    this.titles[slot] = undefined;
    this.times[slot] = Number.NaN;
    if (this.metas) this.metas[slot] = undefined;
    this.free.push(slot);
    this.changes.note(slot);
    this.changed();
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private receive(state: SourceState, page: ListPage): void {
    for (const info of page.sessions) this.merge(info);
    state.pages++;
    const next = page.nextCursor ?? undefined;
    // An agent that hands back the cursor it was given would page forever: stop there.
    state.done = next === undefined || next === state.cursor || state.pages >= MAX_PAGES_PER_SOURCE;
    state.cursor = state.done ? undefined : next;
    this.changed();
  }

  /** One listed session: added, or merged into the copy we have (only what actually changed is noted). */
  private merge(info: ListedSession): void {
    const time = info.updatedAt ? parseTime(info.updatedAt) : Number.NaN;
    let slot = this.slots.get(info.sessionId);
    const directories = info.additionalDirectories ? this.interned.list(info.additionalDirectories) : undefined;
    if (slot === undefined) {
      slot = this.allocate(info.sessionId, info.cwd);
    } else {
      // The same session can arrive from several sources and pages; the most recently updated copy wins.
      const known = this.times[slot]!;
      if ((Number.isNaN(known) ? 0 : known) > (Number.isNaN(time) ? 0 : time)) return;
      const cwd = this.interned.string(info.cwd);
      const same =
        this.cwds[slot] === cwd &&
        (directories === undefined || this.directories[slot] === directories) &&
        (!info.title || this.titles[slot] === info.title) &&
        (Number.isNaN(time) || this.times[slot] === time) &&
        (!info.meta || this.metas?.[slot] === info.meta);
      if (same) return;
      this.cwds[slot] = cwd;
    }
    if (directories !== undefined) this.directories[slot] = directories;
    if (info.title) this.titles[slot] = info.title;
    if (!Number.isNaN(time)) this.times[slot] = time;
    if (info.meta) this.setMeta(slot, info.meta);
    this.changes.note(slot);
  }

  /** A slot for a new session, with its id and working folder set and everything else unknown. */
  private allocate(sessionId: string, cwd: string): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.ids.length;
      if (slot === this.times.length) {
        const grown = new Float64Array(Math.ceil(this.times.length * 1.5));
        grown.set(this.times);
        this.times = grown;
      }
      this.ids.push(sessionId);
      this.cwds.push(this.interned.string(cwd));
      this.directories.push(undefined);
      this.titles.push(undefined);
    } else {
      this.ids[slot] = sessionId;
      this.cwds[slot] = this.interned.string(cwd);
      if (this.metas) this.metas[slot] = undefined;
    }
    this.times[slot] = Number.NaN;
    this.slots.set(sessionId, slot);
    return slot;
  }

  private setMeta(slot: number, meta: Readonly<Record<string, unknown>>): void {
    this.metas ??= [];
    while (this.metas.length < slot) this.metas.push(undefined);
    this.metas[slot] = meta;
  }

  /** The first source of `plan` that is not complete, or null when none (or the unfiltered list is complete). */
  private next(plan: SourcePlan): string | undefined | null {
    if (this.state(undefined)?.done) return null;
    for (const source of plan) if (!this.state(source)?.done) return source;
    return null;
  }

  private state(source: string | undefined): SourceState | undefined {
    return this.sources.get(sourceKey(source));
  }

  private ensure(source: string | undefined): SourceState {
    const key = sourceKey(source);
    let state = this.sources.get(key);
    if (!state) {
      state = { cursor: undefined, pages: 0, done: false, error: undefined, restart: false };
      this.sources.set(key, state);
    }
    return state;
  }

  private changed(): void {
    this.version++;
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * Folders and folder lists are shared by many sessions (a million sessions may have a handful of working
 * folders): each distinct one is kept once, so equal lists are the same frozen array. Lists are found
 * through a tree of their folders, one map lookup per folder and no key string built.
 */
class Interned {
  private readonly strings = new Map<string, string>();
  private lists: ListNode = { next: new Map() };

  string(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  list(values: readonly string[]): readonly string[] {
    if (values.length === 0) return NO_DIRECTORIES;
    let node = this.lists;
    for (const value of values) {
      let child = node.next.get(value);
      if (!child) {
        child = { next: new Map() };
        node.next.set(value, child);
      }
      node = child;
    }
    return (node.list ??= Object.freeze(values.map((value) => this.string(value))));
  }

  clear(): void {
    this.strings.clear();
    this.lists = { next: new Map() };
  }
}

interface ListNode {
  list?: readonly string[];
  readonly next: Map<string, ListNode>;
}

/**
 * `Date.parse` for the times agents send, with a fast path for the usual ISO form
 * (`2026-11-02T10:00:00.000Z`): parsing a million of them is a good part of merging a million sessions.
 * Anything else, or anything out of range, goes to `Date.parse`, so the result is always the same.
 */
export function parseTime(text: string): number {
  if (text.length < 20 || text.length > 30 || text.charCodeAt(text.length - 1) !== 90 /* Z */) return Date.parse(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const separated =
    text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && text.charCodeAt(10) === 84 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58;
  if (
    !separated ||
    year < 1000 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59
  )
    return Date.parse(text);
  let ms = 0;
  const end = text.length - 1;
  if (end > 19) {
    // A fraction: '.', then digits; milliseconds are its first three (the rest is cut off, as Date.parse does).
    if (text.charCodeAt(19) !== 46 || end === 20) return Date.parse(text);
    const fraction = digits(text, 20, end - 20);
    if (fraction < 0) return Date.parse(text);
    ms = Math.floor(fraction / 10 ** Math.max(0, end - 23)) * 10 ** Math.max(0, 23 - end);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/** The number written by `count` digits at `at`, or -1 when one of them is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

const NO_DIRECTORIES: readonly string[] = Object.freeze([]);

/** The unfiltered list (undefined) or the list filtered by one exact cwd. */
function sourceKey(source: string | undefined): string {
  return source === undefined ? '' : `cwd:${source}`;
}
