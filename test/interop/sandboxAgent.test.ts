/**
 * Interop with a real Sandbox Agent server (`sandbox-agent server` 0.4.2 from npm) on 127.0.0.1, offline: its
 * health and agent list, a token refused in words, and a real opencode session through the extension's own
 * `AcpConnection` over `sandboxAgentLink` (initialize with opencode's real capabilities, session/new, a prompt
 * answered by the scripted model server with streamed text, session/list, cancel mid-turn, close); opencode killed
 * inside a server that stays up, seen by the link (its exit notice, or a later POST answered 502) and reconnected
 * by the remote agent, the session answering again on the new connection.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AcpConnection } from '../../src/acp/connection';
import { silentLogger } from '../../src/common/logger';
import { RemoteAgent } from '../../src/remote/remoteAgent';
import * as acp from '../../src/acp/schema';
import type { RemoteLink } from '../../src/acp/transport/remote';
import { sandboxAgentLink } from '../../src/acp/transport/sandboxAgentLink';
import { SandboxAgentServer } from '../../src/remote/sandboxAgentServer';
import { sandboxExtensions } from '../../src/remote/sandboxExtensions';
import { conformance } from '../helpers/conformance';
import { within } from './harness';
import { plainAnswer } from './modelScript';
import { ModelServer } from './modelServer';
import { LoopbackRegistry, SandboxServerProcess } from './sandboxAgentServer';
import { v1 } from '../helpers/v1Connection';

const clientInfo = { name: 'acp-workspace-interop', version: '0' };

describe('Sandbox Agent server 0.4.2 (real binary, opencode from npm, scripted model)', function () {
  this.timeout(120_000);
  let scratch: string;
  let model: ModelServer;
  let registry: LoopbackRegistry;
  const servers: SandboxServerProcess[] = [];
  const links: RemoteLink[] = [];

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-sandbox-agent-'));
    // Streaming paced, so that an answer arrives in several chunks as from a real model.
    model = await ModelServer.start({ eventDelayMs: 40 });
    registry = await LoopbackRegistry.start(scratch);
  });

  afterEach(async () => {
    await Promise.all(links.splice(0).map((link) => link.close()));
  });

  after(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await registry?.close();
    await model?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function startServer(name: string, token?: string): Promise<SandboxServerProcess> {
    const home = path.join(scratch, name);
    const server = await SandboxServerProcess.start({ home, registryUrl: registry.url, modelUrl: model.url, token });
    servers.push(server);
    return server;
  }

  function open(server: SandboxServerProcess, token?: string): { link: RemoteLink; connection: AcpConnection; received: unknown[] } {
    const link = sandboxAgentLink({
      peer: 'Sandbox opencode',
      endpoint: { url: server.url, kind: 'sandbox-agent', sandboxAgent: 'opencode', allowInsecure: false },
      credentials: token ? { token } : {},
      connectTimeoutMs: 60_000,
    });
    links.push(link);
    const received: unknown[] = [];
    // Everything the client sends is checked against the ACP JSON Schema, as in the rest of the tier.
    const conformanceTap = conformance.newTap();
    const connection = new AcpConnection({
      transport: link,
      tap: (direction, message) => {
        conformanceTap(direction, message);
        if (direction === 'receive') received.push(message);
      },
    });
    connection.onRequest(acp.RequestPermissionMethod, () => ({ outcome: { outcome: 'cancelled' as const } }));
    return { link, connection, received };
  }

  it('without a token: health, the agent list, and an opencode session (stream, list, cancel, close)', async () => {
    const server = await startServer('open');
    const api = new SandboxAgentServer({ baseUrl: server.url, credentials: {}, allowInsecure: false });
    await api.health();
    const agents = await api.agents();
    assert.deepEqual(agents.map((a) => a.id).sort(), ['amp', 'claude', 'codex', 'cursor', 'mock', 'opencode', 'pi']);
    const opencode = agents.find((a) => a.id === 'opencode')!;
    assert.equal(opencode.capabilities['streamingDeltas'], true);
    // Its binary is in place but not its ACP adapter: installing takes that from the loopback registry.
    assert.equal(opencode.installed, false);
    await api.install('opencode');
    assert.equal((await api.agents()).find((a) => a.id === 'opencode')?.installed, true);
    await assert.rejects(
      api.install('nope'),
      /The Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+ answered HTTP 400 for installing nope: Unsupported Agent: unsupported agent: nope/,
    );

    const { link, connection, received } = open(server);
    const chunks = new Map<string, string[]>();
    let onChunk = (): void => undefined;
    connection.onNotification(acp.SessionUpdateNotification, (n) => {
      if (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text') {
        chunks.set(n.sessionId, [...(chunks.get(n.sessionId) ?? []), n.update.content.text]);
        onChunk();
      }
    });
    const caps = await connection.initialize({ clientInfo });
    assert.equal(caps.agentInfo?.name, 'OpenCode');
    assert.equal(caps.loadSession, true);
    assert.equal(caps.sessions.list, true);
    assert.equal(caps.sessions.fork, true);
    assert.equal(caps.sessions.resume, true);
    // opencode advertises none of Sandbox Agent's extensions: the client uses ACP's own methods only.
    const initialized = received.find((m) => (m as { result?: { agentCapabilities?: unknown } }).result?.agentCapabilities !== undefined) as {
      result: { agentCapabilities: unknown };
    };
    assert.deepEqual(Object.values(sandboxExtensions(initialized.result.agentCapabilities)), [false, false, false, false]);

    const cwd = fs.mkdtempSync(path.join(scratch, 'project-'));
    const { sessionId } = await connection.newSession({ cwd, mcpServers: [] });
    const prompt = 'hello from the sandbox interop test';
    const result = await connection.prompt({ sessionId, prompt: [{ type: 'text', text: prompt }] });
    assert.equal(result.stopReason, 'end_turn', `model server problems: ${model.problems.join('; ')}\n${server.log}`);
    const streamed = chunks.get(sessionId) ?? [];
    assert.ok(streamed.length > 1, `streamed in several chunks, got ${streamed.length}`);
    assert.equal(streamed.join(''), plainAnswer(prompt));
    assert.deepEqual(model.problems, []);

    const listed = await connection.listSessions({ cwd });
    assert.ok(
      listed.sessions.some((s) => s.sessionId === sessionId && s.cwd === cwd),
      JSON.stringify(listed.sessions),
    );

    // Cancel once the next answer has started streaming (the model holds it after its first words, so the cancel
    // lands mid-turn however loaded the machine is): the turn ends as cancelled.
    const before = streamed.length;
    const firstChunk = new Promise<void>((resolve) => (onChunk = () => (chunks.get(sessionId)?.length ?? 0) > before && resolve()));
    const release = model.holdAnswersTo('a second, longer answer please');
    try {
      const turn = connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'a second, longer answer please' }] });
      await firstChunk;
      await connection.cancel(sessionId);
      assert.equal((await turn).stopReason, 'cancelled');
    } finally {
      release();
    }

    await link.close();
    assert.equal((await link.ended).cause, 'stopped');
  });

  it("an agent the server does not know ends the link in the server's words", async () => {
    const server = await startServer('unknown');
    const link = sandboxAgentLink({
      peer: 'Sandbox nope',
      endpoint: { url: server.url, kind: 'sandbox-agent', sandboxAgent: 'nope', allowInsecure: false },
      credentials: {},
    });
    links.push(link);
    const connection = new AcpConnection({ transport: link });
    await assert.rejects(connection.initialize({ clientInfo }));
    const end = await link.ended;
    assert.equal(end.cause, 'http');
    assert.equal(end.retry, false);
    assert.match(end.reason, /Sandbox nope answered HTTP 400 for initialize at http:\/\/127\.0\.0\.1:\d+: Unsupported Agent: unsupported agent: nope/);
  });

  it('the server killed mid-turn: the prompt fails and the link ends worth a retry', async () => {
    const server = await startServer('killed');
    const { link, connection } = open(server);
    let chunked = (): void => undefined;
    const firstChunk = new Promise<void>((resolve) => (chunked = resolve));
    connection.onNotification(acp.SessionUpdateNotification, (n) => n.update.sessionUpdate === 'agent_message_chunk' && chunked());
    await connection.initialize({ clientInfo });
    const { sessionId } = await connection.newSession({ cwd: fs.mkdtempSync(path.join(scratch, 'project-')), mcpServers: [] });
    const turn = connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'a long answer, to be cut short' }] });
    await firstChunk;
    await server.stop();
    await assert.rejects(turn);
    const end = await link.ended;
    assert.ok(end.cause === 'network' || end.cause === 'closed', end.cause);
    assert.equal(end.retry, true);
    // Whichever noticed first: the prompt's POST or the event stream.
    assert.match(
      end.reason,
      /^(The connection to Sandbox opencode at http:\/\/127\.0\.0\.1:\d+ broke: |Sandbox opencode at http:\/\/127\.0\.0\.1:\d+ ended the connection\.)/,
    );
  });

  it('the agent killed inside a server that stays up: the link ends worth a retry, the remote agent reconnects, the session goes on', async () => {
    const server = await startServer('agent-killed');
    const states: string[] = [];
    const agent = new RemoteAgent({
      name: 'Sandbox opencode',
      endpoint: { url: server.url, kind: 'sandbox-agent', sandboxAgent: 'opencode', allowInsecure: false },
      credentials: () => Promise.resolve({}),
      linkFactory: () => (options) => {
        const link = sandboxAgentLink(options);
        links.push(link);
        return link;
      },
      clientInfo,
      logger: silentLogger,
      connectTimeoutMs: 60_000,
      tap: conformance.newTap(),
      registerHandlers: (c) => v1(c).onRequest(acp.RequestPermissionMethod, () => ({ outcome: { outcome: 'cancelled' as const } })),
    });
    agent.onDidChangeState((change) => states.push(`${change.state}${change.message ? `: ${change.message}` : ''}`));
    try {
      const first = v1(await agent.start());
      const cwd = fs.mkdtempSync(path.join(scratch, 'project-'));
      const { sessionId } = await first.newSession({ cwd, mcpServers: [] });
      assert.equal((await first.prompt({ sessionId, prompt: [{ type: 'text', text: 'before the agent is killed' }] })).stopReason, 'end_turn');
      const [pid, ...others] = server.agentPids();
      assert.ok(pid !== undefined && others.length === 0, `one agent process under the server, got ${[pid, ...others].join(', ')}`);
      const reconnected = new Promise<AcpConnection>((resolve) => agent.onDidRestart((c) => resolve(v1(c))));
      const lost = new Promise<string>((resolve) => first.onDidClose(resolve));
      process.kill(pid, 'SIGKILL');
      // The server stays up (its health answers) while its agent is gone.
      assert.equal((await fetch(`${server.url}/v1/health`)).status, 200);
      const reason = await within(20_000, 'the connection closing after the agent was killed (the view would still say running)', lost);
      assert.match(reason, /^opencode stopped on the Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+\.$|answered HTTP 502/);
      assert.ok(
        states.some((s) => /^stopped: Lost the connection to Sandbox opencode \(http:\/\/127\.0\.0\.1:\d+\): .+\. Reconnecting in \d+ s…$/.test(s)),
        states.join('\n'),
      );
      const second = await within(30_000, 'the reconnect', reconnected);
      assert.notEqual(second, first);
      assert.equal(agent.state, 'running');
      assert.notDeepEqual(server.agentPids(), [pid], 'a new agent process');
      // The session is reopened on the new connection (as the chats are) and answers.
      await second.resumeSession({ sessionId, cwd, mcpServers: [] });
      const after = await second.prompt({ sessionId, prompt: [{ type: 'text', text: 'after the reconnect' }] });
      assert.equal(after.stopReason, 'end_turn', `model server problems: ${model.problems.join('; ')}\n${server.log}`);
    } finally {
      await agent.dispose();
    }
  });

  it('with --token: a missing or wrong token is refused in words; the right one works', async () => {
    const server = await startServer('token', 'T0ken');
    for (const token of [undefined, 'wrong-token']) {
      const api = new SandboxAgentServer({ baseUrl: server.url, credentials: token ? { token } : {}, allowInsecure: false });
      await assert.rejects(api.agents(), (error: Error) => {
        assert.match(
          error.message,
          /The Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+ refused the credentials for the agent list \(HTTP 401: Token Invalid: token invalid\)/,
        );
        assert.doesNotMatch(error.message, /wrong-token|T0ken/);
        return true;
      });
      const { link, connection } = open(server, token);
      await assert.rejects(connection.initialize({ clientInfo }));
      const end = await link.ended;
      assert.equal(end.cause, 'auth');
      assert.equal(end.retry, false);
      assert.match(end.reason, /Sandbox opencode refused the credentials for initialize/);
    }
    const api = new SandboxAgentServer({ baseUrl: server.url, credentials: { token: 'T0ken' }, allowInsecure: false });
    await api.health();
    assert.ok((await api.agents()).some((a) => a.id === 'opencode'));
  });
});
