/**
 * Replaying a long session: a stored session of 2,000 turns (100,000 `session/update`s) opened through the
 * product's real path:
 *
 *   the reference agent (a child process, `--store`) → `session/load`, which replays the history before it
 *   answers → AgentProcess, RpcPeer, SessionRouter (the replay waits for its chat) → Reopener → Chats →
 *   Thread → the chat's feed (snapshot, patches paced by acknowledgements) → the chat bundle in Chromium.
 *
 * Reported, per run: the longest main-thread task on the host side (the longest gap of a 1 ms timer in
 * this process, from the request to the replay shown) and in the webview (PerformanceObserver 'longtask',
 * after the app asked for its snapshot; the page's own start-up is reported apart), the number of tasks over
 * 50 ms on each side, and the time until the replay is shown (every entry in the store, the session idle).
 *
 * Baselines measured in the same run, on the same history:
 *   - host, one synchronous fold: the same updates applied to a Thread in one loop, and the whole transcript
 *     serialized as one snapshot message (what a chat that is not sliced does in one task each);
 *   - webview, bare: the same transcript as one plain <div> per entry (text only), appended at once.
 *
 * Usage: node out/bench/replay.bench.js [--turns N] [--updates N] [--runs N]
 * (needs the bundles: `npm run bench` builds them first)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import type * as Browser from '../scripts/vscode-web/browser.mjs';
import type * as Install from '../scripts/vscode-web/install.mjs';
import { SessionUpdate } from '../src/acp/schema';
import { silentLogger } from '../src/common/logger';
import { AgentProcess } from '../src/process/agentProcess';
import { rootSetFromPaths } from '../src/roots/rootSet';
import { ActiveSessions } from '../src/sessions/routing/activeSessions';
import { Chats } from '../src/sessions/chats/chats';
import { Reopener } from '../src/sessions/opening/reopener';
import type { SessionController } from '../src/sessions/turns/sessionController';
import { SessionRouter } from '../src/sessions/routing/sessionRouter';
import type { ViewEntry } from '../src/shared/chatModel';
import { Thread } from '../src/thread/thread';
import { TranscriptFeed } from '../src/thread/transcriptFeed';
import { seedStore } from '../test/fixtures/referenceAgent/store';
import { median, parseArgs, printTable } from './util';
import { bundleChatPage } from './webview/bundlePage';
import { transcriptEvent } from '../src/acp/v1/transcriptEvents';

const { turns: TURNS, updates: UPDATES, runs: RUNS } = parseArgs({ turns: 2000, updates: 100_000, runs: 2 });
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const AGENT = 'Replay Agent';
const LONG_TASK_MS = 50;

// ---- the history -------------------------------------------------------------------------------------

const WORDS =
  'the client sends every folder of the workspace to the agent which reads files writes edits and runs commands in a terminal while the user watches'.split(
    ' ',
  );

/**
 * Deterministic turns of about `updates / turns` updates each, as agents replay them (whole messages, not
 * tokens): the prompt, a thought, rounds of an answer and a tool call (announced, then completed with its
 * output or a diff), a closing answer.
 */
function makeHistory(turns: number, updates: number): unknown[] {
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
  const markdown = (sentences: number) => {
    let text = `### ${words(3)}\n\n`;
    for (let i = 0; i < sentences; i++) text += random() < 0.2 ? `- \`${words(1)}\` ${words(8)}\n` : `${words(12)}. `;
    return random() < 0.3 ? `${text}\n\n\`\`\`ts\nexport const ${words(1)} = ${Math.floor(random() * 100)};\n\`\`\`\n` : text;
  };
  const perTurn = Math.max(6, Math.round(updates / turns));
  const rounds = Math.floor((perTurn - 3) / 3);
  const history: unknown[] = [];
  for (let turn = 0; turn < turns && history.length < updates; turn++) {
    history.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `Turn ${turn}: ${words(10)}` } });
    history.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: markdown(3) } });
    for (let round = 0; round < rounds; round++) {
      history.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: markdown(2) } });
      const toolCallId = `call_${turn}_${round}`;
      const edit = random() < 0.3;
      history.push({
        sessionUpdate: 'tool_call',
        toolCallId,
        title: edit ? `Edit src/file${round}.ts` : `Read src/file${round}.ts`,
        kind: edit ? 'edit' : 'read',
        status: 'pending',
        locations: [{ path: `/w/src/file${round}.ts`, line: round + 1 }],
      });
      history.push({
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'completed',
        content: edit
          ? [{ type: 'diff', path: `/w/src/file${round}.ts`, oldText: `export const a = ${round};\n`, newText: `export const a = ${round + 1};\n` }]
          : [{ type: 'content', content: { type: 'text', text: words(30) } }],
      });
    }
    for (let extra = 3 + rounds * 3; extra < perTurn; extra++)
      history.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: markdown(4) } });
  }
  return history.slice(0, updates);
}

// ---- host side ---------------------------------------------------------------------------------------

/** The longest gap of a 1 ms timer (≈ the longest task on this thread) and how many gaps exceeded 50 ms. */
function watchThread(): { stop(): { longest: number; over: number } } {
  let last = performance.now();
  let longest = 0;
  let over = 0;
  let timer: ReturnType<typeof setTimeout>;
  const tick = () => {
    const now = performance.now();
    const gap = now - last - 1;
    if (gap > longest) longest = gap;
    if (gap > LONG_TASK_MS) over++;
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    stop() {
      clearTimeout(timer);
      return { longest, over };
    },
  };
}

interface RunResult {
  readonly shownMs: number;
  readonly hostLongest: number;
  readonly hostOver: number;
  readonly webviewLongest: number;
  readonly webviewOver: number;
  readonly startupLongest: number;
  readonly entries: number;
}

/**
 * What the chat panel does for a chat (src/vscode/chat/chatPanel.ts without VS Code): its TranscriptFeed, a
 * snapshot after `ready`, then patches paced by the webview's acknowledgements. Messages cross as JSON text,
 * which is what VS Code's webview messaging serializes on the host.
 */
async function showInPage(page: Page, chat: SessionController, onShown: (entries: number, status: string) => void): Promise<{ dispose(): void }> {
  const thread = chat.thread;
  const post = (message: unknown) =>
    void page
      .evaluate((text) => (globalThis as unknown as { postMessage(m: unknown, o: string): void }).postMessage(JSON.parse(text), '*'), JSON.stringify(message))
      .catch(() => undefined);
  const transcript = new TranscriptFeed(thread, post);
  const changes = thread.onDidChange(() => transcript.changed());
  await page.exposeBinding('hostReceive', (_source, message: { type: string; seq?: number }) => {
    if (message.type === 'ready') transcript.start();
    else if (message.type === 'rendered') transcript.acknowledge(message.seq!);
  });
  await page.exposeFunction('benchShown', onShown);
  return {
    dispose() {
      changes.dispose();
      transcript.dispose();
    },
  };
}

const CHAT_PAGE = `<!DOCTYPE html>
<html><head><meta charset="UTF-8"><link rel="stylesheet" href="CHAT_CSS"></head>
<body style="margin:0;height:100vh"><div id="root" style="height:100%"></div>
<script>
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.hostReceive(m), getState() {}, setState() {} });
</script>
<script src="CHAT_JS"></script>
</body></html>`;

async function replayRun(pages: () => Promise<Page>, agentBundle: string, store: string, sessionId: string, cwd: string, pageUrl: string): Promise<RunResult> {
  const sessions = new ActiveSessions();
  const router = new SessionRouter({ sessions, logger: silentLogger });
  const agent = new AgentProcess({
    command: { name: AGENT, command: process.execPath, args: [agentBundle, '--store', store], env: {} },
    cwd,
    logger: silentLogger,
    clientInfo: { name: 'acp-workspace-bench', version: '0' },
    registerHandlers: (connection, confinement) => router.connect(connection, confinement),
    restartPolicy: false,
  });
  const chats = new Chats({ router, sessions, logger: silentLogger });
  const reopener = new Reopener({
    agents: {
      start: () => agent.start(),
      restart: () => agent.restart(),
      running: () => agent.connection,
      isRunning: () => agent.state === 'running' || agent.state === 'starting',
    },
    chats,
    router,
    sessions,
    mcp: { forAgent: () => ({ servers: [], notPassed: [] }) },
    logger: silentLogger,
  });
  await agent.start();
  const page = await pages();
  let shown: (() => void) | undefined;
  const shownAt = new Promise<number>((resolve) => (shown = () => resolve(performance.now())));
  let expected: number | undefined;
  let last = { entries: 0, status: '' };
  const check = () => {
    if (expected !== undefined && last.entries === expected && last.status === 'idle') shown?.();
  };
  let view: { dispose(): void } | undefined;
  // Like ChatTabs: a tab (here a page) opens as soon as the chat does.
  const opened = chats.onDidOpen(({ chat }) => {
    void (async () => {
      view = await showInPage(page, chat, (entries, status) => {
        last = { entries, status };
        check();
      });
      await page.goto(pageUrl);
      if (process.env['BENCH_PROFILE']) {
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.start');
        void shownAt.then(async () => {
          const { profile } = await cdp.send('Profiler.stop');
          const byId = new Map(profile.nodes.map((n) => [n.id, n]));
          const self = new Map<string, number>();
          profile.samples!.forEach((id, i) => {
            const n = byId.get(id)!;
            const key = `${n.callFrame.functionName || '(anon)'} :${n.callFrame.lineNumber}`;
            self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas![i] ?? 0));
          });
          for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(us / 1000).toFixed(1)} ms ${key}`);
        });
      }
    })();
  });
  const watch = watchThread();
  const started = performance.now();
  try {
    const reopened = await reopener.reopen({ verb: 'open', agentName: AGENT, sessionId, roots: () => Promise.resolve(rootSetFromPaths(cwd, [])) });
    if (!reopened?.chat) throw new Error('the session did not open');
    const thread = reopened.chat.thread;
    // The chat is complete once no update is waiting and the host said everything it has.
    expected = thread.length;
    check();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const end = await Promise.race([
      shownAt,
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new Error(`the replay was not shown in 10 minutes: the page shows ${last.entries} of ${expected} entries, ${last.status}`)),
            600_000,
          )),
      ),
    ]).finally(() => clearTimeout(timer));
    const host = watch.stop();
    const probe = await page.evaluate(
      () => (globalThis as unknown as { acpBench: { longTasks: Array<{ start: number; duration: number }>; readyAt: number } }).acpBench,
    );
    const replayTasks = probe.longTasks.filter((task) => task.start >= probe.readyAt);
    const startupTasks = probe.longTasks.filter((task) => task.start < probe.readyAt);
    return {
      shownMs: end - started,
      hostLongest: host.longest,
      hostOver: host.over,
      webviewLongest: Math.max(0, ...replayTasks.map((task) => task.duration)),
      webviewOver: replayTasks.length,
      startupLongest: Math.max(0, ...startupTasks.map((task) => task.duration)),
      entries: expected,
    };
  } finally {
    watch.stop();
    opened.dispose();
    view?.dispose();
    chats.dispose();
    await agent.stop();
    router.dispose();
    await page.close();
  }
}

// ---- baselines ---------------------------------------------------------------------------------------

/** One synchronous fold of the same updates into a Thread, and the whole transcript as one snapshot message. */
function hostBaseline(history: readonly SessionUpdate[]): { foldMs: number; serializeMs: number; entries: ViewEntry[] } {
  const thread = new Thread({
    agentName: AGENT,
    roots: [{ name: 'w', path: '/w', primary: true }],
    prompt: { image: true, audio: false, embeddedContext: true },
    status: 'idle',
  });
  const started = performance.now();
  for (const update of history) thread.apply(transcriptEvent(update));
  const foldMs = performance.now() - started;
  const snapshot = thread.snapshot();
  const serializing = performance.now();
  JSON.stringify({ type: 'snapshot', ...snapshot });
  return { foldMs, serializeMs: performance.now() - serializing, entries: snapshot.entries };
}

const BARE_PAGE = `<!DOCTYPE html><html><head><meta charset="UTF-8"></head><body style="margin:0;font-family:sans-serif;white-space:pre-wrap">
<script>
  window.longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push(e.duration); }).observe({ type: 'longtask', buffered: true });
  window.bare = (text) => new Promise((resolve) => {
    const started = performance.now();
    const texts = JSON.parse(text);
    const fragment = document.createDocumentFragment();
    for (const t of texts) { const div = document.createElement('div'); div.textContent = t; fragment.appendChild(div); }
    document.body.appendChild(fragment);
    void document.body.offsetHeight;
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - started)));
  });
</script></body></html>`;

/** The same transcript as plain text in one <div> per entry, appended at once: the longest task and the time to show it. */
async function webviewBaseline(page: Page, entries: readonly ViewEntry[], pageUrl: string): Promise<{ shownMs: number; longest: number; over: number }> {
  await page.goto(pageUrl);
  const texts = entries.map(entryText);
  const shownMs = await page.evaluate((text) => (globalThis as unknown as { bare(t: string): Promise<number> }).bare(text), JSON.stringify(texts));
  const tasks = await page.evaluate(() => (globalThis as unknown as { longTasks: number[] }).longTasks);
  return { shownMs, longest: Math.max(0, ...tasks), over: tasks.length };
}

function entryText(entry: ViewEntry): string {
  switch (entry.kind) {
    case 'user':
    case 'agent':
      return entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    case 'thought':
      return entry.text;
    case 'tool':
      return `${entry.title}\n${entry.content.map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : c.type)).join('\n')}`;
    default:
      return entry.kind;
  }
}

// ---- main --------------------------------------------------------------------------------------------

const fixed = (n: number, digits = 0) => n.toFixed(digits);

async function main(): Promise<void> {
  const raw = makeHistory(TURNS, UPDATES);
  const history = raw.map((update) => SessionUpdate.parse(update));
  const textBytes = Buffer.byteLength(JSON.stringify(raw));
  console.log(
    `replay bench: a session of ${TURNS.toLocaleString('en')} turns, ${history.length.toLocaleString('en')} updates (${(textBytes / 1024 / 1024).toFixed(1)} MiB as JSON), opened with session/load; ${RUNS} runs`,
  );

  const bundle = path.join(REPO_ROOT, 'dist', 'webview');
  const agentBundle = path.join(REPO_ROOT, 'dist', 'reference-agent.js');
  if (!fs.existsSync(path.join(bundle, 'chat.css')) || !fs.existsSync(agentBundle)) throw new Error('dist/ is missing: run `node esbuild.mjs` first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-replay-bench-'));
  const store = path.join(dir, 'store');
  const cwd = path.join(dir, 'w');
  fs.mkdirSync(cwd);
  const [record] = seedStore(store, [{ cwd, title: 'A long session', history: raw as never[] }]);
  const pageScript = path.join(dir, 'replay-bench.js');
  // A profile (BENCH_PROFILE=1) names functions.
  await bundleChatPage('replayPage.tsx', pageScript, !process.env['BENCH_PROFILE']);
  const chatPage = path.join(dir, 'chat.html');
  const barePage = path.join(dir, 'bare.html');
  fs.writeFileSync(
    chatPage,
    CHAT_PAGE.replace('CHAT_CSS', pathToFileURL(path.join(bundle, 'chat.css')).href).replace('CHAT_JS', pathToFileURL(pageScript).href),
  );
  fs.writeFileSync(barePage, BARE_PAGE);

  const { launchBrowser } = (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'browser.mjs')).href)) as typeof Browser;
  const { ensureSystemPackages, findChromium } = (await import(
    pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'install.mjs')).href
  )) as typeof Install;
  if (!findChromium()) ensureSystemPackages();
  const browser = await launchBrowser({ viewport: { width: 1000, height: 800 } });
  const newPage = async () => {
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => console.error(`webview error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'warning' || message.type() === 'error') console.error(`webview ${message.type()}: ${message.text()}`);
    });
    return page;
  };
  try {
    const ours: RunResult[] = [];
    const hosts: Array<ReturnType<typeof hostBaseline>> = [];
    const bares: Array<{ shownMs: number; longest: number; over: number }> = [];
    // Interleaved: ours, then the baselines, run after run (the first of each is the cold one).
    for (let run = 0; run < RUNS; run++) {
      ours.push(await replayRun(newPage, agentBundle, store, record!.sessionId, cwd, pathToFileURL(chatPage).href));
      const host = hostBaseline(history);
      hosts.push(host);
      const page = await newPage();
      bares.push(await webviewBaseline(page, host.entries, pathToFileURL(barePage).href));
      await page.close();
    }
    const entries = ours[0]!.entries;
    console.log(`\n${entries.toLocaleString('en')} entries shown; times in ms, per run (cold first)`);
    printTable(
      ['run', 'shown after', 'host longest task', 'host tasks > 50', 'webview longest task', 'webview tasks > 50', 'webview start-up task'],
      ours.map((r, i) => [
        `ours #${i + 1}`,
        fixed(r.shownMs),
        fixed(r.hostLongest),
        String(r.hostOver),
        fixed(r.webviewLongest),
        String(r.webviewOver),
        fixed(r.startupLongest),
      ]),
    );
    console.log('');
    printTable(
      ['baseline (same history)', ...hosts.map((_, i) => `#${i + 1}`)],
      [
        ['host: one synchronous fold into a Thread', ...hosts.map((h) => fixed(h.foldMs))],
        ['host: the transcript as one snapshot (JSON)', ...hosts.map((h) => fixed(h.serializeMs))],
        ['webview: plain <div>s at once, longest task', ...bares.map((b) => fixed(b.longest))],
        ['webview: plain <div>s at once, shown after', ...bares.map((b) => fixed(b.shownMs))],
      ],
    );
    const m = (values: number[]) => median(values);
    console.log(
      `\nmedians: host longest task ${fixed(m(ours.map((r) => r.hostLongest)))} ms (one fold: ${fixed(m(hosts.map((h) => h.foldMs)))} ms, ${fixed(m(ours.map((r) => r.hostLongest)) / Math.max(1, m(hosts.map((h) => h.foldMs))), 2)}×); ` +
        `webview longest task ${fixed(m(ours.map((r) => r.webviewLongest)))} ms (plain <div>s: ${fixed(m(bares.map((b) => b.longest)))} ms, ${fixed(m(ours.map((r) => r.webviewLongest)) / Math.max(1, m(bares.map((b) => b.longest))), 2)}×); ` +
        `shown after ${fixed(m(ours.map((r) => r.shownMs)))} ms; goal: no task over ${LONG_TASK_MS} ms on either side`,
    );
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
