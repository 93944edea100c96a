/**
 * Session history at scale: 100,000 sessions of one agent (listed in pages of 500) plus a local index
 * with the transcript text of 2,000 of them.
 *
 *   host:     AgentCatalog merging the pages; SessionsModel filtering by scope, grouping by date, and
 *             searching (fuzzy titles + transcript text) on every keystroke of a typed query;
 *   webview:  the Sessions bundle (dist/webview/history.js) in Chromium fed by that model: first paint, and
 *             frame times while scrolling through the whole list (virtualized: the DOM stays small).
 *
 * Baselines measured in the same run: merging with a bare Map and filtering with a bare loop; a plain
 * substring test over the titles per keystroke; the same page with an empty list (first paint), and
 * scrolling an empty element of the same height (frame times).
 *
 * Usage: node out/bench/sessions.bench.js [--sessions N] [--runs N]   (`npm run bench` builds first)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import type * as Browser from '../scripts/vscode-web/browser.mjs';
import type * as Install from '../scripts/vscode-web/install.mjs';
import type { SessionInfo } from '../src/acp/schema';
import { AgentCatalog } from '../src/history/catalog';
import { LocalSessionIndex } from '../src/history/localIndex';
import { SessionsModel } from '../src/history/sessionsModel';
import { type AgentEntry, type WorkspaceShape } from '../src/history/sessionView';
import { HistoryRequests, SessionsToHost, type HostToSessions, type ViewSettings } from '../src/shared/historyProtocol';
import { answer } from '../src/shared/ipc';
import { median, parseArgs, printTable } from './util';

const { sessions: SESSIONS, runs: RUNS } = parseArgs({ sessions: 100_000, runs: 3 });
const PAGE = 500;
const TEXTS = 2_000;
const QUERY = 'refactor auth flow';
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const FOLDERS = ['/w/app', '/w/lib', '/w/docs'];

const WORDS = 'refactor auth flow parser greeting docs build tests cache login token session history folder workspace agent review fix bug feature migrate api client server schema'.split(' ');

function makeSessions(count: number): SessionInfo[] {
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const cwd = i % 7 === 6 ? `/elsewhere/p${i % 50}` : FOLDERS[i % 3]!;
    const others = cwd === '/w/app' && i % 2 === 0 ? ['/w/lib', '/w/docs'] : [];
    return {
      sessionId: `s${i}`,
      cwd,
      additionalDirectories: others,
      title: `${pick()} ${pick()} ${pick()} ${pick()} #${i}`,
      updatedAt: new Date(now - i * 60_000).toISOString(),
    };
  });
}

function caps(): AgentEntry['caps'] {
  return {
    loadSession: true,
    sessions: { list: true, resume: true, close: true, delete: true, additionalDirectories: true, fork: true, setTitle: false },
  };
}

const workspace: WorkspaceShape = { folders: FOLDERS, rootSetFor: () => FOLDERS, exists: (folder) => folder.startsWith('/w/') };

async function loadedCatalog(all: readonly SessionInfo[]): Promise<{ catalog: AgentCatalog; ms: number }> {
  const catalog = new AgentCatalog('Bench', (params) => {
    const start = params.cursor === undefined ? 0 : Number(params.cursor);
    const sessions = all.slice(start, start + PAGE);
    return Promise.resolve({ sessions, ...(start + PAGE < all.length ? { nextCursor: String(start + PAGE) } : {}) });
  });
  const started = performance.now();
  while (catalog.hasMore([undefined])) await catalog.loadMore([undefined]);
  return { catalog, ms: performance.now() - started };
}

function bareMerge(all: readonly SessionInfo[]): number {
  const started = performance.now();
  const map = new Map<string, SessionInfo>();
  for (let start = 0; start < all.length; start += PAGE) for (const s of all.slice(start, start + PAGE)) map.set(s.sessionId, s);
  const kept = [...map.values()].filter((s) => FOLDERS.includes(s.cwd));
  if (kept.length === 0) throw new Error('nothing kept');
  return performance.now() - started;
}

function newModel(catalog: AgentCatalog, index: LocalSessionIndex, settings: Partial<ViewSettings>): SessionsModel {
  const model = new SessionsModel({
    index,
    transcripts: undefined,
    agents: () => [{ name: 'Bench', running: true, caps: caps(), catalog }],
    workspace: () => workspace,
    isOpen: () => false,
    now: () => Date.now(),
    trusted: () => true,
  });
  model.setSettings({ agent: 'Bench', scope: 'all', query: '', showHidden: false, ...settings });
  return model;
}

function indexWithTexts(dir: string, all: readonly SessionInfo[]): LocalSessionIndex {
  const index = new LocalSessionIndex(dir, { writeDelayMs: 60_000 });
  for (let i = 0; i < TEXTS; i++) {
    const s = all[i * Math.floor(all.length / TEXTS)]!;
    index.record({ agentName: 'Bench', sessionId: s.sessionId, cwd: s.cwd, additionalDirectories: s.additionalDirectories ?? [] });
    const words = Array.from({ length: 1200 }, (_, k) => WORDS[(k * 7 + i) % WORDS.length]).join(' ');
    index.setText('Bench', s.sessionId, `User: ${words}\n\nAgent: done with ${s.title}`);
  }
  return index;
}

const percentile = (values: readonly number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;
const fixed = (n: number, digits = 2) => n.toFixed(digits);

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
    void send({ type: 'state', version, settings: model.currentSettings, settingsSeq, agents: [{ name: 'Bench', running: true }], ...state, notices: state.notices });
  };
  await page.exposeBinding('hostReceive', (_source, raw: unknown) => {
    const message = SessionsToHost.parse(raw);
    if (message.type === 'ready') post();
    else if (message.type === 'settings') {
      settingsSeq = message.seq;
      model.setSettings(message.settings);
      post();
    } else if (message.type === 'request') {
      void answer(HistoryRequests, { rows: (w) => Promise.resolve({ version, rows: w.version === version ? model.rows(w.from, w.to) : [] }) }, message).then(send);
    }
  });
  await page.goto(url);
}

async function main(): Promise<void> {
  const all = makeSessions(SESSIONS);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-sessions-bench-'));
  console.log(`sessions bench: ${SESSIONS.toLocaleString('en')} sessions in pages of ${PAGE}, transcript text for ${TEXTS.toLocaleString('en')}, ${RUNS} runs (median)`);
  try {
    // Merge and filter.
    const merge: number[] = [];
    const bare: number[] = [];
    let catalog: AgentCatalog | undefined;
    for (let run = 0; run <= RUNS; run++) {
      const loaded = await loadedCatalog(all);
      const b = bareMerge(all);
      if (run > 0) {
        merge.push(loaded.ms);
        bare.push(b);
      }
      catalog = loaded.catalog;
    }
    const index = indexWithTexts(dir, all);
    const scopes: Record<string, number[]> = { workspace: [], folders: [], all: [] };
    for (let run = 0; run <= RUNS; run++) {
      for (const scope of ['workspace', 'folders', 'all'] as const) {
        const model = newModel(catalog!, index, { scope });
        const started = performance.now();
        const state = model.compute();
        const ms = performance.now() - started;
        if (state.count === 0) throw new Error(`scope ${scope} is empty`);
        if (run > 0) scopes[scope]!.push(ms);
      }
    }
    console.log('\nhost: merging the pages, then one full list computation per scope (filter, group, rows)');
    printTable(
      ['step', 'ms', 'vs baseline'],
      [
        ['bare Map merge + filter (baseline)', fixed(median(bare)), '1.00×'],
        ['AgentCatalog merge of 200 pages', fixed(median(merge)), `${fixed(median(merge) / median(bare))}×`],
        ['list: This workspace', fixed(median(scopes['workspace']!)), ''],
        ['list: These folders', fixed(median(scopes['folders']!)), ''],
        ['list: All', fixed(median(scopes['all']!)), ''],
      ],
    );

    // Search, keystroke by keystroke.
    const model = newModel(catalog!, index, { scope: 'all' });
    model.compute();
    const ours: number[] = [];
    const floor: number[] = [];
    const titles = all.map((s) => (s.title ?? '').toLowerCase());
    for (let run = 0; run <= RUNS; run++) {
      for (let n = 1; n <= QUERY.length; n++) {
        const query = QUERY.slice(0, n);
        model.setSettings({ ...model.currentSettings, query });
        const started = performance.now();
        model.compute();
        model.rows(0, 60);
        const ms = performance.now() - started;
        const bareStart = performance.now();
        let hits = 0;
        for (const title of titles) if (title.includes(query)) hits++;
        const bareMs = performance.now() - bareStart;
        if (hits < 0) throw new Error('unreachable');
        if (run > 0) {
          ours.push(ms);
          floor.push(bareMs);
        }
      }
      model.setSettings({ ...model.currentSettings, query: '' });
      model.compute();
    }
    console.log(`\nsearch: "${QUERY}" typed one character at a time (${ours.length} keystrokes): fuzzy titles of ${SESSIONS.toLocaleString('en')} + text of ${TEXTS.toLocaleString('en')} transcripts`);
    printTable(
      ['per keystroke', 'median ms', 'p95 ms', 'max ms'],
      [
        ['substring over titles (baseline)', fixed(median(floor)), fixed(percentile(floor, 95)), fixed(Math.max(...floor))],
        ['SessionsModel search + rows (ours)', fixed(median(ours)), fixed(percentile(ours, 95)), fixed(Math.max(...ours))],
      ],
    );
    console.log(`ours / baseline: median ${fixed(median(ours) / median(floor), 1)}×; p95 ${fixed(percentile(ours, 95))} ms against the 16 ms target`);

    // Chromium.
    const bundle = path.join(REPO_ROOT, 'dist', 'webview');
    if (!fs.existsSync(path.join(bundle, 'history.js'))) throw new Error('dist/webview/history.js is missing: run `node esbuild.mjs` first');
    const pageFile = path.join(dir, 'sessions.html');
    const emptyFile = path.join(dir, 'empty.html');
    fs.writeFileSync(pageFile, PAGE_HTML.replace('CSS', pathToFileURL(path.join(bundle, 'history.css')).href).replace('JS', pathToFileURL(path.join(bundle, 'history.js')).href));
    const spacerHeight = 46 * SESSIONS;
    fs.writeFileSync(emptyFile, EMPTY_SCROLL_HTML.replace('<div id="spacer"></div>', `<div id="spacer" style="height:${spacerHeight}px"></div>`));
    const { launchBrowser } = (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'browser.mjs')).href)) as typeof Browser;
    const { ensureSystemPackages, findChromium } = (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'install.mjs')).href)) as typeof Install;
    if (!findChromium()) ensureSystemPackages();
    const browser = await launchBrowser({ viewport: { width: 320, height: 900 } });
    try {
      const firstPaint: number[] = [];
      const emptyPaint: number[] = [];
      let scroll: { intervals: number[]; nodes: number } | undefined;
      const emptyCatalog = new AgentCatalog('Bench', () => Promise.resolve({ sessions: [] }));
      await emptyCatalog.loadMore([undefined]);
      for (let run = 0; run < RUNS; run++) {
        const page = await browser.context.newPage();
        await openSessionsPage(page, pathToFileURL(pageFile).href, newModel(catalog!, index, { scope: 'all' }));
        firstPaint.push(await page.evaluate(() => (globalThis as unknown as { rowsShown: Promise<number> }).rowsShown));
        if (run === 0) {
          await page.waitForTimeout(300);
          scroll = await page.evaluate(() => (globalThis as unknown as { scrollThrough(s: string, step: number): Promise<{ intervals: number[]; nodes: number }> }).scrollThrough('.list', 920));
        }
        await page.close();
        const empty = await browser.context.newPage();
        await openSessionsPage(empty, pathToFileURL(pageFile).href, newModel(emptyCatalog, new LocalSessionIndex(path.join(dir, `empty-${run}`)), { scope: 'all' }));
        emptyPaint.push(await empty.evaluate(() => (globalThis as unknown as { emptyShown: Promise<number> }).emptyShown));
        await empty.close();
      }
      const plain = await browser.context.newPage();
      await plain.goto(pathToFileURL(emptyFile).href);
      const emptyScroll = await plain.evaluate(() => (globalThis as unknown as { scrollThrough(s: string, step: number): Promise<{ intervals: number[]; nodes: number }> }).scrollThrough('#list', 920));
      await plain.close();
      const frames = scroll!.intervals.slice(1);
      const emptyFrames = emptyScroll.intervals.slice(1);
      console.log('\nChromium (the Sessions bundle, 320 px wide sidebar): first paint after navigation, and frame intervals scrolling the whole list');
      printTable(
        ['what', 'first paint ms', 'frames', 'median frame ms', 'p95 frame ms', 'DOM elements'],
        [
          ['empty list (baseline)', fixed(median(emptyPaint), 1), '', '', '', ''],
          ['empty element of the same height (baseline)', '', String(emptyFrames.length), fixed(median(emptyFrames), 1), fixed(percentile(emptyFrames, 95), 1), String(emptyScroll.nodes)],
          [`${SESSIONS.toLocaleString('en')} sessions (ours)`, fixed(median(firstPaint), 1), String(frames.length), fixed(median(frames), 1), fixed(percentile(frames, 95), 1), String(scroll!.nodes)],
        ],
      );
      console.log(
        `ours / baseline: first paint ${fixed(median(firstPaint) / median(emptyPaint))}×, median frame ${fixed(median(frames) / median(emptyFrames))}×, p95 frame ${fixed(percentile(frames, 95) / percentile(emptyFrames, 95))}×`,
      );
    } finally {
      await browser.close();
    }
    await index.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
