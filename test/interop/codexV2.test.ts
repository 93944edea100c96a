/**
 * codex-acp 2.6.0 over ACP v2, through the product's negotiation (`acpWorkspace.protocol`: auto) and its v2
 * adapter, offline against the scripted Responses API server: one initialize answered 2, a session with three
 * folders (wire-exact roots), a turn accepted by the prompt's answer and ended by `state_update` idle, the
 * session listed with its roots, and after a restart reopened with its history replayed (`session/resume` with
 * `replayFrom`). Unconfined: this is about the protocol (codexConfined covers the confinement).
 */
import * as assert from 'node:assert/strict';
import type { OwnedAgentConnection } from '../../src/acp/agentConnections';
import type { TranscriptEvent } from '../../src/acp/port/events';
import { silentLogger } from '../../src/common/logger';
import { AgentProcess } from '../../src/process/agentProcess';
import { codexAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { startedAgents, within } from './harness';
import { OpenAiModelServer, SCRIPTED_MODEL } from './openaiModelServer';

interface Wire {
  readonly direction: string;
  readonly message: { readonly method?: string; readonly params?: Record<string, unknown>; readonly result?: Record<string, unknown>; readonly id?: unknown };
}

describe('interop: codex-acp over ACP v2 (protocol auto, the v2 adapter)', function () {
  this.timeout(120_000);
  let scratch: Scratch;
  let server: OpenAiModelServer;
  let agent: InteropAgent;
  let process_: AgentProcess;
  const wire: Wire[] = [];
  const events: Array<[string, TranscriptEvent]> = [];
  let sessionId: string;

  before(async () => {
    scratch = makeScratch('acp-interop-codex-v2-');
    server = await OpenAiModelServer.start();
    agent = codexAgentAcp(scratch.home, server.url, SCRIPTED_MODEL);
    process_ = new AgentProcess({
      command: agent.command,
      cwd: scratch.app,
      parentEnv: agent.env,
      logger: silentLogger,
      clientInfo: { name: 'acp-workspace-interop', title: 'ACP Workspace (interop tests)', version: '0.0.0' },
      protocol: 'auto',
      restartPolicy: false,
      initializeTimeoutMs: 60_000,
      stopGraceMs: 3000,
      registerHandlers: (connection) => {
        connection.onTranscriptEvent((id, event) => events.push([id, event]));
        connection.servePermissions(async (request) => ({ outcome: 'selected', optionId: request.options[0]!.optionId }));
      },
      tap: (direction, message) => wire.push({ direction, message: message as Wire['message'] }),
    });
    startedAgents.add(process_);
  });
  after(async () => {
    await process_?.stop();
    await server?.close();
    scratch?.cleanup();
  });

  const sent = (method: string) => wire.filter((w) => w.direction === 'send' && w.message.method === method).map((w) => w.message.params);

  it('one initialize, answered 2: the v2 adapter, with codex’s capabilities', async () => {
    const connection = await within(60_000, 'initialize', process_.start());
    assert.equal(connection.caps.protocolVersion, 2);
    assert.equal(sent('initialize').length, 1);
    assert.equal(sent('initialize')[0]?.['protocolVersion'], 2);
    assert.deepEqual(connection.caps.sessions, {
      list: true,
      resume: true,
      close: true,
      delete: true,
      additionalDirectories: true,
      fork: true,
      setTitle: true,
    });
  });

  it('a session with app, lib and docs: the complete root list on the wire; a turn ends by state_update idle with its answer streamed', async () => {
    const connection = process_.connection as OwnedAgentConnection;
    const answer = await within(60_000, 'session/new', connection.newSession({ cwd: scratch.app, additionalDirectories: [scratch.lib, scratch.docs] }));
    sessionId = answer.sessionId;
    assert.deepEqual(sent('session/new')[0], { cwd: scratch.app, additionalDirectories: [scratch.lib, scratch.docs], mcpServers: [] });
    const turn = connection.startTurn({ sessionId, prompt: [{ type: 'text', text: 'Say hello' }] });
    const end = await within(60_000, 'the turn', turn.ended);
    assert.deepEqual(end, { reason: 'stopped', stopReason: 'end_turn' });
    const said = events
      .filter(([id, e]) => id === sessionId && (e.type === 'message' || e.type === 'messageAppend') && e.role === 'agent')
      .map(([, e]) => ((e.type === 'message' || e.type === 'messageAppend') && e.content.type === 'text' ? e.content.text : ''))
      .join('');
    assert.ok(said.length > 0, `the agent's answer was streamed: ${JSON.stringify(events.slice(-5))}`);
  });

  it('lists the session with its roots', async () => {
    const connection = process_.connection as OwnedAgentConnection;
    const page = await within(30_000, 'session/list', connection.lister()!.listSessions({ cwd: scratch.app }));
    const listed = page.sessions.find((s) => s.sessionId === sessionId);
    assert.ok(listed, `listed: ${JSON.stringify(page.sessions)}`);
    assert.equal(listed.cwd, scratch.app);
  });

  it('after a restart, reopens the session with its history replayed (session/resume with replayFrom)', async () => {
    const connection = (await within(60_000, 'restart', process_.restart())) as OwnedAgentConnection;
    assert.equal(connection.caps.protocolVersion, 2);
    const before = events.length;
    await within(60_000, 'session/resume', connection.loader()!.reopen(sessionId, { cwd: scratch.app, additionalDirectories: [scratch.lib, scratch.docs] }));
    assert.deepEqual(sent('session/resume').at(-1), {
      sessionId,
      cwd: scratch.app,
      additionalDirectories: [scratch.lib, scratch.docs],
      mcpServers: [],
      replayFrom: { type: 'start' },
    });
    // The replay may come before or after the answer: wait for the history's first user message.
    const deadline = Date.now() + 30_000;
    while (!events.slice(before).some(([id, e]) => id === sessionId && e.type !== 'unknown') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      events.slice(before).some(([id, e]) => id === sessionId && e.type !== 'unknown'),
      `the history was replayed: ${JSON.stringify(
        wire
          .filter((w) => w.direction === 'receive')
          .slice(-6)
          .map((w) => w.message),
      )}`,
    );
  });
});
