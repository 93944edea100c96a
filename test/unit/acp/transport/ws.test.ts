import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { ConnectionClosedError } from '../../../../src/acp/errors';
import * as acp from '../../../../src/acp/schema';
import { FramingError } from '../../../../src/acp/transport/ndjson';
import type { RemoteLinkOptions } from '../../../../src/acp/transport/remote';
import { webSocketLink, type WebSocketLinkOptions } from '../../../../src/acp/transport/ws';
import { serveReferenceAgent, type ServedAgent } from '../../../fixtures/referenceAgent/serve';
import { elsewhere, redirecting } from './redirectHarness';
import { clientInfo, fullFlow, until, wire } from './remoteHarness';

function options(url: string, extra: Partial<WebSocketLinkOptions> = {}): WebSocketLinkOptions {
  return { peer: 'Remote Ref', endpoint: { url, kind: 'websocket', allowInsecure: false }, credentials: {}, ...extra } satisfies RemoteLinkOptions;
}

/** A raw WebSocket server on 127.0.0.1 whose behaviour each test scripts. */
async function rawServer(onSocket: (socket: WebSocket) => void, serverOptions: { autoPong?: boolean } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, ...serverOptions });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', onSocket);
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** Answers initialize as a minimal agent would. */
function answerInitialize(socket: WebSocket, then?: (message: { id?: number; method?: string }) => void): void {
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; method?: string };
    if (message.method === 'initialize') {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: false } } }));
    } else then?.(message);
  });
}

describe('webSocketLink', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  async function served(args: string[] = ['--list-delay', '60000'], token?: string): Promise<ServedAgent> {
    const agent = await serveReferenceAgent({ args, token });
    cleanups.push(() => agent.close());
    return agent;
  }

  it('runs the session flow with the reference agent: streamed updates in order, a permission, session/cancel and $/cancel_request', async () => {
    const agent = await served();
    await fullFlow(webSocketLink(options(agent.wsUrl)));
  });

  it('sends the token as a Bearer header; a wrong one is refused with 401 in words (problem+json), cause auth, no retry, no token in the message', async () => {
    const agent = await served([], 's3cret-token');
    const good = webSocketLink(options(agent.wsUrl, { credentials: { token: 's3cret-token' } }));
    const wired = wire(good);
    await wired.connection.initialize({ clientInfo });
    await good.close();
    wired.connection.dispose();

    const bad = webSocketLink(options(agent.wsUrl, { credentials: { token: 'wrong-token', headers: { 'X-Extra': 'x' } } }));
    const refused = wire(bad);
    // The upgrade was refused before initialize could go out: it fails with the link's reason.
    await assert.rejects(refused.connection.initialize({ clientInfo }), /refused the credentials/);
    const end = await bad.ended;
    assert.equal(end.cause, 'auth');
    assert.equal(end.retry, false);
    assert.match(end.reason, /HTTP 401: Unauthorized: A valid bearer token is required/);
    assert.doesNotMatch(end.reason, /wrong-token/);
    refused.connection.dispose();
  });

  it('reports a non-JSON frame, a binary frame and JSON that is not JSON-RPC, and reading goes on', async () => {
    const server = await rawServer((socket) =>
      answerInitialize(socket, (message) => {
        if (message.method !== 'session/new') return;
        socket.send('this is not json');
        socket.send(Buffer.from([1, 2, 3]), { binary: true });
        socket.send('[1,2]');
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { sessionId: 's1' } }));
      }),
    );
    cleanups.push(() => server.close());
    const link = webSocketLink(options(server.url));
    const wired = wire(link);
    cleanups.push(() => link.close());
    await wired.connection.initialize({ clientInfo });
    const { sessionId } = await wired.connection.newSession({ cwd: '/w', mcpServers: [] });
    assert.equal(sessionId, 's1');
    const reasons = wired.protocolErrors.map((e) => (e instanceof FramingError ? e.reason : e.message));
    assert.deepEqual(reasons, ['json', 'shape', 'shape']);
    assert.match(wired.protocolErrors[1]!.message, /Remote Ref sent a binary WebSocket frame/);
  });

  it('a $/cancel_request from the agent cancels the request it names', async () => {
    let socketRef: WebSocket | undefined;
    const answered = new Promise<unknown>((resolve) => {
      void rawServer((socket) => {
        socketRef = socket;
        answerInitialize(socket, (message) => {
          if (message.id === 77) resolve(message);
        });
      }).then((server) => {
        cleanups.push(() => server.close());
        const link = webSocketLink(options(server.url));
        const wired = wire(link);
        cleanups.push(() => link.close());
        wired.connection.onRequest(
          acp.ReadTextFileMethod,
          (_params, token) => new Promise((_resolve, reject) => token.onCancellationRequested(() => reject(new Error('cancelled by the agent')))),
        );
        void wired.connection.initialize({ clientInfo }).then(() => {
          socketRef!.send(JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'fs/read_text_file', params: { sessionId: 's', path: '/w/a.txt' } }));
          setTimeout(() => socketRef!.send(JSON.stringify({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 77 } })), 20);
        });
      });
    });
    const answer = (await answered) as { error?: { message: string } };
    assert.ok(answer.error, 'the cancelled request was answered with an error');
  });

  it('an incoming message over the limit ends the link (cause protocol, naming the setting); an outgoing one fails its request at once and the link goes on', async () => {
    const server = await rawServer((socket) =>
      answerInitialize(socket, (message) => {
        if (message.method === 'session/new') socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { sessionId: 'x'.repeat(4096) } }));
      }),
    );
    cleanups.push(() => server.close());
    const link = webSocketLink(options(server.url, { maxMessageBytes: 2048 }));
    const wired = wire(link);
    await wired.connection.initialize({ clientInfo });
    await assert.rejects(
      wired.connection.prompt({ sessionId: 's', prompt: [{ type: 'text', text: 'y'.repeat(4096) }] }),
      /session\/prompt message to Remote Ref was [\d,]+ bytes, over the limit of 2,048 bytes \(setting acpWorkspace\.maxMessageSizeMiB\); it was not sent/,
    );
    assert.equal(link.ended instanceof Promise, true);
    const pending = wired.connection.newSession({ cwd: '/w', mcpServers: [] });
    await assert.rejects(pending, (error: Error) => error instanceof ConnectionClosedError && /acpWorkspace\.maxMessageSizeMiB/.test(error.message));
    const end = await link.ended;
    assert.equal(end.cause, 'protocol');
    assert.match(end.reason, /longer than 2,048 bytes; a WebSocket message cannot be skipped/);
    assert.ok(wired.protocolErrors.some((e) => e instanceof FramingError && e.reason === 'oversize' && e.peer === 'Remote Ref'));
  });

  it("the server killed mid-turn fails the pending prompt with the link's reason; cause network or closed, retry", async () => {
    const agent = await served();
    const link = webSocketLink(options(agent.wsUrl));
    const wired = wire(link);
    await wired.connection.initialize({ clientInfo });
    const { sessionId } = await wired.connection.newSession({ cwd: '/w', mcpServers: [] });
    const turn = wired.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hang' }] });
    await until(() => wired.updates.some((u) => u.kind === 'agent_message_chunk'), 'the turn to start');
    agent.kill();
    const end = await link.ended;
    assert.ok(end.cause === 'network' || end.cause === 'closed', end.cause);
    assert.equal(end.retry, true);
    await assert.rejects(turn, (error: Error) => error instanceof ConnectionClosedError && error.reason === end.reason);
  });

  it('close() sends a close frame and ends with stopped; a write after that is refused', async () => {
    let closedByClient: number | undefined;
    const server = await rawServer((socket) => {
      answerInitialize(socket);
      socket.on('close', (code) => (closedByClient = code));
    });
    cleanups.push(() => server.close());
    const link = webSocketLink(options(server.url));
    const wired = wire(link);
    await wired.connection.initialize({ clientInfo });
    await link.close();
    assert.deepEqual(await link.ended, { cause: 'stopped', reason: 'The connection to Remote Ref was closed by this client.', retry: false });
    await until(() => closedByClient !== undefined, 'the server to see the close');
    assert.equal(closedByClient, 1000);
    assert.equal(await wired.closedWith, 'The connection to Remote Ref was closed by this client.');
    await assert.rejects(wired.connection.newSession({ cwd: '/w', mcpServers: [] }), ConnectionClosedError);
  });

  it('writes made before the socket is open wait and go out in order', async () => {
    const seen: string[] = [];
    const server = await rawServer((socket) => socket.on('message', (data) => seen.push((JSON.parse(data.toString()) as { method: string }).method)));
    cleanups.push(() => server.close());
    const link = webSocketLink(options(server.url));
    const { writer } = link.open({ intercept: () => false });
    cleanups.push(() => link.close());
    await Promise.all(['a', 'b', 'c'].map((method) => writer.write({ jsonrpc: '2.0', method } as never)));
    await until(() => seen.length === 3, 'three messages');
    assert.deepEqual(seen, ['a', 'b', 'c']);
  });

  it('a handshake that never comes ends with network after connectTimeoutMs; a refused port with network too', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => silent.close(() => resolve())));
    const sockets: net.Socket[] = [];
    silent.on('connection', (s) => sockets.push(s));
    cleanups.push(() => sockets.forEach((s) => s.destroy()));
    const slow = webSocketLink(options(`ws://127.0.0.1:${(silent.address() as AddressInfo).port}/`, { connectTimeoutMs: 200 }));
    slow.open({ intercept: () => false });
    const end = await slow.ended;
    assert.equal(end.cause, 'network');
    assert.equal(end.retry, true);
    assert.match(end.reason, /timed out/);

    const free = http.createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const refused = webSocketLink(options(`ws://127.0.0.1:${port}/`));
    refused.open({ intercept: () => false });
    const refusedEnd = await refused.ended;
    assert.equal(refusedEnd.cause, 'network');
    assert.match(refusedEnd.reason, /refused/);
  });

  it('refuses plain ws: to another host before any socket (the TLS rule), without retry', async () => {
    const link = webSocketLink(options('ws://agents.example.com/acp'));
    const { writer } = link.open({ intercept: () => false });
    const end = await link.ended;
    assert.equal(end.cause, 'network');
    assert.equal(end.retry, false);
    assert.match(end.reason, /is not encrypted/);
    await assert.rejects(writer.write({ jsonrpc: '2.0', method: 'x' } as never), /is not encrypted/);
  });

  it('a redirected upgrade is refused, never followed: in words (where it pointed), http, no retry; the token and headers reach no other host', async () => {
    const other = await elsewhere();
    cleanups.push(() => other.close());
    const server = await redirecting(
      other,
      302,
      () => true,
      (_request, response) => response.writeHead(500).end(),
    );
    cleanups.push(() => server.close());
    const link = webSocketLink(options(server.url.replace(/^http/, 'ws'), { credentials: { token: 'tok-123', headers: { 'X-Api-Key': 'key-456' } } }));
    link.open({ intercept: () => false });
    const end = await link.ended;
    assert.deepEqual(other.requests, []);
    assert.equal(end.cause, 'http');
    assert.equal(end.retry, false);
    assert.match(
      end.reason,
      /^Remote Ref answered the WebSocket connection to ws:\/\/127\.0\.0\.1:\d+\/acp with a redirect \(HTTP 302\) to http:\/\/127\.0\.0\.1:\d+\/acp\. ACP Workspace does not follow redirects/,
    );
    assert.doesNotMatch(end.reason, /tok-123|key-456/);
  });

  it('a peer that stops answering pings is found out (cause network)', async () => {
    const server = await rawServer((socket) => answerInitialize(socket), { autoPong: false });
    cleanups.push(() => server.close());
    const link = webSocketLink(options(server.url, { keepAliveMs: 50 }));
    const wired = wire(link);
    await wired.connection.initialize({ clientInfo });
    const end = await link.ended;
    assert.equal(end.cause, 'network');
    assert.match(end.reason, /did not answer a ping/);
  });
});
