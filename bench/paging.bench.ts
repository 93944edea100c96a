/**
 * Background paging: how long typing a search takes to find a session that sits on the LAST page of an
 * agent's `session/list`, at 8,000 and 100,000 sessions (pages of 50, the reference agent's default), and
 * how long the host's main thread is blocked at a time meanwhile.
 *
 *   paging:    the first page loaded (what the view reads to show the list), then the keystroke: the model
 *              searches, BackgroundPaging reads page after page, and the list is recomputed as the Sessions
 *              view does (while pages arrive, at the pace of pagingRefreshDelay; 16 ms otherwise) until the
 *              session is among the results: time from the keystroke to that list.
 *   baseline:  the same pages read in a bare `while (hasMore) await loadMore()` loop, then one search: the
 *              least any paging can take with this lister, measured in the same run.
 *
 * The lister answers like the reference agent (newest first, opaque cursors, 50 per page) from memory, on
 * the next turn of the event loop; each page goes through JSON text and the client's zod schema for
 * `session/list`, as an answer from a real agent does. Main-thread blocking: a probe runs on every turn of
 * the event loop (setImmediate) and records the gaps between its turns, i.e. how long each turn's work held
 * the thread; a gap during which the list was recomputed counts as a computation (the model's cost, shown
 * apart), every other gap is paging's own (a page parsed, validated, merged; the paging loop). Runs are
 * interleaved (paging, baseline, paging, …); the first run of each is cold and reported with the rest.
 *
 * Usage: node out/bench/paging.bench.js [--runs N] [--small N] [--large N]   (`npm run bench` builds first)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionListMethod, type SessionInfo } from '../src/acp/schema';
import { listedSession } from '../src/acp/v1/sessionMapping';
import { BackgroundPaging, pagingRefreshDelay } from '../src/history/backgroundPaging';
import { AgentCatalog, type Lister, type SourcePlan } from '../src/history/catalog';
import { LocalSessionIndex } from '../src/history/localIndex';
import { SessionsModel } from '../src/history/sessionsModel';
import type { AgentEntry, WorkspaceShape } from '../src/history/sessionView';
import { median, parseArgs, printTable } from './util';

const { runs: RUNS, small: SMALL, large: LARGE } = parseArgs({ runs: 3, small: 8_000, large: 100_000 });
const PAGE = 50;
const COMPUTE_DELAY_MS = 16;
/** Rows the webview shows (the window the view builds full rows for). */
const WINDOW = 60;
const PLAN: SourcePlan = [undefined];
const TARGET_WORD = 'zebra';
const WORDS =
  'refactor auth flow parser greeting docs build tests cache login token session history folder workspace agent review fix bug feature migrate api client server schema'.split(
    ' ',
  );
const workspace: WorkspaceShape = { folders: ['/w/app', '/w/lib', '/w/docs'], rootSetFor: () => ['/w/app', '/w/lib', '/w/docs'], exists: () => true };

/** `count` sessions, newest first; only the oldest (on the last page) has the target word in its title. */
function makeSessions(count: number): SessionInfo[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    sessionId: `s${i}`,
    cwd: ['/w/app', '/w/lib', '/w/docs', '/elsewhere'][i % 4]!,
    additionalDirectories: [],
    title: i === count - 1 ? `Teach the ${TARGET_WORD} to page #${i}` : `${pick()} ${pick()} ${pick()} #${i}`,
    updatedAt: new Date(now - i * 60_000).toISOString(),
    _meta: { referenceAgent: { messages: 2 } },
  }));
}

/** session/list over `all`, like the reference agent: pages of 50, opaque cursors, answered on the next turn. */
function listerOver(all: readonly SessionInfo[]): { lister: Lister; pages: () => number } {
  let pages = 0;
  const lister: Lister = (params) =>
    new Promise((resolve, reject) => {
      setImmediate(() => {
        pages++;
        const start = params.cursor === undefined ? 0 : Number(Buffer.from(params.cursor, 'base64url').toString('utf8').slice(2));
        const page = all.slice(start, start + PAGE);
        const text = JSON.stringify({
          sessions: page,
          ...(start + PAGE < all.length ? { nextCursor: Buffer.from(`k:${start + PAGE}`).toString('base64url') } : {}),
        });
        // What the connection does with an answer: parse the line, validate it, map it to the port's listed sessions.
        const parsed = SessionListMethod.result.safeParse(JSON.parse(text));
        const nextCursor = parsed.success ? parsed.data.nextCursor : undefined;
        if (parsed.success) resolve({ sessions: parsed.data.sessions.map(listedSession), ...(nextCursor ? { nextCursor } : {}) });
        else reject(new Error(parsed.error.message));
      });
    });
  return { lister, pages: () => pages };
}

function newModel(catalog: AgentCatalog, index: LocalSessionIndex, paging: BackgroundPaging | undefined): SessionsModel {
  const agent: AgentEntry = {
    name: 'Bench',
    running: true,
    caps: { loadSession: true, sessions: { list: true, resume: true, close: true, delete: true, additionalDirectories: true, fork: true, setTitle: false } },
    catalog,
  };
  const model = new SessionsModel({
    index,
    transcripts: undefined,
    agents: () => [agent],
    workspace: () => workspace,
    isOpen: () => false,
    now: () => Date.now(),
    trusted: () => true,
    ...(paging ? { paging } : {}),
  });
  model.setSettings({ agent: 'Bench', scope: 'all', query: '', showHidden: false });
  return model;
}

/** Computes the list and the rows in view; whether the target session is among them. */
function computeFinds(model: SessionsModel, targetId: string): boolean {
  const state = model.compute();
  return model.rows(0, Math.min(state.count, WINDOW)).some((row) => row.kind === 'session' && row.sessionId === targetId);
}

interface Result {
  readonly ms: number;
  readonly pages: number;
  readonly computes: number;
  readonly maxComputeMs: number;
  /** The longest turn of the event loop that was not a list computation. */
  readonly maxTaskMs: number;
  readonly p99TaskMs: number;
}

/** Records how long each turn of the event loop held the thread, and when the list was computed. */
class TaskProbe {
  private readonly gaps: Array<[number, number]> = [];
  private readonly computing: Array<[number, number]> = [];
  private running = true;

  constructor() {
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      this.gaps.push([last, now]);
      last = now;
      if (this.running) setImmediate(tick);
    };
    setImmediate(tick);
  }

  /** Runs one list computation, noting when it ran. */
  compute<T>(run: () => T): T {
    const started = performance.now();
    try {
      return run();
    } finally {
      this.computing.push([started, performance.now()]);
    }
  }

  /** The longest and 99th-percentile turns that held no list computation. */
  stop(): { maxMs: number; p99Ms: number } {
    this.running = false;
    const own = this.gaps.filter(([from, to]) => !this.computing.some(([start, end]) => start < to && end > from)).map(([from, to]) => to - from);
    own.sort((a, b) => a - b);
    return { maxMs: own.at(-1) ?? 0, p99Ms: own[Math.min(own.length - 1, Math.floor(own.length * 0.99))] ?? 0 };
  }
}

/** Typing the search with the first page shown; the view's loop: compute on change, paging in the background. */
async function byTyping(all: readonly SessionInfo[], index: LocalSessionIndex): Promise<Result> {
  const { lister, pages } = listerOver(all);
  const catalog = new AgentCatalog('Bench', lister);
  await catalog.loadMore(PLAN);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerDelay = 0;
  let computes = 0;
  let maxComputeMs = 0;
  let lastComputeMs = 0;
  let done: (() => void) | undefined;
  const targetId = all[all.length - 1]!.sessionId;
  const found = new Promise<void>((resolve) => (done = resolve));
  const paging: BackgroundPaging = new BackgroundPaging({ onDidChange: () => schedule() });
  const model = newModel(catalog, index, paging);
  computeFinds(model, targetId);
  // SessionsFeed.computeNow and schedule (sessions/opening/sessionsFeed.ts), as they are.
  const computeNow = () => {
    clearTimeout(timer);
    timer = undefined;
    const started = performance.now();
    const hit = probe.compute(() => {
      paging.want(model.currentSettings.query ? [{ agentName: 'Bench', list: catalog, plan: PLAN }] : []);
      return computeFinds(model, targetId);
    });
    lastComputeMs = performance.now() - started;
    maxComputeMs = Math.max(maxComputeMs, lastComputeMs);
    computes++;
    if (hit) done?.();
  };
  const schedule = () => {
    const delay = paging.progress().active ? pagingRefreshDelay(lastComputeMs) : COMPUTE_DELAY_MS;
    if (timer !== undefined) {
      if (delay >= timerDelay) return;
      clearTimeout(timer);
    }
    timerDelay = delay;
    timer = setTimeout(computeNow, delay);
  };
  const subscription = catalog.onDidChange(schedule);
  const probe = new TaskProbe();
  const started = performance.now();
  model.setSettings({ ...model.currentSettings, query: TARGET_WORD });
  computeNow();
  await found;
  const ms = performance.now() - started;
  const tasks = probe.stop();
  subscription.dispose();
  clearTimeout(timer);
  paging.dispose();
  return { ms, pages: pages(), computes, maxComputeMs, maxTaskMs: tasks.maxMs, p99TaskMs: tasks.p99Ms };
}

/** The same pages in a bare loop, then one search. */
async function bareLoop(all: readonly SessionInfo[], index: LocalSessionIndex): Promise<Result> {
  const { lister, pages } = listerOver(all);
  const catalog = new AgentCatalog('Bench', lister);
  await catalog.loadMore(PLAN);
  const model = newModel(catalog, index, undefined);
  const targetId = all[all.length - 1]!.sessionId;
  const probe = new TaskProbe();
  const started = performance.now();
  while (catalog.hasMore(PLAN)) await catalog.loadMore(PLAN);
  model.setSettings({ ...model.currentSettings, query: TARGET_WORD });
  const computeStarted = performance.now();
  if (!probe.compute(() => computeFinds(model, targetId))) throw new Error('the bare loop did not find the session');
  const maxComputeMs = performance.now() - computeStarted;
  const ms = performance.now() - started;
  const tasks = probe.stop();
  return { ms, pages: pages(), computes: 1, maxComputeMs, maxTaskMs: tasks.maxMs, p99TaskMs: tasks.p99Ms };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-paging-bench-'));
  const index = new LocalSessionIndex(dir, { writeDelayMs: 60_000 });
  const rows: string[][] = [];
  const fixed = (n: number, digits = 0) => n.toFixed(digits);
  try {
    for (const size of [SMALL, LARGE]) {
      const all = makeSessions(size);
      const typed: Result[] = [];
      const bare: Result[] = [];
      for (let run = 0; run < RUNS; run++) {
        typed.push(await byTyping(all, index));
        bare.push(await bareLoop(all, index));
      }
      const med = (results: Result[], key: keyof Result) => median(results.map((r) => r[key]));
      const max = (results: Result[], key: keyof Result) => Math.max(...results.map((r) => r[key]));
      for (const [name, results] of [
        ['typing a search (background paging)', typed],
        ['bare loop, then one search', bare],
      ] as const) {
        rows.push([
          size.toLocaleString('en-US'),
          name,
          fixed(results[0]!.pages),
          fixed(results[0]!.ms),
          fixed(med(results, 'ms')),
          fixed(med(results, 'ms') / med(bare, 'ms'), 2),
          fixed(med(results, 'computes')),
          fixed(max(results, 'maxComputeMs'), 1),
          fixed(max(results, 'maxTaskMs'), 1),
          fixed(med(results, 'p99TaskMs'), 1),
        ]);
      }
    }
  } finally {
    await index.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`Finding the oldest session (on the last page of ${PAGE}) by typing "${TARGET_WORD}", ${RUNS} interleaved runs each (first run cold)\n`);
  printTable(['sessions', 'how', 'pages', 'cold ms', 'median ms', 'vs bare', 'computes', 'max compute ms', 'max other task ms', 'p99 other task ms'], rows);
  console.log("\ncomputes: list recomputations (the view's pace while paging), the longest of all runs; other task: the longest turn of the");
  console.log('event loop that held no recomputation (a page parsed, validated and merged; the paging loop), of all runs; p99: median of runs.');
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
