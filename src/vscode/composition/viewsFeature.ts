/**
 * The VS Code adapters: sign-in, the review tabs and their actions, the chat tabs and what they do, the Sessions
 * and Agents views, notifications, the Markdown export; every disposable and command registered, in one place.
 */
import * as vscode from 'vscode';
import type { Shell } from './shell';
import { chatTitle } from '../../shared/chatModel';
import { showConfinementInChats } from '../../sessions/agents/agentConfinement';
import { PromptEdits } from '../../sessions/opening/promptEdits';
import { AgentGalleryPanel } from '../agentGallery';
import { registerAgentCommands } from '../agentCommands';
import { AgentsView } from '../agentsView';
import { ChatActions } from '../chat/chatActions';
import { ChatNotifications } from '../chat/chatNotifications';
import { ChatRestorer } from '../chat/chatRestorer';
import { ChatTabRecords } from '../chat/chatTabRecords';
import { ChatTabs } from '../chat/chatTabs';
import { TranscriptExport } from '../chat/transcriptExport';
import { SessionsView } from '../history/sessionsView';
import { RefusalNotices } from '../refusalNotices';
import { registerRegistryCommands } from '../registryCommands';
import { RegistryUpdates } from '../registryUpdates';
import { registerRemoteCommands } from '../remoteCommands';
import { ChangeActions } from '../review/changeActions';
import { ReviewPanels } from '../review/reviewPanels';
import { registerSessionCommands } from '../sessionCommands';
import { affectsUs } from '../settings';
import { SignIn } from '../signIn';
import type { AgentsFeature } from './agentsFeature';
import type { ChatsFeature } from './chatsFeature';
import type { SessionsFeature } from './sessionsFeature';
import type { Uis } from './uis';

export interface ViewsFeature {
  readonly signIn: SignIn;
  readonly reviewPanels: ReviewPanels;
  readonly chatActions: ChatActions;
  readonly tabs: ChatTabs;
  readonly sessionsView: SessionsView;
  readonly chatRestorer: ChatRestorer;
  readonly agentsView: AgentsView;
  readonly notifications: ChatNotifications;
  readonly transcripts: TranscriptExport;
}

export function composeViews(
  context: vscode.ExtensionContext,
  shell: Shell,
  uis: Uis,
  { grants, router, checkpoints, chats, sessions }: ChatsFeature,
  { confinement, registrySource, registryAgents, remoteSecrets, agents, registry, addRemoteAgent }: AgentsFeature,
  { review, history, titles, lifecycle, starter, folderChanges, historyActions, restartAgent }: SessionsFeature,
): ViewsFeature {
  const { channel, logger } = shell;
  const signIn = new SignIn(agents, logger, restartAgent);
  // A review tab is named like its chat ("<title> · <agent>") and follows a rename.
  const reviewPanels = new ReviewPanels(review, context.extensionUri, logger, {
    titleOf: (target) => chatTitle({ title: titles.titleOf(target.agentName, target.sessionId), agentName: target.agentName, roots: [] }),
    onDidChange: (listener) => history.onDidChange(listener),
  });
  const changeActions = new ChangeActions(review, reviewPanels);
  const chatActions = new ChatActions({
    lifecycle,
    starter,
    router,
    signIn,
    ui: () => uis.chat,
    log: channel,
    logger,
    changes: changeActions,
    edits: new PromptEdits({ history, historyActions, logger }),
  });
  const tabRecords = new ChatTabRecords(context.workspaceState);
  const tabs = new ChatTabs(context.extensionUri, chats, chatActions, logger, tabRecords);
  const sessionsView = new SessionsView(context, history, registry, chats, historyActions, logger);
  const chatRestorer = new ChatRestorer(context.extensionUri, history, historyActions, tabs, logger, tabRecords);
  const refusalNotices = new RefusalNotices();
  const agentsView = new AgentsView(registry, sessions, confinement, titles, registryAgents);
  const notifications = new ChatNotifications({
    tabs,
    chats,
    setBadge: (badge) => (shell.agentsTree.badge = badge),
    restartAgent,
    // A remote agent reconnecting by itself: its chats are reopened, or told when it stops trying (a notification
    // now would outlive the reconnect).
    isStopping: (name) => {
      const status = registry.find(name);
      return status?.state === 'stopping' || status?.process?.remote?.reconnectAt !== undefined;
    },
  });
  const transcripts = new TranscriptExport(tabs, (key) => sessionsView.model.find(key), context.globalState);
  context.subscriptions.push(
    registrySource,
    registryAgents,
    new RegistryUpdates(registryAgents, context.globalState),
    vscode.workspace.onDidChangeConfiguration((event) => affectsUs(event, 'registry.url') && void registryAgents.refresh()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => registryAgents.trustChanged()),
    ...registerRegistryCommands({
      registryAgents,
      agents: registry,
      openGallery: () => AgentGalleryPanel.show(context.extensionUri, registryAgents, { logger }),
      restart: (name) => restartAgent(name),
    }),
    remoteSecrets,
    ...registerRemoteCommands({ addRemoteAgent, secrets: remoteSecrets, agents: registry, tokenUi: () => uis.remoteToken }),
    agents,
    tabs,
    chats,
    checkpoints,
    review,
    reviewPanels,
    router,
    folderChanges,
    confinement,
    lifecycle,
    showConfinementInChats(confinement, chats, (name) => registry.isRunning(name)),
    grants,
    history,
    titles,
    sessionsView,
    router.onDidRefuse(({ session, refusal }) => refusalNotices.notify(session, refusal)),
    chats.onDidChange((chat) => history.threadChanged(chat.session, chat.thread)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      history.workspaceChanged();
      void folderChanges.foldersChanged();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => history.workspaceChanged()),
    // The primary folder can follow the active editor or the setting.
    vscode.window.onDidChangeActiveTextEditor(() => history.primaryMayHaveChanged()),
    vscode.workspace.onDidChangeConfiguration((event) => affectsUs(event, 'primaryFolder') && history.primaryMayHaveChanged()),
    // Running agents keep their confinement until restarted: they say "restart to apply".
    vscode.workspace.onDidChangeConfiguration((event) => affectsUs(event, 'sandbox') && confinement.settingChanged()),
    agentsView,
    notifications,
    ...registerAgentCommands(registry, channel, restartAgent),
    ...registerSessionCommands(
      starter,
      registry,
      grants,
      folderChanges,
      channel,
      tabs,
      signIn,
      (name) => restartAgent(name),
      () => uis.startFailure,
    ),
    ...changeActions.register(tabs),
    ...transcripts.register(),
    chatRestorer.register(),
  );
  return { signIn, reviewPanels, chatActions, tabs, sessionsView, chatRestorer, agentsView, notifications, transcripts };
}
