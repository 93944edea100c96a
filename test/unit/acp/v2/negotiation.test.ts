import * as assert from 'node:assert/strict';
import type { Message } from 'vscode-jsonrpc/node';
import { createAgentConnection, type OwnedAgentConnection, type ProtocolChoice } from '../../../../src/acp/agentConnections';
import { ProtocolVersionError } from '../../../../src/acp/errors';
import type { PermissionRequest } from '../../../../src/acp/port/agentConnection';
import type { TranscriptEvent } from '../../../../src/acp/port/events';
import type { TurnState } from '../../../../src/acp/port/turn';
import { stdioTransport } from '../../../../src/acp/transport/stdio';
import { FULL_AGENT_CAPABILITIES, MemoryAgent } from '../../../helpers/memoryPeer';

const CLIENT = { clientInfo: { name: 'acp-workspace', version: '0' } };
/** What claude-agent-acp 0.101 answers to a v2 `initialize` (from /work/shared/docs/acp-v2-wire). */
const V2_ANSWER = {
  protocolVersion: 2,
  info: { name: '@agentclientprotocol/claude-agent-acp', title: 'Claude Agent', version: '0.101.0' },
  capabilities: {
    session: {
      prompt: { image: {}, embeddedContext: {} },
      mcp: { stdio: {}, http: {} },
      delete: {},
      fork: {},
      additionalDirectories: {},
      systemPrompt: { mode: { override: {} } },
    },
    _meta: { claudeCode: { promptQueueing: true } },
  },
  authMethods: [],
};

function connect(protocol: ProtocolChoice): { client: OwnedAgentConnection; agent: MemoryAgent } {
  const agent = new MemoryAgent();
  const client = createAgentConnection({ transport: stdioTransport(agent.stdout, agent.stdin, { peer: 'Memory Agent' }), protocol });
  return { client, agent };
}

const params = (m: Message | undefined) => (m as { params?: Record<string, unknown> } | undefined)?.params;

describe('ACP v2 beside v1: the version chosen per connection from one initialize', () => {
  const open: Array<{ client: OwnedAgentConnection; agent: MemoryAgent }> = [];
  afterEach(() => {
    for (const { client, agent } of open.splice(0)) {
      client.dispose();
      agent.dispose();
    }
  });
  function world(protocol: ProtocolChoice) {
    const w = connect(protocol);
    open.push(w);
    return w;
  }

  it('auto, with an agent that speaks only v1: one initialize carrying both versions’ fields, answered 1, and the connection is v1 (its file system still served)', async () => {
    const { client, agent } = world('auto');
    agent.acceptInitialize();
    client.serveFileSystem({ readTextFile: async () => 'hello', writeTextFile: async () => undefined });
    const caps = await client.initialize(CLIENT);
    assert.equal(caps.protocolVersion, 1);
    const sent = agent.sent('initialize');
    assert.equal(sent.length, 1, 'one round trip');
    const offer = params(sent[0])!;
    assert.equal(offer['protocolVersion'], 2);
    assert.deepEqual(offer['info'], { name: 'acp-workspace', version: '0' });
    assert.deepEqual(offer['clientInfo'], { name: 'acp-workspace', version: '0' });
    assert.deepEqual((offer['clientCapabilities'] as { fs?: unknown }).fs, { readTextFile: true, writeTextFile: true });
    agent.rpc.onRequest('session/new', () => ({ sessionId: 's1' }));
    await client.newSession({ cwd: '/w/app', additionalDirectories: ['/w/lib'] });
    assert.deepEqual(params(agent.sent('session/new')[0]), { cwd: '/w/app', additionalDirectories: ['/w/lib'], mcpServers: [] });
    const read = await agent.rpc.sendRequest('fs/read_text_file', { sessionId: 's1', path: '/w/app/a.txt' });
    assert.deepEqual(read, { content: 'hello' });
  });

  it('auto, with a v2 agent: answered 2, the v2 adapter serves the port (baseline methods, v2 requests, no client file system)', async () => {
    const { client, agent } = world('auto');
    agent.rpc.onRequest('initialize', () => V2_ANSWER);
    client.serveFileSystem({ readTextFile: async () => 'never', writeTextFile: async () => undefined });
    const caps = await client.initialize(CLIENT);
    assert.equal(caps.protocolVersion, 2);
    assert.deepEqual(caps.agentInfo, { name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0', title: 'Claude Agent' });
    assert.deepEqual(caps.sessions, { list: true, resume: true, close: true, delete: true, additionalDirectories: true, fork: true, setTitle: false });
    assert.deepEqual(caps.prompt, { image: true, audio: false, embeddedContext: true });
    assert.ok(client.lister() && client.resumer() && client.loader() && client.closer() && client.deleter() && client.forker());
    assert.equal(client.titles(), undefined);
    await assert.rejects(agent.rpc.sendRequest('fs/read_text_file', { sessionId: 's1', path: '/w/app/a.txt' }), /Unhandled method|not found|-32601/i);
    agent.rpc.onRequest('session/new', () => ({
      sessionId: 's1',
      configOptions: [{ configId: 'mode', name: 'Mode', category: 'mode', type: 'select', currentValue: 'auto', options: [{ value: 'auto', name: 'Auto' }] }],
    }));
    const answer = await client.newSession({ cwd: '/w/app', additionalDirectories: ['/w/lib'] });
    assert.deepEqual(answer, {
      sessionId: 's1',
      configOptions: [{ id: 'mode', name: 'Mode', category: 'mode', type: 'select', currentValue: 'auto', options: [{ value: 'auto', name: 'Auto' }] }],
    });
    assert.equal(client.settings('s1')?.configOptions, true);
    assert.equal(client.settings('s1')?.modes, false);
    agent.rpc.onRequest('session/resume', () => ({}));
    await client.loader()!.reopen('s1', { cwd: '/w/app' });
    await client.resumer()!.reopen('s1', { cwd: '/w/app' });
    assert.deepEqual(
      agent.sent('session/resume').map((m) => params(m)),
      [
        { sessionId: 's1', cwd: '/w/app', mcpServers: [], replayFrom: { type: 'start' } },
        { sessionId: 's1', cwd: '/w/app', mcpServers: [] },
      ],
      'a reopen with the history is a resume with replayFrom',
    );
  });

  it('v2: a turn is accepted by the prompt’s answer, moved by state updates and ended by idle with its stop reason; its events reach the chat', async () => {
    const { client, agent } = world('v2');
    agent.rpc.onRequest('initialize', () => V2_ANSWER);
    const events: Array<[string, TranscriptEvent]> = [];
    client.onTranscriptEvent((sessionId, event) => events.push([sessionId, event]));
    await client.initialize(CLIENT);
    const update = (u: Record<string, unknown>) => agent.rpc.sendNotification('session/update', { sessionId: 's1', update: u });
    let received: () => void = () => undefined;
    const prompted = new Promise<void>((resolve) => (received = resolve));
    agent.rpc.onRequest('session/prompt', () => {
      received();
      return { messageId: 'm1' };
    });
    const turn = client.startTurn({ sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] });
    const states: TurnState[] = [];
    turn.onDidChangeState((state) => states.push(state));
    await prompted;
    await update({ sessionUpdate: 'state_update', state: 'running' });
    await update({ sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'text', text: 'Hello' } });
    await update({ sessionUpdate: 'state_update', state: 'requires_action' });
    await update({ sessionUpdate: 'state_update', state: 'running' });
    await update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    assert.deepEqual(await turn.ended, { reason: 'stopped', stopReason: 'end_turn' });
    assert.deepEqual(states, ['running', 'waiting', 'running', 'ended']);
    assert.deepEqual(events, [
      ['s1', { type: 'promptAccepted', messageId: 'm1' }],
      ['s1', { type: 'messageAppend', role: 'agent', messageId: 'a1', content: { type: 'text', text: 'Hello' } }],
    ]);
  });

  it('v2: a permission request reaches the port as a tool call and keeps the turn waiting until answered', async () => {
    const { client, agent } = world('v2');
    agent.rpc.onRequest('initialize', () => V2_ANSWER);
    const asked: PermissionRequest[] = [];
    client.servePermissions(async (request) => {
      asked.push(request);
      return { outcome: 'selected', optionId: 'allow' };
    });
    await client.initialize(CLIENT);
    agent.rpc.onRequest('session/prompt', () => ({ messageId: 'm1' }));
    const turn = client.startTurn({ sessionId: 's1', prompt: [{ type: 'text', text: 'edit' }] });
    const answer = await agent.rpc.sendRequest('session/request_permission', {
      sessionId: 's1',
      title: 'Edit a.txt',
      subject: { type: 'tool_call', toolCall: { toolCallId: 't1', title: 'Edit a.txt', kind: 'edit' } },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    assert.deepEqual(answer, { outcome: { outcome: 'selected', optionId: 'allow' } });
    assert.deepEqual(asked, [
      {
        sessionId: 's1',
        toolCall: { toolCallId: 't1', title: 'Edit a.txt', kind: 'edit', agentTerminals: [] },
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      },
    ]);
    await agent.rpc.sendNotification('session/update', { sessionId: 's1', update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' } });
    assert.deepEqual(await turn.ended, { reason: 'stopped', stopReason: 'cancelled' });
  });

  it('v2 only: an agent that answers v1 is refused with the versions named, and the connection closed', async () => {
    const { client, agent } = world('v2');
    agent.acceptInitialize();
    await assert.rejects(client.initialize(CLIENT), (error: unknown) => error instanceof ProtocolVersionError && /version 1/.test(error.message));
    assert.equal(client.isClosed, true);
  });

  it('a v2 turn whose agent goes away ends agentGone', async () => {
    const { client, agent } = world('auto');
    agent.rpc.onRequest('initialize', () => V2_ANSWER);
    await client.initialize(CLIENT);
    agent.rpc.onRequest('session/prompt', () => ({ messageId: 'm1' }));
    const turn = client.startTurn({ sessionId: 's1', prompt: [{ type: 'text', text: 'x' }] });
    await new Promise<void>((resolve) => setImmediate(resolve));
    client.dispose('the agent exited.');
    assert.equal((await turn.ended).reason, 'agentGone');
  });

  it('v1 stays the default: no v2 field is offered', async () => {
    const agent = new MemoryAgent();
    const client = createAgentConnection({ transport: stdioTransport(agent.stdout, agent.stdin, { peer: 'Memory Agent' }) });
    open.push({ client, agent });
    agent.rpc.onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: FULL_AGENT_CAPABILITIES, authMethods: [] }));
    await client.initialize(CLIENT);
    const offer = params(agent.sent('initialize')[0])!;
    assert.equal(offer['protocolVersion'], 1);
    assert.equal(offer['info'], undefined);
  });
});
