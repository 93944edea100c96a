/**
 * The example agent of @agentclientprotocol/sdk@1 (pinned in package.json as @agentclientprotocol/sdk-v1):
 * an agent without list, load, resume, fork, close, delete or additional directories. The client must
 * refuse what it did not advertise before sending anything, and work with the rest.
 */
import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../src/acp/connection';
import { CapabilityError } from '../../src/acp/errors';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import type { AgentSession } from '../../src/sessions/routing/agentSession';
import type { SessionController } from '../../src/sessions/turns/sessionController';
import { chooseReopenMethod } from '../../src/history/reopenPolicy';
import { forkSession, reopenSession, rootParams, startSession } from '../../src/sessions/routing/sessionLifecycle';
import { waitFor } from '../helpers/referenceAgent';
import { makeScratch, sdkV1Example, type InteropAgent, type Scratch } from './agents';
import { capabilityTable, printCapabilities } from './capabilityTable';
import { InteropClient, agentText, groupExists, within } from './harness';
import { checkRecording, rawUpdates, type RecordedTurn } from './recording';

/** The example pauses a second between steps: a turn takes about five. */
const TURN_MS = 30_000;

describe('interop: @agentclientprotocol/sdk@1 example agent', function () {
  this.timeout(60_000);
  let scratch: Scratch;
  let agent: InteropAgent;
  let client: InteropClient;
  let connection: AcpConnection;
  let chat: { session: AgentSession; controller: SessionController };
  const turns: RecordedTurn[] = [];

  before(() => {
    scratch = makeScratch('acp-interop-sdk-v1-');
    agent = sdkV1Example(scratch.home);
    client = new InteropClient({ agent, cwd: scratch.app });
  });
  after(async () => {
    await client?.dispose();
    scratch?.cleanup();
  });

  async function turn(text: string): Promise<RecordedTurn> {
    const from = client.mark();
    const before = chat.controller.thread.length;
    await within(TURN_MS, `the turn "${text}"`, chat.controller.prompt([{ type: 'text', text }], [{ type: 'text', text }]));
    const entries = chat.controller.thread.snapshot().entries.slice(before);
    assert.deepEqual(
      entries.filter((e) => e.kind === 'error'),
      [],
      `the turn "${text}" ended with an error`,
    );
    const end = entries.at(-1);
    assert.ok(end?.kind === 'turnEnd', `the turn "${text}" ended (last entry: ${end?.kind})`);
    return { updates: rawUpdates(client, chat.session.sessionId, from), stopReason: end.stopReason };
  }

  /** Asserts that `attempt` throws a CapabilityError and that nothing at all was sent meanwhile. */
  async function refused(what: string, attempt: () => Promise<unknown>, capability: RegExp): Promise<void> {
    const mark = client.mark();
    await assert.rejects(attempt(), (error: Error) => {
      assert.ok(error instanceof CapabilityError, `${what}: ${error.name}: ${error.message}`);
      assert.match(error.capability, capability);
      return true;
    });
    assert.deepEqual(client.sentSince(mark), [], `${what}: nothing was sent`);
  }

  it('initializes; it advertises no session capabilities', async () => {
    connection = await within(30_000, 'initialize', client.start());
    printCapabilities(agent, connection.caps);
    assert.equal(connection.caps.protocolVersion, 1);
    assert.deepEqual(capabilityTable(connection.caps), {
      loadSession: false,
      list: false,
      resume: false,
      fork: false,
      close: false,
      delete: false,
      additionalDirectories: false,
      setTitle: false,
      logout: false,
      image: false,
      audio: false,
      embeddedContext: false,
      mcpHttp: false,
      mcpSse: false,
    });
  });

  it('refuses three roots before sending anything, and starts a session without additionalDirectories', async () => {
    const three = rootSetFromPaths(scratch.app, [scratch.lib, scratch.docs]);
    const mark = client.mark();
    assert.throws(() => rootParams(connection, three), /can only see one folder, but app, lib and docs were chosen/);
    await assert.rejects(startSession(connection, three), /can only see one folder/);
    await refused(
      'session/new with additionalDirectories',
      () => connection.newSession({ cwd: scratch.app, additionalDirectories: [scratch.lib], mcpServers: [] }),
      /additionalDirectories/,
    );
    // Even an empty list is a field the agent did not advertise.
    await refused(
      'session/new with an empty additionalDirectories',
      () => connection.newSession({ cwd: scratch.app, additionalDirectories: [], mcpServers: [] }),
      /additionalDirectories/,
    );
    assert.deepEqual(client.sentSince(mark), []);

    const session = await within(30_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app)));
    const sent = client.sentSince(mark, 'session/new');
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]!.params, { cwd: scratch.app, mcpServers: [] }, 'no additionalDirectories field at all');
    chat = { session, controller: client.open(session) };
  });

  it('streams a turn with tool calls and a permission answered by kind (allow)', async () => {
    client.permissionKind = () => 'allow_once';
    const recorded = await turn('Please improve the configuration');
    turns.push(recorded);
    const chunks = recorded.updates.filter((u) => (u as { sessionUpdate: string }).sessionUpdate === 'agent_message_chunk');
    assert.ok(chunks.length >= 3, `${chunks.length} agent_message_chunk updates`);
    const asked = client.permissions.at(-1)!;
    assert.deepEqual(
      asked.options.map((o) => o.kind),
      ['allow_once', 'reject_once'],
    );
    assert.equal(asked.chosen, 'allow_once');
    const answer = client.sentSince(0).find((m) => m.method === undefined && JSON.stringify(m.result ?? '').includes('selected'));
    assert.deepEqual(answer?.result, { outcome: { outcome: 'selected', optionId: 'allow' } });
    assert.match(agentText(chat.controller.thread), /Perfect! I've successfully updated the configuration/);
    const tools = chat.controller.thread.snapshot().entries.flatMap((e) => (e.kind === 'tool' ? [[e.title, e.status]] : []));
    assert.deepEqual(tools, [
      ['Reading project files', 'completed'],
      ['Modifying critical configuration file', 'completed'],
    ]);
  });

  it('a second turn reuses the tool call ids; rejected by kind, the change is skipped', async () => {
    client.permissionKind = () => 'reject_once';
    turns.push(await turn('Try again'));
    assert.equal(client.permissions.at(-1)!.chosen, 'reject_once');
    assert.match(agentText(chat.controller.thread), /I understand you prefer not to make that change/);
    assert.doesNotMatch(agentText(chat.controller.thread).split('Try again')[1] ?? '', /Perfect!/);
    // Deviation (docs/interop.md): "call_1" and "call_2" again. The thread keeps one entry per call.
    const tools = chat.controller.thread.snapshot().entries.flatMap((e) => (e.kind === 'tool' ? [[e.title, e.status]] : []));
    assert.deepEqual(tools, [
      ['Reading project files', 'completed'],
      ['Modifying critical configuration file', 'completed'],
      ['Reading project files', 'completed'],
      ['Modifying critical configuration file', 'pending'],
    ]);
  });

  it('streams what the recording of this agent holds', () => {
    assert.ok(checkRecording(`${agent.id}.jsonl`, turns, [[scratch.dir, '/tmp/acp-interop']]) >= 10);
  });

  it('cancels a turn: the permission is answered cancelled, then session/cancel; its tool calls end cancelled', async () => {
    client.permissionKind = () => undefined; // leave the permission request waiting
    const text = 'Start and stop';
    const turnDone = chat.controller.prompt([{ type: 'text', text }], [{ type: 'text', text }]);
    await waitFor(() => chat.controller.pendingPermissions === 1, 15_000, 'the permission request');
    const mark = client.mark();
    await chat.controller.cancel();
    await within(TURN_MS, 'the cancelled turn', turnDone);
    const sent = client.sentSince(mark);
    assert.deepEqual(
      sent.map((m) => m.method ?? 'response'),
      ['response', 'session/cancel'],
    );
    assert.deepEqual(sent[0]!.result, { outcome: { outcome: 'cancelled' } });
    const entries = chat.controller.thread.snapshot().entries;
    // Deviation (docs/interop.md): the agent ends a cancelled turn with end_turn, not cancelled.
    const end = entries.at(-1);
    assert.equal(end?.kind === 'turnEnd' && end.stopReason, 'end_turn');
    const lastTool = entries.filter((e) => e.kind === 'tool').at(-1);
    assert.deepEqual(lastTool?.kind === 'tool' && [lastTool.title, lastTool.status], ['Modifying critical configuration file', 'cancelled']);
    const permission = entries.filter((e) => e.kind === 'permission').at(-1);
    assert.equal(permission?.kind === 'permission' && permission.state, 'cancelled');
  });

  it('refuses list, load, resume, fork, close and delete without sending anything', async () => {
    const id = chat.session.sessionId;
    const roots = rootSetFromPaths(scratch.app);
    assert.ok('reason' in chooseReopenMethod('open', connection.caps, connection.agentName), 'the policy offers no way to reopen');
    await refused('session/list', () => connection.listSessions({ cwd: scratch.app }), /sessionCapabilities\.list/);
    await refused('session/load', () => connection.loadSession({ sessionId: id, cwd: scratch.app, mcpServers: [] }), /loadSession/);
    await refused('session/resume', () => connection.resumeSession({ sessionId: id, cwd: scratch.app, mcpServers: [] }), /sessionCapabilities\.resume/);
    await refused('session/fork', () => forkSession(connection, id, roots), /sessionCapabilities\.fork/);
    await refused('session/close', () => connection.closeSession(id), /sessionCapabilities\.close/);
    await refused('session/delete', () => connection.deleteSession(id), /sessionCapabilities\.delete/);
    const mark = client.mark();
    await assert.rejects(reopenSession(connection, id, roots, { mode: 'load' }), /does not support reopening sessions/);
    await assert.rejects(reopenSession(connection, id, roots, { mode: 'resume' }), /does not support resuming sessions/);
    assert.deepEqual(client.sentSince(mark), []);
  });

  it('got nothing from the agent it could not read; stopping ends its process group', async () => {
    assert.deepEqual(client.protocolErrors, []);
    const pid = client.process.pid!;
    await client.dispose();
    await waitFor(() => !groupExists(pid), 5000, `process group ${pid} to be gone`);
  });
});
