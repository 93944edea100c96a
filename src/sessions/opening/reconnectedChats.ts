/**
 * A remote agent whose connection dropped reconnects by itself (with backoff); its chats, which said the
 * connection was lost, are reopened on the new connection the way a restart reopens them: resume, else load, with
 * each chat's complete root list (`Reopener.recover`). A local agent that restarted by itself is not reopened here:
 * its chats offer Restart and Reopen, as before.
 *
 * When the reconnecting ends in failure instead (the attempts used up, or its server refused the token), the chats
 * that showed the lost connection say so too, with the way forward: Set Token… for a refused token (once it is set,
 * the agent connects again and the chats are reopened), else Restart; Reopen either way.
 */
import type { AgentRegistry, AgentRestarted } from '../../agents/agentRegistry';
import type { Event } from '../../common/events';
import type { Logger } from '../../common/logger';
import type { ErrorAction } from '../../shared/chatModel';
import type { Chats } from '../chats/chats';
import type { Reopener } from './reopener';

export function reopenChatsOnReconnect(
  onDidRestart: Event<AgentRestarted>,
  chats: Pick<Chats, 'all' | 'has'>,
  reopener: Pick<Reopener, 'recover'>,
  logger: Logger,
): { dispose(): void } {
  return onDidRestart(({ name, remote }) => {
    if (!remote) return;
    // Only chats whose session was on the lost connection: one reopened meanwhile (by the user) keeps its own.
    const lost = chats.all().filter((chat) => chat.session.agentName === name && chat.session.connection.isClosed);
    if (lost.length === 0) return;
    logger.info(`${name} reconnected: reopening ${lost.length} chat(s).`);
    for (const chat of lost) void reopener.recover(chat);
  });
}

/**
 * Tells the chats of a remote agent that stopped reconnecting (`failed` after its connection was lost) why, once per
 * failure: before, only the Agents view said it. Chats being restarted by the user are told by the restart itself.
 */
export function tellChatsWhenReconnectFails(
  agents: Pick<AgentRegistry, 'onDidChange' | 'list'>,
  chats: Pick<Chats, 'all'>,
  logger: Logger,
): { dispose(): void } {
  /** Remote agents whose current failure was told already. */
  const told = new Set<string>();
  return agents.onDidChange(() => {
    for (const status of agents.list()) {
      const name = status.definition.name;
      const remote = status.process?.remote;
      if (!remote || status.state !== 'failed') {
        told.delete(name);
        continue;
      }
      if (told.has(name) || status.message === undefined) continue;
      told.add(name);
      // A chat that showed the lost connection (one the user is restarting says "Restarting…" and hears from the restart).
      const lost = chats
        .all()
        .filter((chat) => chat.session.agentName === name && chat.session.connection.isClosed && chat.thread.session.status === 'disconnected');
      if (lost.length === 0) continue;
      const actions: ErrorAction[] = remote.credentialsRefused ? ['setToken', 'reopen'] : ['restart', 'reopen'];
      logger.info(`${name} stopped reconnecting: telling ${lost.length} chat(s).`);
      for (const chat of lost) chat.reconnectFailed(status.message, actions);
    }
  });
}
