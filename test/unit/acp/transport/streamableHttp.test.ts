import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ConnectionClosedError } from '../../../../src/acp/errors';
import type { FramingError } from '../../../../src/acp/transport/ndjson';
import { streamableHttpLink, type StreamableHttpLinkOptions } from '../../../../src/acp/transport/streamableHttp';
import { serveReferenceAgent, type ServedAgent } from '../../../fixtures/referenceAgent/serve';
import { elsewhere, methodOf, redirecting, type Recorded } from './redirectHarness';
import { clientInfo, fullFlow, until, wire } from './remoteHarness';

function options(url: string, extra: Partial<StreamableHttpLinkOptions> = {}): StreamableHttpLinkOptions {
  return { peer: 'Remote Ref', endpoint: { url, kind: 'http', allowInsecure: false }, credentials: {}, ...extra };
}

/**
 * A raw Streamable HTTP agent: answers initialize, keeps the connection's event stream open for `events`, and
 * answers every later POST with 202.
 */
async function rawServer(
  events: (stream: http.ServerResponse, posted: { method?: string; id?: number }) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  let stream: http.ServerResponse | undefined;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        response.write(':\n\n');
        stream = response;
        return;
      }
      if (request.method === 'DELETE') return void response.writeHead(202).end();
      const message = JSON.parse(Buffer.concat(chunks).toString()) as { method?: string; id?: number };
      if (message.method === 'initialize') {
        response.writeHead(200, { 'Content-Type': 'application/json', 'Acp-Connection-Id': 'c1' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {} } }));
        return;
      }
      response.writeHead(202).end();
      if (stream) events(stream, message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/acp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('streamableHttpLink', () => {
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
    await fullFlow(streamableHttpLink(options(agent.httpUrl)));
  });

  it('a wrong token is refused with 401 in words (problem+json), cause auth, no retry, no token in the message', async () => {
    const agent = await served([], 's3cret-token');
    const good = streamableHttpLink(options(agent.httpUrl, { credentials: { token: 's3cret-token' } }));
    const wired = wire(good);
    await wired.connection.initialize({ clientInfo });
    await good.close();
    wired.connection.dispose();

    const bad = streamableHttpLink(options(agent.httpUrl, { credentials: { token: 'wrong-token' } }));
    const refused = wire(bad);
    await assert.rejects(
      refused.connection.initialize({ clientInfo }),
      /refused the credentials for initialize \(HTTP 401: Unauthorized: A valid bearer token is required\.\)/,
    );
    const end = await bad.ended;
    assert.equal(end.cause, 'auth');
    assert.equal(end.retry, false);
    assert.doesNotMatch(end.reason, /wrong-token/);
    refused.connection.dispose();
  });

  it('skips an event over the limit and a non-JSON one, reports them, and reading goes on (the link survives)', async () => {
    const server = await rawServer((stream, posted) => {
      if (posted.method !== 'session/new') return;
      stream.write(
        `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x'.repeat(8192) } } } })}\n\n`,
      );
      stream.write('data: not json\n\n');
      stream.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: posted.id, result: { sessionId: 's' } })}\n\n`);
    });
    cleanups.push(() => server.close());
    const link = streamableHttpLink(options(server.url, { maxMessageBytes: 4096 }));
    const wired = wire(link);
    cleanups.push(() => link.close());
    await wired.connection.initialize({ clientInfo });
    assert.equal((await wired.connection.newSession({ cwd: '/w', mcpServers: [] })).sessionId, 's');
    assert.equal(wired.protocolErrors.length, 2);
    const [oversize, json] = wired.protocolErrors as FramingError[];
    assert.equal(oversize!.reason, 'oversize');
    assert.equal(oversize!.oversize?.head.method, 'session/update');
    assert.equal(oversize!.oversize?.head.sessionId, 's');
    assert.match(oversize!.message, /Remote Ref sent a message longer than 4,096 bytes/);
    assert.equal(json!.reason, 'json');
    assert.equal(await Promise.race([link.ended, Promise.resolve('open')]), 'open');
  });

  it('an outgoing message over the limit fails its request at once, naming the setting', async () => {
    const agent = await served();
    const link = streamableHttpLink(options(agent.httpUrl, { maxMessageBytes: 4096 }));
    const wired = wire(link);
    cleanups.push(() => link.close());
    await wired.connection.initialize({ clientInfo });
    const { sessionId } = await wired.connection.newSession({ cwd: '/w', mcpServers: [] });
    await assert.rejects(wired.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'y'.repeat(8192) }] }), /acpWorkspace\.maxMessageSizeMiB/);
    const ok = await wired.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    assert.equal(ok.stopReason, 'end_turn');
  });

  it("the server killed mid-turn fails the pending prompt with the link's reason; cause network or closed, retry", async () => {
    const agent = await served();
    const link = streamableHttpLink(options(agent.httpUrl));
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

  it('close() DELETEs the connection and ends with stopped', async () => {
    const deleted: (string | undefined)[] = [];
    const server = await rawServer(() => undefined);
    cleanups.push(() => server.close());
    const spy: typeof fetch = (input, init) => {
      if (init?.method === 'DELETE') deleted.push((init.headers as Record<string, string>)['Acp-Connection-Id']);
      return fetch(input, init);
    };
    const link = streamableHttpLink(options(server.url, { fetch: spy }));
    const wired = wire(link);
    await wired.connection.initialize({ clientInfo });
    await link.close();
    assert.equal((await link.ended).cause, 'stopped');
    assert.deepEqual(deleted, ['c1']);
    assert.equal(await wired.closedWith, 'The connection to Remote Ref was closed by this client.');
  });

  it('an answer that never comes ends with network after connectTimeoutMs', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets: net.Socket[] = [];
    silent.on('connection', (s) => sockets.push(s));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          sockets.forEach((s) => s.destroy());
          silent.close(() => resolve());
        }),
    );
    const link = streamableHttpLink(options(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/acp`, { connectTimeoutMs: 200 }));
    const wired = wire(link);
    await assert.rejects(wired.connection.initialize({ clientInfo }));
    const end = await link.ended;
    assert.equal(end.cause, 'network');
    assert.equal(end.retry, true);
    assert.match(end.reason, /timed out/);
  });

  describe('a redirect is refused, never followed: the token, the extra headers and the body reach no other host', () => {
    /** Answers initialize and keeps the event stream open (what is not redirected). */
    const agent = (request: Recorded, response: http.ServerResponse) => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        response.write(':\n\n');
        return;
      }
      if (request.method === 'POST' && methodOf(request) === 'initialize') {
        const { id } = JSON.parse(request.body) as { id: number };
        response.writeHead(200, { 'Content-Type': 'application/json', 'Acp-Connection-Id': 'c1' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 1, agentCapabilities: {} } }));
        return;
      }
      response.writeHead(202).end();
    };
    const cases: [string, number, (request: Recorded) => boolean][] = [
      ['initialize', 307, (r) => r.method === 'POST' && methodOf(r) === 'initialize'],
      ['the event stream', 302, (r) => r.method === 'GET'],
      ['a later request (session/new)', 308, (r) => r.method === 'POST' && methodOf(r) === 'session/new'],
    ];
    for (const [what, status, picks] of cases) {
      it(`${what} answered ${status} to another host: the link ends (http, no retry) in words`, async () => {
        const other = await elsewhere();
        cleanups.push(() => other.close());
        const server = await redirecting(other, status, picks, agent);
        cleanups.push(() => server.close());
        const link = streamableHttpLink(options(server.url, { credentials: { token: 'tok-123', headers: { 'X-Api-Key': 'key-456' } } }));
        const wired = wire(link);
        cleanups.push(() => link.close());
        const outcome = wired.connection
          .initialize({ clientInfo })
          .then(() => wired.connection.newSession({ cwd: '/w', mcpServers: [] }))
          .catch((error: Error) => error);
        // Whichever comes first: the link ends, or something reaches the other host.
        await Promise.race([link.ended, until(() => other.requests.length > 0, 'a request to the other host').catch(() => undefined)]);
        assert.deepEqual(
          other.requests.map((r) => `${r.method} ${r.url}`),
          [],
          'nothing reached the other host',
        );
        assert.ok((await outcome) instanceof Error, 'the request failed');
        const end = await link.ended;
        assert.equal(end.cause, 'http');
        assert.equal(end.retry, false);
        assert.match(
          end.reason,
          new RegExp(
            `Remote Ref answered .+ with a redirect \\(HTTP ${status}\\) to http://127\\.0\\.0\\.1:\\d+/acp\\. ACP Workspace does not follow redirects`,
          ),
        );
        assert.doesNotMatch(end.reason, /tok-123|key-456/);
      });
    }
  });

  it('refuses plain http: to another host before any request (the TLS rule)', async () => {
    let fetched = 0;
    const link = streamableHttpLink(options('http://agents.example.com/acp', { fetch: () => (fetched++, Promise.reject(new Error('no'))) }));
    const wired = wire(link);
    await assert.rejects(wired.connection.initialize({ clientInfo }), /is not encrypted/);
    const end = await link.ended;
    assert.equal(end.cause, 'network');
    assert.equal(end.retry, false);
    assert.equal(fetched, 0);
  });
});
