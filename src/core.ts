/**
 * ACP Workspace's core: everything behind what activation registers (agents, sessions, chats, history, review,
 * the views' and panels' providers, the commands), composed bottom layer first the first time something needs
 * it (src/vscode/activation/lazyCore.ts). Bundled apart (dist/core.js) so activation does not load it. Each
 * feature is composed in its own file under src/vscode/composition/ (chats, agents, sessions, the VS Code views), in
 * that order, each from what the ones before it made; the logic lives in the modules they wire together (see
 * CONTRIBUTING.md, "Layers").
 */
import type * as vscode from 'vscode';
import type { AgentRegistry } from './agents/agentRegistry';
import { composeAgents } from './vscode/composition/agentsFeature';
import { composeChats } from './vscode/composition/chatsFeature';
import { composeSessions } from './vscode/composition/sessionsFeature';
import type { Shell } from './vscode/composition/shell';
import { VSCODE_UIS, type Uis } from './vscode/composition/uis';
import { composeViews } from './vscode/composition/viewsFeature';
import type { FolderGrants } from './roots/folderGrants';
import type { RemoteAgentUi } from './sessions/agents/addRemoteAgent';
import type { AgentConfinement } from './sessions/agents/agentConfinement';
import type { RegistryAgents } from './sessions/agents/registryAgents';
import type { FolderChanges } from './sessions/opening/folderChanges';
import type { HistoryActions } from './sessions/opening/historyActions';
import type { SessionHistory } from './sessions/opening/sessionHistory';
import type { SessionStarter } from './sessions/opening/sessionStarter';
import type { ChatUi, ConfinementUi, HistoryUi, ReviewUi, RootsUi } from './sessions/ports';
import type { ChangeReview } from './sessions/review/changeReview';
import type { Checkpoints } from './sessions/review/checkpoints';
import type { ActiveSessions } from './sessions/routing/activeSessions';
import { AgentGalleryPanel } from './vscode/agentGallery';
import type { AgentsView } from './vscode/agentsView';
import type { ChatNotifications } from './vscode/chat/chatNotifications';
import type { ChatRestorer } from './vscode/chat/chatRestorer';
import type { ChatTabs } from './vscode/chat/chatTabs';
import type { TranscriptExport } from './vscode/chat/transcriptExport';
import { CHECKPOINT_SCHEME, DIFF_SCHEME, TRANSCRIPT_SCHEME, type DocumentScheme } from './vscode/contributionIds';
import type { SessionsView } from './vscode/history/sessionsView';
import { configureL10n } from './vscode/l10nBundle';
import type { RemoteTokenUi } from './vscode/remoteCommands';
import { CheckpointDocuments } from './vscode/review/checkpointDocuments';
import type { ReviewPanels } from './vscode/review/reviewPanels';
import type { RemoteSecrets } from './vscode/remoteSecrets';
import type { SignIn } from './vscode/signIn';
import type { StartFailureUi } from './vscode/startFailureUi';

export type { Shell } from './vscode/composition/shell';

/** What integration tests reach (activation hands it out only in the Extension Test mode). */
export interface TestApi {
  readonly agents: AgentRegistry;
  readonly sessions: ActiveSessions;
  readonly starter: SessionStarter;
  readonly grants: FolderGrants;
  readonly folderChanges: FolderChanges;
  readonly chats: ChatTabs;
  readonly notifications: ChatNotifications;
  readonly signIn: SignIn;
  readonly history: SessionHistory;
  readonly historyActions: HistoryActions;
  readonly sessionsView: SessionsView;
  readonly chatRestorer: ChatRestorer;
  readonly agentsView: AgentsView;
  readonly checkpoints: Checkpoints;
  readonly review: ChangeReview;
  readonly reviewPanels: ReviewPanels;
  readonly confinement: AgentConfinement;
  /** The ACP Registry's agents: the gallery's source, install, update, uninstall. */
  readonly registryAgents: RegistryAgents;
  /** Remote agents' credentials (SecretStorage). */
  readonly remoteSecrets: RemoteSecrets;
  /** Answers the questions of Add Remote Agent… instead of the real prompts. */
  setRemoteAgentUi(ui: RemoteAgentUi | undefined): void;
  /** Answers the questions of Set Remote Agent Token… instead of the real prompts. */
  setRemoteTokenUi(ui: RemoteTokenUi | undefined): void;
  /** Export as Markdown and the transcript's text view (tests replace its `ui`). */
  readonly transcripts: TranscriptExport;
  /** Answers the "cannot be confined" question instead of the real dialog. */
  setConfinementUi(ui: ConfinementUi | undefined): void;
  /** Answers the folder questions instead of the real prompts (the UI tests click the real ones). */
  setRootsUi(ui: RootsUi | undefined): void;
  /** Answers the history's questions (delete, rename) instead of the real prompts. */
  setHistoryUi(ui: HistoryUi | undefined): void;
  /** Answers the chats' questions (open a file outside the folders) instead of the real dialogs. */
  setChatUi(ui: ChatUi | undefined): void;
  /** Answers the notification of an agent that failed to start a session instead of the real one. */
  setStartFailureUi(ui: StartFailureUi | undefined): void;
  /** Answers the review's confirmations (undo, redo) instead of the real dialogs. */
  setReviewUi(ui: ReviewUi | undefined): void;
  /** Where this window keeps the extension's logs (the log channel's file is below its parent). */
  readonly logUri: vscode.Uri;
}

/** The core as activation's stand-ins reach it. */
export interface Core {
  readonly agentsView: AgentsView;
  readonly sessionsView: SessionsView;
  readonly chatRestorer: ChatRestorer;
  /** The Review Changes tabs, which VS Code hands the tabs it restores after a reload. */
  readonly reviewPanels: ReviewPanels;
  /** Restores the Add Agent tab after a reload. */
  readonly galleryRestorer: vscode.WebviewPanelSerializer;
  /** The provider of each scheme's read-only documents. */
  readonly documents: Readonly<Record<DocumentScheme, vscode.TextDocumentContentProvider>>;
  /** What integration tests reach (built in every mode, handed out only in the Extension Test mode). */
  readonly testApi: TestApi;
  /** Stops every agent and writes what the session history holds; VS Code waits for it when the extension deactivates. */
  deactivate(): Promise<void>;
}

/** Composes the core; every disposable goes to `context.subscriptions`. */
export function composeCore(context: vscode.ExtensionContext, shell: Shell): Core {
  configureL10n();
  const { logger } = shell;
  const uis: Uis = { ...VSCODE_UIS };
  // The application bottom up, then the VS Code adapters over it.
  const chatsPart = composeChats(context, logger);
  const agentsPart = composeAgents(context, logger, uis, chatsPart);
  const sessionsPart = composeSessions(context, logger, uis, chatsPart, agentsPart);
  const views = composeViews(context, shell, uis, chatsPart, agentsPart, sessionsPart);
  const { sessions, grants, checkpoints } = chatsPart;
  const { confinement, registryAgents, remoteSecrets, registry } = agentsPart;
  const { review, history, starter, folderChanges, historyActions } = sessionsPart;
  const { agentsView, sessionsView, chatRestorer, reviewPanels, chatActions, tabs, notifications, signIn, transcripts } = views;
  const testApi: TestApi = {
    agents: registry,
    sessions,
    starter,
    grants,
    folderChanges,
    chats: tabs,
    notifications,
    signIn,
    history,
    historyActions,
    sessionsView,
    chatRestorer,
    agentsView,
    checkpoints,
    review,
    reviewPanels,
    confinement,
    registryAgents,
    transcripts,
    remoteSecrets,
    setRemoteAgentUi: (replacement) => (uis.remoteAgent = replacement ?? VSCODE_UIS.remoteAgent),
    setRemoteTokenUi: (replacement) => (uis.remoteToken = replacement ?? VSCODE_UIS.remoteToken),
    setConfinementUi: (replacement) => (uis.confinement = replacement ?? VSCODE_UIS.confinement),
    setRootsUi: (replacement) => (uis.roots = replacement ?? VSCODE_UIS.roots),
    setHistoryUi: (replacement) => (uis.history = replacement ?? VSCODE_UIS.history),
    setChatUi: (replacement) => (uis.chat = replacement ?? VSCODE_UIS.chat),
    setStartFailureUi: (replacement) => (uis.startFailure = replacement ?? VSCODE_UIS.startFailure),
    setReviewUi: (replacement) => (uis.review = replacement ?? VSCODE_UIS.review),
    logUri: context.logUri,
  };
  return {
    agentsView,
    sessionsView,
    chatRestorer,
    reviewPanels,
    galleryRestorer: AgentGalleryPanel.serializer(context.extensionUri, registryAgents, { logger }),
    documents: { [DIFF_SCHEME]: chatActions.diffs, [CHECKPOINT_SCHEME]: new CheckpointDocuments(review), [TRANSCRIPT_SCHEME]: transcripts },
    testApi,
    // The session history writes a moment after each change: what waits is written with the agents stopping,
    // and once more after (stopping them changes their chats).
    deactivate: async () => {
      await Promise.all([registry.stopAll(), history.flush()]);
      await history.flush();
    },
  };
}
