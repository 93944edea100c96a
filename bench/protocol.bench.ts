/**
 * Protocol throughput: 100,000 `session/update` notifications (mixed chunk sizes) as the bytes an agent
 * writes to stdout, delivered in 64 KiB pipe-sized chunks, through
 *
 *   - ours:  NdjsonMessageReader → vscode-jsonrpc dispatch → zod validation → handler (the real path);
 *   - bare:  a split-lines + JSON.parse loop (the floor: no dispatch, no validation);
 *   - sdk:   @agentclientprotocol/sdk's own client (ndJsonStream + its zod validation) on the same bytes.
 *
 * and the same updates from an agent on this machine over the remote links (a loopback server in this process):
 *
 *   - websocket:       one text frame each, through webSocketLink → the same dispatch and validation;
 *   - streamable http: one SSE event each (64 KiB writes), through streamableHttpLink (initialize included).
 *
 * Every variant runs in this process, interleaved, several times; the median of each is reported, with
 * ours as a ratio of the other two and each remote link as a ratio of stdio (ours) in the same run.
 * Usage: node out/bench/protocol.bench.js [--updates N] [--runs N]
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable, Writable } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { RemoteLink } from '../src/acp/transport/remote';
import { stdioTransport } from '../src/acp/transport/stdio';
import { streamableHttpLink } from '../src/acp/transport/streamableHttp';
import { webSocketLink } from '../src/acp/transport/ws';
import { AcpConnection } from '../src/acp/connection';
import { median, parseArgs, printTable } from './util';

const { updates: UPDATES, runs: RUNS } = parseArgs({ updates: 100_000, runs: 5 });
const CHUNK_BYTES = 64 * 1024;

/** Deterministic mix: mostly short streamed tokens, some paragraphs, a few large blocks and tool calls. */
function makeStream(count: number): Buffer[] {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const sizes = [4, 12, 30, 80, 400, 4000];
  const weights = [0.35, 0.3, 0.2, 0.1, 0.04, 0.01];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    let update: Record<string, unknown>;
    const r = random();
    if (i % 50 === 49) {
      update = {
        sessionUpdate: 'tool_call_update',
        toolCallId: `call_${i}`,
        status: 'in_progress',
        content: [{ type: 'content', content: { type: 'text', text: 'ok' } }],
      };
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
    // What the application gets: the v1 update validated and mapped to a transcript event (acp/port/events.ts).
    connection.onTranscriptEvent((_sessionId, event) => {
      if (event.type === 'unknown') reject(new Error('unexpected unknown update'));
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

/** The updates as single messages (one per frame or event). */
function messagesOf(chunks: Buffer[]): string[] {
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '');
}

/** Receives every update through an AcpConnection on `link`; resolves with the time from `started` to the last one. */
function receiveAll(link: RemoteLink, started: number, initialize: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const connection = new AcpConnection({ transport: link });
    let count = 0;
    connection.onProtocolError(reject);
    connection.onTranscriptEvent(() => {
      if (++count === UPDATES) {
        const elapsed = performance.now() - started;
        void link.close().then(() => connection.dispose());
        resolve(elapsed);
      }
    });
    if (initialize) connection.initialize({ clientInfo: { name: 'bench', version: '0' } }).catch(reject);
  });
}

/** The WebSocket server sends every update as a text frame once the client is connected. */
async function webSocketServer(messages: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (socket) => {
    for (const message of messages) socket.send(message);
  });
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => wss.close(() => resolve())) };
}

async function overWebSocket(url: string): Promise<number> {
  const started = performance.now();
  return receiveAll(webSocketLink({ peer: 'bench', endpoint: { url, kind: 'websocket', allowInsecure: false }, credentials: {} }), started, false);
}

/** A Streamable HTTP agent: answers initialize, then sends every update on the connection's event stream. */
async function httpServer(messages: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const sse = Buffer.from(messages.map((m) => `data: ${m}\n\n`).join(''), 'utf8');
  const server = http.createServer((request, response) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (let at = 0; at < sse.length; at += CHUNK_BYTES) response.write(sse.subarray(at, Math.min(sse.length, at + CHUNK_BYTES)));
      return;
    }
    const body: Buffer[] = [];
    request.on('data', (c: Buffer) => body.push(c));
    request.on('end', () => {
      if (request.method === 'DELETE') return void response.writeHead(202).end();
      const message = JSON.parse(Buffer.concat(body).toString()) as { id: number };
      response.writeHead(200, { 'Content-Type': 'application/json', 'Acp-Connection-Id': 'bench' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {} } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/acp`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function overHttp(url: string): Promise<number> {
  const started = performance.now();
  return receiveAll(streamableHttpLink({ peer: 'bench', endpoint: { url, kind: 'http', allowInsecure: false }, credentials: {} }), started, true);
}

async function main(): Promise<void> {
  const chunks = makeStream(UPDATES);
  const messages = messagesOf(chunks);
  const wsServer = await webSocketServer(messages);
  const sseServer = await httpServer(messages);
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  console.log(
    `protocol bench: ${UPDATES.toLocaleString('en')} session/update notifications, ${(bytes / 1024 / 1024).toFixed(1)} MiB, ${RUNS} runs each (median)`,
  );
  // Warm-up: JIT, zod's compiled parsers, module loading.
  await bare(chunks);
  await ours(chunks);
  await sdk(chunks);
  const coldWs = await overWebSocket(wsServer.url);
  const coldHttp = await overHttp(sseServer.url);
  const times: Record<'bare' | 'ours' | 'sdk' | 'ws' | 'http', number[]> = { bare: [], ours: [], sdk: [], ws: [], http: [] };
  for (let run = 0; run < RUNS; run++) {
    times.bare.push(await bare(chunks));
    times.ours.push(await ours(chunks));
    times.sdk.push(await sdk(chunks));
    times.ws.push(await overWebSocket(wsServer.url));
    times.http.push(await overHttp(sseServer.url));
  }
  await wsServer.close();
  await sseServer.close();
  const rate = (ms: number) => UPDATES / (ms / 1000);
  const oursRate = rate(median(times.ours));
  const bareRate = rate(median(times.bare));
  const sdkRate = rate(median(times.sdk));
  const wsRate = rate(median(times.ws));
  const httpRate = rate(median(times.http));
  printTable(
    ['path', 'updates/s', 'ours vs this'],
    [
      ['bare JSON.parse loop', Math.round(bareRate).toLocaleString('en'), `${(oursRate / bareRate).toFixed(2)}×`],
      ['@agentclientprotocol/sdk client', Math.round(sdkRate).toLocaleString('en'), `${(oursRate / sdkRate).toFixed(2)}×`],
      ['ACP Workspace (framing+dispatch+zod)', Math.round(oursRate).toLocaleString('en'), '1.00×'],
    ],
  );
  console.log(`ours / sdk = ${(oursRate / sdkRate).toFixed(2)} (target ≥ 2.00); bare / ours = ${(bareRate / oursRate).toFixed(2)} (stretch ≤ 2.00)`);
  printTable(
    ['link (loopback)', 'updates/s', 'vs stdio', 'cold first run'],
    [
      ['stdio (ours, in-memory pipe)', Math.round(oursRate).toLocaleString('en'), '1.00×', '—'],
      ['WebSocket (webSocketLink)', Math.round(wsRate).toLocaleString('en'), `${(wsRate / oursRate).toFixed(2)}×`, `${coldWs.toFixed(0)} ms`],
      ['Streamable HTTP (streamableHttpLink)', Math.round(httpRate).toLocaleString('en'), `${(httpRate / oursRate).toFixed(2)}×`, `${coldHttp.toFixed(0)} ms`],
    ],
  );
  console.log(`websocket / stdio = ${(wsRate / oursRate).toFixed(2)}; streamable http / stdio = ${(httpRate / oursRate).toFixed(2)} (same run, same machine)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
