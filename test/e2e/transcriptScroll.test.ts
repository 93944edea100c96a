/**
 * The chat transcript's reading position against streamed chunks, moment by moment: the chat bundle
 * (dist/webview/chat.js, as shipped) in Chromium, fed by the host's real Thread and TranscriptFeed; a long
 * conversation, an answer streaming, and the reader scrolling up at a chosen moment around a chunk's arrival.
 * A scroll's event comes with the next frame, and a chunk can be applied before it (or in the same frame):
 * whatever the order, the view stays where the reader scrolled and never goes back to the end.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { SessionUpdate } from '../../src/acp/schema';
import type { FeedMessage } from '../../src/thread/transcriptFeed';
import { TranscriptFeed } from '../../src/thread/transcriptFeed';
import { Thread } from '../../src/thread/thread';
import { REPO_ROOT, tooling } from './workbench';
import { transcriptEvent } from '../../src/acp/v1/transcriptEvents';

/** Turns in the conversation: well beyond the 200 entries a transcript renders whole. */
const TURNS = 600;

/** How a chunk's patch reaches the page, and when the reader's scroll is made relative to it. */
type Delivery = (page: Page, message: FeedMessage, scrollTo: number) => Promise<void>;

/** The page side (the tests compile without the DOM library). */
interface PageWindow {
  postMessage(message: unknown, origin: string): void;
  requestAnimationFrame(callback: () => void): number;
  setTimeout(callback: () => void, ms: number): number;
  document: { querySelector(selector: string): { scrollTop: number; scrollHeight: number; clientHeight: number } | null };
}

const MOMENTS: Record<string, Delivery> = {
  'scrolled, then the chunk arrives before the next frame': (page, message, to) =>
    page.evaluate(
      ([message, to]) => {
        const w = globalThis as unknown as PageWindow;
        w.document.querySelector('.transcript')!.scrollTop = to;
        w.postMessage(message, '*');
      },
      [message, to] as const,
    ),
  'the chunk arrives, then a scroll before the next frame': (page, message, to) =>
    page.evaluate(
      ([message, to]) => {
        const w = globalThis as unknown as PageWindow;
        w.postMessage(message, '*');
        w.setTimeout(() => (w.document.querySelector('.transcript')!.scrollTop = to), 0);
      },
      [message, to] as const,
    ),
  // A scroll that lands within a frame (a smooth scroll's step) before the chunk is applied in it: its scroll
  // event comes only with the next frame.
  'scrolled in the frame that applies the chunk, before it': (page, message, to) =>
    page.evaluate(
      ([message, to]) => {
        const w = globalThis as unknown as PageWindow;
        w.requestAnimationFrame(() => (w.document.querySelector('.transcript')!.scrollTop = to));
        w.postMessage(message, '*');
      },
      [message, to] as const,
    ),
  'scrolled in the frame that applied the chunk, after it': (page, message, to) =>
    page.evaluate(
      ([message, to]) => {
        const w = globalThis as unknown as PageWindow;
        w.postMessage(message, '*');
        w.setTimeout(() => w.requestAnimationFrame(() => (w.document.querySelector('.transcript')!.scrollTop = to)), 0);
      },
      [message, to] as const,
    ),
};

describe('the chat transcript keeps a scroll made at any moment around a streamed chunk (chat bundle in Chromium)', function () {
  this.timeout(180_000);
  let scratch: string;
  let close: (() => Promise<void>) | undefined;
  let page: Page;
  let feed: TranscriptFeed;
  let thread: Thread;
  /** How the next patch reaches the page (set for the chunk a scroll goes with). */
  let delivery: ((message: FeedMessage) => Promise<void>) | undefined;
  let idle: (() => void) | undefined;
  let chunks = 0;

  /** A message that could not be delivered (it ends the wait for the page to catch up). */
  let undelivered: unknown;
  const post = (message: FeedMessage) => page.evaluate((m) => (globalThis as unknown as PageWindow).postMessage(m, '*'), message);
  /** Resolves once the page rendered everything the thread has (the last patch acknowledged). */
  const caughtUp = async () => {
    if (undelivered === undefined && (feed.waiting || thread.hasChanges)) await new Promise<void>((resolve) => (idle = resolve));
    if (undelivered !== undefined) throw new Error(`a message did not reach the page: ${String(undelivered)}`);
  };
  const frames = (count: number) =>
    page.evaluate(
      (count) =>
        new Promise<void>((resolve) => {
          let left = count;
          const next = () => (left-- <= 0 ? resolve() : (globalThis as unknown as PageWindow).requestAnimationFrame(next));
          (globalThis as unknown as PageWindow).requestAnimationFrame(next);
        }),
      count,
    );
  const scroll = () =>
    page.evaluate(() => {
      const transcript = (globalThis as unknown as PageWindow).document.querySelector('.transcript')!;
      return { top: transcript.scrollTop, height: transcript.scrollHeight, client: transcript.clientHeight };
    });
  const chunk = () => {
    chunks++;
    thread.apply(
      transcriptEvent(
        SessionUpdate.parse({
          sessionUpdate: 'agent_message_chunk',
          messageId: 'streamed',
          content: { type: 'text', text: `\n- item ${chunks}: a few more words of the answer` },
        }),
      ),
    );
    feed.changed();
  };

  before(async () => {
    const bundle = path.join(REPO_ROOT, 'dist', 'webview');
    assert.ok(fs.existsSync(path.join(bundle, 'chat.js')), 'dist/webview/chat.js is built (node esbuild.mjs)');
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-transcript-'));
    const html = path.join(scratch, 'chat.html');
    fs.writeFileSync(
      html,
      `<!DOCTYPE html><html><head><meta charset="UTF-8"><link rel="stylesheet" href="${pathToFileURL(path.join(bundle, 'chat.css')).href}"></head>
<body style="margin:0;height:100vh"><div id="root" style="height:100%"></div>
<script>window.acquireVsCodeApi = () => ({ postMessage: (m) => window.hostReceive(m), getState() {}, setState() {} });</script>
<script src="${pathToFileURL(path.join(bundle, 'chat.js')).href}"></script></body></html>`,
    );

    thread = new Thread({
      agentName: 'Reference Agent',
      sessionId: 'long',
      roots: [{ name: 'lib', path: '/w/lib', primary: true }],
      prompt: { image: false, audio: false, embeddedContext: false },
      status: 'idle',
    });
    for (let turn = 0; turn < TURNS; turn++) {
      thread.addUserPrompt([{ type: 'text', text: `Question ${turn}: what does part ${turn} of the library do?` }]);
      thread.apply(
        transcriptEvent(
          SessionUpdate.parse({
            sessionUpdate: 'agent_message_chunk',
            content: {
              type: 'text',
              text: `Answer ${turn}: part ${turn} greets **everyone**.\n\n- it reads \`greet.ts\`\n- it writes the greeting\n\nThat is all for part ${turn}.`,
            },
          }),
        ),
      );
      thread.apply(
        transcriptEvent(
          SessionUpdate.parse({
            sessionUpdate: 'tool_call',
            toolCallId: `read_${turn}`,
            title: `Read greet.ts (${turn})`,
            kind: 'read',
            status: 'completed',
            locations: [{ path: '/w/lib/src/greet.ts', line: 1 }],
          }),
        ),
      );
      thread.endTurn('end_turn');
    }
    thread.takeOps();
    // What ChatPanel does: a snapshot when the view is ready, then patches paced by its acknowledgements.
    feed = new TranscriptFeed(thread, (message) => {
      const deliver = delivery ?? post;
      delivery = undefined;
      deliver(message).catch((error: unknown) => {
        undelivered = error;
        idle?.();
      });
    });

    const { browser } = await tooling();
    const launched = await browser.launchBrowser({ viewport: { width: 1000, height: 700 } });
    close = launched.close;
    page = await launched.context.newPage();
    let ready: () => void = () => undefined;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    await page.exposeBinding('hostReceive', (_source, message: { type: string; seq?: number }) => {
      if (message.type === 'ready') {
        feed.start();
        ready();
      } else if (message.type === 'rendered') {
        feed.acknowledge(message.seq!);
        if (!feed.waiting && !thread.hasChanges) idle?.();
      }
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(html).href);
    await isReady;
    await caughtUp();
    assert.deepEqual(errors, []);

    // An answer starts streaming, followed at the bottom.
    thread.addUserPrompt([{ type: 'text', text: 'stream slow' }]);
    thread.setSession({ status: 'running' });
    chunk();
    await caughtUp();
    await frames(2);
    const { top, height, client } = await scroll();
    assert.ok(height - top - client < 2, 'the view follows the answer at the bottom');
  });

  after(async () => {
    feed?.dispose();
    await close?.();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  for (const [moment, deliver] of Object.entries(MOMENTS)) {
    it(moment, async () => {
      const moved: string[] = [];
      for (let i = 0; i < 10; i++) {
        // Following the bottom again, then the reader scrolls up to a place never rendered so far.
        await page.evaluate(() => {
          const transcript = (globalThis as unknown as PageWindow).document.querySelector('.transcript')!;
          transcript.scrollTop = transcript.scrollHeight;
        });
        await frames(2);
        const to = Math.round((await scroll()).height * (0.2 + 0.05 * i));
        delivery = (message) => deliver(page, message, to);
        chunk();
        await caughtUp();
        await frames(3);
        const { top, height, client } = await scroll();
        if (Math.abs(top - to) >= client) moved.push(`scrolled to ${to}, the view is at ${Math.round(top)} (the end is at ${height - client})`);
      }
      assert.deepEqual(moved, [], 'the view stays where the reader scrolled');
    });
  }

  it('shows the entries of a place scrolled to in the frame after the scroll: a read in the same task still sees the old ones', async () => {
    await page.evaluate(() => {
      const transcript = (globalThis as unknown as PageWindow).document.querySelector('.transcript')!;
      transcript.scrollTop = transcript.scrollHeight;
    });
    await frames(2);
    /** The first line of the first agent entry whose top is in or below the view. */
    const read = (scrollFirst: boolean) =>
      page.evaluate((scrollFirst) => {
        interface Box {
          top: number;
        }
        interface Element {
          scrollTop: number;
          scrollHeight: number;
          innerText: string;
          getBoundingClientRect(): Box;
          querySelectorAll(s: string): ArrayLike<Element>;
        }
        const transcript = (globalThis as unknown as { document: { querySelector(s: string): Element } }).document.querySelector('.transcript');
        if (scrollFirst) transcript.scrollTop = Math.round(transcript.scrollHeight / 2);
        const top = transcript.getBoundingClientRect().top;
        const entries = Array.from(transcript.querySelectorAll('.slot .entry.agent'));
        return (entries.find((entry) => entry.getBoundingClientRect().top >= top) ?? entries[0])?.innerText.split('\n')[0] ?? '';
      }, scrollFirst);
    const sameTask = await read(true);
    await frames(2);
    const settled = await read(false);
    assert.match(sameTask, /^item \d+:|^Answer 59\d:/, `in the same task, the entries of the end are still rendered: ${sameTask}`);
    assert.match(settled, /^Answer (2\d\d|3\d\d):/, `a frame later, the middle of the conversation: ${settled}`);
  });
});
