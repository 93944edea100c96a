/**
 * The open chats: one {@link SessionController} over a {@link Thread} per open session. Opening a chat
 * routes its session's traffic to it (see {@link SessionRouter}); closing it cancels its turn, releases its
 * terminals and closes the session on the agent (`session/close`, when advertised; the history stays).
 * The VS Code layer shows each chat in a tab and follows the events here; nothing here knows about tabs.
 */
import type { AgentConnection, PermissionOption } from '../../acp/port/agentConnection';
import { Emitter, type Event } from '../../common/events';
import type { Logger } from '../../common/logger';
import type { OpenDocuments } from '../../roots/guardedFs';
import type { ErrorAction } from '../../shared/chatModel';
import { Thread } from '../../thread/thread';
import type { ActiveSessions } from '../routing/activeSessions';
import type { Checkpoints } from '../review/checkpoints';
import type { AgentSession } from '../routing/agentSession';
import { SessionController } from '../turns/sessionController';
import type { ReopenMode } from '../routing/sessionLifecycle';
import type { SessionRouter } from '../routing/sessionRouter';

export interface OpenChatOptions {
  /** The transcript to continue in (a tab restored after a window reload); default: a new one. */
  readonly thread?: Thread;
  /** Lines shown first (folders not shared, MCP servers not passed). */
  readonly notes?: readonly string[];
  /** Open without taking the user there (all but the last of several sessions started at once). */
  readonly background?: boolean;
  /**
   * The agent replayed the session's history before the chat existed (`session/load`, a fork that replays):
   * the chat builds it aside, shows that it loads, and shows it once {@link Chats.caughtUp} and the caller's
   * {@link Thread.endReplay} say it is complete.
   */
  readonly replay?: boolean;
}

export interface ChatOpened {
  readonly chat: SessionController;
  readonly background: boolean;
}

export interface PermissionAsked {
  readonly chat: SessionController;
  readonly entryId: string;
  readonly title: string;
  readonly options: readonly PermissionOption[];
}

export interface TurnEnded {
  readonly chat: SessionController;
  readonly stopReason: string;
  /** The user stopped the turn (or closed the chat). */
  readonly stoppedByUser: boolean;
}

export interface ChatFailed {
  readonly chat: SessionController;
  /** What the chat says (the whole error text of the session). */
  readonly message: string;
  readonly actions: readonly ErrorAction[];
}

export interface ChatsOptions {
  readonly router: SessionRouter;
  readonly sessions: ActiveSessions;
  readonly documents?: OpenDocuments;
  /** Checkpoints around every turn (what a turn changed, undo); none in tests that do not need them. */
  readonly checkpoints?: Checkpoints;
  readonly logger: Logger;
}

export class Chats {
  private readonly chats = new Set<SessionController>();
  private readonly changeSubscriptions = new Map<SessionController, { dispose(): void }>();
  /** `session/close` requests in flight, by agent and session: reopening waits for them. */
  private readonly closing = new Map<string, Promise<void>>();
  private readonly openEmitter = new Emitter<ChatOpened>();
  private readonly closeEmitter = new Emitter<SessionController>();
  private readonly changeEmitter = new Emitter<SessionController>();
  private readonly revealEmitter = new Emitter<SessionController>();
  private readonly permissionEmitter = new Emitter<PermissionAsked>();
  private readonly turnEndEmitter = new Emitter<TurnEnded>();
  private readonly failEmitter = new Emitter<ChatFailed>();
  private readonly recoverEmitter = new Emitter<SessionController>();

  readonly onDidOpen: Event<ChatOpened> = this.openEmitter.event;
  readonly onDidClose: Event<SessionController> = this.closeEmitter.event;
  /** A chat's transcript or state changed (announced once per burst of changes). */
  readonly onDidChange: Event<SessionController> = this.changeEmitter.event;
  /** Someone asked to bring a chat forward (it was opened again from the history). */
  readonly onDidRequestReveal: Event<SessionController> = this.revealEmitter.event;
  /** A permission request waits for the user in a chat. */
  readonly onDidRequestPermission: Event<PermissionAsked> = this.permissionEmitter.event;
  /** A turn ended with an answer of the agent (not when it failed). */
  readonly onDidEndTurn: Event<TurnEnded> = this.turnEndEmitter.event;
  /** A chat shows an error about its agent. */
  readonly onDidFail: Event<ChatFailed> = this.failEmitter.event;
  /** A chat continues with a reopened session (after its agent failed or restarted): what failed is over. */
  readonly onDidRecover: Event<SessionController> = this.recoverEmitter.event;

  constructor(private readonly options: ChatsOptions) {}

  /**
   * Opens a chat for a session that was just started, reopened or forked. Call it in the same turn of the
   * event loop as the lifecycle request resolved: updates that already arrived are replayed from a buffer,
   * later ones are routed directly.
   */
  open(session: AgentSession, options: OpenChatOptions = {}): SessionController {
    const thread = options.thread ?? new Thread({ agentName: session.agentName, roots: [], prompt: session.connection.caps.prompt, title: undefined });
    const self: { chat?: SessionController } = {};
    const chat = new SessionController(session, thread, {
      documents: this.options.documents,
      turns: this.options.checkpoints,
      onPermissionRequested: (entryId, title, permissionOptions) => {
        if (self.chat) this.permissionEmitter.fire({ chat: self.chat, entryId, title, options: permissionOptions });
      },
      onTurnEnded: (stopReason, stoppedByUser) => {
        if (self.chat && this.chats.has(self.chat)) this.turnEndEmitter.fire({ chat: self.chat, stopReason, stoppedByUser });
      },
      onFailed: (message, actions) => {
        if (self.chat && this.chats.has(self.chat)) this.failEmitter.fire({ chat: self.chat, message, actions });
      },
    });
    self.chat = chat;
    this.chats.add(chat);
    this.changeSubscriptions.set(
      chat,
      thread.onDidChange(() => this.changeEmitter.fire(chat)),
    );
    this.options.sessions.add(session);
    if (options.replay) thread.beginReplay();
    void this.options.router.route(session.connection, session.sessionId, chat);
    for (const note of options.notes ?? []) thread.addInfo(note);
    this.options.checkpoints?.warmUp(chat);
    this.openEmitter.fire({ chat, background: options.background === true });
    return chat;
  }

  /**
   * Settles once what the agent sent for the chat's session before the chat opened (a replayed history,
   * handed over in slices) reached it, or once the chat closed meanwhile.
   */
  caughtUp(chat: SessionController): Promise<void> {
    return this.options.router.delivered(chat.session.connection, chat.session.sessionId);
  }

  /** Every open chat. */
  all(): SessionController[] {
    return [...this.chats];
  }

  /** The chat of a session, if it is open. */
  find(agentName: string, sessionId: string): SessionController | undefined {
    return this.all().find((chat) => chat.session.agentName === agentName && chat.session.sessionId === sessionId);
  }

  has(chat: SessionController): boolean {
    return this.chats.has(chat);
  }

  /** Brings a chat forward (its tab). */
  reveal(chat: SessionController): void {
    this.revealEmitter.fire(chat);
  }

  /**
   * The chat's session is about to be reopened on `connection`: `load` replays the history over the
   * transcript (see {@link Thread.beginReplay}); either way, what the agent sends for the session comes here
   * from now on.
   */
  prepareReopen(chat: SessionController, connection: AgentConnection, mode: ReopenMode): void {
    chat.thread.setSession({ status: mode === 'load' ? 'loading' : 'starting', statusDetail: undefined });
    if (mode === 'load') chat.thread.beginReplay();
    void this.options.router.route(connection, chat.session.sessionId, chat);
  }

  /** The reopen prepared with {@link prepareReopen} failed or became moot: the chat shows what it did before. */
  abandonReopen(chat: SessionController, connection: AgentConnection): void {
    chat.thread.abortReplay();
    chat.thread.setSession({ status: chat.session.isDisconnected ? 'disconnected' : chat.isRunning ? 'running' : 'idle' });
    // On its own connection (new folders) the chat goes on with its session; a new connection is let go.
    if (connection !== chat.session.connection) this.options.router.unroute(connection, chat.session.sessionId, chat);
  }

  /** After a reopen (on the same or a new connection): the chat continues with the new session object. */
  reattach(chat: SessionController, session: AgentSession): void {
    chat.attach(session);
    this.options.sessions.add(session);
    void this.options.router.route(session.connection, session.sessionId, chat);
    this.recoverEmitter.fire(chat);
  }

  /** Closes a chat: its turn is cancelled, its terminals released and its session closed on the agent. */
  close(chat: SessionController): void {
    if (!this.chats.delete(chat)) return;
    this.changeSubscriptions.get(chat)?.dispose();
    this.changeSubscriptions.delete(chat);
    const session = chat.session;
    const { router, sessions, logger } = this.options;
    router.unroute(session.connection, session.sessionId, chat);
    void chat.cancel().catch(() => undefined);
    chat.dispose();
    this.options.checkpoints?.forget(chat);
    void router.terminals(session.connection)?.releaseSession(session.sessionId);
    sessions.remove(session);
    const closer = session.connection.closer();
    if (closer && !session.connection.isClosed) {
      // Free the agent's resources; the history stays (it can be reopened from the session history).
      const key = closingKey(session.agentName, session.sessionId);
      const closed = closer
        .closeSession(session.sessionId)
        .catch((error: unknown) => logger.info(`Closing ${session.sessionId}: ${String(error)}`))
        .finally(() => {
          if (this.closing.get(key) === closed) this.closing.delete(key);
        });
      this.closing.set(key, closed);
    }
    this.closeEmitter.fire(chat);
  }

  /** Settles when a `session/close` sent for this session (its chat was closed) has been answered. */
  whenClosed(agentName: string, sessionId: string): Promise<void> {
    return this.closing.get(closingKey(agentName, sessionId)) ?? Promise.resolve();
  }

  dispose(): void {
    for (const chat of this.all()) this.close(chat);
    for (const emitter of [
      this.openEmitter,
      this.closeEmitter,
      this.changeEmitter,
      this.revealEmitter,
      this.permissionEmitter,
      this.turnEndEmitter,
      this.failEmitter,
      this.recoverEmitter,
    ])
      emitter.dispose();
  }
}

function closingKey(agentName: string, sessionId: string): string {
  return `${agentName}\u0000${sessionId}`;
}
