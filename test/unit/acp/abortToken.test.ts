import * as assert from 'node:assert/strict';
import { ResponseError } from 'vscode-jsonrpc/node';
import { tokenFor } from '../../../src/acp/abortToken';
import type { AcpConnection } from '../../../src/acp/connection';
import { RequestCancelledError } from '../../../src/acp/errors';
import { FULL_AGENT_CAPABILITIES, type MemoryAgent, connectToMemoryAgent, flush } from '../../helpers/memoryPeer';

describe('tokenFor (an AbortSignal as the connection’s cancellation token)', () => {
  let agent: MemoryAgent | undefined;
  let client: AcpConnection | undefined;
  afterEach(() => {
    client?.dispose();
    agent?.dispose();
    client = agent = undefined;
  });

  it('aborting the signal sends $/cancel_request for the session/list in flight; the agent’s -32800 rejects it', async () => {
    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize({ agentCapabilities: FULL_AGENT_CAPABILITIES });
    await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0.0.0-test' } });
    const cancels: unknown[] = [];
    let cancelled: (() => void) | undefined;
    agent.rpc.onRequest('session/list', () => new Promise((resolve) => (cancelled = () => resolve(new ResponseError(-32800, 'Request cancelled')))));
    agent.rpc.onNotification('$/cancel_request', (params: unknown) => {
      cancels.push(params);
      cancelled?.();
    });
    const controller = new AbortController();
    const pending = client.listSessions({}, tokenFor(controller.signal));
    await flush();
    assert.deepEqual(cancels, []);
    controller.abort();
    await assert.rejects(pending, RequestCancelledError);
    assert.deepEqual(cancels, [{ requestId: agent.sent('session/list')[0]!.id }]);
  });

  it('follows the signal: cancelled once aborted, listeners called once and removable, an aborted signal calls back at once', async () => {
    const controller = new AbortController();
    const token = tokenFor(controller.signal);
    assert.equal(token.isCancellationRequested, false);
    let calls = 0;
    let removedCalls = 0;
    token.onCancellationRequested(() => calls++);
    token.onCancellationRequested(() => removedCalls++).dispose();
    controller.abort();
    controller.abort();
    assert.equal(token.isCancellationRequested, true);
    assert.equal(calls, 1);
    assert.equal(removedCalls, 0);
    let late = 0;
    tokenFor(controller.signal).onCancellationRequested(() => late++);
    await Promise.resolve();
    assert.equal(late, 1);
  });
});
