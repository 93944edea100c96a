import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { AbstractMessageReader, AbstractMessageWriter, Disposable, type DataCallback, type Message } from 'vscode-jsonrpc/node';
import { AcpConnection, HandlerError } from '../../../src/acp/connection';
import { createPathMapper, type PathMapping } from '../../../src/acp/pathMapping';
import { UNSHARED_DIRECTORIES_META, UNSHARED_SESSIONS_META } from '../../../src/acp/pathMappingMessages';
import { mappedTransport, type PathRefusal } from '../../../src/acp/pathMappingTransport';
import * as acp from '../../../src/acp/schema';
import { stdioTransport } from '../../../src/acp/transport/stdio';
import { END_OF_STREAM_METHOD, type AcpTransport, type TransportHooks } from '../../../src/acp/transport/transport';
import { FULL_AGENT_CAPABILITIES } from '../../helpers/memoryPeer';

type Json = Record<string, unknown>;
type Wire = Message & { id?: number | string; method?: string; params?: Json; result?: Json; error?: { code: number; message: string; data?: Json } };

const MAPPINGS: PathMapping[] = [
  { local: '/home/me/app', remote: '/workspace/app' },
  { local: '/home/me/lib', remote: '/srv/lib' },
];

/** A transport moving message objects (no bytes), where the test plays the agent. */
class FakeAgentTransport implements AcpTransport {
  readonly peer = 'Remote Agent';
  hooks: TransportHooks | undefined;
  /** What reached the agent, in order. */
  readonly sent: Wire[] = [];
  private deliver: DataCallback | undefined;

  open(hooks: TransportHooks) {
    this.hooks = hooks;
    const sent = this.sent;
    const listen = (callback: DataCallback | undefined) => (this.deliver = callback);
    class Reader extends AbstractMessageReader {
      listen(callback: DataCallback): Disposable {
        listen(callback);
        return Disposable.create(() => listen(undefined));
      }
    }
    class Writer extends AbstractMessageWriter {
      write(message: Message): Promise<void> {
        hooks.tap?.('send', message);
        sent.push(message as Wire);
        return Promise.resolve();
      }
      end(): void {}
    }
    return { reader: new Reader(), writer: new Writer() };
  }

  /** A message from the agent, to the intercept first as the contract says. */
  receive(message: Json): void {
    const m = { jsonrpc: '2.0', ...message } as Message;
    this.hooks?.tap?.('receive', m);
    if (this.hooks?.intercept(m)) return;
    this.deliver?.(m);
  }

  /** Made up by the reader itself: bypasses intercept, like the end-of-stream marker. */
  deliverDirectly(message: Message): void {
    this.deliver?.(message);
  }

  /** The first message sent to the agent that matches (waits for it; the test's timeout bounds the wait). */
  async next(match: (message: Wire) => boolean): Promise<Wire> {
    for (;;) {
      const found = this.sent.find(match);
      if (found) return found;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Answers the first request of `method` the agent got. */
  async answer(method: string, result: unknown): Promise<Wire> {
    const request = await this.next((m) => m.method === method);
    this.receive({ id: request.id, result });
    return request;
  }
}

async function connect(mappings: PathMapping[] = MAPPINGS) {
  const agent = new FakeAgentTransport();
  const refusals: PathRefusal[] = [];
  const tapped: Array<{ direction: string; message: Wire }> = [];
  const mapper = createPathMapper(mappings, { localPlatform: 'posix' });
  const client = new AcpConnection({
    transport: mappedTransport(agent, mapper, { onRefused: (refusal) => refusals.push(refusal) }),
    tap: (direction, message) => tapped.push({ direction, message: message as Wire }),
    closeGraceMs: 10,
  });
  const initializing = client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
  await agent.answer('initialize', { protocolVersion: 1, agentCapabilities: FULL_AGENT_CAPABILITIES, authMethods: [] });
  await initializing;
  return { agent, client, refusals, tapped };
}

/** Waits until `check` stops throwing (each assertion that waits for an event). */
async function eventually(check: () => void): Promise<void> {
  for (;;) {
    try {
      check();
      return;
    } catch {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

describe('mappedTransport: paths translated at the transport edge', () => {
  let opened: AcpConnection | undefined;
  afterEach(() => {
    opened?.dispose();
    opened = undefined;
  });

  async function open(mappings?: PathMapping[]) {
    const link = await connect(mappings);
    opened = link.client;
    return link;
  }

  it("sends session/new, load, resume and fork with the agent's cwd and additionalDirectories", async () => {
    const { agent, client } = await open();
    const roots = { cwd: '/home/me/app', additionalDirectories: ['/home/me/lib/src'], mcpServers: [] };
    const created = client.newSession(roots);
    const request = await agent.answer('session/new', { sessionId: 's1' });
    assert.equal((await created).sessionId, 's1');
    assert.deepEqual(request.params, { cwd: '/workspace/app', additionalDirectories: ['/srv/lib/src'], mcpServers: [] });

    const loading = client.loadSession({ sessionId: 's1', ...roots });
    assert.deepEqual((await agent.answer('session/load', null)).params, {
      sessionId: 's1',
      cwd: '/workspace/app',
      additionalDirectories: ['/srv/lib/src'],
      mcpServers: [],
    });
    await loading;
    const resuming = client.resumeSession({ sessionId: 's1', ...roots });
    assert.equal((await agent.answer('session/resume', {})).params?.['cwd'], '/workspace/app');
    await resuming;
    const forking = client.forkSession({ sessionId: 's1', cwd: '/home/me/lib', additionalDirectories: ['/home/me/app'] });
    const fork = await agent.answer('session/fork', { sessionId: 's2' });
    assert.deepEqual(fork.params, { sessionId: 's1', cwd: '/srv/lib', additionalDirectories: ['/workspace/app'] });
    assert.equal((await forking).sessionId, 's2');
  });

  it('refuses a session whose folders are not all shared, without asking the agent', async () => {
    const { agent, client } = await open();
    await assert.rejects(
      client.newSession({ cwd: '/home/me/app', additionalDirectories: ['/home/me/secret'], mcpServers: [] }),
      /\/home\/me\/secret is not shared with Remote Agent: it has no path mapping for this agent/,
    );
    await assert.rejects(client.loadSession({ sessionId: 's', cwd: '/home/other', mcpServers: [] }), /\/home\/other is not shared/);
    assert.deepEqual(
      agent.sent.map((m) => m.method),
      ['initialize'],
    );
  });

  it("lists with the agent's cwd filter and answers with local paths, leaving out sessions that are not in a shared folder", async () => {
    const { agent, client } = await open();
    const listing = client.listSessions({ cwd: '/home/me/app' });
    const request = await agent.answer('session/list', {
      sessions: [
        { sessionId: 'a', cwd: '/workspace/app', additionalDirectories: ['/srv/lib'], title: 'Mapped' },
        { sessionId: 'b', cwd: '/root/elsewhere', title: 'Agent only' },
        { sessionId: 'c', cwd: '/workspace/app/sub', additionalDirectories: ['/srv/lib/x', '/tmp/scratch'], _meta: { keep: 1 } },
      ],
      nextCursor: 'page2',
    });
    assert.deepEqual(request.params, { cwd: '/workspace/app' });
    const page = await listing;
    assert.deepEqual(
      page.sessions.map((s) => [s.sessionId, s.cwd, s.additionalDirectories]),
      [
        ['a', '/home/me/app', ['/home/me/lib']],
        ['c', '/home/me/app/sub', ['/home/me/lib/x']],
      ],
    );
    assert.deepEqual(page.sessions[1]!._meta, { keep: 1, [UNSHARED_DIRECTORIES_META]: ['/tmp/scratch'] });
    assert.deepEqual(page._meta, { [UNSHARED_SESSIONS_META]: 1 });
    assert.equal(page.nextCursor, 'page2');
  });

  it('answers a list filtered by a folder that is not shared with no sessions, without asking the agent', async () => {
    const { agent, client } = await open();
    const page = await client.listSessions({ cwd: '/home/me/private' });
    assert.deepEqual(page.sessions, []);
    assert.equal(agent.sent.filter((m) => m.method === 'session/list').length, 0);
  });

  it('maps file URIs in a prompt and keeps other URIs; refuses a link to a file that is not shared', async () => {
    const { agent, client } = await open();
    const prompting = client.prompt({
      sessionId: 's',
      prompt: [
        { type: 'text', text: 'look at /home/me/app/a.ts' },
        { type: 'resource_link', uri: 'file:///home/me/app/my%20file.ts#L2', name: 'my file.ts' },
        { type: 'resource', resource: { uri: 'file:///home/me/lib/b.ts', text: 'b' } },
        { type: 'resource', resource: { uri: 'file:///home/me/Downloads/c.txt', text: 'c' } },
        { type: 'resource_link', uri: 'https://example.com/spec', name: 'spec' },
        { type: 'image', data: 'AA==', mimeType: 'image/png', uri: 'file:///home/me/Pictures/x.png' },
      ],
    });
    const request = await agent.answer('session/prompt', { stopReason: 'end_turn' });
    assert.deepEqual(request.params?.['prompt'], [
      { type: 'text', text: 'look at /home/me/app/a.ts' },
      { type: 'resource_link', uri: 'file:///workspace/app/my%20file.ts#L2', name: 'my file.ts' },
      { type: 'resource', resource: { uri: 'file:///srv/lib/b.ts', text: 'b' } },
      { type: 'resource', resource: { uri: 'file:///home/me/Downloads/c.txt', text: 'c' } },
      { type: 'resource_link', uri: 'https://example.com/spec', name: 'spec' },
      { type: 'image', data: 'AA==', mimeType: 'image/png' },
    ]);
    assert.equal((await prompting).stopReason, 'end_turn');
    await assert.rejects(
      client.prompt({ sessionId: 's', prompt: [{ type: 'resource_link', uri: 'file:///etc/hosts', name: 'hosts' }] }),
      /The prompt refers to file:\/\/\/etc\/hosts, which is outside the folders shared with Remote Agent/,
    );
    assert.equal(agent.sent.filter((m) => m.method === 'session/prompt').length, 1);
  });

  it('hands fs and terminal requests to their handlers with local paths', async () => {
    const { agent, client, refusals } = await open();
    const seen: string[] = [];
    client.onRequest(acp.ReadTextFileMethod, (params) => {
      seen.push(`read ${params.path}`);
      return { content: 'text' };
    });
    client.onRequest(acp.WriteTextFileMethod, (params) => {
      seen.push(`write ${params.path}`);
      return {};
    });
    client.onRequest(acp.TerminalCreateMethod, (params) => {
      seen.push(`terminal ${params.cwd ?? '(session folder)'}`);
      return { terminalId: 't' };
    });
    agent.receive({ id: 1, method: 'fs/read_text_file', params: { sessionId: 's', path: '/workspace/app/a.ts' } });
    agent.receive({ id: 2, method: 'fs/write_text_file', params: { sessionId: 's', path: '/srv/lib/b.ts', content: 'x' } });
    agent.receive({ id: 3, method: 'terminal/create', params: { sessionId: 's', command: 'ls', cwd: '/workspace/app/src' } });
    agent.receive({ id: 4, method: 'terminal/create', params: { sessionId: 's', command: 'ls' } });
    await eventually(() => assert.equal(agent.sent.filter((m) => m.id !== undefined && m.method === undefined).length, 4));
    assert.deepEqual(seen, ['read /home/me/app/a.ts', 'write /home/me/lib/b.ts', 'terminal /home/me/app/src', 'terminal (session folder)']);
    assert.deepEqual(refusals, []);
  });

  it('refuses fs and terminal requests outside the shared folders in the transport: the handlers never see them', async () => {
    const { agent, client, refusals, tapped } = await open();
    const created = client.newSession({ cwd: '/home/me/app', additionalDirectories: ['/home/me/lib'], mcpServers: [] });
    await agent.answer('session/new', { sessionId: 's' });
    await created;
    let handled = 0;
    client.onRequest(acp.ReadTextFileMethod, () => {
      handled++;
      return { content: 'leak' };
    });
    client.onRequest(acp.WriteTextFileMethod, () => {
      handled++;
      return {};
    });
    client.onRequest(acp.TerminalCreateMethod, () => {
      handled++;
      return { terminalId: 't' };
    });
    agent.receive({ id: 11, method: 'fs/read_text_file', params: { sessionId: 's', path: '/workspace/app/../../etc/passwd' } });
    agent.receive({ id: 12, method: 'fs/write_text_file', params: { sessionId: 's', path: '/root/.ssh/authorized_keys', content: 'x' } });
    agent.receive({ id: 13, method: 'terminal/create', params: { sessionId: 's', command: 'sh', cwd: '/' } });
    const answers = await Promise.all([11, 12, 13].map((id) => agent.next((m) => m.id === id && m.method === undefined)));
    for (const answer of answers) {
      assert.equal(answer.error?.code, -32602);
      assert.match(answer.error!.message, /is outside this session's folders \(\/workspace\/app, \/srv\/lib\)\./);
      assert.deepEqual(answer.error?.data?.['roots'], ['/workspace/app', '/srv/lib']);
    }
    assert.equal(answers[0]!.error!.message.startsWith('/workspace/app/../../etc/passwd is outside'), true);
    assert.equal(handled, 0);
    assert.deepEqual(refusals, [
      { method: 'fs/read_text_file', path: '/workspace/app/../../etc/passwd', sessionId: 's' },
      { method: 'fs/write_text_file', path: '/root/.ssh/authorized_keys', sessionId: 's' },
      { method: 'terminal/create', path: '/', sessionId: 's' },
    ]);
    // The trace shows what crossed the wire: the agent's request as it came, and the refusal it got.
    assert.equal(
      tapped.find(({ direction, message }) => direction === 'receive' && message.id === 11)?.message.params?.['path'],
      '/workspace/app/../../etc/passwd',
    );
    assert.equal(tapped.find(({ direction, message }) => direction === 'send' && message.id === 11)?.message.error?.code, -32602);
  });

  describe("answers the agent in its own paths, naming only the session's folders, whichever layer refuses (issue 24, item 11)", () => {
    /** Everything the agent was sent after initialize, as text: no local path may be in it. */
    const wire = (agent: FakeAgentTransport) => JSON.stringify(agent.sent.filter((m) => m.method !== 'initialize'));
    async function session(agent: FakeAgentTransport, client: AcpConnection, sessionId: string, cwd: string, additionalDirectories: string[] = []) {
      const created = client.newSession({ cwd, additionalDirectories, mcpServers: [] });
      await agent.answer('session/new', { sessionId });
      await created;
      agent.sent.splice(0);
    }

    it("its own refusal of a path no mapping shares names that session's folders only (not every mapped one)", async () => {
      const { agent, client } = await open();
      await session(agent, client, 'only-app', '/home/me/app');
      agent.receive({ id: 51, method: 'fs/read_text_file', params: { sessionId: 'only-app', path: '/etc/passwd' } });
      const answer = await agent.next((m) => m.id === 51);
      assert.equal(answer.error?.code, -32602);
      assert.equal(answer.error?.message, "/etc/passwd is outside this session's folders (/workspace/app).");
      assert.deepEqual(answer.error?.data, { path: '/etc/passwd', roots: ['/workspace/app'], reason: 'not-shared' });
    });

    it("a handler's refusal after mapping (a shared folder this session was not given) comes back in the agent's paths", async () => {
      const { agent, client } = await open();
      await session(agent, client, 's1', '/home/me/app');
      // What the fs handlers answer when the session's RootGuard refuses (fsHandlers.ts), in local paths.
      client.onRequest(acp.ReadTextFileMethod, (params) => {
        throw new HandlerError(-32602, `"${params.path}" is outside this session’s folder (/home/me/app)`, {
          path: params.path,
          roots: ['/home/me/app'],
          reason: 'outside-roots',
        });
      });
      agent.receive({ id: 52, method: 'fs/read_text_file', params: { sessionId: 's1', path: '/srv/lib/notes.md' } });
      const answer = await agent.next((m) => m.id === 52);
      assert.equal(answer.error?.code, -32602);
      assert.equal(answer.error?.message, '"/srv/lib/notes.md" is outside this session’s folder (/workspace/app)');
      assert.deepEqual(answer.error?.data, { path: '/srv/lib/notes.md', roots: ['/workspace/app'], reason: 'outside-roots' });
      assert.doesNotMatch(wire(agent), /\/home\/me/);
    });

    it('a refusal naming a local path no mapping covers (a link out of the folders) is answered in words without it', async () => {
      const { agent, client } = await open();
      await session(agent, client, 's1', '/home/me/app', ['/home/me/lib']);
      client.onRequest(acp.ReadTextFileMethod, (params) => {
        throw new HandlerError(
          -32602,
          `"${params.path}" is outside this session’s folders (/home/me/app, /home/me/lib): it resolves to /home/me/.ssh/id_ed25519`,
          {
            path: params.path,
            roots: ['/home/me/app', '/home/me/lib'],
            reason: 'outside-roots',
          },
        );
      });
      agent.receive({ id: 53, method: 'fs/read_text_file', params: { sessionId: 's1', path: '/workspace/app/key-link' } });
      const answer = await agent.next((m) => m.id === 53);
      assert.equal(answer.error?.message, "Refused: /workspace/app/key-link is outside this session's folders (/workspace/app, /srv/lib).");
      assert.deepEqual(answer.error?.data, { path: '/workspace/app/key-link', roots: ['/workspace/app', '/srv/lib'], reason: 'outside-roots' });
      assert.doesNotMatch(wire(agent), /\/home\/me/);
    });

    it("the terminal's refusal of a folder, a missing file and a failure quoting a local path come back in the agent's paths", async () => {
      const { agent, client } = await open();
      await session(agent, client, 's1', '/home/me/app');
      client.onRequest(acp.TerminalCreateMethod, (params) => {
        throw new HandlerError(-32602, `Refused terminal cwd: "${params.cwd}" is outside this session’s folder (/home/me/app).`, {
          cwd: params.cwd!,
          roots: ['/home/me/app'],
          reason: 'outside-roots',
          command: params.command,
        });
      });
      client.onRequest(acp.ReadTextFileMethod, (params) => {
        throw new HandlerError(-32002, `"${params.path}" does not exist`, { path: params.path });
      });
      client.onRequest(acp.WriteTextFileMethod, (params) => {
        throw new Error(`EACCES: permission denied, open '${params.path}'`);
      });
      agent.receive({ id: 54, method: 'terminal/create', params: { sessionId: 's1', command: 'ls', cwd: '/srv/lib' } });
      agent.receive({ id: 55, method: 'fs/read_text_file', params: { sessionId: 's1', path: '/workspace/app/missing.ts' } });
      agent.receive({ id: 56, method: 'fs/write_text_file', params: { sessionId: 's1', path: '/workspace/app/locked.ts', content: 'x' } });
      const [terminal, missing, locked] = await Promise.all([54, 55, 56].map((id) => agent.next((m) => m.id === id)));
      assert.equal(terminal!.error?.message, 'Refused terminal cwd: "/srv/lib" is outside this session’s folder (/workspace/app).');
      assert.deepEqual(terminal!.error?.data, { cwd: '/srv/lib', roots: ['/workspace/app'], reason: 'outside-roots', command: 'ls' });
      assert.deepEqual(
        [missing!.error?.code, missing!.error?.message, missing!.error?.data],
        [-32002, '"/workspace/app/missing.ts" does not exist', { path: '/workspace/app/missing.ts' }],
      );
      assert.deepEqual([locked!.error?.code, locked!.error?.message], [-32603, "EACCES: permission denied, open '/workspace/app/locked.ts'"]);
      assert.doesNotMatch(wire(agent), /\/home\/me/);
    });
  });

  it('translates session/update: locations, diffs and resource links, leaving out what is not shared', async () => {
    const { agent, client } = await open();
    const updates: acp.SessionUpdate[] = [];
    client.onNotification(acp.SessionUpdateNotification, (n) => updates.push(n.update));
    agent.receive({
      method: 'session/update',
      params: {
        sessionId: 's',
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: 't1',
          title: 'Edit',
          locations: [{ path: '/workspace/app/a.ts', line: 3 }, { path: '/opt/agent/cache' }],
          content: [
            { type: 'diff', path: '/srv/lib/b.ts', oldText: 'a', newText: 'b' },
            { type: 'diff', path: '/etc/agent.conf', newText: 'x' },
            { type: 'content', content: { type: 'resource_link', uri: 'file:///workspace/app/c.ts', name: 'c.ts' } },
            { type: 'terminal', terminalId: 'term' },
          ],
        },
      },
    });
    agent.receive({
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', locations: [{ path: '/srv/lib' }] } },
    });
    agent.receive({
      method: 'session/update',
      params: {
        sessionId: 's',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'resource', resource: { uri: 'file:///tmp/out.log', text: 'log line' } } },
      },
    });
    agent.receive({
      method: 'session/update',
      params: {
        sessionId: 's',
        update: { sessionUpdate: 'user_message_chunk', content: { type: 'resource_link', uri: 'file:///srv/lib/z.ts', name: 'z.ts' } },
      },
    });
    await eventually(() => assert.equal(updates.length, 4));
    const [call, patch, chunk, replayed] = updates as [
      acp.SessionUpdateOf<'tool_call'>,
      acp.SessionUpdateOf<'tool_call_update'>,
      acp.SessionUpdateOf<'agent_message_chunk'>,
      acp.SessionUpdateOf<'user_message_chunk'>,
    ];
    assert.deepEqual(call.locations, [{ path: '/home/me/app/a.ts', line: 3 }]);
    assert.deepEqual(call.content, [
      { type: 'diff', path: '/home/me/lib/b.ts', oldText: 'a', newText: 'b' },
      { type: 'content', content: { type: 'text', text: "A change to /etc/agent.conf, a file on the agent's side outside the folders shared with it." } },
      { type: 'content', content: { type: 'resource_link', uri: 'file:///home/me/app/c.ts', name: 'c.ts' } },
      { type: 'terminal', terminalId: 'term' },
    ]);
    assert.deepEqual(patch.locations, [{ path: '/home/me/lib' }]);
    assert.deepEqual(chunk.content, { type: 'text', text: "file:///tmp/out.log (a file on the agent's side, outside the folders shared with it)\n\nlog line" });
    assert.deepEqual(replayed.content, { type: 'resource_link', uri: 'file:///home/me/lib/z.ts', name: 'z.ts' });
  });

  it('translates the tool call of a permission request', async () => {
    const { agent, client } = await open();
    const asked: acp.ToolCallUpdate[] = [];
    client.onRequest(acp.RequestPermissionMethod, (params) => {
      asked.push(params.toolCall);
      return { outcome: { outcome: 'cancelled' as const } };
    });
    agent.receive({
      id: 21,
      method: 'session/request_permission',
      params: {
        sessionId: 's',
        toolCall: { toolCallId: 't', locations: [{ path: '/workspace/app/x' }], content: [{ type: 'diff', path: '/workspace/app/x', newText: 'n' }] },
        options: [{ optionId: 'no', name: 'No', kind: 'reject_once' }],
      },
    });
    await agent.next((m) => m.id === 21 && m.method === undefined);
    assert.deepEqual(asked[0]!.locations, [{ path: '/home/me/app/x' }]);
    assert.deepEqual(asked[0]!.content, [{ type: 'diff', path: '/home/me/app/x', newText: 'n' }]);
  });

  it('passes messages of other methods untouched, in order, with the tap (the protocol trace) seeing what the agent received and sent: its own paths', async () => {
    const { agent, client, tapped } = await open();
    const order: string[] = [];
    client.onNotification(acp.SessionUpdateNotification, (n) => order.push(`update ${n.update.sessionUpdate}`));
    client.onRequest(acp.TerminalOutputMethod, (params) => {
      order.push(`output ${params.terminalId}`);
      return { output: '/workspace/app stays as the agent wrote it', truncated: false };
    });
    const vendor = { method: '_vendor/note', params: { path: '/workspace/app/a' } };
    agent.receive(vendor);
    agent.receive({
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '/workspace/app/a' } } },
    });
    agent.receive({ id: 31, method: 'terminal/output', params: { sessionId: 's', terminalId: 't' } });
    agent.receive({
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'completed' } },
    });
    const answer = await agent.next((m) => m.id === 31 && m.method === undefined);
    assert.deepEqual(answer.result, { output: '/workspace/app stays as the agent wrote it', truncated: false });
    await eventually(() => assert.equal(order.length, 3));
    assert.deepEqual(order, ['update agent_message_chunk', 'output t', 'update tool_call_update']);
    const received = tapped.filter((t) => t.direction === 'receive').map((t) => t.message);
    assert.deepEqual(received.find((m) => m.method === '_vendor/note')?.params, { path: '/workspace/app/a' });

    const created = client.newSession({ cwd: '/home/me/app', mcpServers: [] });
    await agent.answer('session/new', { sessionId: 'n' });
    await created;
    const sentNew = tapped.find((t) => t.direction === 'send' && t.message.method === 'session/new');
    assert.equal(sentNew?.message.params?.['cwd'], '/workspace/app', "the tap is on the agent's side: what it received");
    agent.receive({ id: 32, method: 'fs/read_text_file', params: { sessionId: 's', path: '/workspace/app/q' } });
    await eventually(() => assert.ok(tapped.some((t) => t.direction === 'receive' && t.message.id === 32)));
    assert.equal(tapped.find((t) => t.message.id === 32)?.message.params?.['path'], '/workspace/app/q', 'what it sent');
  });

  it('lets the end of the stream through, so the connection closes after what came before', async () => {
    const { agent, client } = await open();
    const texts: string[] = [];
    client.onNotification(acp.SessionUpdateNotification, (n) => {
      if (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'resource_link') texts.push(n.update.content.uri);
    });
    const closed = new Promise<string>((resolve) => client.onDidClose(resolve));
    agent.receive({
      method: 'session/update',
      params: {
        sessionId: 's',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'resource_link', uri: 'file:///workspace/app/last', name: 'last' } },
      },
    });
    agent.deliverDirectly({ jsonrpc: '2.0', method: END_OF_STREAM_METHOD } as Message);
    assert.equal(await closed, 'Remote Agent closed the connection.');
    assert.deepEqual(texts, ['file:///home/me/app/last']);
  });

  it('changes nothing with an identity mapping', async () => {
    const { agent, client } = await open([{ local: '/a', remote: '/a' }]);
    const listing = client.listSessions({ cwd: '/a' });
    const list = { sessions: [{ sessionId: 'x', cwd: '/a/sub', additionalDirectories: ['/a/other'], title: 't' }], nextCursor: null };
    assert.deepEqual((await agent.answer('session/list', list)).params, { cwd: '/a' });
    assert.deepEqual((await listing).sessions, list.sessions);
    const prompting = client.prompt({ sessionId: 'x', prompt: [{ type: 'resource_link', uri: 'file:///a/f%20g.ts', name: 'f g.ts' }] });
    assert.deepEqual((await agent.answer('session/prompt', { stopReason: 'end_turn' })).params?.['prompt'], [
      { type: 'resource_link', uri: 'file:///a/f%20g.ts', name: 'f g.ts' },
    ]);
    await prompting;
    let path: string | undefined;
    client.onRequest(acp.ReadTextFileMethod, (params) => {
      path = params.path;
      return { content: '' };
    });
    agent.receive({ id: 41, method: 'fs/read_text_file', params: { sessionId: 'x', path: '/a/b/c' } });
    await agent.next((m) => m.id === 41 && m.method === undefined);
    assert.equal(path, '/a/b/c');
  });
});

describe('mappedTransport over stdio (byte streams)', () => {
  it("keeps the stdio transport's behaviour: a refused read is answered on the wire, a mapped one reaches the handler", async () => {
    const toClient = new PassThrough();
    const fromClient = new PassThrough();
    const refusals: PathRefusal[] = [];
    const mapper = createPathMapper(MAPPINGS, { localPlatform: 'posix' });
    const client = new AcpConnection({
      transport: mappedTransport(stdioTransport(toClient, fromClient, { peer: 'Wire Agent' }), mapper, { onRefused: (r) => refusals.push(r) }),
    });
    try {
      const lines: Wire[] = [];
      let text = '';
      fromClient.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n')) {
          lines.push(JSON.parse(text.slice(0, at)) as Wire);
          text = text.slice(at + 1);
        }
      });
      const paths: string[] = [];
      client.onRequest(acp.ReadTextFileMethod, (params) => {
        paths.push(params.path);
        return { content: 'ok' };
      });
      toClient.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fs/read_text_file', params: { sessionId: 's', path: '/srv/lib/%20x' } })}\n`);
      toClient.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'fs/read_text_file', params: { sessionId: 's', path: '/srv/library/x' } })}\n`);
      await eventually(() => assert.equal(lines.length, 2));
      assert.deepEqual(paths, ['/home/me/lib/%20x']);
      const byId = new Map(lines.map((l) => [l.id, l]));
      assert.deepEqual(byId.get(1)?.result, { content: 'ok' });
      assert.equal(byId.get(2)?.error?.code, -32602);
      assert.deepEqual(refusals, [{ method: 'fs/read_text_file', path: '/srv/library/x', sessionId: 's' }]);
    } finally {
      toClient.end();
      client.dispose();
    }
  });
});
