/**
 * The "Sessions" webview view in the ACP container: a thin adapter around {@link SessionsFeed}
 * (sessions/opening/sessionsFeed.ts), which decides what the view shows and when (paging, recomputes, the
 * selected row kept in place, starting the selected agent). This file gives it the webview, the workspace state,
 * the settings and the commands: the rows' native context menu and Refresh.
 */
import * as vscode from 'vscode';
import type { AgentRegistry } from '../../agents/agentRegistry';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/logger';
import type { SessionsModel } from '../../history/sessionsModel';
import type { Chats } from '../../sessions/chats/chats';
import type { HistoryActions } from '../../sessions/opening/historyActions';
import type { SessionHistory } from '../../sessions/opening/sessionHistory';
import { SessionsFeed, type SessionsScreen } from '../../sessions/opening/sessionsFeed';
import { SessionAction, type PagingBar } from '../../shared/historyProtocol';
import { readDefaultAgent } from '../settings';
import { SessionCommandIds } from '../sessionCommands';
import { webviewHtml, webviewOptions } from '../webviewHtml';
import { errorMessage } from '../../common/errors';

const SETTINGS_KEY = 'acpWorkspace.sessionsView';

/** The context a row gives its native context menu (and the commands it runs). */
interface RowContext {
  readonly key?: unknown;
}

export class SessionsView extends Disposable implements vscode.WebviewViewProvider {
  readonly feed: SessionsFeed;

  constructor(
    private readonly context: vscode.ExtensionContext,
    history: SessionHistory,
    agents: AgentRegistry,
    chats: Chats,
    actions: HistoryActions,
    private readonly logger: Logger,
  ) {
    super();
    this.feed = this._register(
      new SessionsFeed({
        history,
        agents,
        actions,
        isOpen: (agentName, sessionId) => chats.find(agentName, sessionId) !== undefined,
        trusted: () => vscode.workspace.isTrusted,
        storedSettings: context.workspaceState.get(SETTINGS_KEY),
        saveSettings: (settings) => context.workspaceState.update(SETTINGS_KEY, settings),
        defaultAgent: readDefaultAgent,
        newSession: (agentName) => vscode.commands.executeCommand(SessionCommandIds.newSession, agentName),
        showError: (message) => void vscode.window.showErrorMessage(message),
        logger,
      }),
    );
    for (const action of SessionAction.options) {
      this._register(
        vscode.commands.registerCommand(`acpWorkspace.history.${action}`, (row?: RowContext) =>
          this.feed.runAction(action, typeof row?.key === 'string' ? row.key : undefined),
        ),
      );
    }
    this._register(vscode.commands.registerCommand('acpWorkspace.history.refresh', () => this.feed.refresh()));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    // In the log: a view left blank says whether VS Code ever asked for it (CI saw one after a reload).
    this.logger.info('The Sessions view is shown: its webview is being set up.');
    view.webview.options = webviewOptions(this.context.extensionUri);
    view.webview.html = webviewHtml(view.webview, this.context.extensionUri, 'history', 'Sessions');
    const screen: SessionsScreen = {
      get visible() {
        return view.visible;
      },
      post: (message) => void view.webview.postMessage(message),
    };
    this.feed.attach(screen);
    const subscriptions = [
      // A message that fails is said in the log (a view left blank otherwise says nothing).
      view.webview.onDidReceiveMessage(
        (raw: unknown) => void this.feed.receive(raw).catch((error: unknown) => this.logger.error(`The Sessions view: ${errorMessage(error)}`)),
      ),
      view.onDidChangeVisibility(() => this.feed.visibilityChanged()),
    ];
    view.onDidDispose(() => {
      for (const s of subscriptions) s.dispose();
      this.feed.detach(screen);
    });
  }

  // What the integration tests and the commands read and drive, from the feed.
  get model(): SessionsModel {
    return this.feed.model;
  }

  get visible(): boolean {
    return this.feed.visible;
  }

  receive(raw: unknown): Promise<void> {
    return this.feed.receive(raw);
  }

  refresh(): void {
    this.feed.refresh();
  }

  loadMore(agentName: string): Promise<void> {
    return this.feed.loadMore(agentName);
  }

  currentPagingBar(): PagingBar | undefined {
    return this.feed.currentPagingBar();
  }
}
