/**
 * Chat tabs survive a window reload: VS Code restores each tab with the state its webview kept (which
 * session, its folders, the unsent input; see src/webview/chat/persist.ts) and hands it here. The tab shows
 * at once what it remembers and reopens its session like the Sessions view's Open does (the `restore` row
 * of the reopen policy: load with replay, else resume; the complete root list, asking first when the
 * folders changed). When that cannot happen the tab says why and offers to try again; nothing is lost.
 */
import * as vscode from 'vscode';
import type { Logger } from '../../common/logger';
import { ReopenUnsupportedError } from '../../history/reopenPolicy';
import { namedRoot } from '../../roots/rootSet';
import type { HistoryActions } from '../../sessions/opening/historyActions';
import type { SessionHistory } from '../../sessions/opening/sessionHistory';
import { ChatViewState, REOPEN_INTERRUPTED_CHAT_COMMAND, type ChatToHost } from '../../shared/chatProtocol';
import { Thread } from '../../thread/thread';
import { AgentCommandIds } from '../agentCommands';
import { CHAT_VIEW_TYPE } from '../contributionIds';
import { ChatPanel, chatWebviewOptions } from './chatPanel';
import { chatTabId, type ChatTabRecords } from './chatTabRecords';
import type { ChatTabs } from './chatTabs';
import { errorMessage } from '../../common/errors';

interface Restoring {
  readonly saved: ChatViewState;
  readonly panel: ChatPanel;
  busy: boolean;
}

export class ChatRestorer implements vscode.WebviewPanelSerializer {
  /** Restores started and not yet finished (tests wait for them). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly history: SessionHistory,
    private readonly actions: HistoryActions,
    private readonly tabs: ChatTabs,
    private readonly logger: Logger,
    /** Which session each tab showed, for a tab whose webview never ran (see chatTabRecords.ts). */
    private readonly records?: ChatTabRecords,
  ) {}

  /** Called by VS Code for each chat tab it restores; resolves once the tab shows (the reopening goes on). */
  deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    this.restore(panel, state);
    return Promise.resolve();
  }

  /** Restores a tab from its saved state; returns the tab (one that says there was nothing to reopen, if so). */
  restore(panel: vscode.WebviewPanel, state: unknown): ChatPanel {
    const saved = this.savedState(panel, state);
    if (!saved) return this.nothingToReopen(panel, state);
    const thread = new Thread({
      agentName: saved.agentName,
      sessionId: saved.sessionId,
      title: saved.title,
      roots: (saved.roots ?? []).map((folder, index) => ({ ...namedRoot(folder), primary: index === 0 })),
      prompt: { image: false, audio: false, embeddedContext: false },
      status: 'loading',
    });
    const restoring: { current?: Restoring } = {};
    const chatPanel = new ChatPanel({
      extensionUri: this.extensionUri,
      thread,
      logger: this.logger,
      panel,
      draft: saved.draft,
      queue: saved.queue,
      onMessage: (message) => restoring.current && this.message(restoring.current, message),
      onDidDispose: () => undefined,
    });
    this.tabs.adopt(chatPanel);
    restoring.current = { saved, panel: chatPanel, busy: false };
    this.track(this.reopen(restoring.current));
    return chatPanel;
  }

  /**
   * What the tab kept: its webview's state, else (a tab whose webview never ran: opened behind another and never
   * shown before the reload) the host's record of the session it showed, with whatever the state holds besides.
   */
  private savedState(panel: vscode.WebviewPanel, state: unknown): ChatViewState | undefined {
    const parsed = ChatViewState.safeParse(state);
    if (parsed.success) return parsed.data;
    const tabId = chatTabId(panel);
    const record = tabId === undefined ? undefined : this.records?.get(tabId);
    if (!record) return undefined;
    const kept = typeof state === 'object' && state !== null ? state : {};
    const merged = ChatViewState.safeParse({ ...kept, ...record });
    return merged.success ? merged.data : record;
  }

  /**
   * A tab with no session to reopen (closed before its session started, or state from another version): it stays
   * and says so, rather than vanishing (and VS Code logs "OverlayWebview has been disposed" for a tab disposed
   * while it is restored).
   */
  private nothingToReopen(panel: vscode.WebviewPanel, state: unknown): ChatPanel {
    this.logger.warn(`A chat tab restored after the window reload has no session to reopen (its saved state: ${JSON.stringify(state) ?? 'none'}).`);
    const agentName =
      typeof state === 'object' && state !== null && 'agentName' in state && typeof state.agentName === 'string' && state.agentName
        ? state.agentName
        : vscode.l10n.t('ACP');
    const thread = new Thread({
      agentName,
      roots: [],
      prompt: { image: false, audio: false, embeddedContext: false },
      status: 'disconnected',
      statusDetail: vscode.l10n.t('Nothing to reopen'),
    });
    thread.addError(
      vscode.l10n.t(
        'This chat tab was open before the window reloaded, but it had no session that can be reopened. Start a new session from the Agents view, or find the session in the Sessions view.',
      ),
      ['showLog'],
    );
    return new ChatPanel({
      extensionUri: this.extensionUri,
      thread,
      logger: this.logger,
      panel,
      onMessage: (message) => {
        if (message.type === 'action' && message.action === 'showLog') void vscode.commands.executeCommand(AgentCommandIds.showLog);
      },
      onDidDispose: () => undefined,
    });
  }

  /** The command a tab left by a dead extension host runs from its Reopen link. */
  register(): vscode.Disposable {
    return vscode.commands.registerCommand(REOPEN_INTERRUPTED_CHAT_COMMAND, (state: unknown) => void this.reopenInterrupted(state));
  }

  /**
   * A chat tab whose extension host was killed and restarted: VS Code keeps its webview running, but what it
   * sends goes to the dead host, and the new one cannot reach it (VS Code calls no serializer for it). Its
   * Reopen link brings here what it kept (the session, its folders, what the user typed): a new tab takes its
   * place and reopens the session like a tab restored after a reload, the text back in its prompt box.
   */
  reopenInterrupted(state: unknown): ChatPanel | undefined {
    const parsed = ChatViewState.safeParse(state);
    if (!parsed.success) {
      this.logger.warn(`Could not reopen an interrupted chat: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      return undefined;
    }
    // The link was clicked in the old tab: it is the active one.
    const group = vscode.window.tabGroups.activeTabGroup;
    const old = group.activeTab;
    const orphan =
      old?.input instanceof vscode.TabInputWebview && old.input.viewType.endsWith(CHAT_VIEW_TYPE) && !this.tabs.all().some((tab) => tab.panel.active)
        ? old
        : undefined;
    this.logger.info(`Reopening ${parsed.data.agentName} session ${parsed.data.sessionId}: its tab was left by an extension host that stopped.`);
    const panel = vscode.window.createWebviewPanel(
      CHAT_VIEW_TYPE,
      parsed.data.title ?? parsed.data.agentName,
      { viewColumn: group.viewColumn, preserveFocus: false },
      {
        ...chatWebviewOptions(this.extensionUri),
        enableFindWidget: true,
      },
    );
    const chat = this.restore(panel, parsed.data);
    if (orphan) void vscode.window.tabGroups.close(orphan, true);
    return chat;
  }

  /** Settles when the restores started so far have finished (or failed). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** What the tab asks before its session is back: to try again, or the log. */
  private message(restoring: Restoring, message: ChatToHost): void | Promise<void> {
    if (message.type !== 'action') return;
    if (message.action === 'reopen') {
      const work = this.reopen(restoring);
      this.track(work);
      return work;
    }
    if (message.action === 'showLog') return void vscode.commands.executeCommand(AgentCommandIds.showLog);
  }

  private async reopen(restoring: Restoring): Promise<void> {
    if (restoring.busy) return;
    restoring.busy = true;
    const { saved, panel } = restoring;
    panel.thread.setSession({ status: 'loading', statusDetail: vscode.l10n.t('Reopening the session…') });
    try {
      const [cwd, ...others] = saved.roots ?? [];
      const view = this.history.view(
        saved.agentName,
        saved.sessionId,
        cwd === undefined ? undefined : { cwd, additionalDirectories: others, title: saved.title },
      );
      if (!view) throw new Error(vscode.l10n.t('ACP Workspace has no record of its folders. Find it in the Sessions view to open it again.'));
      const chat = await this.actions.reopen(view, 'restore', { thread: panel.thread, isClosed: () => panel.isClosed });
      if (panel.isClosed) return;
      if (!chat) {
        this.failed(restoring, vscode.l10n.t('The choice of folders was cancelled.'));
      } else if (chat.thread !== panel.thread) {
        // The session is open in another tab already (that one stays where it is: see the reveal policy).
        panel.dispose();
      }
    } catch (error) {
      const message = errorMessage(error);
      // The agent offers no request that reopens a session (what it advertised when it last ran, or now): restoring
      // is a load-or-resume row of the policy.
      const text =
        error instanceof ReopenUnsupportedError
          ? vscode.l10n.t('{0} can neither load nor resume sessions, so this chat cannot continue after a reload.', saved.agentName)
          : message;
      this.logger.warn(`Reopening ${saved.agentName} session ${saved.sessionId} after the reload: ${text}`);
      if (!panel.isClosed) this.failed(restoring, text);
    } finally {
      restoring.busy = false;
    }
  }

  private failed(restoring: Restoring, reason: string): void {
    const { thread } = restoring.panel;
    thread.setSession({ status: 'disconnected', statusDetail: vscode.l10n.t('Not reopened') });
    thread.addError(vscode.l10n.t('This chat was open before the window reloaded and could not be reopened. {0}', reason), ['reopen', 'showLog']);
  }
}
