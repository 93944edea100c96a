/**
 * Background paging: while a search (or the user's "Load All") needs more of an agent's sessions than are
 * loaded, this reads that agent's `session/list` pages one after another, without the list being scrolled.
 *
 * Bounded on every side: one page in flight per agent (the next is asked for only once the previous one
 * settled), a pause between pages so the host's other work runs even against an agent that answers at once,
 * a cap on the sessions loaded per agent, and an end when the list is complete, when a page fails (the
 * catalog keeps the error for its Retry), when the list is no longer wanted, or when the user stops it. A
 * stop cancels the page in flight (the connection sends `$/cancel_request`) and keeps what was loaded.
 *
 * Plain Node: it knows lists only through {@link PagedList} (an `AgentCatalog`), and the Sessions view says
 * which lists are wanted ({@link BackgroundPaging.want}) every time what it shows may have changed.
 */
import type { SourcePlan } from './catalog';

/** The part of `AgentCatalog` paging uses. */
export interface PagedList {
  readonly size: number;
  hasMore(plan: SourcePlan): boolean;
  errorFor(plan: SourcePlan): string | undefined;
  /** Resolves true when a page arrived; never rejects. */
  loadMore(plan: SourcePlan, signal?: AbortSignal): Promise<boolean>;
}

/** An agent's list and the sources (scope) it is wanted for. */
export interface PagingTarget {
  readonly agentName: string;
  readonly list: PagedList;
  readonly plan: SourcePlan;
}

/** What the view tells about paging: progress text, the Stop or resume control, each agent's status row. */
export interface PagingProgress {
  /** Some wanted list is paging now. */
  readonly active: boolean;
  /** The user stopped paging and some wanted list has more. */
  readonly stopped: boolean;
  /** Some wanted list reached {@link MAX_BACKGROUND_SESSIONS} with more left. */
  readonly capped: boolean;
  /** Sessions loaded in the wanted lists. */
  readonly loaded: number;
}

/** Paging stops at this many sessions of one agent (a million sessions is the size issue 16 plans for). */
export const MAX_BACKGROUND_SESSIONS = 1_000_000;

/** While paging, the Sessions view recomputes its list at most this often (progress, not every page). */
export const PAGING_REFRESH_MS = 100;

/**
 * How long the Sessions view waits before it recomputes its list while pages arrive, given how long its last
 * computation took: at least {@link PAGING_REFRESH_MS}, and long enough that recomputing takes at most a
 * fifth of the host's time (a large list costs more per computation; pages keep coming meanwhile).
 */
export function pagingRefreshDelay(lastComputeMs: number): number {
  return Math.max(PAGING_REFRESH_MS, Math.ceil(4 * lastComputeMs));
}

export interface BackgroundPagingOptions {
  /** Awaited between two pages of an agent (default: the next turn of the event loop, `setImmediate`). */
  readonly pause?: () => Promise<void>;
  /** Default {@link MAX_BACKGROUND_SESSIONS}. */
  readonly maxSessions?: number;
  /** Called when {@link BackgroundPaging.progress} may read differently (paging started, ended, stopped). */
  readonly onDidChange?: () => void;
}

interface Job {
  readonly target: PagingTarget;
  readonly controller: AbortController;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class BackgroundPaging {
  private targets: readonly PagingTarget[] = [];
  private readonly jobs = new Map<string, Job>();
  private isStopped = false;
  private readonly pause: () => Promise<void>;
  private readonly maxSessions: number;

  constructor(private readonly options: BackgroundPagingOptions = {}) {
    this.pause = options.pause ?? nextTurn;
    this.maxSessions = options.maxSessions ?? MAX_BACKGROUND_SESSIONS;
  }

  /**
   * The lists that need paging now; replaces the previous set. A list no longer wanted (or wanted with
   * another plan, or an agent's new catalog after a restart) has its page in flight cancelled; a wanted
   * list that is not paging starts, unless the user stopped paging. Cheap when nothing changed.
   */
  want(targets: readonly PagingTarget[]): void {
    this.targets = targets;
    const byName = new Map(targets.map((t) => [t.agentName, t]));
    for (const [name, job] of [...this.jobs]) {
      const target = byName.get(name);
      if (!target || target.list !== job.target.list || !samePlan(target.plan, job.target.plan)) this.cancel(name);
    }
    if (this.isStopped) return;
    for (const target of targets) if (!this.jobs.has(target.agentName)) this.start(target);
  }

  /** The user's Stop: cancels every page in flight; nothing pages again until {@link resume}. */
  stop(): void {
    this.isStopped = true;
    for (const name of [...this.jobs.keys()]) this.cancel(name);
    this.changed();
  }

  /** Undoes {@link stop}: the wanted lists page again from where they stopped. */
  resume(): void {
    if (!this.isStopped) return;
    this.isStopped = false;
    this.want(this.targets);
    this.changed();
  }

  get stopped(): boolean {
    return this.isStopped;
  }

  /** Whether an agent's list is paging now (between two pages included). */
  isPaging(agentName: string): boolean {
    return this.jobs.has(agentName);
  }

  progress(): PagingProgress {
    let loaded = 0;
    let more = false;
    let capped = false;
    const counted = new Set<PagedList>();
    for (const { list, plan } of this.targets) {
      if (counted.has(list)) continue;
      counted.add(list);
      loaded += list.size;
      if (list.hasMore(plan)) {
        more = true;
        if (list.size >= this.maxSessions) capped = true;
      }
    }
    return { active: this.jobs.size > 0, stopped: this.isStopped && more, capped, loaded };
  }

  /** Cancels every page in flight and forgets the wanted lists (the view is gone). */
  dispose(): void {
    this.targets = [];
    for (const name of [...this.jobs.keys()]) this.cancel(name);
  }

  private start(target: PagingTarget): void {
    if (!this.needsPage(target)) return;
    const job: Job = { target, controller: new AbortController() };
    this.jobs.set(target.agentName, job);
    this.changed();
    void this.run(job);
  }

  private async run(job: Job): Promise<void> {
    const { list, plan } = job.target;
    const signal = job.controller.signal;
    // Two pages in a row that neither arrived nor ended paging (the catalog reset twice, say): do not spin.
    let fruitless = 0;
    try {
      while (!signal.aborted && this.needsPage(job.target)) {
        const arrived = await list.loadMore(plan, signal);
        if (signal.aborted) break;
        fruitless = arrived ? 0 : fruitless + 1;
        if (fruitless >= 2) break;
        await this.pause();
      }
    } catch {
      // loadMore never rejects; whatever else fails ends this agent's paging, never the host.
    } finally {
      if (this.jobs.get(job.target.agentName) === job) {
        this.jobs.delete(job.target.agentName);
        this.changed();
      }
    }
  }

  /** More to read, no error standing (its Retry is the user's), under the cap. */
  private needsPage({ list, plan }: PagingTarget): boolean {
    return list.hasMore(plan) && list.errorFor(plan) === undefined && list.size < this.maxSessions;
  }

  private cancel(agentName: string): void {
    const job = this.jobs.get(agentName);
    if (!job) return;
    this.jobs.delete(agentName);
    job.controller.abort();
    this.changed();
  }

  private changed(): void {
    this.options.onDidChange?.();
  }
}

function samePlan(a: SourcePlan, b: SourcePlan): boolean {
  return a.length === b.length && a.every((source, i) => source === b[i]);
}
