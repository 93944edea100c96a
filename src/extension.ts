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
import { FolderWatcher } from './vscode/folderWatcher';
import { RefusalNotices, registerFsHandlers } from './vscode/fsHandlers';
import { createLog } from './vscode/log';
import { vscodeOpenDocuments } from './vscode/openDocuments';
import { vscodeRootsUi, type RootsUi } from './vscode/rootsUi';
import { registerSessionCommands } from './vscode/sessionCommands';
import { SessionStarter } from './vscode/sessionStarter';

/** What integration tests reach (only in the Extension Test mode; `undefined` for everyone else). */
export interface TestApi {
  readonly agents: Agents;
  readonly sessions: ActiveSessions;
  readonly starter: SessionStarter;
  readonly grants: FolderGrants;
  readonly folderWatcher: FolderWatcher;
  /** Answers the folder questions instead of the real prompts (the UI tests click the real ones). */
  setRootsUi(ui: RootsUi | undefined): void;
}

let agents: Agents | undefined;

export function activate(context: vscode.ExtensionContext): TestApi | undefined {
  const { channel, logger } = createLog();
  context.subscriptions.push(channel);
  let rootsUi: RootsUi = vscodeRootsUi;
  const ui = () => rootsUi;

  const sessions = new ActiveSessions();
  const refusalNotices = new RefusalNotices();
  const grants = new FolderGrants(context.workspaceState);
  agents = new Agents({
    context,
    logger,
    features: {},
    registerHandlers: (_agent, connection) =>
      registerFsHandlers(connection, {
        sessions,
        documents: vscodeOpenDocuments,
        logger,
        onRefusal: (session, refusal) => refusalNotices.notify(session, refusal),
      }),
  });
  const starter = new SessionStarter(agents, sessions, grants, ui, logger, () => pickAgent(agents!, 'Start a session with which agent?'));
  const folderWatcher = new FolderWatcher(sessions, starter, ui, logger);
  context.subscriptions.push(
    agents,
    folderWatcher,
    new AgentsView(agents, sessions),
    ...registerAgentCommands(agents, channel),
    ...registerSessionCommands(starter, grants, folderWatcher, channel),
  );
  logger.info(`ACP Workspace ${String(context.extension.packageJSON.version)} activated.`);
  if (context.extensionMode !== vscode.ExtensionMode.Test) return undefined;
  return { agents, sessions, starter, grants, folderWatcher, setRootsUi: (replacement) => (rootsUi = replacement ?? vscodeRootsUi) };
}

/** VS Code waits for this: every agent process tree is gone when it settles. */
export async function deactivate(): Promise<void> {
  await agents?.stopAll();
  agents = undefined;
}
