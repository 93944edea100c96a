/**
 * One title per session everywhere. Every view asks here, and here asks the session history, which applies
 * the one rule (history/sessionTitle.ts) to what it knows: the user's rename, the agent's title, a fork's
 * origin, the first prompt, when it started. When a title changes (a rename in the Sessions view, the
 * agent's `session_info_update`, a fork, the first prompt), each open chat shows it (its tab, header and the
 * status bar follow the chat's session state) and {@link SessionTitles.onDidChange} tells the other views.
 * A tab restored after a reload remembers the title it showed, and the same rule gives it back.
 */
import { Emitter, type Event } from '../../common/events';
import { resolveTitle } from '../../history/sessionTitle';
import type { ActiveSessions } from '../routing/activeSessions';
import type { Chats } from '../chats/chats';
import type { SessionHistory } from './sessionHistory';

export class SessionTitles {
  /** The titles of the open sessions as last announced. */
  private readonly shown = new Map<string, string>();
  private readonly changeEmitter = new Emitter<void>();
  private readonly subscriptions: Array<{ dispose(): void }>;

  /** The title of an open session changed. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(
    private readonly history: SessionHistory,
    private readonly chats: Chats,
    private readonly sessions: ActiveSessions,
  ) {
    this.subscriptions = [history.onDidChange(() => this.refresh()), sessions.onDidChange(() => this.refresh())];
    this.refresh();
  }

  /** The title of a session; `startedAt` (epoch ms) dates it when the history knows nothing of it. */
  titleOf(agentName: string, sessionId: string, startedAt?: number): string {
    return this.history.view(agentName, sessionId)?.title ?? resolveTitle({ startedAt }).text;
  }

  /** Works out the open sessions' titles again and shows those that changed. */
  refresh(): void {
    let changed = false;
    const open = new Set<string>();
    for (const session of this.sessions.all()) {
      const key = `${session.agentName}\u0000${session.sessionId}`;
      open.add(key);
      const title = this.titleOf(session.agentName, session.sessionId, session.openedAt);
      if (this.shown.get(key) !== title) {
        this.shown.set(key, title);
        changed = true;
      }
    }
    for (const key of this.shown.keys()) if (!open.has(key)) this.shown.delete(key);
    for (const chat of this.chats.all()) {
      const { agentName, sessionId, openedAt } = chat.session;
      const title = this.shown.get(`${agentName}\u0000${sessionId}`) ?? this.titleOf(agentName, sessionId, openedAt);
      if (chat.thread.session.title !== title) chat.thread.setSession({ title });
    }
    if (changed) this.changeEmitter.fire();
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changeEmitter.dispose();
  }
}
