/**
 * The sessions: the review of their changes, the session history and titles, the agents' lifecycle (restart and
 * reopen, one owner), starting sessions, folders changing under open ones, and what a row of the Sessions view
 * does.
 */
import * as vscode from 'vscode';
import type { Logger } from '../../common/logger';
import type { Root } from '../../roots/rootSet';
import { AgentLifecycle } from '../../sessions/opening/agentLifecycle';
import { FolderChanges } from '../../sessions/opening/folderChanges';
import { HistoryActions } from '../../sessions/opening/historyActions';
import { sharedFolders } from '../../sessions/opening/mappedFolders';
import { reopenChatsOnReconnect, tellChatsWhenReconnectFails } from '../../sessions/opening/reconnectedChats';
import type { RestartOptions } from '../../sessions/opening/reopener';
import { historyStorageDir, SessionHistory } from '../../sessions/opening/sessionHistory';
import { SessionStarter } from '../../sessions/opening/sessionStarter';
import { SessionTitles } from '../../sessions/opening/sessionTitles';
import type { Notices } from '../../sessions/ports';
import { ChangeReview } from '../../sessions/review/changeReview';
import type { AgentConnection } from '../../acp/port/agentConnection';
import { pickAgent } from '../agentCommands';
import { vscodeWorkspace } from '../workspace';
import type { AgentsFeature } from './agentsFeature';
import type { ChatsFeature } from './chatsFeature';
import type { Uis } from './uis';

export interface SessionsFeature {
  readonly review: ChangeReview;
  readonly history: SessionHistory;
  readonly titles: SessionTitles;
  readonly lifecycle: AgentLifecycle;
  readonly starter: SessionStarter;
  readonly folderChanges: FolderChanges;
  readonly historyActions: HistoryActions;
  /** Whoever restarts an agent (a command, a chat, a sign-in) gets its open chats reopened. */
  readonly restartAgent: (agentName: string, options?: RestartOptions) => Promise<AgentConnection>;
}

export function composeSessions(
  context: vscode.ExtensionContext,
  logger: Logger,
  uis: Uis,
  { sessions, grants, router, checkpoints, chats }: ChatsFeature,
  { confinement, registry, pool, mcp, mappedFolders }: AgentsFeature,
): SessionsFeature {
  const workspace = vscodeWorkspace;
  const notices: Notices = { error: (message) => void vscode.window.showErrorMessage(message) };
  const review = new ChangeReview(checkpoints, chats, () => uis.review);
  const history = new SessionHistory({
    storageDir: historyStorageDir(context.globalStorageUri.fsPath),
    memory: context.globalState,
    agents: registry,
    sessions,
    workspace,
    logger,
    transcriptWorker: vscode.Uri.joinPath(context.extensionUri, 'dist', 'transcript-worker.js').fsPath,
    ...(vscode.l10n.bundle ? { l10nBundle: vscode.l10n.bundle } : {}),
    mappedFolders,
  });
  const titles = new SessionTitles(history, chats, sessions);
  // The one owner of restarting an agent and reopening its sessions (each needs the other).
  const lifecycle = new AgentLifecycle({
    agents: pool,
    chats,
    router,
    sessions,
    mcp,
    logger,
    confinement,
    grantsChanged: grants.onDidChange,
    mappedFolders,
    sharedFolders: (name): Root[] => sharedFolders(name, workspace, grants, mappedFolders(name)),
    record: (session, title, forkOf) => history.recordSession(session, title, forkOf),
  });
  const { reopener } = lifecycle;
  // A remote agent that reconnected by itself: its chats are reopened on the new connection; one that stopped
  // trying (the attempts used up, its token refused): its chats say so.
  context.subscriptions.push(reopenChatsOnReconnect(registry.onDidRestart, chats, reopener, logger), tellChatsWhenReconnectFails(registry, chats, logger));
  const starter = new SessionStarter({
    agents: pool,
    sessions,
    chats,
    lifecycle,
    grants,
    workspace,
    mcp,
    ui: () => uis.roots,
    pickAgent: () => pickAgent(registry, { title: vscode.l10n.t('New Session'), placeHolder: vscode.l10n.t('Start a session with which agent?') }),
    logger,
    mappedFolders,
  });
  const folderChanges = new FolderChanges({
    sessions,
    starter,
    grants,
    router,
    workspace,
    ui: () => uis.roots,
    notices,
    logger,
    lifecycle,
    remember: (session, roots) => void history.index.setKeptRoots(session.agentName, session.sessionId, roots),
  });
  const historyActions = new HistoryActions({
    history,
    agents: pool,
    chats,
    reopener,
    grants,
    workspace,
    rootsUi: () => uis.roots,
    historyUi: () => uis.history,
    notices,
    logger,
  });
  return {
    review,
    history,
    titles,
    lifecycle,
    starter,
    folderChanges,
    historyActions,
    restartAgent: (name, options) => lifecycle.restartAgent(name, options),
  };
}
