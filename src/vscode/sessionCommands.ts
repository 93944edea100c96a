/** Commands about sessions and their folders: new session, manage shared folders, reopen or keep after folder changes. */
import * as vscode from 'vscode';
import type { FolderGrants } from '../roots/folderGrants';
import { describeNotShared } from '../roots/workspaceRoots';
import type { AgentRegistry, AgentStatus } from '../agents/agentRegistry';
import type { AgentSession } from '../sessions/routing/agentSession';
import type { FolderChanges } from '../sessions/opening/folderChanges';
import { SessionStartError } from '../sessions/opening/mappedFolders';
import type { SessionStarter } from '../sessions/opening/sessionStarter';
import { attachSelection } from './chat/chatActions';
import type { ChatTabs } from './chat/chatTabs';
import { RemoteCommandIds } from './remoteCommands';
import type { SignIn } from './signIn';
import { logStartFailure, startFailureOf, vscodeStartFailureUi, type StartFailureUi } from './startFailureUi';
import { currentCandidates } from './workspace';
import { errorMessage } from '../common/errors';

export const SessionCommandIds = {
  newSession: 'acpWorkspace.newSession',
  showSession: 'acpWorkspace.showSession',
  focusChat: 'acpWorkspace.focusChat',
  addSelectionToChat: 'acpWorkspace.addSelectionToChat',
  manageSharedFolders: 'acpWorkspace.manageSharedFolders',
  reopenWithCurrentFolders: 'acpWorkspace.reopenSessionWithCurrentFolders',
  keepFolders: 'acpWorkspace.keepSessionFolders',
} as const;

export function registerSessionCommands(
  starter: SessionStarter,
  agents: AgentRegistry,
  grants: FolderGrants,
  folderChanges: FolderChanges,
  log: vscode.LogOutputChannel,
  chats: ChatTabs,
  signIn: SignIn,
  restartAgent: (agentName: string) => Promise<unknown>,
  failureUi: () => StartFailureUi = () => vscodeStartFailureUi,
): vscode.Disposable[] {
  const newSession = async (agentName: string | undefined, retried = false): Promise<AgentSession[]> => {
    try {
      const started = await starter.newSession({ agentName });
      return started.map(({ session, notes }, index) => {
        chats.open(session, { notes, background: index < started.length - 1 });
        return session;
      });
    } catch (error) {
      const failure = error instanceof SessionStartError ? undefined : startFailureOf(agents, error, agentName);
      if (!failure) {
        const message = errorMessage(error);
        log.error(message);
        const actions =
          error instanceof SessionStartError && !vscode.workspace.isTrusted ? [vscode.l10n.t('Manage Workspace Trust')] : [vscode.l10n.t('Show Log')];
        const choice = await vscode.window.showErrorMessage(message, ...actions);
        if (choice === vscode.l10n.t('Manage Workspace Trust')) await vscode.commands.executeCommand('workbench.trust.manage');
        if (choice === vscode.l10n.t('Show Log')) log.show(true);
        return [];
      }
      logStartFailure(log, failure, agents.find(failure.agent)?.process?.recentStderr ?? []);
      // Signing in once more after a sign-in that did not help would only loop.
      const offered = retried ? { ...failure, actions: failure.actions.filter((a) => a !== 'signIn' && a !== 'setToken') } : failure;
      const choice = await failureUi().show(offered);
      if (choice === 'signIn' && (await signIn.run(failure.agent))) return newSession(failure.agent, true);
      // Set Remote Agent Token… says whether a token was saved; then the session is started again with it.
      if (choice === 'setToken' && (await vscode.commands.executeCommand<boolean>(RemoteCommandIds.setRemoteAgentToken, failure.agent)) === true)
        return newSession(failure.agent, true);
      if (choice === 'showLog') log.show(true);
      if (choice === 'restart')
        await restartAgent(failure.agent).catch((restartError: unknown) => log.error(`Restarting ${failure.agent} failed: ${errorMessage(restartError)}`));
      if (choice === 'openSettings') await vscode.commands.executeCommand('workbench.action.openSettings', 'acpWorkspace.agents');
      return [];
    }
  };
  return [
    vscode.commands.registerCommand(SessionCommandIds.newSession, (argument?: AgentStatus | string) =>
      newSession(typeof argument === 'string' ? argument : argument?.definition.name),
    ),
    vscode.commands.registerCommand(SessionCommandIds.showSession, (session?: AgentSession) => {
      if (session) chats.find(session.agentName, session.sessionId)?.panel.reveal();
    }),
    vscode.commands.registerCommand(SessionCommandIds.focusChat, () => chats.active()?.panel.reveal()),
    vscode.commands.registerCommand(SessionCommandIds.addSelectionToChat, async () => {
      const chat = chats.active() ?? (await newSession(undefined)).map((s) => chats.find(s.agentName, s.sessionId))[0];
      if (chat) attachSelection(chat);
    }),
    vscode.commands.registerCommand(SessionCommandIds.manageSharedFolders, () => manageSharedFolders(grants, agents)),
    vscode.commands.registerCommand(SessionCommandIds.reopenWithCurrentFolders, (session?: AgentSession) => session && folderChanges.reopen([session])),
    vscode.commands.registerCommand(SessionCommandIds.keepFolders, (session?: AgentSession) => session && folderChanges.keep([session])),
  ];
}

/**
 * Review and change which workspace folders each agent may see (a session's primary folder is always shared):
 * first which agent, then its folders. A folder unchecked stops at once for that agent's open sessions.
 */
async function manageSharedFolders(grants: FolderGrants, agents: AgentRegistry): Promise<void> {
  const candidates = currentCandidates();
  if (candidates.roots.length === 0 && candidates.notShared.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This workspace has no folders to share.'));
    return;
  }
  const names = [...new Set([...agents.list().map((s) => s.definition.name), ...grants.agents()])];
  const countOf = (agent: string) => candidates.roots.filter((root) => grants.isGranted(agent, root.path)).length;
  const agentPick =
    names.length === 1
      ? { agent: names[0]! }
      : await vscode.window.showQuickPick(
          names.map((agent) => {
            const count = countOf(agent);
            return {
              label: agent,
              description:
                count === 0 ? vscode.l10n.t('no folders shared') : count === 1 ? vscode.l10n.t('1 folder shared') : vscode.l10n.t('{0} folders shared', count),
              agent,
            };
          }),
          { title: vscode.l10n.t('Shared Folders'), placeHolder: vscode.l10n.t('Which agent’s shared folders?') },
        );
  if (!agentPick) return;
  const { agent } = agentPick;
  type Item = vscode.QuickPickItem & { path?: string };
  const items: Item[] = candidates.roots.map((root) => ({
    label: root.name,
    description: root.path,
    picked: grants.isGranted(agent, root.path),
    path: root.path,
  }));
  for (const folder of candidates.notShared) {
    items.push({
      label: `$(circle-slash) ${folder.name}`,
      description: folder.location,
      detail: vscode.l10n.t('Cannot be shared: {0}', describeNotShared(folder.reason)),
    });
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Folders shared with {0}', agent),
    placeHolder: vscode.l10n.t('{0} may see the checked folders besides a session’s primary folder. Uncheck a folder to stop sharing it at once.', agent),
    canPickMany: true,
    matchOnDescription: true,
  });
  if (!picked) return;
  // Grants for folders that are not in the workspace right now are kept as they were.
  const other = grants.granted(agent).filter((p) => !candidates.roots.some((root) => root.path === p));
  await grants.set(agent, [...other, ...picked.flatMap((item) => (item.path ? [item.path] : []))]);
}
