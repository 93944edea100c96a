/**
 * Each open chat (see src/sessions/chats/chats.ts) in an editor tab: a tab opens when a chat opens (or a tab
 * VS Code restored after a reload is adopted), closing the tab closes the chat and the other way round.
 * Also the status bar (the active chat); notifications and the badge are ChatNotifications'.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/logger';
import type { AgentSession } from '../../sessions/routing/agentSession';
import type { Chats, OpenChatOptions } from '../../sessions/chats/chats';
import type { SessionController } from '../../sessions/turns/sessionController';
import type { ChatToHost } from '../../shared/chatProtocol';
import type { Thread } from '../../thread/thread';
import type { ChatActions, ChatTab } from './chatActions';
import { rootPaths } from '../../roots/rootSet';
import { ChatPanel } from './chatPanel';
import type { ChatTabRecords } from './chatTabRecords';
import { ChatStatusBar } from './statusBar';

export class ChatTabs extends Disposable {
  private readonly tabs = new Map<SessionController, ChatTab>();
  /** Tabs restored after a window reload, waiting for their chat (by the transcript they show). */
  private readonly waiting = new Map<Thread, ChatPanel>();
  private readonly statusBar = this._register(new ChatStatusBar());
  private lastActive: ChatTab | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly chats: Chats,
    private readonly actions: ChatActions,
    private readonly logger: Logger,
    /** Which session each tab shows, for a tab that comes back after a reload without state of its own. */
    private readonly records?: ChatTabRecords,
  ) {
    super();
    this._register(chats.onDidOpen(({ chat, background }) => this.opened(chat, background)));
    this._register(chats.onDidClose((chat) => this.tabs.get(chat)?.panel.dispose()));
    this._register(chats.onDidRequestReveal((chat) => this.tabs.get(chat)?.panel.reveal()));
    this._register(chats.onDidRequestPermission(() => this.updateStatusBar()));
    this._register(
      chats.onDidChange((chat) => {
        const tab = this.tabs.get(chat);
        if (tab) this.remember(tab);
        if (chat === this.active()?.controller) this.updateStatusBar();
      }),
    );
    this._register(vscode.window.tabGroups.onDidChangeTabs(() => this.updateStatusBar()));
  }

  /** Opens a chat for a session (in a tab). */
  open(session: AgentSession, options: OpenChatOptions = {}): ChatTab {
    return this.tabs.get(this.chats.open(session, options))!;
  }

  /** Every open chat's tab. */
  all(): ChatTab[] {
    return [...this.tabs.values()];
  }

  /** The tab of a session's chat, if it is open. */
  find(agentName: string, sessionId: string): ChatTab | undefined {
    const chat = this.chats.find(agentName, sessionId);
    return chat && this.tabs.get(chat);
  }

  /** The tab of a chat. */
  tabOf(chat: SessionController): ChatTab | undefined {
    return this.tabs.get(chat);
  }

  /** The chat whose tab is active, else the last one that was. */
  active(): ChatTab | undefined {
    return this.all().find((tab) => tab.panel.active) ?? (this.lastActive && this.tabs.has(this.lastActive.controller) ? this.lastActive : undefined);
  }

  /** A tab restored after a window reload: the chat that opens on its transcript takes it. */
  adopt(panel: ChatPanel): void {
    this.waiting.set(panel.thread, panel);
    panel.panel.onDidDispose(() => this.waiting.delete(panel.thread));
  }

  /** Does what a message from the chat's webview asks (the panel calls it; so can tests). */
  dispatch(tab: ChatTab, message: ChatToHost): Promise<void> {
    return this.actions.handle(tab, message);
  }

  override dispose(): void {
    for (const tab of this.all()) tab.panel.dispose();
    super.dispose();
  }

  private opened(chat: SessionController, background: boolean): void {
    const handlers = { onMessage: (message: ChatToHost) => this.actions.handle(tab, message), onDidDispose: () => this.closed(tab) };
    const restored = this.waiting.get(chat.thread);
    this.waiting.delete(chat.thread);
    const panel = restored ?? new ChatPanel({ extensionUri: this.extensionUri, thread: chat.thread, logger: this.logger, ...handlers });
    panel.setHandlers(handlers);
    const tab: ChatTab = { controller: chat, panel };
    this.tabs.set(chat, tab);
    this.remember(tab);
    // The queue lives with the chat; the tab shows it (messages a restored tab had come back held).
    chat.queue.restore(panel.takeRestoredQueue());
    panel.showQueue(chat.queue.view());
    const queue = chat.queue.onDidChange(() => panel.showQueue(chat.queue.view()));
    panel.panel.onDidDispose(() => queue.dispose());
    this.lastActive = tab;
    const viewState = panel.panel.onDidChangeViewState(() => {
      if (panel.active) this.lastActive = tab;
      this.updateStatusBar();
    });
    panel.panel.onDidDispose(() => viewState.dispose());
    // Whether the chat takes the user there is the opener's decision (a chat restored after a reload stays in
    // the background: see the reveal policy in sessions/opening/reopener.ts).
    if (!background) {
      panel.reveal();
      // A new chat is for typing into: the prompt box gets the keyboard (once the webview is up).
      panel.focusInput();
    }
    this.updateStatusBar();
  }

  /** Notes which session the tab shows (its webview may never run before a reload: see chatTabRecords.ts). */
  private remember({ controller, panel }: ChatTab): void {
    if (panel.isClosed) return;
    const { session } = controller;
    this.records?.set(panel.tabId, {
      agentName: session.agentName,
      sessionId: session.sessionId,
      title: controller.thread.session.title,
      roots: rootPaths(session.rootSet),
    });
  }

  private closed(tab: ChatTab): void {
    this.tabs.delete(tab.controller);
    this.chats.close(tab.controller);
    this.updateStatusBar();
  }

  private updateStatusBar(): void {
    const tab = this.active();
    this.statusBar.show(tab?.controller.thread.session, tab?.controller.pendingPermissions ?? 0);
  }
}
