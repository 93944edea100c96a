/**
 * A remote agent whose connection dropped reconnects by itself (with backoff); its chats, which said the
 * connection was lost, are reopened on the new connection the way a restart reopens them: resume, else load, with
 * each chat's complete root list (`Reopener.recover`). A local agent that restarted by itself is not reopened here:
 * its chats offer Restart and Reopen, as before.
 */
import type { AgentRestarted } from '../agents/agentRegistry';
import type { Event } from '../common/events';
import type { Logger } from '../common/logger';
import type { Chats } from './chats';
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
