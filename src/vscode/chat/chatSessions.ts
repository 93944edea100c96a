/**
 * The open chats: one editor tab per session, each a {@link SessionController} over a {@link Thread}.
 * Routes what agents send (`session/update`, permission requests, terminal output, refusals) to the right
 * chat, and what the user does in a chat to the session.
 */
import * as vscode from 'vscode';
import type { AgentDefinition } from '../../agents/agentConfig';
import type { AcpConnection, CancellationToken } from '../../acp/connection';
import type { Logger } from '../../common/logger';
import { RequestPermissionMethod, SessionUpdateNotification, type PermissionOption, type RequestPermissionRequest, type RequestPermissionResponse, type SessionUpdate } from '../../acp/schema';
import type { ActiveSessions } from '../../sessions/activeSessions';
import type { AgentSession, Refusal } from '../../sessions/agentSession';
import type { ChatToHost } from '../../shared/chatProtocol';
import { SessionController } from '../../sessions/sessionController';
import type { ReopenMode } from '../../sessions/sessionLifecycle';
import { registerTerminalHandlers } from '../../terminal/handlers';
import { Terminals, type TerminalChange, type TerminalView } from '../../terminal/terminals';
import { Thread } from '../../thread/thread';
import type { Agents } from '../agents';
import { Disposable } from '../../common/lifecycle';
import type { ChatActions } from './chatActions';
import { ChatPanel } from './chatPanel';
import { DiffDocuments } from './diffDocuments';
import { ChatStatusBar } from './statusBar';

/** One open chat. */
export interface Chat {
  readonly controller: SessionController;
  readonly panel: ChatPanel;
}

/** Updates for a session nobody opened yet (they can arrive right after `session/new` answers). */
const MAX_BUFFERED_UPDATES = 2000;
/** Terminal output reaches the chat at most this often. */
const TERMINAL_FLUSH_MS = 50;
/** …and for a session being loaded, whose whole history is replayed before `session/load` answers. */
const MAX_REPLAYED_UPDATES = 500_000;

export class ChatSessions extends Disposable {
  private readonly chats = new Set<Chat>();
  /** Per connection: session id → chat. */
  private readonly routes = new WeakMap<AcpConnection, Map<string, Chat>>();
  private readonly buffered = new WeakMap<AcpConnection, Map<string, SessionUpdate[]>>();
  private readonly replaying = new WeakMap<AcpConnection, Set<string>>();
  /** `session/close` requests in flight, by agent and session: reopening waits for them. */
  private readonly closing = new Map<string, Promise<void>>();
  private readonly chatChanged = this._register(new vscode.EventEmitter<Chat>());
  /** A chat's transcript or state changed (many times a second while streaming). */
  readonly onDidChangeChat = this.chatChanged.event;
  private readonly terminals = new WeakMap<AcpConnection, Terminals>();
  private readonly changedTerminals = new Map<TerminalView, AcpConnection>();
  private terminalTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly statusBar = this._register(new ChatStatusBar());
  readonly diffs = new DiffDocuments();
  private readonly actions: ChatActions;
  private lastActive: Chat | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    readonly agents: Agents,
    private readonly sessions: ActiveSessions,
    private readonly logger: Logger,
    actions: (chats: ChatSessions) => ChatActions,
  ) {
    super();
    this._register(this.diffs.register());
    this.actions = actions(this);
    this._register(vscode.window.tabGroups.onDidChangeTabs(() => this.updateStatusBar()));
  }

  /** Every open chat. */
  all(): Chat[] {
    return [...this.chats];
  }

  /** The chat of a session, if it is open. */
  find(agentName: string, sessionId: string): Chat | undefined {
    return this.all().find((chat) => chat.controller.session.agentName === agentName && chat.controller.session.sessionId === sessionId);
  }

  /** The chat whose tab is active, else the last one that was. */
  active(): Chat | undefined {
    return this.all().find((chat) => chat.panel.active) ?? (this.lastActive && this.chats.has(this.lastActive) ? this.lastActive : undefined);
  }

  terminalsOf(connection: AcpConnection): Terminals | undefined {
    return this.terminals.get(connection);
  }

  /** Wires a new agent connection: session updates, permission requests and terminals. */
  registerConnection(agent: AgentDefinition, connection: AcpConnection): void {
    this.routes.set(connection, new Map());
    this.buffered.set(connection, new Map());
    connection.onNotification(SessionUpdateNotification, (notification) => this.route(connection, notification.sessionId, notification.update));
    connection.onRequest(RequestPermissionMethod, (params, token) => this.requestPermission(agent, connection, params, token));
    const terminals = new Terminals({ logger: this.logger });
    this.terminals.set(connection, terminals);
    registerTerminalHandlers(connection, terminals, (sessionId) => {
      const session = this.sessions.find(agent.name, sessionId);
      return session && session.connection === connection ? { guard: session.guard, cwd: session.rootSet.cwd.path } : undefined;
    });
    terminals.onDidChange((terminalId, change) => this.terminalChanged(connection, terminals, terminalId, change));
    connection.onDidClose(() => void terminals.dispose());
  }

  /**
   * Opens a chat for a session that was just started, reopened or forked. Call it in the same turn of
   * the event loop as the lifecycle request resolved: updates that already arrived are replayed from a
   * buffer, later ones are routed directly.
   */
  open(session: AgentSession, options: { thread?: Thread; reveal?: boolean; viewColumn?: vscode.ViewColumn; panel?: ChatPanel } = {}): Chat {
    const thread =
      options.panel?.thread ??
      options.thread ??
      new Thread({
        agentName: session.agentName,
        roots: [],
        prompt: session.connection.caps.prompt,
        title: undefined,
      });
    // The controller and the panel call back into the chat they are part of.
    const self: { chat?: Chat } = {};
    const controller = new SessionController(session, thread, {
      onChange: () => self.chat && this.changed(self.chat),
      onPermissionRequested: (entryId, title, options) => self.chat && this.notifyPermission(self.chat, entryId, title, options),
    });
    const handlers = { onMessage: (message: ChatToHost) => this.actions.handle(chat, message), onDidDispose: () => this.closed(chat) };
    const panel = options.panel ?? new ChatPanel({ extensionUri: this.extensionUri, thread, logger: this.logger, viewColumn: options.viewColumn, ...handlers });
    panel.setHandlers(handlers);
    const chat: Chat = { controller, panel };
    self.chat = chat;
    this.chats.add(chat);
    this.sessions.add(session);
    this.bind(chat, session);
    this.lastActive = chat;
    panel.panel.onDidChangeViewState(() => {
      if (panel.active) this.lastActive = chat;
      this.updateStatusBar();
    });
    if (options.reveal !== false) panel.reveal();
    this.updateStatusBar();
    return chat;
  }

  /**
   * The chat's session is about to be reopened on `connection`: `load` replays the history, so the transcript
   * is cleared for it; either way, what the agent sends for the session is routed to this chat from now on.
   */
  prepareReopen(chat: Chat, connection: AcpConnection, mode: ReopenMode): void {
    const { thread } = chat.controller;
    thread.setSession({ status: mode === 'load' ? 'loading' : 'starting', statusDetail: undefined });
    if (mode === 'load') thread.reset();
    this.expect(chat, connection, chat.controller.session.sessionId);
    this.changed(chat);
  }

  /** After a reopen on a (new) connection: the same chat continues with the new session object. */
  reattach(chat: Chat, session: AgentSession): void {
    chat.controller.attach(session);
    this.sessions.add(session);
    this.bind(chat, session);
  }

  /** Routes updates for `session` to `chat` (and replays what was buffered for it). */
  bind(chat: Chat, session: AgentSession): void {
    this.expect(chat, session.connection, session.sessionId);
  }

  /**
   * Routes updates for `sessionId` on `connection` to `chat` from now on: call it before `session/load`,
   * whose replay arrives before its answer.
   */
  expect(chat: Chat, connection: AcpConnection, sessionId: string): void {
    const routes = this.routes.get(connection);
    if (!routes) throw new Error(`${connection.agentName}'s connection is not registered.`);
    routes.set(sessionId, chat);
    this.replaying.get(connection)?.delete(sessionId);
    const pending = this.buffered.get(connection)?.get(sessionId);
    if (pending) {
      this.buffered.get(connection)!.delete(sessionId);
      for (const update of pending) chat.controller.onUpdate(update);
    }
  }

  /**
   * A session is about to be loaded for a chat that does not exist yet: keep its whole replay until
   * {@link open} binds it (instead of the small buffer for unexpected updates).
   */
  expectReplay(connection: AcpConnection, sessionId: string): void {
    let sessions = this.replaying.get(connection);
    if (!sessions) this.replaying.set(connection, (sessions = new Set()));
    sessions.add(sessionId);
  }

  /** The load failed: drop what was kept for it. */
  abandonReplay(connection: AcpConnection, sessionId: string): void {
    this.replaying.get(connection)?.delete(sessionId);
    this.buffered.get(connection)?.delete(sessionId);
  }

  /** Settles when a `session/close` sent for this session (its chat was closed) has been answered. */
  whenClosed(agentName: string, sessionId: string): Promise<void> {
    return this.closing.get(`${agentName}\u0000${sessionId}`) ?? Promise.resolve();
  }

  /** Does what a message from the chat's webview asks (the panel calls it; so can tests). */
  dispatch(chat: Chat, message: Parameters<ChatActions['handle']>[1]): Promise<void> {
    return this.actions.handle(chat, message);
  }

  /** Adds the active editor's selection to a chat as context. */
  attachSelection(chat: Chat): void {
    this.actions.attachSelection(chat);
  }

  /** A refusal of the session's fs access: shown in its chat. */
  noteRefusal(session: AgentSession, refusal: Refusal): void {
    const chat = this.routes.get(session.connection)?.get(session.sessionId);
    if (!chat) return;
    chat.controller.thread.addRefusal(refusal.operation, refusal.path, refusal.message);
    this.changed(chat);
  }

  override dispose(): void {
    clearTimeout(this.terminalTimer);
    for (const chat of [...this.chats]) chat.panel.dispose();
    super.dispose();
  }

  private route(connection: AcpConnection, sessionId: string, update: SessionUpdate): void {
    const chat = this.routes.get(connection)?.get(sessionId);
    if (chat) {
      chat.controller.onUpdate(update);
      return;
    }
    const buffer = this.buffered.get(connection);
    if (!buffer) return;
    const list = buffer.get(sessionId) ?? [];
    if (list.length === 0) buffer.set(sessionId, list);
    const limit = this.replaying.get(connection)?.has(sessionId) ? MAX_REPLAYED_UPDATES : MAX_BUFFERED_UPDATES;
    if (list.length < limit) list.push(update);
    else if (list.length === limit) this.logger.warn(`${connection.agentName}: too many updates for session ${sessionId} before its chat opened; dropping more.`);
  }

  private requestPermission(
    agent: AgentDefinition,
    connection: AcpConnection,
    params: RequestPermissionRequest,
    token: CancellationToken,
  ): Promise<RequestPermissionResponse> {
    const chat = this.routes.get(connection)?.get(params.sessionId);
    if (!chat) {
      this.logger.warn(`${agent.name} asked for permission in session ${params.sessionId}, which has no open chat; answered cancelled.`);
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    }
    return chat.controller.requestPermission(params, token);
  }

  /** When the chat is not in view, a permission request also shows as a notification with the options. */
  private notifyPermission(chat: Chat, entryId: string, title: string, options: readonly PermissionOption[]): void {
    this.updateStatusBar();
    if (chat.panel.visible) return;
    const agent = chat.controller.session.agentName;
    void vscode.window.showInformationMessage(`${agent} asks: ${title}`, ...options.map((o) => o.name), 'Show Chat').then((choice) => {
      if (choice === 'Show Chat') chat.panel.reveal();
      const option = options.find((o) => o.name === choice);
      if (option) chat.controller.choosePermission(entryId, option.optionId);
    });
  }

  /**
   * A terminal changed (output arrives many times a second): its tool calls are updated once per
   * {@link TERMINAL_FLUSH_MS}, reading the output (a join of everything kept) once per flush, not per chunk;
   * anything else (created, exited, released) shows at once, with the output so far. The view is taken now:
   * it stays readable after the agent releases the terminal.
   */
  private terminalChanged(connection: AcpConnection, terminals: Terminals, terminalId: string, change: TerminalChange): void {
    const view = terminals.get(terminalId);
    if (!view) return;
    this.changedTerminals.set(view, connection);
    if (change !== 'output') this.flushTerminals();
    else this.terminalTimer ??= setTimeout(() => this.flushTerminals(), TERMINAL_FLUSH_MS);
  }

  private flushTerminals(): void {
    clearTimeout(this.terminalTimer);
    this.terminalTimer = undefined;
    const changed = [...this.changedTerminals];
    this.changedTerminals.clear();
    for (const [view, connection] of changed) {
      const chat = this.routes.get(connection)?.get(view.sessionId);
      if (!chat) continue;
      chat.controller.thread.updateTerminal(view.terminalId, {
        command: view.commandLine,
        output: view.output,
        truncated: view.truncated,
        exitStatus: view.exitStatus,
      });
      this.changed(chat);
    }
  }

  private changed(chat: Chat): void {
    chat.panel.scheduleRender();
    this.chatChanged.fire(chat);
    if (chat === this.active()) this.updateStatusBar();
  }

  private closed(chat: Chat): void {
    this.chats.delete(chat);
    const session = chat.controller.session;
    this.routes.get(session.connection)?.delete(session.sessionId);
    void chat.controller.cancel().catch(() => undefined);
    void this.terminals.get(session.connection)?.releaseSession(session.sessionId);
    this.sessions.remove(session);
    if (session.connection.caps.sessions.close && !session.connection.isClosed) {
      // Free the agent's resources; the history stays (it can be reopened from the session history).
      const key = `${session.agentName}\u0000${session.sessionId}`;
      const closed = session.connection
        .closeSession(session.sessionId)
        .catch((error: unknown) => this.logger.info(`Closing ${session.sessionId}: ${String(error)}`))
        .finally(() => {
          if (this.closing.get(key) === closed) this.closing.delete(key);
        });
      this.closing.set(key, closed);
    }
    this.updateStatusBar();
  }

  private updateStatusBar(): void {
    const chat = this.active();
    this.statusBar.show(chat?.controller.thread.session, chat?.controller.pendingPermissions ?? 0);
  }
}
