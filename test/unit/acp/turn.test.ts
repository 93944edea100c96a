import * as assert from 'node:assert/strict';
import { ResponseError } from 'vscode-jsonrpc/node';
import type { AcpConnection } from '../../../src/acp/connection';
import { AgentRequestError, ConnectionClosedError } from '../../../src/acp/errors';
import type { Turn, TurnState } from '../../../src/acp/port/turn';
import * as acp from '../../../src/acp/schema';
import { connectToMemoryAgent, type MemoryAgent } from '../../helpers/memoryPeer';

/** Each state a turn goes through, in order, as it announces them. */
function statesOf(turn: Turn): TurnState[] {
  const states: TurnState[] = [turn.state];
  turn.onDidChangeState((state) => states.push(state));
  return states;
}

describe('Turn (the v1 adapter: session/prompt and what comes before its answer)', () => {
  let client: AcpConnection | undefined;
  let agent: MemoryAgent | undefined;
  /** Lets the scripted agent answer the prompt when the test says so. */
  let answer: (result: { stopReason: string } | ResponseError<unknown>) => void;
  /** The permission request the client is answering, released when the test says so. */
  let allow: () => void;

  async function start(initialize: Record<string, unknown> = {}): Promise<{ client: AcpConnection; agent: MemoryAgent }> {
    const connected = connectToMemoryAgent();
    client = connected.client;
    agent = connected.agent;
    agent.acceptInitialize(initialize);
    agent.rpc.onRequest('session/new', () => ({ sessionId: 's1' }));
    agent.rpc.onRequest('session/prompt', () => new Promise((resolve) => (answer = resolve)));
    client.onTranscriptEvent(() => undefined);
    client.onRequest(acp.RequestPermissionMethod, () => new Promise((resolve) => (allow = () => resolve({ outcome: { outcome: 'selected', optionId: 'y' } }))));
    await client.initialize({ clientInfo: { name: 'test', version: '0' } });
    await client.newSession({ cwd: '/w', mcpServers: [] });
    return { client, agent };
  }

  /** Resolves when the turn is in `state`. */
  const reaches = (turn: Turn, state: TurnState) =>
    turn.state === state ? Promise.resolve() : new Promise<void>((resolve) => turn.onDidChangeState((now) => now === state && resolve()));

  afterEach(() => {
    client?.dispose();
    agent?.dispose();
    client = agent = undefined;
  });

  const prompt = { sessionId: 's1', prompt: [{ type: 'text' as const, text: 'hi' }] };

  it('is accepted when sent, running once the agent reports, waiting on a permission, and ends with the stop reason', async () => {
    const { client, agent } = await start();
    const turn = client.startTurn(prompt);
    const states = statesOf(turn);
    assert.equal(turn.state, 'accepted');
    await agent.rpc.sendNotification('session/update', {
      sessionId: 's1',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' } },
    });
    await reaches(turn, 'running');
    const permission = agent.rpc.sendRequest('session/request_permission', {
      sessionId: 's1',
      toolCall: { toolCallId: 't1', title: 'Run' },
      options: [{ optionId: 'y', name: 'Yes', kind: 'allow_once' }],
    });
    await reaches(turn, 'waiting');
    allow();
    await permission;
    await reaches(turn, 'running');
    answer({ stopReason: 'end_turn' });
    assert.deepEqual(await turn.ended, { reason: 'stopped', stopReason: 'end_turn' });
    assert.deepEqual(states, ['accepted', 'running', 'waiting', 'running', 'ended']);
    assert.equal(turn.state, 'ended');
  });

  for (const stopReason of ['cancelled', 'max_tokens', 'max_turn_requests', 'refusal']) {
    it(`ends with ${stopReason} when the agent says so`, async () => {
      const { client } = await start();
      const turn = client.startTurn(prompt);
      await new Promise((resolve) => setImmediate(resolve));
      answer({ stopReason });
      assert.deepEqual(await turn.ended, { reason: 'stopped', stopReason });
      assert.deepEqual(turn.end, { reason: 'stopped', stopReason });
    });
  }

  it('fails with the agent’s error', async () => {
    const { client } = await start();
    const turn = client.startTurn(prompt);
    await new Promise((resolve) => setImmediate(resolve));
    answer(new ResponseError(-32603, 'model overloaded'));
    const end = await turn.ended;
    assert.equal(end.reason, 'failed');
    assert.ok(end.reason === 'failed' && end.error instanceof AgentRequestError, `an AgentRequestError: ${end.reason === 'failed' ? String(end.error) : ''}`);
  });

  it('fails without sending a prompt the agent cannot take', async () => {
    const { client, agent } = await start({ agentCapabilities: { promptCapabilities: { audio: false } } });
    const turn = client.startTurn({ sessionId: 's1', prompt: [{ type: 'audio', mimeType: 'audio/wav', data: 'AAA' }] });
    const end = await turn.ended;
    assert.equal(end.reason, 'failed');
    assert.match(end.reason === 'failed' ? String(end.error) : '', /audio in prompts/);
    assert.equal(agent.sent('session/prompt').length, 0);
  });

  it('ends as agentGone when the agent goes away during the turn', async () => {
    const { client, agent } = await start();
    const turn = client.startTurn(prompt);
    await reaches(turn, 'accepted');
    agent.dispose();
    const end = await turn.ended;
    assert.equal(end.reason, 'agentGone');
    assert.ok(end.reason === 'agentGone' && end.error instanceof ConnectionClosedError);
  });
});
