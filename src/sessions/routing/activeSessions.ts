/** The sessions open right now, by agent and session id; fs requests are routed through it. */
import { Emitter, type Event } from '../../common/events';
import type { AgentSession } from './agentSession';

export class ActiveSessions {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly changeEmitter = new Emitter<void>();
  private readonly subscriptions = new Map<AgentSession, { dispose(): void }>();

  private static key(agentName: string, sessionId: string): string {
    return `${agentName}\u0000${sessionId}`;
  }

  /** Adds (or replaces, after a reopen) a session; it leaves by itself when its connection closes. */
  add(session: AgentSession): void {
    const key = ActiveSessions.key(session.agentName, session.sessionId);
    const previous = this.sessions.get(key);
    if (previous) this.detach(previous);
    this.sessions.set(key, session);
    const change = session.onDidChange(() => this.changed());
    const closed = session.connection.onDidClose(() => this.remove(session));
    this.subscriptions.set(session, { dispose: () => (change.dispose(), closed.dispose()) });
    this.changed();
  }

  remove(session: AgentSession): void {
    const key = ActiveSessions.key(session.agentName, session.sessionId);
    if (this.sessions.get(key) !== session) return;
    this.sessions.delete(key);
    this.detach(session);
    this.changed();
  }

  find(agentName: string, sessionId: string): AgentSession | undefined {
    return this.sessions.get(ActiveSessions.key(agentName, sessionId));
  }

  all(): AgentSession[] {
    return [...this.sessions.values()];
  }

  forAgent(agentName: string): AgentSession[] {
    return this.all().filter((session) => session.agentName === agentName);
  }

  /** A session was added, replaced or removed, or one of them changed. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  private detach(session: AgentSession): void {
    this.subscriptions.get(session)?.dispose();
    this.subscriptions.delete(session);
  }

  private changed(): void {
    this.changeEmitter.fire();
  }
}
