/** Commands about agents: start, stop, restart, pick the default, configure, show the log. */
import * as vscode from 'vscode';
import type { AgentRegistry, AgentStatus } from '../agents/agentRegistry';
import { readDefaultAgent, writeDefaultAgent } from './settings';
import { errorMessage } from '../common/errors';

export const AgentCommandIds = {
  start: 'acpWorkspace.startAgent',
  stop: 'acpWorkspace.stopAgent',
  restart: 'acpWorkspace.restartAgent',
  selectDefault: 'acpWorkspace.selectDefaultAgent',
  configure: 'acpWorkspace.configureAgents',
  showLog: 'acpWorkspace.showLog',
} as const;

/** From a view item, a name, or (from the Command Palette) a pick. */
type AgentArgument = AgentStatus | string | undefined;

/**
 * `restart` restarts an agent and reopens its open chats (`AgentLifecycle.restartAgent`): the Agents view, the
 * Command Palette and a chat's Restart button do the same.
 */
export function registerAgentCommands(agents: AgentRegistry, log: vscode.LogOutputChannel, restart: (name: string) => Promise<unknown>): vscode.Disposable[] {
  const resolve = async (argument: AgentArgument, question: AgentQuestion, filter?: (s: AgentStatus) => boolean) => {
    if (typeof argument === 'string') return argument;
    if (argument) return argument.definition.name;
    return pickAgent(agents, question, filter);
  };

  return [
    vscode.commands.registerCommand(AgentCommandIds.start, async (argument: AgentArgument) => {
      const name = await resolve(argument, { title: vscode.l10n.t('Start Agent'), placeHolder: vscode.l10n.t('Start which agent?') });
      if (name) await startWithProgress(agents, name, log);
    }),
    vscode.commands.registerCommand(AgentCommandIds.stop, async (argument: AgentArgument) => {
      const name = await resolve(
        argument,
        { title: vscode.l10n.t('Stop Agent'), placeHolder: vscode.l10n.t('Stop which agent?') },
        (s) => s.state === 'running' || s.state === 'starting',
      );
      if (name) await agents.stop(name);
    }),
    vscode.commands.registerCommand(AgentCommandIds.restart, async (argument: AgentArgument) => {
      const name = await resolve(argument, { title: vscode.l10n.t('Restart Agent'), placeHolder: vscode.l10n.t('Restart which agent?') });
      if (name) await startWithProgress(agents, name, log, restart);
    }),
    vscode.commands.registerCommand(AgentCommandIds.selectDefault, async () => {
      const name = await pickAgent(agents, {
        title: vscode.l10n.t('Select Default Agent'),
        placeHolder: vscode.l10n.t('Which agent should new sessions use?'),
      });
      if (name) await writeDefaultAgent(name);
    }),
    vscode.commands.registerCommand(AgentCommandIds.configure, () => vscode.commands.executeCommand('workbench.action.openSettings', 'acpWorkspace.agents')),
    vscode.commands.registerCommand(AgentCommandIds.showLog, () => log.show(true)),
  ];
}

/** Starts (or, with `restart`, restarts) an agent with a progress indicator; explains a failure with ways forward. */
export async function startWithProgress(
  agents: AgentRegistry,
  name: string,
  log: vscode.LogOutputChannel,
  restart?: (name: string) => Promise<unknown>,
): Promise<boolean> {
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: restart ? vscode.l10n.t('Restarting {0}…', name) : vscode.l10n.t('Starting {0}…', name) },
      () => (restart ? restart(name) : agents.start(name)),
    );
    return true;
  } catch (error) {
    const message = errorMessage(error);
    log.error(message);
    const choice = await vscode.window.showErrorMessage(message, vscode.l10n.t('Show Log'), vscode.l10n.t('Configure Agents'));
    if (choice === vscode.l10n.t('Show Log')) log.show(true);
    if (choice === vscode.l10n.t('Configure Agents')) await vscode.commands.executeCommand(AgentCommandIds.configure);
    return false;
  }
}

/** What an agent pick asks: its title (the command's name) and the question under it. */
export interface AgentQuestion {
  readonly title: string;
  readonly placeHolder: string;
}

export async function pickAgent(agents: AgentRegistry, question: AgentQuestion, filter: (s: AgentStatus) => boolean = () => true): Promise<string | undefined> {
  const defaultName = readDefaultAgent();
  const items = agents
    .list()
    .filter(filter)
    .map((status) => ({
      label: status.definition.name,
      description: [status.definition.name === defaultName ? 'default' : '', status.state === 'stopped' ? '' : status.state].filter(Boolean).join(' · '),
      detail: status.definition.description,
    }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No agent is running.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: question.title, placeHolder: question.placeHolder, matchOnDetail: true });
  return picked?.label;
}
