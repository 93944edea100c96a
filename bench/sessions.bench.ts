/**
 * Session history at scale: one agent listing 1,000 / 10,000 / 100,000 / 1,000,000 sessions in pages of 500
 * (newest first, as agents list them), plus a local index with the transcript text of 2,000 of them.
 *
 *   host:     AgentCatalog merging the pages, and the live SessionsModel computing the list after each page;
 *             the first list per scope on a fresh model; the cold first keystroke and the first keystroke
 *             after a list change; typing a query with a person's pauses; a running chat while searching;
 *             memory (heap and typed arrays, after a GC);
 *   webview:  the Sessions bundle (dist/webview/history.js) in Chromium fed by that model, at 100,000 and
 *             1,000,000: first paint, and frame times while scrolling (virtualized: the DOM stays small).
 *
 * Each size runs in its own Node process (so "cold" is cold: no JIT warmth, no heap left by another size).
 * Baselines measured in the same process: merging the same pages into a bare Map (time and memory); a plain
 * substring loop over the lower-cased titles per keystroke; the same page with an empty list (first paint),
 * and an empty element of the same height (scrolling).
 *
 * Usage: node out/bench/sessions.bench.js [--sizes 1000,10000,100000,1000000] [--runs 3] [--browser 100000,1000000]
 * (`npm run bench` builds first; `--browser none` skips Chromium.)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import type * as Browser from '../scripts/vscode-web/browser.mjs';
import type * as Install from '../scripts/vscode-web/install.mjs';
import type { ListedSession } from '../src/acp/port/agentConnection';
import { Emitter } from '../src/common/events';
import { AgentCatalog, type ListPage } from '../src/history/catalog';
import { LocalSessionIndex, recordKey } from '../src/history/localIndex';
import type { Snippet } from '../src/history/search';
import { SessionsModel } from '../src/history/sessionsModel';
import { type AgentEntry, type WorkspaceShape } from '../src/history/sessionView';
import type { TranscriptSearchResult, TranscriptSearch } from '../src/history/transcriptSearch';
import { HistoryRequests, SessionsToHost, type HostToSessions, type ViewSettings } from '../src/shared/historyProtocol';
import { answer } from '../src/shared/ipc';
import { median, printTable } from './util';

const PAGE = 500;
const TEXTS = 2_000;
const QUERY = 'refactor auth flow';
/** A person typing: the next key comes this long after the previous one (unless the list is final sooner). */
const KEY_INTERVAL_MS = 120;
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const FOLDERS = ['/w/app', '/w/lib', '/w/docs'];

const VERBS =
  'Fix Refactor Add Remove Update Migrate Investigate Debug Implement Review Document Test Speed-up Clean-up Rename Split Merge Move Explain Port'.split(' ');
const WORDS = (
  'the auth flow parser greeting docs build tests cache login token session history folder workspace agent review bug feature api client server ' +
  'schema database query index router middleware config settings logger error handling retry timeout upload download image preview editor terminal ' +
  'command palette sidebar panel webview chat message stream socket worker thread queue job scheduler cron email notification payment invoice user ' +
  'profile avatar search filter sort pagination table form validation button modal dialog theme dark mode layout grid responsive mobile desktop ' +
  'release pipeline deploy docker kubernetes helm terraform lambda bucket storage backup restore migration seed fixture mock stub benchmark memory ' +
  'leak crash performance regression flaky coverage lint format types generics interface enum union hook context reducer store state effect render ' +
  'component props style css html markdown json yaml csv export import report dashboard chart metric alert log trace span'
).split(' ');

// ---- data -------------------------------------------------------------------------------------------

/** A small fast PRNG, seeded per session so any page can be made again alike. */
function random(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (n: number, digits: number) => Math.floor(n).toString(16).padStart(digits, '0');

/** Session `i` of the listing (0 = the newest): a UUID, a title like an agent's, folders, a time. */
function session(i: number, now: number): ListedSession {
  const r = random(i * 7919 + 13);
  const id = `${hex(r() * 0xffffffff, 8)}-${hex(r() * 0xffff, 4)}-4${hex(r() * 0xfff, 3)}-${hex(r() * 0xffff, 4)}-${hex(r() * 0xffffff, 6)}${hex(r() * 0xffffff, 6)}`;
  const words = [VERBS[Math.floor(r() * VERBS.length)]!];
  for (let n = 2 + Math.floor(r() * 5); n > 0; n--) words.push(WORDS[Math.floor(r() * WORDS.length)]!);
  const cwd = i % 7 === 6 ? `/elsewhere/p${i % 50}` : FOLDERS[i % 3]!;
  return {
    sessionId: id,
    cwd,
    additionalDirectories: cwd === '/w/app' && i % 2 === 0 ? ['/w/lib', '/w/docs'] : [],
    ...(i % 33 === 5 ? {} : { title: words.join(' ') }),
    updatedAt: new Date(now - i * 37_000).toISOString(),
  };
}

/**
 * Page `p` as the connection hands it over: parsed from JSON text (flat strings, as from the transport).
 * `from` shifts the listing (a page of sessions newer than all others when negative).
 */
function page(p: number, total: number, now: number, from = 0): ListPage {
  const start = from + p * PAGE;
  const sessions: ListedSession[] = [];
  for (let i = start; i < Math.min(from + total, start + PAGE); i++) sessions.push(session(i, now));
  const more = start + PAGE < from + total;
  return JSON.parse(JSON.stringify({ sessions, ...(more ? { nextCursor: String(p + 1) } : {}) })) as ListPage;
}

function caps(): AgentEntry['caps'] {
  return {
    loadSession: true,
    sessions: { list: true, resume: true, close: true, delete: true, additionalDirectories: true, fork: true, setTitle: false },
  };
}

const workspace: WorkspaceShape = { folders: FOLDERS, rootSetFor: () => FOLDERS, exists: (folder) => folder.startsWith('/w/') };

/**
 * The transcript side as the model sees it: answers from a table made in advance (the real search runs in
 * a worker, off the host thread; this measures the model's host time only).
 */
class PresetTranscripts implements TranscriptSearch {
  version = 0;
  readonly onDidChange = new Emitter<void>().event;
  constructor(
    private readonly texts: ReadonlyMap<string, string>,
    private readonly matching: ReadonlySet<string>,
  ) {}
  search(_query: string, signal?: AbortSignal): Promise<TranscriptSearchResult> {
    if (signal?.aborted) return Promise.reject(new Error('aborted'));
    return Promise.resolve({ keys: this.matching, searched: this.texts.size, complete: true });
  }
  snippets(query: string, keys: readonly string[]): Promise<ReadonlyMap<string, Snippet>> {
    const found = new Map<string, Snippet>();
    for (const key of keys) if (this.texts.has(key)) found.set(key, { text: `… ${query} …`, highlights: [[2, 2 + query.length]] });
    return Promise.resolve(found);
  }
}

function newModel(catalog: AgentCatalog, index: LocalSessionIndex, transcripts: TranscriptSearch | undefined, settings: Partial<ViewSettings>): SessionsModel {
  const model = new SessionsModel({
    index,
    transcripts,
    agents: () => [{ name: 'Bench', running: true, caps: caps(), catalog }],
    workspace: () => workspace,
    isOpen: () => false,
    now: () => Date.now(),
    trusted: () => true,
  });
  model.setSettings({ agent: 'Bench', scope: 'all', query: '', showHidden: false, ...settings });
  return model;
}

const percentile = (values: readonly number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;
const fixed = (n: number, digits = 2) => n.toFixed(digits);
const mb = (bytes: number) => fixed(bytes / 1_048_576, 1);
const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** Heap, typed arrays and RSS after garbage collection (given time to free typed arrays' memory, which V8 does in the background). */
async function memory(): Promise<{ heap: number; buffers: number; rss: number }> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, buffers: usage.arrayBuffers, rss: usage.rss };
}

/** Waits for the model's next background update, or `ms`, whichever comes first. */
function nextUpdate(model: SessionsModel, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const subscription = model.onDidUpdate(done);
    function done() {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    }
  });
}

/** One keystroke as the view does it: compute, then the rows of the window; host time in ms. */
function keystroke(model: SessionsModel, query: string): number {
  model.setSettings({ ...model.currentSettings, query });
  const started = performance.now();
  model.compute();
  model.rows(0, 60);
  return performance.now() - started;
}

/** Lets the search go on in the background (the view computing again on each update) for up to `limitMs`; the wall time. */
async function finish(model: SessionsModel, limitMs = 60_000): Promise<number> {
  const started = performance.now();
  while (model.searchPending && performance.now() - started < limitMs) {
    await nextUpdate(model, Math.max(1, limitMs - (performance.now() - started)));
    model.compute();
    model.rows(0, 60);
  }
  return performance.now() - started;
}

// ---- one size, in its own process ------------------------------------------------------------------

interface SizeResult {
  sessions: number;
  merge: { bare: number; catalog: number; listPerPage: number[] };
  memory: { bare: number; heap: number; buffers: number; rss: number };
  firstList: Record<'workspace' | 'folders' | 'all', number>;
  cold: { keystroke: number; afterPage: number; pageWhileSearching: number; afterTitle: number; titleWhileSearching: number };
  typing: { ours: number[]; untilFinal: number[]; baseline: number[] };
  chat: { perUpdate: number[]; titleTests: number; titleSearches: number };
  chromium?: { emptyPaint: number; firstPaint: number; frames: number[]; emptyFrames: number[]; nodes: number; emptyNodes: number };
}

async function measureSize(total: number, runs: number, browser: boolean): Promise<SizeResult> {
  const now = Date.now();
  const pages = Math.ceil(total / PAGE);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-sessions-bench-'));
  try {
    // Baseline memory: the pages as parsed, kept in a bare Map.
    const start = await memory();
    let map: Map<string, ListedSession> | undefined = new Map();
    for (let p = 0; p < pages; p++) for (const s of page(p, total, now).sessions) map.set(s.sessionId, s);
    const bareMemory = (await memory()).heap - start.heap;
    if (map.size !== total) throw new Error('bare merge lost sessions');
    map = undefined;
    const base = await memory();

    // Ours: the catalog merging the pages (the last page held back for later), the live model computing the
    // list after each page as the view does. Page by page, the same page also goes into a bare Map (the
    // baseline), first one then the other in turn, so both meet fresh strings equally often.
    const served = pages - 1;
    // Each page is made (parsed) before its request is timed, as if it had just arrived from the agent.
    let next: ListPage | undefined;
    const catalog = new AgentCatalog('Bench', () => Promise.resolve(next!));
    const index = new LocalSessionIndex(dir, { writeDelayMs: 600_000 });
    const texts = new Map<string, string>();
    let live: SessionsModel | undefined = newModel(catalog, index, undefined, { scope: 'all' });
    let merging = 0;
    let bare = 0;
    let bareMap: Map<string, ListedSession> | undefined = new Map();
    const listPerPage: number[] = [];
    for (let p = 0; p < served; p++) {
      next = page(p, total, now);
      const intoMap = () => {
        const started = performance.now();
        for (const s of next!.sessions) bareMap!.set(s.sessionId, s);
        bare += performance.now() - started;
      };
      if (p % 2 === 1) intoMap();
      const started = performance.now();
      await catalog.loadMore([undefined]);
      merging += performance.now() - started;
      if (p % 2 === 0) intoMap();
      const computing = performance.now();
      live.compute();
      live.rows(0, 60);
      listPerPage.push(performance.now() - computing);
    }
    live.dispose();
    live = undefined; // its columns would count in the memory below
    bareMap = undefined;
    // The index: transcript text for TEXTS sessions (records of listed sessions, as when opened here).
    const step = Math.max(1, Math.floor((served * PAGE) / TEXTS));
    for (let k = 0; k < Math.min(TEXTS, total); k++) {
      const s = session(Math.min(k * step, served * PAGE - 1), now);
      index.record({
        agentName: 'Bench',
        sessionId: s.sessionId,
        cwd: s.cwd,
        additionalDirectories: s.additionalDirectories ?? [],
        at: now - k * step * 37_000,
      });
      const text = `User: ${s.title ?? 'hello'} please\n\nAgent: done, the ${WORDS[k % WORDS.length]} works`;
      index.setText('Bench', s.sessionId, text);
      texts.set(recordKey('Bench', s.sessionId), text);
    }
    const matching = new Set([...texts.keys()].filter((_, k) => k % 3 === 0));
    const transcripts = new PresetTranscripts(texts, matching);

    // First list per scope, each on a fresh model (everything built from the catalog).
    const firstList = { workspace: 0, folders: 0, all: 0 };
    for (const scope of ['workspace', 'folders', 'all'] as const) {
      const model = newModel(catalog, index, transcripts, { scope });
      const started = performance.now();
      const state = model.compute();
      model.rows(0, 60);
      firstList[scope] = performance.now() - started;
      if (state.count === 0) throw new Error(`scope ${scope} is empty`);
      model.dispose();
    }

    // The cold first keystroke: a fresh model showing its list, then the first letter.
    const model = newModel(catalog, index, transcripts, { scope: 'all' });
    model.compute();
    model.rows(0, 60);
    const coldKeystroke = keystroke(model, QUERY.slice(0, 1));
    await finish(model);

    // Typing the query with a person's pauses, `runs` times; the plain substring loop as the baseline.
    const lowerTitles: string[] = [];
    for (let i = 0; i < served * PAGE; i++) lowerTitles.push((session(i, now).title ?? '').toLowerCase());
    const ours: number[] = [];
    const untilFinal: number[] = [];
    const baseline: number[] = [];
    for (let run = 0; run < runs; run++) {
      keystroke(model, '');
      for (let n = 1; n <= QUERY.length; n++) {
        const query = QUERY.slice(0, n);
        const started = performance.now();
        ours.push(keystroke(model, query));
        const waited = await finish(model, KEY_INTERVAL_MS);
        untilFinal.push(model.searchPending ? Number.NaN : performance.now() - started);
        if (waited < KEY_INTERVAL_MS) await new Promise((resolve) => setTimeout(resolve, KEY_INTERVAL_MS - waited));
        const bareStart = performance.now();
        let hits = 0;
        for (const title of lowerTitles) if (title.includes(query)) hits++;
        baseline.push(performance.now() - bareStart);
        if (hits < 0) throw new Error('unreachable');
      }
    }
    lowerTitles.length = 0;

    // The first keystroke after a list change: the held-back page arrives while "refactor" is shown, then a
    // letter; a session's title changes, then a letter.
    keystroke(model, 'refactor');
    await finish(model);
    next = page(served, total, now);
    await catalog.loadMore([undefined]);
    let started = performance.now();
    model.compute();
    model.rows(0, 60);
    const pageWhileSearching = performance.now() - started;
    const afterPage = keystroke(model, 'refactor a');
    await finish(model);
    const renamed = session(3, now);
    catalog.upsert({ sessionId: renamed.sessionId, title: 'Refactor the auth flow once more', updatedAt: Date.now() });
    started = performance.now();
    model.compute();
    model.rows(0, 60);
    const titleWhileSearching = performance.now() - started;
    const afterTitle = keystroke(model, 'refactor au');
    await finish(model);

    // A running chat while a search is shown: its transcript text changes again and again.
    keystroke(model, 'refactor auth');
    await finish(model);
    const chatSession = [...texts.keys()][0]!.split('\u0000')[1]!;
    const testsBefore = model.work.titleTests;
    const searchesBefore = model.work.titleSearches;
    const perUpdate: number[] = [];
    for (let u = 0; u < 40; u++) {
      index.setText('Bench', chatSession, `User: refactor it\n\nAgent: ${'working '.repeat(u + 1)}`);
      transcripts.version++;
      const answered = nextUpdate(model, 5000); // the transcript side's answer to the question asked again
      const updateStarted = performance.now();
      model.compute();
      await model.rowsWithSnippets(0, 60);
      await answered;
      model.compute();
      await model.rowsWithSnippets(0, 60);
      perUpdate.push(performance.now() - updateStarted);
    }
    const chat = { perUpdate, titleTests: model.work.titleTests - testsBefore, titleSearches: model.work.titleSearches - searchesBefore };

    const used = await memory();
    const result: SizeResult = {
      sessions: total,
      merge: { bare, catalog: merging, listPerPage },
      memory: { bare: bareMemory, heap: used.heap - base.heap, buffers: used.buffers - base.buffers, rss: used.rss },
      firstList,
      cold: { keystroke: coldKeystroke, afterPage, pageWhileSearching, afterTitle, titleWhileSearching },
      typing: { ours, untilFinal, baseline },
      chat,
    };
    keystroke(model, '');
    if (browser) result.chromium = await inChromium(catalog, index, dir, runs, total);
    model.dispose();
    await index.dispose();
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Chromium ----------------------------------------------------------------------------------------

/** In a page: scrolls an element by "step" px per frame to its end (600 frames at most); the frame intervals. */
const SCROLL_SCRIPT = `window.scrollThrough = (selector, step) => new Promise((resolve) => {
    const element = document.querySelector(selector);
    const intervals = [];
    let last = performance.now();
    const frame = (now) => {
      intervals.push(now - last);
      last = now;
      element.scrollTop += step;
      if (element.scrollTop + element.clientHeight >= element.scrollHeight - 1 || intervals.length > 600) resolve({ intervals, nodes: document.getElementsByTagName('*').length });
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });`;

const PAGE_HTML = `<!DOCTYPE html><html><head><meta charset="UTF-8"><link rel="stylesheet" href="CSS"></head>
<body style="margin:0;height:100vh"><div id="root" style="height:100%"></div>
<script>
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.hostReceive(m), getState() {}, setState() {} });
  window.rowsShown = new Promise((resolve) => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('.row.session')) { observer.disconnect(); resolve(performance.now()); }
    }).observe(document.documentElement, { childList: true, subtree: true });
  });
  window.emptyShown = new Promise((resolve) => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('.empty')) { observer.disconnect(); resolve(performance.now()); }
    }).observe(document.documentElement, { childList: true, subtree: true });
  });
  ${SCROLL_SCRIPT}
</script>
<script src="JS"></script></body></html>`;

const EMPTY_SCROLL_HTML = `<!DOCTYPE html><html><body style="margin:0"><div id="list" style="height:800px;overflow-y:auto"><div id="spacer"></div></div>
<script>
  ${SCROLL_SCRIPT}
</script></body></html>`;

/** A minimal host for the page: the real model, answering `ready`, `settings` and the `rows` request like SessionsView. */
async function openSessionsPage(page: Page, url: string, model: SessionsModel): Promise<void> {
  let version = 0;
  let settingsSeq = 0;
  const send = (message: HostToSessions) =>
    page.evaluate((m) => (globalThis as unknown as { postMessage(m: unknown, o: string): void }).postMessage(m, '*'), message).catch(() => undefined); // the page may be closed
  const post = () => {
    const state = model.compute();
    version++;
    void send({
      type: 'state',
      version,
      settings: model.currentSettings,
      settingsSeq,
      agents: [{ name: 'Bench', running: true }],
      ...state,
      notices: state.notices,
    });
  };
  await page.exposeBinding('hostReceive', (_source, raw: unknown) => {
    const message = SessionsToHost.parse(raw);
    if (message.type === 'ready') post();
    else if (message.type === 'settings') {
      settingsSeq = message.seq;
      model.setSettings(message.settings);
      post();
    } else if (message.type === 'request') {
      void answer(
        HistoryRequests,
        { rows: async (w) => ({ version, rows: w.version === version ? await model.rowsWithSnippets(w.from, w.to) : [] }) },
        message,
      ).then(send);
    }
  });
  await page.goto(url);
}

async function inChromium(
  catalog: AgentCatalog,
  index: LocalSessionIndex,
  dir: string,
  runs: number,
  total: number,
): Promise<NonNullable<SizeResult['chromium']>> {
  const bundle = path.join(REPO_ROOT, 'dist', 'webview');
  if (!fs.existsSync(path.join(bundle, 'history.js'))) throw new Error('dist/webview/history.js is missing: run `node esbuild.mjs` first');
  const pageFile = path.join(dir, 'sessions.html');
  const emptyFile = path.join(dir, 'empty.html');
  fs.writeFileSync(
    pageFile,
    PAGE_HTML.replace('CSS', pathToFileURL(path.join(bundle, 'history.css')).href).replace('JS', pathToFileURL(path.join(bundle, 'history.js')).href),
  );
  fs.writeFileSync(emptyFile, EMPTY_SCROLL_HTML.replace('<div id="spacer"></div>', `<div id="spacer" style="height:${46 * total}px"></div>`));
  const { launchBrowser } = (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'browser.mjs')).href)) as typeof Browser;
  const { ensureSystemPackages, findChromium } = (await import(
    pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'install.mjs')).href
  )) as typeof Install;
  if (!findChromium()) ensureSystemPackages();
  const browser = await launchBrowser({ viewport: { width: 320, height: 900 } });
  try {
    const firstPaint: number[] = [];
    const emptyPaint: number[] = [];
    let scroll: { intervals: number[]; nodes: number } | undefined;
    const emptyCatalog = new AgentCatalog('Bench', () => Promise.resolve({ sessions: [] }));
    await emptyCatalog.loadMore([undefined]);
    for (let run = 0; run < runs; run++) {
      const page = await browser.context.newPage();
      // As in the extension, the model already follows the catalog when the view opens (the cold first list
      // on a fresh model is measured on its own above).
      const model = newModel(catalog, index, undefined, { scope: 'all' });
      model.compute();
      await openSessionsPage(page, pathToFileURL(pageFile).href, model);
      firstPaint.push(await page.evaluate(() => (globalThis as unknown as { rowsShown: Promise<number> }).rowsShown));
      if (run === 0) {
        await page.waitForTimeout(300);
        scroll = await page.evaluate(() =>
          (globalThis as unknown as { scrollThrough(s: string, step: number): Promise<{ intervals: number[]; nodes: number }> }).scrollThrough('.list', 920),
        );
      }
      await page.close();
      model.dispose();
      const empty = await browser.context.newPage();
      const emptyModel = newModel(emptyCatalog, new LocalSessionIndex(path.join(dir, `empty-${run}`)), undefined, { scope: 'all' });
      await openSessionsPage(empty, pathToFileURL(pageFile).href, emptyModel);
      emptyPaint.push(await empty.evaluate(() => (globalThis as unknown as { emptyShown: Promise<number> }).emptyShown));
      await empty.close();
      emptyModel.dispose();
    }
    const plain = await browser.context.newPage();
    await plain.goto(pathToFileURL(emptyFile).href);
    const emptyScroll = await plain.evaluate(() =>
      (globalThis as unknown as { scrollThrough(s: string, step: number): Promise<{ intervals: number[]; nodes: number }> }).scrollThrough('#list', 920),
    );
    await plain.close();
    return {
      emptyPaint: median(emptyPaint),
      firstPaint: median(firstPaint),
      frames: scroll!.intervals.slice(1),
      emptyFrames: emptyScroll.intervals.slice(1),
      nodes: scroll!.nodes,
      emptyNodes: emptyScroll.nodes,
    };
  } finally {
    await browser.close();
  }
}

// ---- the report ----------------------------------------------------------------------------------------

function report(results: readonly SizeResult[]): void {
  const n = (r: SizeResult) => r.sessions.toLocaleString('en');
  console.log('\nhost: merging the pages (AgentCatalog, the live model computing the list after each page), and memory after everything below (GC first)');
  printTable(
    [
      'sessions',
      'bare Map merge ms',
      'catalog merge ms',
      'ratio',
      'list per page median/p95/max ms',
      'bare Map MB',
      'ours heap MB',
      '+ typed arrays MB',
      'RSS MB',
    ],
    results.map((r) => [
      n(r),
      fixed(r.merge.bare),
      fixed(r.merge.catalog),
      `${fixed(r.merge.catalog / r.merge.bare)}×`,
      `${fixed(median(r.merge.listPerPage))} / ${fixed(percentile(r.merge.listPerPage, 95))} / ${fixed(Math.max(0, ...r.merge.listPerPage))}`,
      mb(r.memory.bare),
      mb(r.memory.heap),
      mb(r.memory.buffers),
      mb(r.memory.rss),
    ]),
  );
  console.log('\nhost: the first list per scope on a fresh model (its sessions taken from the full catalog), and the first keystroke');
  printTable(
    [
      'sessions',
      'This workspace ms',
      'These folders ms',
      'All ms',
      'cold 1st key ms',
      'page while searching ms',
      '1st key after it ms',
      'title change ms',
      '1st key after it ms',
    ],
    results.map((r) => [
      n(r),
      fixed(r.firstList.workspace),
      fixed(r.firstList.folders),
      fixed(r.firstList.all),
      fixed(r.cold.keystroke),
      fixed(r.cold.pageWhileSearching),
      fixed(r.cold.afterPage),
      fixed(r.cold.titleWhileSearching),
      fixed(r.cold.afterTitle),
    ]),
  );
  console.log(
    `\nsearch: "${QUERY}" typed one key every ${KEY_INTERVAL_MS} ms (host time of compute + rows per keystroke; "final" = until the search finished, background slices included)`,
  );
  printTable(
    [
      'sessions',
      'substring loop median/p95/max ms (baseline)',
      'ours median/p95/max ms',
      'ours / baseline (median)',
      'final median/p95 ms',
      'not final within the pause',
    ],
    results.map((r) => {
      const final = r.typing.untilFinal.filter((v) => !Number.isNaN(v));
      return [
        n(r),
        `${fixed(median(r.typing.baseline))} / ${fixed(percentile(r.typing.baseline, 95))} / ${fixed(Math.max(...r.typing.baseline))}`,
        `${fixed(median(r.typing.ours))} / ${fixed(percentile(r.typing.ours, 95))} / ${fixed(Math.max(...r.typing.ours))}`,
        `${fixed(median(r.typing.ours) / median(r.typing.baseline))}×`,
        final.length > 0 ? `${fixed(median(final))} / ${fixed(percentile(final, 95))}` : '-',
        `${r.typing.untilFinal.length - final.length} of ${r.typing.untilFinal.length}`,
      ];
    }),
  );
  console.log('\na running chat while a search is shown: host time per transcript update (compute + rows, the text side asked again and merged)');
  printTable(
    ['sessions', 'median ms', 'p95 ms', 'max ms', 'titles tested again', 'title searches started'],
    results.map((r) => [
      n(r),
      fixed(median(r.chat.perUpdate)),
      fixed(percentile(r.chat.perUpdate, 95)),
      fixed(Math.max(...r.chat.perUpdate)),
      String(r.chat.titleTests),
      String(r.chat.titleSearches),
    ]),
  );
  const browsed = results.filter((r) => r.chromium);
  if (browsed.length > 0) {
    console.log('\nChromium (the Sessions bundle, 320 px wide sidebar): first paint after navigation, and frame intervals scrolling the list');
    printTable(
      [
        'sessions',
        'empty list paint ms (baseline)',
        'first paint ms',
        'ratio',
        'empty element frame median/p95 ms (baseline)',
        'frame median/p95 ms',
        'ratio (p95)',
        'DOM elements',
      ],
      browsed.map((r) => {
        const c = r.chromium!;
        return [
          n(r),
          fixed(c.emptyPaint, 1),
          fixed(c.firstPaint, 1),
          `${fixed(c.firstPaint / c.emptyPaint)}×`,
          `${fixed(median(c.emptyFrames), 1)} / ${fixed(percentile(c.emptyFrames, 95), 1)}`,
          `${fixed(median(c.frames), 1)} / ${fixed(percentile(c.frames, 95), 1)}`,
          `${fixed(percentile(c.frames, 95) / percentile(c.emptyFrames, 95))}×`,
          String(c.nodes),
        ];
      }),
    );
  }
}

// ---- main ------------------------------------------------------------------------------------------------

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

async function main(): Promise<void> {
  const runs = Number(option('runs', '3'));
  const child = option('child', '');
  if (child) {
    const result = await measureSize(Number(child), runs, option('browser', 'no') === 'yes');
    console.log(`RESULT ${JSON.stringify(result)}`);
    return;
  }
  const sizes = option('sizes', '1000,10000,100000,1000000').split(',').map(Number);
  const browserSizes = new Set(option('browser', '100000,1000000').split(',').map(Number));
  console.log(
    `sessions bench: ${sizes.map((s) => s.toLocaleString('en')).join(' / ')} sessions in pages of ${PAGE}, transcript text for ${TEXTS.toLocaleString('en')}, ${runs} runs; each size in its own process`,
  );
  const results: SizeResult[] = [];
  for (const size of sizes) {
    const started = performance.now();
    const run = spawnSync(
      process.execPath,
      ['--expose-gc', __filename, '--child', String(size), '--runs', String(runs), '--browser', browserSizes.has(size) ? 'yes' : 'no'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (run.status !== 0 || !line) throw new Error(`the run with ${size} sessions failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    results.push(JSON.parse(line.slice('RESULT '.length)) as SizeResult);
    console.log(`  ${size.toLocaleString('en')} sessions measured in ${fixed((performance.now() - started) / 1000, 1)} s`);
  }
  report(results);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
