import * as assert from 'node:assert/strict';
import type * as http from 'node:http';
import type { Message } from 'vscode-jsonrpc/node';
import { AcpConnection } from '../../../../src/acp/connection';
import * as acp from '../../../../src/acp/schema';
import type { FramingError } from '../../../../src/acp/transport/ndjson';
import type { RemoteLink, RemoteLinkOptions } from '../../../../src/acp/transport/remote';
import { LinkReader } from '../../../../src/acp/transport/linkChannel';
import { sandboxAcpUrl, sandboxAgentLink } from '../../../../src/acp/transport/sandboxAgentLink';
import { EventSplitter, SSE_FIELD_SLACK } from '../../../../src/acp/transport/sse';
import { SseIntake } from '../../../../src/acp/transport/sseIntake';
import { END_OF_STREAM_METHOD } from '../../../../src/acp/transport/transport';
import { FULL_AGENT_CAPABILITIES } from '../../../helpers/memoryPeer';
import { FakeSandboxAgentServer, type FakeAgent } from '../../remote/fakeSandboxAgentServer';
import { elsewhere, methodOf, redirecting, type Recorded, type TestServer } from './redirectHarness';
import { until } from './remoteHarness';

const clientInfo = { name: 'acp-workspace', version: '0' };
const chunk = (sessionId: string, text: string) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
});

/** opencode-like: initialize, session/new, and a prompt that streams, asks a permission, and ends. */
const scripted: FakeAgent = async (message, connection) => {
  const params = message.params as Record<string, unknown>;
  switch (message.method) {
    case 'initialize':
      return { protocolVersion: 1, agentCapabilities: FULL_AGENT_CAPABILITIES, authMethods: [] };
    case 'session/new':
      return { sessionId: 'ses_1' };
    case 'session/prompt': {
      const text = (params.prompt as Array<{ text: string }>)[0]!.text;
      // Never answered (nothing left running afterwards).
      if (text === 'no answer') return new Promise(() => undefined);
      if (text === 'wait for cancel') {
        await new Promise<void>((resolve) => {
          const check = () => (connection.received.some((m) => m.method === 'session/cancel') ? resolve() : setTimeout(check, 5));
          check();
        });
        return { stopReason: 'cancelled' };
      }
      for (const part of ['one ', 'two ', 'three']) connection.emit(chunk('ses_1', part));
      const answer = await connection.request('session/request_permission', {
        sessionId: 'ses_1',
        toolCall: { toolCallId: 't1', title: 'Edit' },
        options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }],
      });
      connection.emit(chunk('ses_1', ` (${JSON.stringify((answer.result as { outcome: unknown }).outcome)})`));
      return { stopReason: 'end_turn' };
    }
    case 'session/fail':
      throw new Error('no such thing');
    default:
      return null;
  }
};

describe('sandboxAgentLink: ACP through a Sandbox Agent server (POST, event stream, DELETE)', () => {
  let server: FakeSandboxAgentServer | undefined;
  let link: RemoteLink | undefined;
  let connection: AcpConnection | undefined;
  afterEach(async () => {
    connection?.dispose();
    await link?.close();
    await server?.stop();
    server = link = connection = undefined;
  });

  let tapped: string[] = [];
  function connect(options: Partial<RemoteLinkOptions> = {}, url = server!.url): { link: RemoteLink; connection: AcpConnection; errors: Error[] } {
    link = sandboxAgentLink({
      peer: 'Box opencode',
      endpoint: { url, kind: 'sandbox-agent', sandboxAgent: 'opencode', allowInsecure: false },
      credentials: { token: 'T', headers: { 'x-team': 'blue' } },
      ...options,
    });
    tapped = [];
    const tap = (direction: 'send' | 'receive', message: Message) => tapped.push(`${direction} ${(message as { method?: string }).method ?? 'answer'}`);
    connection = new AcpConnection({ transport: link, closeGraceMs: 10, tap });
    const errors: Error[] = [];
    connection.onProtocolError((e) => errors.push(e));
    return { link, connection, errors };
  }

  it('runs a session: the first POST names the agent, answers and updates arrive in order, agent requests are answered', async () => {
    server = await FakeSandboxAgentServer.start({ token: 'T', agent: scripted });
    const { connection: client } = connect();
    const texts: string[] = [];
    client.onNotification(acp.SessionUpdateNotification, (n) => {
      if (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text') texts.push(n.update.content.text);
    });
    client.onRequest(acp.RequestPermissionMethod, () => ({ outcome: { outcome: 'selected' as const, optionId: 'ok' } }));
    const caps = await client.initialize({ clientInfo });
    assert.equal(caps.loadSession, true);
    const { sessionId } = await client.newSession({ cwd: '/work', mcpServers: [] });
    assert.equal(sessionId, 'ses_1');
    const result = await client.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    assert.equal(result.stopReason, 'end_turn');
    // Every update came before the answer that ended the turn.
    assert.deepEqual(texts, ['one ', 'two ', 'three', ' ({"outcome":"selected","optionId":"ok"})']);
    const posts = server.requests.filter((r) => r.method === 'POST');
    assert.equal(server.only.agent, 'opencode');
    assert.ok(
      posts.every((r) => r.authorization === 'Bearer T'),
      'every request carries the token',
    );
    assert.deepEqual(
      server.only.received.map((m) => m.method ?? 'answer'),
      ['initialize', 'session/new', 'session/prompt', 'answer'],
    );
    // The tap sees every message both ways, in order (the protocol trace and the conformance check rely on it).
    assert.deepEqual(
      tapped.filter((t) => !t.endsWith('session/update')),
      [
        'send initialize',
        'receive answer',
        'send session/new',
        'receive answer',
        'send session/prompt',
        'receive session/request_permission',
        'send answer',
        'receive answer',
      ],
    );
  });

  it('sends a cancel while the prompt is still waiting for its answer', async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const { connection: client } = connect({ credentials: {} });
    await client.initialize({ clientInfo });
    const { sessionId } = await client.newSession({ cwd: '/work', mcpServers: [] });
    const turn = client.prompt({ sessionId, prompt: [{ type: 'text', text: 'wait for cancel' }] });
    await client.cancel(sessionId);
    assert.equal((await turn).stopReason, 'cancelled');
  });

  it("answers a request whose POST failed with the server's words, and goes on", async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const { connection: client, link: l } = connect();
    await client.initialize({ clientInfo });
    server.failNextPost = { status: 500, title: 'Agent Crashed', detail: 'opencode exited with 1' };
    await assert.rejects(
      client.newSession({ cwd: '/work', mcpServers: [] }),
      /Box opencode answered HTTP 500 for session\/new at http:\/\/127\.0\.0\.1:\d+: Agent Crashed: opencode exited with 1/,
    );
    assert.equal((await client.newSession({ cwd: '/work', mcpServers: [] })).sessionId, 'ses_1');
    let settled = false;
    void l.ended.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false);
  });

  it('a refused token ends the link with cause auth, in words, and fails the request', async () => {
    server = await FakeSandboxAgentServer.start({ token: 'right', agent: scripted });
    const { connection: client, link: l } = connect({ credentials: { token: 'wrong' } });
    await assert.rejects(client.initialize({ clientInfo }));
    const end = await l.ended;
    assert.equal(end.cause, 'auth');
    assert.equal(end.retry, false);
    assert.match(end.reason, /Box opencode refused the credentials for initialize at http:\/\/127\.0\.0\.1:\d+ \(HTTP 401: Token Invalid: token invalid\)/);
    assert.doesNotMatch(end.reason, /wrong/);
  });

  it('a server that cannot be reached ends the link with cause network, worth retrying', async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const url = server.url;
    await server.stop();
    server = undefined;
    const { connection: client, link: l } = connect({}, url);
    await assert.rejects(client.initialize({ clientInfo }));
    const end = await l.ended;
    assert.equal(end.cause, 'network');
    assert.equal(end.retry, true);
    assert.match(end.reason, /Cannot reach Box opencode at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });

  it('the end of the event stream ends the link (closed, retry) after everything it carried', async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const { connection: client, link: l } = connect();
    const texts: string[] = [];
    client.onNotification(acp.SessionUpdateNotification, (n) => {
      if (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text') texts.push(n.update.content.text);
    });
    await client.initialize({ clientInfo });
    const closed = new Promise<string>((resolve) => client.onDidClose(resolve));
    server.only.emit(chunk('s', 'last words'));
    server.only.endStreams();
    const end = await l.ended;
    assert.equal(end.cause, 'closed');
    assert.equal(end.retry, true);
    assert.match(end.reason, /Box opencode at http:\/\/127\.0\.0\.1:\d+ ended the connection\./);
    await closed;
    assert.deepEqual(texts, ['last words']);
    await assert.rejects(client.newSession({ cwd: '/w', mcpServers: [] }));
  });

  it('an agent that exits inside a server that stays up (`_adapter/agent_exited`) ends the link (closed, retry) in words, failing what waits', async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const { connection: client, link: l, errors } = connect();
    await client.initialize({ clientInfo });
    const { sessionId } = await client.newSession({ cwd: '/work', mcpServers: [] });
    const turn = client.prompt({ sessionId, prompt: [{ type: 'text', text: 'no answer' }] });
    turn.catch(() => undefined);
    await until(() => server!.only.received.some((m) => m.method === 'session/prompt'), 'the prompt on the server');
    // As the link's owner (RemoteAgent) does: the connection closes with the link's reason.
    void l.ended.then((e) => client.close(e.reason));
    // What Sandbox Agent 0.4.2 sends on the stream when the agent's process ends (its stream stays open, with heartbeats).
    server.only.emit({ jsonrpc: '2.0', method: '_adapter/agent_exited', params: { code: null, success: false } });
    const end = await l.ended;
    assert.equal(end.cause, 'closed');
    assert.equal(end.retry, true, 'a new connection starts the agent again');
    assert.match(end.reason, /^opencode stopped on the Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+\.$/);
    await assert.rejects(turn, (error: Error) => error.message.includes(end.reason));
    assert.deepEqual(errors, [], "the server's own notification is not an unknown message of the agent");
    assert.ok(tapped.includes('receive _adapter/agent_exited'), 'the trace shows what the server said');
  });

  it('says the exit code when the agent exited with one', async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const { connection: client, link: l } = connect();
    await client.initialize({ clientInfo });
    server.only.emit({ jsonrpc: '2.0', method: '_adapter/agent_exited', params: { code: 3, success: false } });
    assert.match((await l.ended).reason, /^opencode exited with code 3 on the Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+\.$/);
  });

  it('a later POST the server cannot pass to its agent (HTTP 502, stdin broken) ends the link (closed, retry) instead of failing every prompt', async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const { connection: client, link: l } = connect();
    await client.initialize({ clientInfo });
    const { sessionId } = await client.newSession({ cwd: '/work', mcpServers: [] });
    void l.ended.then((e) => client.close(e.reason));
    // Sandbox Agent 0.4.2 after its agent died, when the exit notice was not seen (yet).
    server.failNextPost = {
      status: 502,
      kind: 'stream_error',
      title: 'Stream Error',
      detail: 'stream error: failed writing to agent stdin: Broken pipe (os error 32)',
    };
    await assert.rejects(client.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello' }] }), /Broken pipe/);
    const end = await l.ended;
    assert.equal(end.cause, 'closed');
    assert.equal(end.retry, true);
    assert.match(
      end.reason,
      /^Box opencode answered HTTP 502 for session\/prompt at http:\/\/127\.0\.0\.1:\d+: Stream Error: stream error: failed writing to agent stdin: Broken pipe \(os error 32\)$/,
    );
  });

  it('close() deletes the connection on the server, settles ended as stopped, and refuses later writes', async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const { connection: client, link: l } = connect();
    await client.initialize({ clientInfo });
    const only = server.only;
    await l.close();
    assert.equal(only.deleted, true);
    assert.equal((await l.ended).cause, 'stopped');
    await assert.rejects(client.newSession({ cwd: '/w', mcpServers: [] }));
  });

  it('close() after the link ended by itself still deletes the connection, so the server stops the agent', async () => {
    server = await FakeSandboxAgentServer.start({ agent: scripted });
    const { connection: client, link: l } = connect();
    await client.initialize({ clientInfo });
    const only = server.only;
    only.endStreams();
    assert.equal((await l.ended).cause, 'closed');
    await l.close();
    assert.equal(only.deleted, true);
    assert.equal((await l.ended).cause, 'closed', 'ended keeps the first reason');
  });

  it('reports a non-JSON or oversized event naming the agent, fails a discarded answer, and reads on', async () => {
    server = await FakeSandboxAgentServer.start({
      agent: async (message, connection) => {
        if (message.method === 'initialize') return { protocolVersion: 1, agentCapabilities: FULL_AGENT_CAPABILITIES, authMethods: [] };
        if (message.method === 'session/new') {
          // The real answer is too big; the test server sends it on the stream and the POST body alike.
          return { sessionId: 'x'.repeat(4096) };
        }
        void connection;
        return null;
      },
    });
    const { connection: client, errors } = connect({ maxMessageBytes: 2048 });
    const texts: string[] = [];
    client.onNotification(acp.SessionUpdateNotification, (n) => {
      if (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text') texts.push(n.update.content.text);
    });
    await client.initialize({ clientInfo });
    server.only.raw('event: message\ndata: {not json\n\n');
    server.only.raw(`event: message\ndata: ${JSON.stringify(chunk('s', 'y'.repeat(5000)))}\n\n`);
    server.only.emit(chunk('s', 'after'));
    await assert.rejects(client.newSession({ cwd: '/w', mcpServers: [] }), /Box opencode's answer was [\d,]+ bytes, over the limit of 2,048 bytes/);
    assert.deepEqual(texts, ['after']);
    const framing = errors.filter((e): e is FramingError => e.name === 'FramingError');
    assert.deepEqual(
      framing.map((e) => e.reason),
      ['json', 'oversize', 'oversize'],
    );
    assert.ok(framing.every((e) => e.peer === 'Box opencode' && e.message.startsWith('Box opencode sent')));
    assert.equal(framing[1]!.oversize?.head.method, 'session/update');
  });

  it('refuses plain HTTP to another machine before sending anything', async () => {
    const { connection: client, link: l } = connect({}, 'http://example.com:2468');
    const end = await l.ended;
    assert.equal(end.cause, 'http');
    assert.equal(end.retry, false);
    assert.match(end.reason, /is not encrypted/);
    await assert.rejects(client.initialize({ clientInfo }));
  });

  describe('a redirect is refused, never followed: the token, the extra headers and the body reach no other host', () => {
    const servers: TestServer[] = [];
    afterEach(async () => {
      for (const s of servers.splice(0)) await s.close();
    });
    /** Sandbox Agent's ways: the first POST is answered in its body and on the stream, which replays it. */
    const box = () => {
      let replay = '';
      return (request: Recorded, response: http.ServerResponse) => {
        if (request.method === 'GET') {
          response.writeHead(200, { 'Content-Type': 'text/event-stream' });
          response.write(replay);
          return;
        }
        if (request.method === 'POST' && methodOf(request) === 'initialize') {
          const { id } = JSON.parse(request.body) as { id: number };
          const answer = JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 1, agentCapabilities: FULL_AGENT_CAPABILITIES, authMethods: [] } });
          replay = `event: message\nid: 1\ndata: ${answer}\n\n`;
          response.writeHead(200, { 'Content-Type': 'application/json' });
          response.end(answer);
          return;
        }
        response.writeHead(202).end();
      };
    };
    const cases: [string, number, (request: Recorded) => boolean][] = [
      ['the first POST (initialize)', 307, (r) => r.method === 'POST' && methodOf(r) === 'initialize'],
      ['the event stream', 302, (r) => r.method === 'GET'],
      ['a later POST (session/new)', 308, (r) => r.method === 'POST' && methodOf(r) === 'session/new'],
    ];
    for (const [what, status, picks] of cases) {
      it(`${what} answered ${status} to another host: the link ends (http, no retry) in words`, async () => {
        const other = await elsewhere();
        servers.push(other);
        const server = await redirecting(other, status, picks, box());
        servers.push(server);
        const { connection: client, link: l } = connect({}, server.origin);
        const outcome = client
          .initialize({ clientInfo })
          .then(() => client.newSession({ cwd: '/w', mcpServers: [] }))
          .catch((error: Error) => error);
        // Whichever comes first: the link ends, or something reaches the other host.
        await Promise.race([l.ended, until(() => other.requests.length > 0, 'a request to the other host').catch(() => undefined)]);
        assert.deepEqual(
          other.requests.map((r) => `${r.method} ${r.url}`),
          [],
          'nothing reached the other host',
        );
        assert.ok((await outcome) instanceof Error, 'the request failed');
        const end = await l.ended;
        assert.equal(end.cause, 'http');
        assert.equal(end.retry, false);
        assert.match(
          end.reason,
          new RegExp(
            `Box opencode answered .+ with a redirect \\(HTTP ${status}\\) to http://127\\.0\\.0\\.1:\\d+/v1/acp/[\\w-]+\\. ACP Workspace does not follow redirects`,
          ),
        );
        assert.doesNotMatch(end.reason, /blue|Bearer/);
      });
    }
  });

  it('builds the endpoint under the base path, with the agent only when asked', () => {
    assert.equal(sandboxAcpUrl(new URL('https://box.example/sandbox/'), 'a b', 'opencode').href, 'https://box.example/sandbox/v1/acp/a%20b?agent=opencode');
    assert.equal(sandboxAcpUrl(new URL('http://127.0.0.1:2468?x=1#y'), 's1', undefined).href, 'http://127.0.0.1:2468/v1/acp/s1');
  });
});

describe('Event stream intake (EventSplitter → SseIntake → LinkReader): bounded server-sent events', () => {
  function reader(limit = 1024) {
    const messages: Message[] = [];
    const errors: FramingError[] = [];
    const link = new LinkReader({ intercept: () => false });
    const splitter = new EventSplitter(limit + SSE_FIELD_SLACK);
    const intake = new SseIntake('Box', limit, link);
    link.onError((e) => errors.push(e as FramingError));
    link.listen((m) => messages.push(m));
    const r = {
      feed: (chunk: Uint8Array) => intake.take(splitter.push(chunk)),
      endOfStream: () => link.end(),
      onClose: (listener: () => void) => link.onClose(listener),
    };
    return { r, messages, errors };
  }

  it('reads events split anywhere, multi-byte characters, CRLF, comments and several data lines', () => {
    const { r, messages, errors } = reader();
    const text = `: heartbeat\r\n\r\nevent: message\r\nid: 1\r\ndata: {"jsonrpc":"2.0","method":"m","params":{"t":"héllo ✓ 𝄞"}}\r\n\r\ndata: {"jsonrpc":"2.0",\ndata: "method":"n"}\n\n`;
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i < bytes.length; i += 3) r.feed(bytes.subarray(i, i + 3));
    assert.deepEqual(errors, []);
    assert.deepEqual(messages, [
      { jsonrpc: '2.0', method: 'm', params: { t: 'héllo ✓ 𝄞' } },
      { jsonrpc: '2.0', method: 'n' },
    ]);
  });

  it('skips an oversized event as it streams in, keeping memory bounded, and reports it once with its size', () => {
    const { r, messages, errors } = reader(1024);
    r.feed(Buffer.from('data: {"jsonrpc":"2.0","method":"big","params":{"sessionId":"s9","x":"'));
    for (let i = 0; i < 100; i++) r.feed(Buffer.from('z'.repeat(1000)));
    r.feed(Buffer.from('"}}\n\ndata: {"jsonrpc":"2.0","method":"small"}\n\n'));
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.reason, 'oversize');
    assert.equal(errors[0]!.oversize!.head.method, 'big');
    assert.equal(errors[0]!.oversize!.head.sessionId, 's9');
    assert.ok(errors[0]!.oversize!.bytes > 100_000);
    assert.deepEqual(messages, [{ jsonrpc: '2.0', method: 'small' }]);
  });

  it('never counts bytes of one event toward the next, however the stream is cut (CRLF or LF)', () => {
    for (const eol of ['\n', '\r\n']) {
      for (const size of [1, 7, 777, 4096, 100_000]) {
        const { r, messages, errors } = reader(1024);
        const events = Array.from(
          { length: 200 },
          (_, i) => `id: ${i}${eol}data: ${JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { i, pad: 'p'.repeat(250) } })}${eol}${eol}`,
        );
        const bytes = Buffer.from(events.join(''), 'utf8');
        for (let at = 0; at < bytes.length; at += size) r.feed(bytes.subarray(at, at + size));
        assert.deepEqual(errors, [], `cut every ${size} bytes, ${JSON.stringify(eol)}`);
        assert.equal(messages.length, 200, `cut every ${size} bytes, ${JSON.stringify(eol)}`);
      }
    }
  });

  it('catches an event that outgrows the limit only in a later chunk, after events read whole', () => {
    const { r, messages, errors } = reader(1024);
    const small = (n: number) => `data: {"jsonrpc":"2.0","method":"small","params":{"n":${n}}}\n\n`;
    // Lines before the big one are read whole; the big data line starts in the first chunk and ends in the second.
    r.feed(Buffer.from(`${small(1)}id: 7\ndata: {"jsonrpc":"2.0","method":"big","params":{"x":"${'z'.repeat(1500)}`));
    r.feed(Buffer.from(`${'z'.repeat(1500)}"}}\n\n${small(2)}`));
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.reason, 'oversize');
    assert.equal(errors[0]!.oversize!.head.method, 'big');
    assert.deepEqual(
      messages.map((m) => (m as unknown as { params: { n: number } }).params.n),
      [1, 2],
    );
  });

  it('reports JSON that is not JSON-RPC, and ends with END_OF_STREAM once', () => {
    const { r, messages, errors } = reader();
    let closed = 0;
    r.onClose(() => closed++);
    r.feed(Buffer.from('data: [1,2]\n\n'));
    r.endOfStream();
    r.endOfStream();
    assert.equal(errors[0]!.reason, 'shape');
    assert.deepEqual(messages, [{ jsonrpc: '2.0', method: END_OF_STREAM_METHOD }]);
    assert.equal(closed, 1);
  });
});
