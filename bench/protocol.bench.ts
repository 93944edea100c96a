/**
 * Protocol throughput: 100,000 `session/update` notifications (mixed chunk sizes) as the bytes an agent
 * writes to stdout, delivered in 64 KiB pipe-sized chunks, through
 *
 *   - ours:  NdjsonMessageReader → vscode-jsonrpc dispatch → zod validation → handler (the real path);
 *   - bare:  a split-lines + JSON.parse loop (the floor: no dispatch, no validation);
 *   - sdk:   @agentclientprotocol/sdk's own client (ndJsonStream + its zod validation) on the same bytes.
 *
 * Every variant runs in this process, interleaved, several times; the median of each is reported, with
 * ours as a ratio of the other two. Usage: node out/bench/protocol.bench.js [--updates N] [--runs N]
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import { stdioTransport } from '../src/acp/transport/stdio';
import { AcpConnection } from '../src/acp/connection';
import { SessionUpdateNotification } from '../src/acp/schema';
import { median, parseArgs, printTable } from './util';

const { updates: UPDATES, runs: RUNS } = parseArgs({ updates: 100_000, runs: 5 });
const CHUNK_BYTES = 64 * 1024;

/** Deterministic mix: mostly short streamed tokens, some paragraphs, a few large blocks and tool calls. */
function makeStream(count: number): Buffer[] {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const sizes = [4, 12, 30, 80, 400, 4000];
  const weights = [0.35, 0.3, 0.2, 0.1, 0.04, 0.01];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    let update: Record<string, unknown>;
    const r = random();
    if (i % 50 === 49) {
      update = { sessionUpdate: 'tool_call_update', toolCallId: `call_${i}`, status: 'in_progress', content: [{ type: 'content', content: { type: 'text', text: 'ok' } }] };
    } else {
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
      update = { sessionUpdate: i % 7 === 0 ? 'agent_thought_chunk' : 'agent_message_chunk', messageId: `m${i >> 6}`, content: { type: 'text', text } };
    }
    lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'sess_bench', update } }));
  }
  const all = Buffer.from(lines.join('\n') + '\n', 'utf8');
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += CHUNK_BYTES) chunks.push(all.subarray(at, Math.min(all.length, at + CHUNK_BYTES)));
  return chunks;
}

function bare(chunks: Buffer[]): Promise<number> {
  const started = performance.now();
  let partial = '';
  let count = 0;
  for (const chunk of chunks) {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const message = JSON.parse(line) as { method?: string };
      if (message.method === 'session/update') count++;
    }
  }
  if (count !== UPDATES) throw new Error(`bare loop counted ${count}`);
  return Promise.resolve(performance.now() - started);
}

function ours(chunks: Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const input = new PassThrough({ highWaterMark: CHUNK_BYTES });
    const output = new PassThrough();
    output.resume();
    const connection = new AcpConnection({ transport: stdioTransport(input, output, { peer: 'bench' }) });
    let count = 0;
    let started = 0;
    connection.onProtocolError(reject);
    connection.onNotification(SessionUpdateNotification, (n) => {
      if (n.update.sessionUpdate === '$unknown') reject(new Error('unexpected unknown update'));
      if (++count === UPDATES) {
        const elapsed = performance.now() - started;
        connection.dispose();
        resolve(elapsed);
      }
    });
    started = performance.now();
    Readable.from(chunks).pipe(input);
  });
}

async function sdk(chunks: Buffer[]): Promise<number> {
  const acp = await import('@agentclientprotocol/sdk');
  return new Promise((resolve, reject) => {
    let count = 0;
    let started = 0;
    const app = acp.client({ name: 'bench' }).onNotification('session/update', () => {
      if (++count === UPDATES) {
        const elapsed = performance.now() - started;
        connection.close();
        resolve(elapsed);
      }
    });
    const sink = new Writable({ write: (_c, _e, done) => done() });
    const stream = acp.ndJsonStream(Writable.toWeb(sink) as WritableStream<Uint8Array>, Readable.toWeb(Readable.from(chunks)) as ReadableStream<Uint8Array>);
    started = performance.now();
    const connection = app.connect(stream);
    connection.closed.catch(reject);
  });
}

async function main(): Promise<void> {
  const chunks = makeStream(UPDATES);
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  console.log(`protocol bench: ${UPDATES.toLocaleString('en')} session/update notifications, ${(bytes / 1024 / 1024).toFixed(1)} MiB, ${RUNS} runs each (median)`);
  // Warm-up: JIT, zod's compiled parsers, module loading.
  await bare(chunks);
  await ours(chunks);
  await sdk(chunks);
  const times: Record<'bare' | 'ours' | 'sdk', number[]> = { bare: [], ours: [], sdk: [] };
  for (let run = 0; run < RUNS; run++) {
    times.bare.push(await bare(chunks));
    times.ours.push(await ours(chunks));
    times.sdk.push(await sdk(chunks));
  }
  const rate = (ms: number) => UPDATES / (ms / 1000);
  const oursRate = rate(median(times.ours));
  const bareRate = rate(median(times.bare));
  const sdkRate = rate(median(times.sdk));
  printTable(
    ['path', 'updates/s', 'ours vs this'],
    [
      ['bare JSON.parse loop', Math.round(bareRate).toLocaleString('en'), `${(oursRate / bareRate).toFixed(2)}×`],
      ['@agentclientprotocol/sdk client', Math.round(sdkRate).toLocaleString('en'), `${(oursRate / sdkRate).toFixed(2)}×`],
      ['ACP Workspace (framing+dispatch+zod)', Math.round(oursRate).toLocaleString('en'), '1.00×'],
    ],
  );
  console.log(`ours / sdk = ${(oursRate / sdkRate).toFixed(2)} (target ≥ 2.00); bare / ours = ${(bareRate / oursRate).toFixed(2)} (stretch ≤ 2.00)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
