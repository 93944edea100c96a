/**
 * ACP Workspace: the composition root. Builds the objects and registers every disposable; the logic
 * lives in the modules it wires together.
 */
import * as vscode from 'vscode';
import { FolderGrants } from './roots/folderGrants';
import { ActiveSessions } from './sessions/activeSessions';
import { pickAgent, registerAgentCommands } from './vscode/agentCommands';
import { Agents } from './vscode/agents';
import { AgentsView } from './vscode/agentsView';
import { ChatActions } from './vscode/chat/chatActions';
import { ChatSessions } from './vscode/chat/chatSessions';
import { FolderWatcher } from './vscode/folderWatcher';
import { registerFsHandlers } from './sessions/fsHandlers';
import { RefusalNotices } from './vscode/refusalNotices';
import { createLog } from './vscode/log';
import { McpServers } from './vscode/mcpServers';
import { vscodeOpenDocuments } from './vscode/openDocuments';
import { vscodeRootsUi, type RootsUi } from './vscode/rootsUi';
import { registerSessionCommands } from './vscode/sessionCommands';
import { SessionStarter } from './vscode/sessionStarter';
import { ChatRestorer } from './vscode/history/chatRestorer';
import { HistoryActions, vscodeHistoryUi, type HistoryUi } from './vscode/history/historyActions';
import { SessionHistory } from './vscode/history/sessionHistory';
import { SessionsView } from './vscode/history/sessionsView';
import { SignIn } from './vscode/signIn';

/** What integration tests reach (only in the Extension Test mode; `undefined` for everyone else). */
export interface TestApi {
  readonly agents: Agents;
  readonly sessions: ActiveSessions;
  readonly starter: SessionStarter;
  readonly grants: FolderGrants;
  readonly folderWatcher: FolderWatcher;
  readonly chats: ChatSessions;
  readonly signIn: SignIn;
  readonly history: SessionHistory;
  readonly historyActions: HistoryActions;
  readonly sessionsView: SessionsView;
  readonly chatRestorer: ChatRestorer;
  /** Answers the folder questions instead of the real prompts (the UI tests click the real ones). */
  setRootsUi(ui: RootsUi | undefined): void;
  /** Answers the history's questions (delete, rename) instead of the real prompts. */
  setHistoryUi(ui: HistoryUi | undefined): void;
}

let agents: Agents | undefined;

export function activate(context: vscode.ExtensionContext): TestApi | undefined {
  const { channel, logger } = createLog();
  context.subscriptions.push(channel);
  let rootsUi: RootsUi = vscodeRootsUi;
  const ui = () => rootsUi;

  const sessions = new ActiveSessions();
  const grants = new FolderGrants(context.workspaceState);
  const refusalNotices = new RefusalNotices();
  const mcp = new McpServers(logger);
  // Agents and chats refer to each other: connections are wired into chats, chats restart agents.
  const late: { chats?: ChatSessions } = {};
  agents = new Agents({
    context,
    logger,
    features: { booleanConfigOptions: true, notices: true, compaction: true, terminalAuth: true },
    registerHandlers: (agent, connection) => {
      registerFsHandlers(connection, {
        sessions,
        documents: vscodeOpenDocuments,
        logger,
        onRefusal: (session, refusal) => {
          late.chats?.noteRefusal(session, refusal);
          refusalNotices.notify(session, refusal);
        },
      });
      late.chats?.registerConnection(agent, connection);
    },
  });
  const signIn = new SignIn(agents, logger);
  const starter = new SessionStarter(
    agents,
    sessions,
    grants,
    ui,
    logger,
    () => pickAgent(agents!, 'Start a session with which agent?'),
    mcp,
    {
      reopening: (previous, mode) => {
        const chat = late.chats?.find(previous.agentName, previous.sessionId);
        if (chat) late.chats?.prepareReopen(chat, previous.connection, mode);
      },
      reopened: (previous, next) => {
        const chat = late.chats?.find(previous.agentName, previous.sessionId);
        if (chat) late.chats?.reattach(chat, next);
      },
    },
  );
  const chats = new ChatSessions(context.extensionUri, agents, sessions, logger, (owner) => new ChatActions(owner, starter, mcp, signIn, channel, logger));
  late.chats = chats;
  const folderWatcher = new FolderWatcher(sessions, starter, ui, logger);
  let historyUi: HistoryUi = vscodeHistoryUi;
  const history = new SessionHistory(context, agents, sessions, logger);
  const historyActions = new HistoryActions(history, agents, chats, grants, ui, () => historyUi, mcp, logger);
  const sessionsView = new SessionsView(context, history, agents, chats, historyActions, logger);
  const chatRestorer = new ChatRestorer(context.extensionUri, history, historyActions, logger);
  context.subscriptions.push(
    chatRestorer.register(),
    agents,
    chats,
    history,
    sessionsView,
    chats.onDidChangeChat((chat) => history.threadChanged(chat.controller.session, chat.controller.thread)),
    folderWatcher,
    new AgentsView(agents, sessions),
    ...registerAgentCommands(agents, channel),
    ...registerSessionCommands(starter, grants, folderWatcher, channel, chats, signIn),
  );
  logger.info(`ACP Workspace ${String(context.extension.packageJSON.version)} activated.`);
  if (context.extensionMode !== vscode.ExtensionMode.Test) return undefined;
  return {
    agents,
    sessions,
    starter,
    grants,
    folderWatcher,
    chats,
    signIn,
    history,
    historyActions,
    sessionsView,
    chatRestorer,
    setRootsUi: (replacement) => (rootsUi = replacement ?? vscodeRootsUi),
    setHistoryUi: (replacement) => (historyUi = replacement ?? vscodeHistoryUi),
  };
}

/** VS Code waits for this: every agent process tree is gone when it settles. */
export async function deactivate(): Promise<void> {
  await agents?.stopAll();
  agents = undefined;
}
