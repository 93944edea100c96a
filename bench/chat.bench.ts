/**
 * Chat throughput and frame cost as a transcript grows: 100,000 and 300,000 streamed message chunks (turns of
 * thoughts, markdown answers and tool calls, split like model tokens) through the chat's real path:
 *
 *   host:     Thread (session updates → immutable entries → coalesced ops) → PatchPacer (one patch in flight,
 *             the next after the webview's acknowledgement) → the webview's messages;
 *   webview:  the chat app (the shipped bundle's code plus a frame probe, bench/webview/chatPage.tsx) in
 *             Chromium, applying patches and rendering the virtualized transcript with Preact, markdown-it,
 *             DOMPurify and morphdom, acknowledging each patch once rendered.
 *
 * Reported per size: chunks per second, posts per second to the webview, and main-thread time per frame in
 * Chromium (applying a patch, rendering, measuring and layout), as median, p95 and max per tenth of the paced
 * run so that growth shows, and the number of DOM elements at the end. Baselines measured in the same run:
 *
 *   - host, one post per chunk: what a client without coalescing sends (an op per chunk, serialized);
 *   - webview, bare: the same text per frame appended as a new plain <div> (no markdown, no components,
 *     nothing re-rendered, nothing removed): the floor of incremental rendering, which grows too.
 *
 * Usage: node out/bench/chat.bench.js [--chunks N] [--runs N] [--rate chunks/s]
 * (default: 100,000 then 300,000 chunks; `--chunks` runs one size. Needs the bundles: `npm run bench` builds them.)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type * as Browser from '../scripts/vscode-web/browser.mjs';
import type * as Install from '../scripts/vscode-web/install.mjs';
import { SessionUpdate } from '../src/acp/schema';
import type { ChatOp } from '../src/shared/chatModel';
import { PatchPacer } from '../src/thread/patchPacer';
import { Thread } from '../src/thread/thread';
import { TranscriptFeed } from '../src/thread/transcriptFeed';
import { median, parseArgs, printTable } from './util';
import { bundleChatPage } from './webview/bundlePage';
import { transcriptEvent } from '../src/acp/v1/transcriptEvents';

const { chunks: ONE_SIZE, runs: RUNS, rate: PACED_RATE } = parseArgs({ chunks: 0, runs: 3, rate: 5000 });
/** The transcript sizes measured, in chunks. */
const SIZES = ONE_SIZE > 0 ? [ONE_SIZE] : [100_000, 300_000];
/** Updates handed over per event-loop turn at full speed: about what one 64 KiB read of the agent's stdout carries. */
const BURST = 300;
/** Paced runs hand over a burst every this many ms, sized for the rate (`--rate` chunks/s). */
const PACED_INTERVAL_MS = 10;
/** A frame at 60 Hz: the simulated webview of the host-only run acknowledges a patch this long after it. */
const FRAME_MS = 1000 / 60;
const REPO_ROOT = path.resolve(__dirname, '..', '..');

type Step = { readonly kind: 'prompt'; readonly text: string } | { readonly kind: 'update'; readonly update: SessionUpdate } | { readonly kind: 'end' };

// ---- the stream --------------------------------------------------------------------------------------

const WORDS =
  'the client sends every folder of the workspace to the agent which reads files writes edits and runs commands in a terminal while the user watches the answer stream'.split(
    ' ',
  );

/** A markdown answer of about `chars` characters: paragraphs, a list, inline code and a fenced block. */
function markdown(random: () => number, chars: number): string {
  const word = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const sentence = () => {
    const words = Array.from({ length: 6 + Math.floor(random() * 10) }, word);
    if (random() < 0.3) words[2] = `\`${words[2]}\``;
    if (random() < 0.2) words[4] = `**${words[4]}**`;
    return `${words.join(' ')}. `;
  };
  let text = `## Step ${Math.floor(random() * 9) + 1}\n\n`;
  while (text.length < chars) {
    const r = random();
    if (r < 0.6) text += `${sentence()}${sentence()}\n\n`;
    else if (r < 0.85) text += `- ${sentence()}\n- ${sentence()}\n- ${sentence()}\n\n`;
    else text += '```ts\nexport function greet(who: string): string {\n  return `Hello, ${who}`;\n}\n```\n\n';
  }
  return text;
}

/** Splits text like a model's tokens: mostly 1–8 characters, sometimes a longer run. */
function tokens(random: () => number, text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    const size = random() < 0.95 ? 1 + Math.floor(random() * 8) : 20 + Math.floor(random() * 60);
    out.push(text.slice(at, at + size));
    at += size;
  }
  return out;
}

/** Deterministic turns until `count` message chunks: prompt, thoughts, three answer+tool rounds, a summary. */
function makeStream(count: number): Step[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const steps: Step[] = [];
  let chunks = 0;
  const update = (raw: unknown) => steps.push({ kind: 'update', update: SessionUpdate.parse(raw) });
  const say = (kind: 'agent_message_chunk' | 'agent_thought_chunk', messageId: string, text: string) => {
    for (const token of tokens(random, text)) {
      if (chunks >= count) return;
      update({ sessionUpdate: kind, messageId, content: { type: 'text', text: token } });
      chunks++;
    }
  };
  for (let turn = 0; chunks < count; turn++) {
    steps.push({ kind: 'prompt', text: `Turn ${turn}: look at the folders and fix the greeting` });
    say('agent_thought_chunk', `t${turn}`, markdown(random, 300));
    for (let round = 0; round < 3 && chunks < count; round++) {
      say('agent_message_chunk', `a${turn}.${round}`, markdown(random, 900));
      const toolCallId = `call_${turn}_${round}`;
      update({
        sessionUpdate: 'tool_call',
        toolCallId,
        title: `Edit lib/src/greet.ts (${round + 1})`,
        kind: 'edit',
        status: 'pending',
        locations: [{ path: '/w/lib/src/greet.ts', line: 2 }],
      });
      update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'completed',
        content: [
          { type: 'diff', path: '/w/lib/src/greet.ts', oldText: 'return `Hello, ${who}`;\n', newText: `return \`Hello from round ${round}, \${who}\`;\n` },
        ],
      });
    }
    say('agent_message_chunk', `s${turn}`, markdown(random, 600));
    steps.push({ kind: 'end' });
  }
  return steps;
}

function newThread(): Thread {
  return new Thread({
    agentName: 'Bench Agent',
    roots: [{ name: 'w', path: '/w', primary: true }],
    prompt: { image: true, audio: false, embeddedContext: true },
    status: 'idle',
  });
}

/**
 * Feeds the steps like the connection does: a burst of updates per event-loop turn, `changed()` after
 * each. At full speed (no `rate`) the next burst follows at once; paced, bursts go every
 * {@link PACED_INTERVAL_MS} so that `rate` steps arrive per second, like an agent streaming that fast.
 */
async function feed(steps: readonly Step[], thread: Thread, changed: () => void, rate?: number): Promise<void> {
  const burst = rate === undefined ? BURST : Math.max(1, Math.round((rate * PACED_INTERVAL_MS) / 1000));
  const started = performance.now();
  let inBurst = 0;
  let bursts = 0;
  for (const step of steps) {
    if (step.kind === 'prompt') thread.addUserPrompt([{ type: 'text', text: step.text }]);
    else if (step.kind === 'end') thread.endTurn('end_turn');
    else thread.apply(transcriptEvent(step.update));
    changed();
    if (++inBurst === burst) {
      inBurst = 0;
      bursts++;
      const wait = rate === undefined ? 0 : started + bursts * PACED_INTERVAL_MS - performance.now();
      if (wait > 0) await sleep(wait);
      else await nextTurn();
    }
  }
}

// ---- host only ---------------------------------------------------------------------------------------

interface HostResult {
  readonly ms: number;
  readonly posts: number;
  readonly bytes: number;
}

/** Ours: Thread + PatchPacer; the webview is simulated (it acknowledges each patch one frame later). */
async function hostCoalesced(steps: readonly Step[]): Promise<HostResult> {
  const thread = newThread();
  let posts = 0;
  let bytes = 0;
  let fed = false;
  let last: (() => void) | undefined;
  const drained = () => new Promise<void>((resolve) => (last = resolve));
  const pacer: PatchPacer = new PatchPacer({
    takeOps: () => thread.takeOps(),
    hasChanges: () => thread.hasChanges,
    send: (seq, ops) => {
      posts++;
      bytes += JSON.stringify({ type: 'patch', seq, ops }).length;
      setTimeout(() => {
        pacer.acknowledge(seq);
        if (fed && !pacer.waiting && !thread.hasChanges) last?.();
      }, FRAME_MS);
    },
  });
  pacer.start();
  const started = performance.now();
  const done = drained();
  await feed(steps, thread, () => pacer.schedule());
  fed = true; // from here the last acknowledgement ends the run
  if (pacer.waiting || thread.hasChanges) await done;
  const ms = performance.now() - started;
  pacer.dispose();
  return { ms, posts, bytes };
}

/** Baseline: a post per chunk (the ops of each update serialized and sent on their own). */
async function hostPerChunk(steps: readonly Step[]): Promise<HostResult> {
  const thread = newThread();
  let posts = 0;
  let bytes = 0;
  const started = performance.now();
  await feed(steps, thread, () => {
    const ops = thread.takeOps();
    posts++;
    bytes += JSON.stringify({ type: 'patch', seq: posts, ops }).length;
  });
  return { ms: performance.now() - started, posts, bytes };
}

// ---- Chromium ----------------------------------------------------------------------------------------

interface WebviewResult {
  readonly ms: number;
  readonly posts: number;
  readonly frameTimes: number[];
  /** The text each patch appended, for the bare baseline. */
  readonly appended: string[];
  /** DOM elements in the page at the end, and the transcript's entries rendered among them. */
  readonly elements: number;
  readonly rendered: number;
  readonly entries: number;
}

const PAGE = `<!DOCTYPE html>
<html><head><meta charset="UTF-8"><link rel="stylesheet" href="CHAT_CSS"></head>
<body style="margin:0;height:100vh"><div id="root" style="height:100%"></div>
<script>
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.hostReceive(m), getState() {}, setState() {} });
</script>
<script src="CHAT_JS"></script>
</body></html>`;

const BARE_PAGE = `<!DOCTYPE html><html><head><meta charset="UTF-8"></head><body style="white-space:pre-wrap;font-family:sans-serif">
<script>
  window.bare = (batches) => new Promise((resolve) => {
    const times = [];
    let i = 0;
    const frame = () => {
      const started = performance.now();
      const block = document.createElement('div');
      block.textContent = batches[i];
      document.body.appendChild(block);
      void document.body.offsetHeight;
      times.push(performance.now() - started);
      if (++i < batches.length) requestAnimationFrame(frame); else resolve(times);
    };
    requestAnimationFrame(frame);
  });
</script></body></html>`;

async function webviewCoalesced(page: Page, steps: readonly Step[], pageUrl: string, rate?: number): Promise<WebviewResult> {
  const thread = newThread();
  const appended: string[] = [];
  let posts = 0;
  let fed = false;
  let ready: () => void = () => undefined;
  let finished: () => void = () => undefined;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const send = (message: unknown) => page.evaluate((m) => (globalThis as unknown as { postMessage(m: unknown, o: string): void }).postMessage(m, '*'), message);
  // What ChatPanel does: a snapshot after `ready`, then patches paced by the acknowledgements.
  const transcript = new TranscriptFeed(thread, (message) => {
    if (message.type === 'patch') {
      posts++;
      appended.push(appendedText(message.ops));
    }
    void send(message);
  });
  await page.exposeBinding('hostReceive', (_source, message: { type: string; seq?: number }) => {
    if (message.type === 'ready') {
      transcript.start();
      ready();
    } else if (message.type === 'rendered') {
      transcript.acknowledge(message.seq!);
      if (fed && !transcript.waiting && !thread.hasChanges) finished();
    }
  });
  page.on('console', (message) => {
    if (message.type() === 'warning' || message.type() === 'error') console.error(`webview ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => console.error(`webview error: ${error.message}`));
  await page.goto(pageUrl);
  await isReady;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const started = performance.now();
  await feed(steps, thread, () => transcript.changed(), rate);
  fed = true; // from here the last acknowledgement ends the run
  if (transcript.waiting || thread.hasChanges) await done;
  const ms = performance.now() - started;
  transcript.dispose();
  const probe = await page.evaluate(() => {
    const bench = (globalThis as unknown as { acpBench: { frameTimes: number[]; entries(): number } }).acpBench;
    const document = (
      globalThis as unknown as { document: { querySelectorAll(s: string): { length: number }; getElementsByTagName(s: string): { length: number } } }
    ).document;
    return {
      frameTimes: bench.frameTimes.slice(),
      entries: bench.entries(),
      elements: document.getElementsByTagName('*').length,
      rendered: document.querySelectorAll('.slot').length,
    };
  });
  if (probe.entries !== thread.length) throw new Error(`the webview holds ${probe.entries} entries, the thread has ${thread.length}`);
  return { ms, posts, frameTimes: probe.frameTimes, appended, elements: probe.elements, rendered: probe.rendered, entries: probe.entries };
}

/** The text a patch adds to the transcript (appends, and the text of new or replaced message entries). */
function appendedText(ops: readonly ChatOp[]): string {
  let text = '';
  for (const op of ops) {
    if (op.op === 'append') text += op.text;
    else if (op.op === 'entry' && (op.entry.kind === 'agent' || op.entry.kind === 'thought' || op.entry.kind === 'user')) {
      text += op.entry.kind === 'thought' ? op.entry.text : op.entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    } else if (op.op === 'entry') text += `${op.entry.kind}\n`;
  }
  return text;
}

async function webviewBare(page: Page, batches: readonly string[], pageUrl: string): Promise<{ frameTimes: number[]; elements: number }> {
  await page.goto(pageUrl);
  const frameTimes = await page.evaluate((b) => (globalThis as unknown as { bare(b: readonly string[]): Promise<number[]> }).bare(b), batches);
  const elements = await page.evaluate(
    () => (globalThis as unknown as { document: { getElementsByTagName(s: string): { length: number } } }).document.getElementsByTagName('*').length,
  );
  return { frameTimes, elements };
}

// ---- report ------------------------------------------------------------------------------------------

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000)).toLocaleString('en');
const fixed = (n: number, digits = 2) => n.toFixed(digits);

/** The paced run's frames cut in tenths: how frame time grows (or not) with the transcript. */
function deciles(frames: readonly number[]): number[][] {
  return Array.from({ length: 10 }, (_, d) => frames.slice(Math.floor((d * frames.length) / 10), Math.floor(((d + 1) * frames.length) / 10)));
}

async function hostRuns(steps: readonly Step[], chunks: number): Promise<void> {
  // Warm up, then interleave the two paths.
  await hostCoalesced(steps);
  await hostPerChunk(steps);
  const host = { ours: [] as HostResult[], perChunk: [] as HostResult[] };
  for (let run = 0; run < RUNS; run++) {
    host.ours.push(await hostCoalesced(steps));
    host.perChunk.push(await hostPerChunk(steps));
  }
  const pick = (results: HostResult[]) => results.find((r) => r.ms === median(results.map((x) => x.ms))) ?? results[0]!;
  const ours = pick(host.ours);
  const perChunk = pick(host.perChunk);
  console.log('\nhost (extension side; the webview acknowledges each patch one 60 Hz frame later)');
  printTable(
    ['path', 'chunks/s', 'posts', 'posts/s', 'KiB posted'],
    [
      [
        'one post per chunk (baseline)',
        rate(chunks, perChunk.ms),
        perChunk.posts.toLocaleString('en'),
        rate(perChunk.posts, perChunk.ms),
        Math.round(perChunk.bytes / 1024).toLocaleString('en'),
      ],
      [
        'Thread + PatchPacer (ours)',
        rate(chunks, ours.ms),
        ours.posts.toLocaleString('en'),
        rate(ours.posts, ours.ms),
        Math.round(ours.bytes / 1024).toLocaleString('en'),
      ],
    ],
  );
  console.log(
    `ours / baseline: chunks/s ${fixed(perChunk.ms / ours.ms)}×, posts 1/${Math.round(perChunk.posts / ours.posts).toLocaleString('en')}, bytes ${fixed(ours.bytes / perChunk.bytes)}×; posts/s ${fixed(ours.posts / (ours.ms / 1000), 1)} (at most one per frame: ≤ 60)`,
  );
}

async function main(): Promise<void> {
  // Chromium: the chat app with a frame probe, bundled like the shipped one (minified, same CSS).
  const bundle = path.join(REPO_ROOT, 'dist', 'webview');
  if (!fs.existsSync(path.join(bundle, 'chat.css'))) throw new Error('dist/webview/chat.css is missing: run `node esbuild.mjs` first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-chat-bench-'));
  const chatScript = path.join(dir, 'chat-bench.js');
  await bundleChatPage('chatPage.tsx', chatScript);
  const chatPage = path.join(dir, 'chat.html');
  const barePage = path.join(dir, 'bare.html');
  fs.writeFileSync(chatPage, PAGE.replace('CHAT_CSS', pathToFileURL(path.join(bundle, 'chat.css')).href).replace('CHAT_JS', pathToFileURL(chatScript).href));
  fs.writeFileSync(barePage, BARE_PAGE);
  const { launchBrowser } = (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'browser.mjs')).href)) as typeof Browser;
  const { ensureSystemPackages, findChromium } = (await import(
    pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'install.mjs')).href
  )) as typeof Install;
  if (!findChromium()) ensureSystemPackages();
  const browser = await launchBrowser({ viewport: { width: 1000, height: 800 } });
  const inPage = async <T>(work: (page: Page) => Promise<T>): Promise<T> => {
    const page = await browser.context.newPage();
    try {
      return await work(page);
    } finally {
      await page.close();
    }
  };
  try {
    for (const chunks of SIZES) {
      const steps = makeStream(chunks);
      const updates = steps.filter((s) => s.kind === 'update').length;
      // The largest size runs the full-speed case once: it is about how frames grow, not throughput.
      const fastRuns = chunks > 100_000 ? 1 : RUNS;
      console.log(
        `\n=== ${chunks.toLocaleString('en')} message chunks (${updates.toLocaleString('en')} session updates in ${steps.filter((s) => s.kind === 'prompt').length} turns), ${RUNS} host runs, ${fastRuns} full-speed webview run(s) (median)`,
      );
      await hostRuns(steps, chunks);

      const row = (name: string, result: WebviewResult) => {
        const frames = result.frameTimes;
        return [
          name,
          rate(chunks, result.ms),
          fixed(result.posts / (result.ms / 1000), 1),
          frames.length.toLocaleString('en'),
          fixed(median(frames)),
          fixed(percentile(frames, 95)),
          fixed(Math.max(...frames)),
          result.elements.toLocaleString('en'),
        ];
      };
      const bareRow = (name: string, bare: { frameTimes: number[]; elements: number }) => {
        const frames = bare.frameTimes;
        return [
          name,
          '',
          '',
          frames.length.toLocaleString('en'),
          fixed(median(frames)),
          fixed(percentile(frames, 95)),
          fixed(Math.max(...frames)),
          bare.elements.toLocaleString('en'),
        ];
      };
      // Full speed: the agent's updates arrive as fast as the host takes them (throughput; few, big frames).
      const fast: WebviewResult[] = [];
      for (let run = 0; run < fastRuns; run++) fast.push(await inPage((page) => webviewCoalesced(page, steps, pathToFileURL(chatPage).href)));
      const fastest = fast.find((r) => r.ms === median(fast.map((x) => x.ms))) ?? fast[0]!;
      // Paced: a fast agent's rate (frame times in steady streaming), and the bare floor on the same batches.
      const paced = await inPage((page) => webviewCoalesced(page, steps, pathToFileURL(chatPage).href, PACED_RATE));
      const bare = await inPage((page) => webviewBare(page, paced.appended, pathToFileURL(barePage).href));
      console.log('\nChromium (the chat webview bundle; main-thread time per frame = apply patch + render + measure + layout)');
      printTable(
        ['path', 'chunks/s', 'posts/s', 'frames', 'median ms', 'p95 ms', 'max ms', 'DOM elements at end'],
        [
          row(`full speed, median of ${fastRuns} (ours)`, fastest),
          row(`paced at ${PACED_RATE.toLocaleString('en')} chunks/s (ours)`, paced),
          bareRow('paced batches as plain <div>s (floor)', bare),
        ],
      );
      console.log(
        `ours: ${paced.rendered.toLocaleString('en')} of ${paced.entries.toLocaleString('en')} entries rendered at the end (the others stand behind spacers)`,
      );
      // How frame time grows with the transcript: each tenth of the paced run, ours and the floor.
      const ours = deciles(paced.frameTimes);
      const floor = deciles(bare.frameTimes);
      console.log('\npaced frame ms by tenth of the run (median / p95 / max)');
      printTable(
        ['tenth', 'ours', 'plain <div>s', 'ours / plain (median)'],
        ours.map((frames, d) => [
          `${d + 1}`,
          `${fixed(median(frames))} / ${fixed(percentile(frames, 95))} / ${fixed(Math.max(...frames))}`,
          `${fixed(median(floor[d]!))} / ${fixed(percentile(floor[d]!, 95))} / ${fixed(Math.max(...floor[d]!))}`,
          `${fixed(median(frames) / Math.max(median(floor[d]!), 0.01), 1)}×`,
        ]),
      );
      const frames = paced.frameTimes;
      console.log(
        `paced, ours / bare per frame: median ${fixed(median(frames) / Math.max(median(bare.frameTimes), 0.01), 1)}×, p95 ${fixed(percentile(frames, 95) / Math.max(percentile(bare.frameTimes, 95), 0.01), 1)}×; ` +
          `p95 ${fixed(percentile(frames, 95))} ms (goal < 8 ms at 300,000 chunks); first tenth → last tenth median ${fixed(median(ours[0]!))} → ${fixed(median(ours[9]!))} ms`,
      );
    }
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
