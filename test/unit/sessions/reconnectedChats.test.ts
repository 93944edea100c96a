import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../src/acp/connection';
import type { AgentRestarted } from '../../../src/agents/agentRegistry';
import { Emitter } from '../../../src/common/events';
import { silentLogger } from '../../../src/common/logger';
import { reopenChatsOnReconnect } from '../../../src/sessions/reconnectedChats';
import type { SessionController } from '../../../src/sessions/sessionController';

/** A chat as the reconnect rule sees it: its agent, and whether its session's connection is gone. */
function chat(agentName: string, closed: boolean): SessionController {
  return { session: { agentName, connection: { isClosed: closed } } } as unknown as SessionController;
}

describe('chats of a remote agent that reconnected', () => {
  const connection = {} as AcpConnection;

  it('are reopened (recover: resume, else load) when their session was on the lost connection; other chats are left alone', () => {
    const restarts = new Emitter<AgentRestarted>();
    const lost = chat('Box', true);
    const reopenedByUser = chat('Box', false);
    const otherAgent = chat('Local', true);
    const recovered: SessionController[] = [];
    const subscription = reopenChatsOnReconnect(
      restarts.event,
      { all: () => [lost, reopenedByUser, otherAgent], has: () => true },
      { recover: (c) => (recovered.push(c), Promise.resolve(undefined)) },
      silentLogger,
    );
    restarts.fire({ name: 'Box', remote: true, connection });
    assert.deepEqual(recovered, [lost]);
    subscription.dispose();
    restarts.fire({ name: 'Box', remote: true, connection });
    assert.equal(recovered.length, 1, 'nothing after dispose');
  });

  it('a local agent that restarted by itself keeps its chats as they are (they offer Restart and Reopen)', () => {
    const restarts = new Emitter<AgentRestarted>();
    const recovered: SessionController[] = [];
    reopenChatsOnReconnect(restarts.event, { all: () => [chat('Local', true)], has: () => true }, { recover: (c) => (recovered.push(c), Promise.resolve(undefined)) }, silentLogger);
    restarts.fire({ name: 'Local', remote: false, connection });
    assert.deepEqual(recovered, []);
  });
});
