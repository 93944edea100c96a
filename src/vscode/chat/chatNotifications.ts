/**
 * Notifications for a chat that needs the user while it is out of view (its tab hidden, or the window not
 * focused): a turn ended (with Show), a permission request waits (its options as actions, plus Show), the
 * agent failed (with Show and Restart Agent). And the badge on the ACP container: how many chats wait.
 * The rules (when, how often, what counts) are {@link ChatAttention}'s; `acpWorkspace.notifications`
 * chooses which events notify, and the badge follows it.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import { ChatAttention, answerFirstLine, failedText, finishedText, type AttentionEvent, type Badge } from '../../sessions/turns/chatAttention';
import type { ChatFailed, Chats, PermissionAsked, TurnEnded } from '../../sessions/chats/chats';
import type { SessionController } from '../../sessions/turns/sessionController';
import type { ChatTab } from './chatActions';
import type { ChatTabs } from './chatTabs';
import { affectsUs, readNotifications } from '../settings';

export interface ChatNotificationsOptions {
  readonly tabs: ChatTabs;
  readonly chats: Chats;
  /** Shows the badge (on the Agents view, hence on the ACP container). */
  readonly setBadge: (badge: vscode.ViewBadge | undefined) => void;
  /** Restarts an agent (its open chats are reopened). */
  readonly restartAgent: (agentName: string) => Promise<unknown>;
  /** The agent is being stopped on purpose (by the user, or with the window): its chats closing is no failure. */
  readonly isStopping: (agentName: string) => boolean;
}

interface Action<T> extends vscode.MessageItem {
  readonly run: T;
}

export class ChatNotifications extends Disposable {
  private readonly attention = new ChatAttention<SessionController>(readNotifications);
  private focused = vscode.window.state.focused;
  private shownBadge: Badge | undefined;
  /** Chats whose session was reopened after their failure notification was shown (its Restart Agent is moot). */
  private readonly recoveredSince = new WeakSet<SessionController>();

  constructor(private readonly options: ChatNotificationsOptions) {
    super();
    const { chats } = options;
    for (const tab of options.tabs.all()) this.watch(tab);
    this._register(
      chats.onDidOpen(({ chat }) => {
        const tab = options.tabs.tabOf(chat);
        if (tab) this.watch(tab);
      }),
    );
    this._register(
      chats.onDidClose((chat) => {
        this.attention.forget(chat);
        this.updateBadge();
      }),
    );
    this._register(chats.onDidRequestPermission((asked) => this.permissionAsked(asked)));
    this._register(chats.onDidEndTurn((ended) => this.turnEnded(ended)));
    this._register(chats.onDidFail((failed) => this.failed(failed)));
    // The agent restarted and the session was reopened: the failure is over, the badge no longer counts it.
    this._register(
      chats.onDidRecover((chat) => {
        this.recoveredSince.add(chat);
        if (this.attention.recovered(chat)) this.updateBadge();
      }),
    );
    // A permission request answered in the chat, a title that changed: the badge follows.
    this._register(chats.onDidChange(() => this.updateBadge()));
    this._register(
      vscode.window.onDidChangeWindowState((state) => {
        this.focused = state.focused;
        if (state.focused) for (const tab of options.tabs.all()) this.maybeSeen(tab);
        this.updateBadge();
      }),
    );
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsUs(event, 'notifications')) this.updateBadge();
      }),
    );
  }

  /** What the badge says now (tests read it). */
  get badge(): Badge | undefined {
    return this.shownBadge;
  }

  override dispose(): void {
    this.options.setBadge(undefined);
    super.dispose();
  }

  private watch(tab: ChatTab): void {
    const { panel, controller: chat } = tab;
    const viewState = panel.panel.onDidChangeViewState(() => {
      if (this.maybeSeen(tab)) {
        this.updateBadge();
        return;
      }
      // Hidden while a permission request waits (it arrived while the chat was in view): say it now.
      if (!panel.visible) for (const waiting of chat.waitingPermissions()) this.notifyPermission(tab, { chat, ...waiting });
      this.updateBadge();
    });
    panel.panel.onDidDispose(() => viewState.dispose());
  }

  /** The user sees the chat (in view in a focused window): its unseen end or failure is seen. */
  private maybeSeen(tab: ChatTab): boolean {
    if (!this.attended(tab)) return false;
    this.attention.seen(tab.controller);
    return true;
  }

  private attended(tab: ChatTab): boolean {
    return this.focused && tab.panel.visible;
  }

  private permissionAsked(asked: PermissionAsked): void {
    const tab = this.options.tabs.tabOf(asked.chat);
    if (tab) this.notifyPermission(tab, asked);
    this.updateBadge();
  }

  private notifyPermission(tab: ChatTab, { chat, entryId, title, options }: PermissionAsked): void {
    this.attention.prune(
      chat,
      chat.waitingPermissions().map((waiting) => waiting.entryId),
    );
    if (!this.should(tab, { kind: 'permission', entryId })) return;
    const actions: Array<Action<string | 'show'>> = [
      ...options.map((option) => ({ title: option.name, run: option.optionId })),
      { title: vscode.l10n.t('Show'), run: 'show' },
    ];
    void vscode.window.showInformationMessage(vscode.l10n.t('“{0}” asks: {1}', this.title(tab), title), ...actions).then((choice) => {
      if (!choice) return;
      if (choice.run === 'show') {
        tab.panel.reveal();
        return;
      }
      if (!chat.waitingPermissions().some((waiting) => waiting.entryId === entryId)) {
        // The notification outlived its request: answered in the chat, cancelled with the turn or the chat.
        void vscode.window.showInformationMessage(
          vscode.l10n.t('That permission request in “{0}” no longer waits: it was already answered or cancelled.', this.title(tab)),
        );
        return;
      }
      chat.choosePermission(entryId, choice.run);
    });
  }

  private turnEnded({ chat, stopReason, stoppedByUser }: TurnEnded): void {
    const tab = this.options.tabs.tabOf(chat);
    if (!tab || !this.should(tab, { kind: 'finished', stoppedByUser })) return this.updateBadge();
    this.updateBadge();
    const text = finishedText(this.title(tab), stopReason, answerFirstLine(chat.thread.snapshot().entries));
    void vscode.window.showInformationMessage(text, vscode.l10n.t('Show')).then((choice) => {
      if (choice === vscode.l10n.t('Show')) tab.panel.reveal();
    });
  }

  private failed({ chat, message, actions }: ChatFailed): void {
    const tab = this.options.tabs.tabOf(chat);
    const agentName = chat.session.agentName;
    if (!tab || this.options.isStopping(agentName) || !this.should(tab, { kind: 'failed' })) return this.updateBadge();
    this.updateBadge();
    this.recoveredSince.delete(chat);
    const items: Array<Action<() => void>> = [{ title: vscode.l10n.t('Show'), run: () => tab.panel.reveal() }];
    if (actions.includes('restart')) {
      items.push({
        title: vscode.l10n.t('Restart Agent'),
        run: () => {
          // VS Code offers no way to take a notification back: one that outlived its failure does not restart again.
          if (this.recoveredSince.has(chat)) {
            void vscode.window.showInformationMessage(vscode.l10n.t('“{0}” is running again: its session was reopened after the failure.', this.title(tab)));
            return;
          }
          void this.options.restartAgent(agentName).catch(() => undefined);
        },
      });
    }
    void vscode.window.showErrorMessage(failedText(this.title(tab), message), ...items).then((choice) => choice?.run());
  }

  private should(tab: ChatTab, event: AttentionEvent): boolean {
    return !tab.panel.isClosed && this.attention.event(tab.controller, event, this.attended(tab));
  }

  /** The chat's title as its tab shows it. */
  private title(tab: ChatTab): string {
    return tab.panel.isClosed ? (tab.controller.thread.session.title ?? tab.controller.session.agentName) : tab.panel.panel.title;
  }

  private updateBadge(): void {
    const badge = this.attention.badge(
      this.options.tabs.all().map((tab) => ({ chat: tab.controller, title: this.title(tab), waitingPermissions: tab.controller.pendingPermissions })),
    );
    if (badge?.count === this.shownBadge?.count && badge?.tooltip === this.shownBadge?.tooltip) return;
    this.shownBadge = badge;
    this.options.setBadge(badge && { value: badge.count, tooltip: badge.tooltip });
  }
}
