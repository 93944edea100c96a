/**
 * One agent's sessions as `session/list` reports them. The method can only filter by exact `cwd` and pages
 * with opaque cursors, so the catalog keeps several sources (unfiltered, and one per folder), pages through
 * whichever a view needs, merges everything by `sessionId` and leaves scoping and search to the client.
 *
 * Cursors live only in memory for the current paging run: never stored, parsed or changed. A failing page
 * keeps what was loaded and waits for a retry; a retry after the agent rejected a cursor starts that source
 * again from its first page (duplicates merge away). A page whose caller cancelled it (background paging
 * stopped) is no failure: the source stays where it was, and a page the agent still answers is kept.
 */
import type { SessionInfo } from '../acp/schema';

export interface ListPage {
  readonly sessions: readonly SessionInfo[];
  readonly nextCursor?: string | null;
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
  private readonly byId = new Map<string, CatalogEntry>();
  private readonly sources = new Map<string, SourceState>();
  private readonly listeners = new Set<() => void>();
  private loading: Promise<boolean> | undefined;
  private generation = 0;
  /** Bumped on every change; views memoize on it. */
  version = 0;

  constructor(
    readonly agentName: string,
    private readonly lister: Lister,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  get isLoading(): boolean {
    return this.loading !== undefined;
  }

  entries(): CatalogEntry[] {
    return [...this.byId.values()];
  }

  get(sessionId: string): CatalogEntry | undefined {
    return this.byId.get(sessionId);
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
        state.error = error instanceof Error ? error.message : String(error);
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
    this.byId.clear();
    this.sources.clear();
    this.loading = undefined;
    this.changed();
  }

  /** A session the client created, opened or renamed: shown at once, without waiting for a listing. */
  upsert(entry: Partial<CatalogEntry> & Pick<CatalogEntry, 'sessionId'>): void {
    const existing = this.byId.get(entry.sessionId);
    if (!existing && entry.cwd === undefined) return;
    const next: CatalogEntry = { ...existing, ...definedOnly(entry) } as CatalogEntry;
    this.byId.set(entry.sessionId, next);
    this.changed();
  }

  remove(sessionId: string): void {
    if (this.byId.delete(sessionId)) this.changed();
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

  private merge(info: SessionInfo): void {
    const existing = this.byId.get(info.sessionId);
    const updatedAt = info.updatedAt ? Date.parse(info.updatedAt) : Number.NaN;
    const incoming: CatalogEntry = {
      sessionId: info.sessionId,
      cwd: info.cwd,
      ...(info.additionalDirectories ? { additionalDirectories: [...info.additionalDirectories] } : {}),
      ...(info.title ? { title: info.title } : {}),
      ...(Number.isFinite(updatedAt) ? { updatedAt } : {}),
      ...(info._meta ? { meta: info._meta } : {}),
    };
    // The same session can arrive from several sources and pages; the most recently updated copy wins.
    if (existing && (existing.updatedAt ?? 0) > (incoming.updatedAt ?? 0)) return;
    this.byId.set(info.sessionId, existing ? { ...existing, ...incoming } : incoming);
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

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The unfiltered list (undefined) or the list filtered by one exact cwd. */
function sourceKey(source: string | undefined): string {
  return source === undefined ? '' : `cwd:${source}`;
}
