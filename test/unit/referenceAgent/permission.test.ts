import * as assert from 'node:assert/strict';
import type { PermissionOptionKind, RequestPermissionRequest, ToolCallStatus } from '@agentclientprotocol/sdk/unstable';
import { cleanup, startAgent, tempDir, type AgentHarness } from './harness';

const CANONICAL: PermissionOptionKind[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

function choose(kind: PermissionOptionKind, seen: RequestPermissionRequest[]) {
  return (request: RequestPermissionRequest) => {
    seen.push(request);
    const option = request.options.find((o) => o.kind === kind);
    assert.ok(option, `no ${kind} option`);
    return { outcome: { outcome: 'selected' as const, optionId: option.optionId } };
  };
}

function toolStatuses(agent: AgentHarness, sessionId: string): Array<ToolCallStatus | null | undefined> {
  return agent
    .updatesFor(sessionId)
    .filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update')
    .map((u) => (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update' ? u.status : undefined));
}

describe('reference agent: permission requests', () => {
  afterEach(cleanup);

  it('offers four shuffled options whose ids do not reveal their kind, the same way every run', async () => {
    const orders: string[][] = [];
    const ids: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const seen: RequestPermissionRequest[] = [];
      const agent = await startAgent({ onPermission: choose('allow_once', seen) });
      const sessionId = await agent.newSession(tempDir());
      await agent.prompt(sessionId, 'permission please');
      assert.equal(seen.length, 1);
      const { options, toolCall } = seen[0];
      assert.equal(toolCall.status, 'pending');
      assert.deepEqual([...options.map((o) => o.kind)].sort(), [...CANONICAL].sort());
      assert.notEqual(options[0].kind, 'allow_once');
      for (const option of options) {
        assert.doesNotMatch(option.optionId, /allow|reject|once|always/i);
      }
      orders.push(options.map((o) => o.kind));
      ids.push(options.map((o) => o.optionId));
    }
    assert.deepEqual(orders[0], orders[1]);
    assert.deepEqual(ids[0], ids[1]);
  });

  it('completes the tool when allowed and says which option was chosen', async () => {
    const seen: RequestPermissionRequest[] = [];
    const agent = await startAgent({ onPermission: choose('allow_always', seen) });
    const sessionId = await agent.newSession(tempDir());
    assert.equal(await agent.prompt(sessionId, 'permission'), 'end_turn');
    assert.deepEqual(toolStatuses(agent, sessionId), ['pending', 'in_progress', 'completed']);
    assert.match(agent.agentText(sessionId), /Permission granted: you chose "Always allow" \(allow_always\)/);
  });

  it('fails the tool when rejected', async () => {
    const seen: RequestPermissionRequest[] = [];
    const agent = await startAgent({ onPermission: choose('reject_once', seen) });
    const sessionId = await agent.newSession(tempDir());
    assert.equal(await agent.prompt(sessionId, 'permission'), 'end_turn');
    assert.deepEqual(toolStatuses(agent, sessionId), ['pending', 'failed']);
    assert.match(agent.agentText(sessionId), /Permission denied: you chose "Reject" \(reject_once\)/);
  });

  it('ends the turn as cancelled when the client answers cancelled', async () => {
    const agent = await startAgent({ onPermission: () => ({ outcome: { outcome: 'cancelled' } }) });
    const sessionId = await agent.newSession(tempDir());
    assert.equal(await agent.prompt(sessionId, 'permission'), 'cancelled');
    assert.deepEqual(toolStatuses(agent, sessionId), ['pending', 'failed']);
    assert.match(agent.agentText(sessionId), /Permission request cancelled/);
  });

  it('session/cancel while the request is pending ends the turn, though the request is never answered', async () => {
    let asked: () => void = () => undefined;
    const askedPromise = new Promise<void>((resolve) => (asked = resolve));
    const agent = await startAgent({
      onPermission: () => {
        asked();
        return new Promise(() => undefined); // never answered by the user
      },
    });
    const sessionId = await agent.newSession(tempDir());
    const turn = agent.prompt(sessionId, 'permission');
    await askedPromise;
    await agent.agent.notify('session/cancel', { sessionId });
    // The permission request is never answered: only the cancel can end this turn.
    assert.equal(await turn, 'cancelled');
    assert.deepEqual(toolStatuses(agent, sessionId), ['pending', 'failed']);
  });
});
