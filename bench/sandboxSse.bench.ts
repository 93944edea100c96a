/**
 * Event-stream framing of Sandbox Agent links: 100,000 `session/update` notifications (the protocol bench's
 * mix of chunk sizes) as the bytes a Sandbox Agent server sends on its event stream (`event: message`, `id: n`,
 * `data: <json>`, blank line), in 64 KiB chunks, read by
 *
 *   - sse:    the links' event stream intake: EventSplitter (bounded, sse.ts) → SseIntake (JSON.parse, a JSON-RPC
 *             check) → LinkReader, as the Streamable HTTP and Sandbox Agent links read their streams;
 *   - ndjson: NdjsonMessageReader on the same messages as stdio lines (the baseline: what a local agent costs);
 *   - bare:   eventsource-parser fed whole chunks + JSON.parse (the floor: no bound, no checks).
 *
 * Framing only (no dispatch or validation: those are the same for every transport and measured by
 * protocol.bench). Variants run interleaved in this process, the first (cold) run included; the median of each is
 * reported with sse as a ratio of the other two. Usage: node out/bench/sandboxSse.bench.js [--updates N] [--runs N]
 */
import { createParser } from 'eventsource-parser';
import { PassThrough } from 'node:stream';
import type { Message } from 'vscode-jsonrpc/node';
import { NdjsonMessageReader } from '../src/acp/transport/ndjson';
import { LinkReader } from '../src/acp/transport/linkChannel';
import { EventSplitter, SSE_FIELD_SLACK } from '../src/acp/transport/sse';
import { SseIntake } from '../src/acp/transport/sseIntake';
import { median, parseArgs, printTable } from './util';

const { updates: UPDATES, runs: RUNS } = parseArgs({ updates: 100_000, runs: 5 });
const CHUNK_BYTES = 64 * 1024;

function messages(count: number): string[] {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const sizes = [4, 12, 30, 80, 400, 4000];
  const weights = [0.35, 0.3, 0.2, 0.1, 0.04, 0.01];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    let acc = 0;
    let size = sizes[0]!;
    for (let k = 0; k < sizes.length; k++) {
      acc += weights[k]!;
      if (r <= acc) {
        size = sizes[k]!;
        break;
      }
    }
    const text = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(size / 27)).slice(0, size);
    const update = { sessionUpdate: 'agent_message_chunk', messageId: `m${i >> 6}`, content: { type: 'text', text } };
    out.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'sess_bench', update } }));
  }
  return out;
}

function chunked(text: string): Buffer[] {
  const all = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += CHUNK_BYTES) chunks.push(all.subarray(at, Math.min(all.length, at + CHUNK_BYTES)));
  return chunks;
}

function sse(chunks: Buffer[]): number {
  let count = 0;
  const limit = 32 * 1024 * 1024;
  const reader = new LinkReader({ intercept: () => false });
  const splitter = new EventSplitter(limit + SSE_FIELD_SLACK);
  const intake = new SseIntake('bench', limit, reader);
  reader.onError((error) => {
    throw error;
  });
  reader.listen((m: Message) => (m as { method?: string }).method === 'session/update' && count++);
  const started = performance.now();
  for (const chunk of chunks) intake.take(splitter.push(chunk));
  const elapsed = performance.now() - started;
  if (count !== UPDATES) throw new Error(`sse counted ${count}`);
  return elapsed;
}

function ndjson(chunks: Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const input = new PassThrough({ highWaterMark: CHUNK_BYTES });
    let count = 0;
    const reader = new NdjsonMessageReader(input, { peer: 'bench' });
    reader.onError(reject);
    const started = performance.now();
    reader.listen((m: Message) => {
      if ((m as { method?: string }).method === 'session/update' && ++count === UPDATES) resolve(performance.now() - started);
    });
    for (const chunk of chunks) input.write(chunk);
  });
}

function bare(chunks: Buffer[]): number {
  let count = 0;
  const parser = createParser({ onEvent: (event) => (JSON.parse(event.data) as { method?: string }).method === 'session/update' && count++ });
  const decoder = new TextDecoder();
  const started = performance.now();
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }));
  const elapsed = performance.now() - started;
  if (count !== UPDATES) throw new Error(`bare counted ${count}`);
  return elapsed;
}

async function main(): Promise<void> {
  const list = messages(UPDATES);
  const sseChunks = chunked(list.map((m, i) => `event: message\nid: ${i + 1}\ndata: ${m}\n\n`).join(''));
  const lineChunks = chunked(list.join('\n') + '\n');
  const mib = (chunks: Buffer[]) => (chunks.reduce((n, c) => n + c.length, 0) / 1024 / 1024).toFixed(1);
  console.log(
    `sandbox SSE bench: ${UPDATES.toLocaleString('en')} session/update notifications, ${mib(sseChunks)} MiB as events (${mib(lineChunks)} MiB as lines), ${RUNS} runs each (median, cold run included)`,
  );
  const times = { sse: [] as number[], ndjson: [] as number[], bare: [] as number[] };
  for (let run = 0; run < RUNS; run++) {
    times.sse.push(sse(sseChunks));
    times.ndjson.push(await ndjson(lineChunks));
    times.bare.push(bare(sseChunks));
  }
  const rate = (ms: number) => Math.round(UPDATES / (ms / 1000));
  const [s, n, b] = [median(times.sse), median(times.ndjson), median(times.bare)];
  printTable(
    ['path', 'median ms', 'messages/s', 'sse ÷ this (time)'],
    [
      ['sse (EventSplitter + SseIntake)', s.toFixed(0), rate(s).toLocaleString('en'), '1.00'],
      ['ndjson (stdio baseline)', n.toFixed(0), rate(n).toLocaleString('en'), (s / n).toFixed(2)],
      ['bare (parser + JSON.parse)', b.toFixed(0), rate(b).toLocaleString('en'), (s / b).toFixed(2)],
    ],
  );
}

void main();
