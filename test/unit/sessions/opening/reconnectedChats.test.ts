import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../../src/acp/connection';
import type { AgentRestarted } from '../../../../src/agents/agentRegistry';
import { Emitter } from '../../../../src/common/events';
import { silentLogger } from '../../../../src/common/logger';
import type { AgentStatus } from '../../../../src/agents/agentRegistry';
import type { ErrorAction } from '../../../../src/shared/chatModel';
import { reopenChatsOnReconnect, tellChatsWhenReconnectFails } from '../../../../src/sessions/opening/reconnectedChats';
import type { SessionController } from '../../../../src/sessions/turns/sessionController';

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
    reopenChatsOnReconnect(
      restarts.event,
      { all: () => [chat('Local', true)], has: () => true },
      { recover: (c) => (recovered.push(c), Promise.resolve(undefined)) },
      silentLogger,
    );
    restarts.fire({ name: 'Local', remote: false, connection });
    assert.deepEqual(recovered, []);
  });
});

describe('chats of a remote agent that stops reconnecting', () => {
  /** A chat that records what it was told; `status` is what its thread shows. */
  function chatOf(agentName: string, closed: boolean, status: string) {
    const told: Array<{ message: string; actions: ErrorAction[] | undefined }> = [];
    const chat = {
      session: { agentName, connection: { isClosed: closed } },
      thread: { session: { status } },
      reconnectFailed: (message: string, actions?: ErrorAction[]) => told.push({ message, actions }),
    } as unknown as SessionController;
    return { chat, told };
  }
  function registry() {
    const changes = new Emitter<void>();
    let statuses: AgentStatus[] = [];
    const set = (name: string, state: AgentStatus['state'], message?: string, remote: { credentialsRefused?: boolean } | false = {}) => {
      statuses = [
        {
          definition: { name },
          state,
          message,
          stale: false,
          process: remote === false ? undefined : { remote: { url: 'wss://box', kind: 'websocket', ...remote } },
        } as unknown as AgentStatus,
      ];
      changes.fire();
    };
    return { agents: { onDidChange: changes.event, list: () => statuses }, set };
  }

  it('say why in the chat, once, with Set Token… when its server refused the token', () => {
    const { agents, set } = registry();
    const lost = chatOf('Box', true, 'disconnected');
    const restarting = chatOf('Box', true, 'starting');
    const live = chatOf('Box', false, 'idle');
    tellChatsWhenReconnectFails(agents, { all: () => [lost.chat, restarting.chat, live.chat] }, silentLogger);
    set('Box', 'stopped', 'Lost the connection to Box (wss://box): reset. Reconnecting in 1 s…');
    assert.deepEqual(lost.told, [], 'nothing while it reconnects');
    const refused =
      'Could not reconnect to Box (wss://box): Box refused the credentials (HTTP 401). Set the token with "ACP: Set Remote Agent Token…". Once the token is set, start Box again.';
    set('Box', 'failed', refused, { credentialsRefused: true });
    set('Box', 'failed', refused, { credentialsRefused: true });
    assert.deepEqual(lost.told, [{ message: refused, actions: ['setToken', 'reopen'] }], 'once');
    assert.deepEqual(restarting.told, [], 'a chat the user is restarting hears from the restart');
    assert.deepEqual(live.told, []);
  });

  it("say that it gave up, with Restart; a local agent's chats are left to their own errors", () => {
    const { agents, set } = registry();
    const lost = chatOf('Box', true, 'disconnected');
    const local = chatOf('Local', true, 'disconnected');
    tellChatsWhenReconnectFails(agents, { all: () => [lost.chat, local.chat] }, silentLogger);
    const gaveUp = 'Lost the connection to Box (wss://box): reset. Gave up after 10 attempts to reconnect. Restart Box to try again.';
    set('Box', 'failed', gaveUp);
    assert.deepEqual(lost.told, [{ message: gaveUp, actions: ['restart', 'reopen'] }]);
    set('Box', 'running');
    set('Box', 'failed', gaveUp);
    assert.equal(lost.told.length, 2, 'a new failure is told again');
    set('Local', 'failed', 'Local exited (code 1).', false);
    assert.deepEqual(local.told, []);
  });
});
