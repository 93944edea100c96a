/**
 * ACP Workspace's core: everything behind what activation registers (agents, sessions, chats, history, review,
 * the views' and panels' providers, the commands), composed bottom layer first the first time something needs
 * it (src/vscode/activation/lazyCore.ts). Bundled apart (dist/core.js) so activation does not load it; the logic
 * lives in the modules it wires together (see CONTRIBUTING.md, "Layers").
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRegistry } from './agents/agentRegistry';
import { isRemoteAgent, presetsByRegistryId } from './agents/agentConfig';
import { IconCache } from './agents/registry/icons';
import { RegistryInstaller } from './agents/registry/install/installer';
import { HttpRegistrySource, snapshotFromFile } from './agents/registry/registrySource';
import { isNewer } from './agents/registry/version';
import { RegistryAgents } from './sessions/agents/registryAgents';
import { AgentGalleryPanel } from './vscode/agentGallery';
import { registerRegistryCommands } from './vscode/registryCommands';
import { probeAddress } from './remote/reachability';
import { AddRemoteAgent, type RemoteAgentUi } from './sessions/agents/addRemoteAgent';
import { sandboxServersOver } from './sessions/agents/sandboxServers';
import { SandboxAgentServer } from './remote/sandboxAgentServer';
import { sandboxAgentLink } from './acp/transport/sandboxAgentLink';
import { registerRemoteCommands, vscodeRemoteAgentUi, vscodeRemoteTokenUi, type RemoteTokenUi } from './vscode/remoteCommands';
import { RemoteSecrets } from './vscode/remoteSecrets';
import { defaultLinkFactory, RemoteAgents } from './sessions/agents/remoteAgents';
import { reopenChatsOnReconnect, tellChatsWhenReconnectFails } from './sessions/opening/reconnectedChats';
import { RegistryUpdates } from './vscode/registryUpdates';
import { McpServers } from './mcp/mcpServers';
import { FolderGrants } from './roots/folderGrants';
import type { Root } from './roots/rootSet';
import { ActiveSessions } from './sessions/routing/activeSessions';
import { ChangeReview } from './sessions/review/changeReview';
import { Checkpoints } from './sessions/review/checkpoints';
import { Chats } from './sessions/chats/chats';
import { FolderChanges } from './sessions/opening/folderChanges';
import { HistoryActions } from './sessions/opening/historyActions';
import type { ChatUi, ConfinementUi, HistoryUi, Notices, ReviewUi, RootsUi } from './sessions/ports';
import { AgentConfinement, showConfinementInChats } from './sessions/agents/agentConfinement';
import { PromptEdits } from './sessions/opening/promptEdits';
import type { RestartOptions } from './sessions/opening/reopener';
import { AgentLifecycle } from './sessions/opening/agentLifecycle';
import { sharedFolders } from './sessions/opening/mappedFolders';
import { historyStorageDir, SessionHistory } from './sessions/opening/sessionHistory';
import { LocalCommandConfinement } from './sessions/agents/remoteCommands';
import { SessionRouter } from './sessions/routing/sessionRouter';
import { SessionStarter } from './sessions/opening/sessionStarter';
import { SessionTitles } from './sessions/opening/sessionTitles';
import { pickAgent, registerAgentCommands } from './vscode/agentCommands';
import { AgentsFromSettings } from './vscode/agents';
import { AgentsView } from './vscode/agentsView';
import { CHECKPOINT_SCHEME, DIFF_SCHEME, TRANSCRIPT_SCHEME, type DocumentScheme } from './vscode/contributionIds';
import type { Logger } from './common/logger';
import { findConfiner } from './process/confinement/find';
import { vscodeConfinementUi } from './vscode/confinementUi';
import * as os from 'node:os';
import { ChatActions } from './vscode/chat/chatActions';
import { ChatNotifications } from './vscode/chat/chatNotifications';
import { ChatRestorer } from './vscode/chat/chatRestorer';
import { ChatTabRecords } from './vscode/chat/chatTabRecords';
import { ChatTabs } from './vscode/chat/chatTabs';
import { vscodeChatUi } from './vscode/chat/chatUi';
import { TranscriptExport } from './vscode/chat/transcriptExport';
import { vscodeHistoryUi } from './vscode/history/historyUi';
import { SessionsView } from './vscode/history/sessionsView';
import { isDirtyFile, vscodeOpenDocuments } from './vscode/openDocuments';
import { RefusalNotices } from './vscode/refusalNotices';
import { ChangeActions, vscodeReviewUi } from './vscode/review/changeActions';
import { CheckpointDocuments } from './vscode/review/checkpointDocuments';
import { ReviewPanels } from './vscode/review/reviewPanels';
import { configureL10n } from './vscode/l10nBundle';
import { vscodeRootsUi } from './vscode/rootsUi';
import { registerSessionCommands } from './vscode/sessionCommands';
import { affectsUs, readCheckpointSettings, readRegistryUrl, readSandbox } from './vscode/settings';
import { SignIn } from './vscode/signIn';
import { chatTitle } from './shared/chatModel';
import { vscodeStartFailureUi, type StartFailureUi } from './vscode/startFailureUi';
import { localFolders, vscodeWorkspace } from './vscode/workspace';

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

/** What activation made before the core: it stays the owner of these. */
export interface Shell {
  readonly channel: vscode.LogOutputChannel;
  readonly logger: Logger;
  /** The Agents view, whose badge VS Code also shows on the ACP container. */
  readonly agentsTree: vscode.TreeView<unknown>;
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
  const { channel, logger } = shell;
  let rootsUi: RootsUi = vscodeRootsUi;
  let historyUi: HistoryUi = vscodeHistoryUi;
  let chatUi: ChatUi = vscodeChatUi;
  let startFailureUi: StartFailureUi = vscodeStartFailureUi;
  let reviewUi: ReviewUi = vscodeReviewUi;
  let confinementUi: ConfinementUi = vscodeConfinementUi;
  let remoteAgentUi: RemoteAgentUi = vscodeRemoteAgentUi;
  let remoteTokenUi: RemoteTokenUi = vscodeRemoteTokenUi;
  const notices: Notices = { error: (message) => void vscode.window.showErrorMessage(message) };
  const workspace = vscodeWorkspace;

  // The application layer, bottom up: sessions and the agent → client surface, agents, chats, history.
  const sessions = new ActiveSessions();
  const grants = new FolderGrants(context.workspaceState);
  // A remote agent's commands, when its entry lets it run them here, are confined like a local agent's (fail closed).
  const router = new SessionRouter({
    sessions,
    documents: vscodeOpenDocuments,
    logger,
    remoteCommands: new LocalCommandConfinement({ mode: readSandbox, findConfiner: (env) => findConfiner(process.platform, env), home: os.homedir() }),
  });
  // The open chats (they need nothing of the agents): the confinement's launches serve them.
  const checkpoints = new Checkpoints({
    storageDir: path.join(context.globalStorageUri.fsPath, 'checkpoints'),
    settings: readCheckpointSettings,
    isDirty: isDirtyFile,
    logger,
  });
  const chats = new Chats({ router, sessions, documents: vscodeOpenDocuments, checkpoints, logger });
  // How each launch is confined; the agents' lifecycle (below) restarts an agent when its folders change.
  const confinement = new AgentConfinement({
    mode: readSandbox,
    findConfiner: (env) => findConfiner(process.platform, env),
    grants,
    sessions,
    // The sessions of the agent's open chats: a launch (a restart, a recovery) serves them.
    serving: (name) => chats.all().flatMap((chat) => (chat.session.agentName === name ? [chat.session] : [])),
    ui: () => confinementUi,
    home: os.homedir(),
    logger,
  });
  // The ACP Registry: its catalog (cached in registry/), the agents installed from it (in agents/), their icons.
  const storage = context.globalStorageUri.fsPath;
  const registrySource = new HttpRegistrySource({
    url: readRegistryUrl,
    cacheDir: path.join(storage, 'registry'),
    snapshot: snapshotFromFile(vscode.Uri.joinPath(context.extensionUri, 'resources', 'registry-snapshot.json').fsPath),
    logger,
  });
  // The installer's warm-ups run in the global storage, never in the workspace (no workspace .npmrc applies).
  const installer = new RegistryInstaller({ storageDir: storage, registryUrl: readRegistryUrl, logger });
  const registryAgents = new RegistryAgents({
    source: registrySource,
    registryUrl: readRegistryUrl,
    installer,
    icons: new IconCache({ dir: path.join(storage, 'registry', 'icons'), logger }),
    isTrusted: () => vscode.workspace.isTrusted,
    builtIns: presetsByRegistryId(),
    isNewer,
    logger,
  });
  // Agents that run elsewhere: their links, their credentials from the secret storage, their path mappings.
  const remoteSecrets = new RemoteSecrets(context.secrets, logger);
  const remoteAgents = new RemoteAgents({
    credentials: (url) => remoteSecrets.get(url),
    onRefused: (agentName, refusal) => router.refusedUnmapped(agentName, refusal),
    linkFactory: (kind) => defaultLinkFactory(kind, sandboxAgentLink),
  });
  const agents = new AgentsFromSettings({
    registry: registryAgents,
    context,
    logger,
    features: { booleanConfigOptions: true, notices: true, compaction: true, terminalAuth: true },
    connect: (connection, confinement, remote) => router.connect(connection, confinement, remote),
    confinement: (name, input) => confinement.launch(name, input),
    remoteAgent: (definition, shared) => remoteAgents.create(definition, shared),
  });
  const registry = agents.registry;
  const addRemoteAgent = new AddRemoteAgent({
    ui: () => remoteAgentUi,
    servers: sandboxServersOver((options) => new SandboxAgentServer(options)),
    secrets: remoteSecrets,
    settings: {
      read: () => vscode.workspace.getConfiguration('acpWorkspace').inspect<unknown>('agents')?.globalValue,
      write: (list) => Promise.resolve(vscode.workspace.getConfiguration('acpWorkspace').update('agents', list, vscode.ConfigurationTarget.Global)),
      // A machine setting written as Global goes to the remote's machine settings in a remote window.
      place: () => (vscode.env.remoteName !== undefined ? { kind: 'remote', name: vscode.env.remoteName } : { kind: 'user' }),
    },
    reach: (url, signal) => probeAddress(url, signal),
    agentNames: () => registry.list().map((status) => status.definition.name),
    folders: () => localFolders().map((folder) => ({ name: path.basename(folder), path: folder })),
    isTrusted: () => vscode.workspace.isTrusted,
    logger,
  });
  // Every start and restart of an agent by a session: a refusal to run unconfined is asked about (fail closed).
  const pool = confinement.guardPool(registry);
  const mcp = new McpServers(
    {
      folders: localFolders,
      setting: () => vscode.workspace.getConfiguration('acpWorkspace').get<unknown>('mcpServers'),
      trusted: () => vscode.workspace.isTrusted,
    },
    logger,
  );
  const review = new ChangeReview(checkpoints, chats, () => reviewUi);
  // A remote agent whose entry maps folders is given only those.
  const mappedFolders = (name: string) => {
    const definition = registry.find(name)?.definition;
    return definition && isRemoteAgent(definition) ? remoteAgents.mappedFolders(definition) : undefined;
  };
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
  // Whoever restarts an agent (a command, a chat, a sign-in) gets its open chats reopened.
  const restartAgent = (name: string, options?: RestartOptions) => lifecycle.restartAgent(name, options);
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
    ui: () => rootsUi,
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
    ui: () => rootsUi,
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
    rootsUi: () => rootsUi,
    historyUi: () => historyUi,
    notices,
    logger,
  });

  // The VS Code adapters.
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
    ui: () => chatUi,
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
    ...registerRemoteCommands({ addRemoteAgent, secrets: remoteSecrets, agents: registry, tokenUi: () => remoteTokenUi }),
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
      () => startFailureUi,
    ),
    ...changeActions.register(tabs),
    ...transcripts.register(),
    chatRestorer.register(),
  );
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
    setRemoteAgentUi: (replacement) => (remoteAgentUi = replacement ?? vscodeRemoteAgentUi),
    setRemoteTokenUi: (replacement) => (remoteTokenUi = replacement ?? vscodeRemoteTokenUi),
    setConfinementUi: (replacement) => (confinementUi = replacement ?? vscodeConfinementUi),
    setRootsUi: (replacement) => (rootsUi = replacement ?? vscodeRootsUi),
    setHistoryUi: (replacement) => (historyUi = replacement ?? vscodeHistoryUi),
    setChatUi: (replacement) => (chatUi = replacement ?? vscodeChatUi),
    setStartFailureUi: (replacement) => (startFailureUi = replacement ?? vscodeStartFailureUi),
    setReviewUi: (replacement) => (reviewUi = replacement ?? vscodeReviewUi),
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
