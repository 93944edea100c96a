/**
 * Commands about agents from the ACP Registry: Add Agent… (the gallery), Update Agent, Uninstall Agent. Update and
 * Uninstall run from the Agents view (an agent's item), with a registry id, or from the Command Palette (a pick
 * of the installed agents); they show a cancellable notification while they run and report a failure in the
 * installer's words.
 */
import * as vscode from 'vscode';
import type { AgentRegistry, AgentStatus } from '../agents/agentRegistry';
import type { InstalledAgent } from '../agents/registry/types';
import type { ActionOutcome, RegistryAgents } from '../sessions/agents/registryAgents';

export const RegistryCommandIds = {
  addAgent: 'acpWorkspace.addAgent',
  updateAgent: 'acpWorkspace.updateAgent',
  uninstallAgent: 'acpWorkspace.uninstallAgent',
} as const;

/** From a view item, a registry id, or (from the Command Palette) a pick. */
type RegistryArgument = AgentStatus | string | undefined;

export interface RegistryCommandsOptions {
  readonly registryAgents: RegistryAgents;
  readonly agents: AgentRegistry;
  /** Opens the Add Agent gallery. */
  readonly openGallery: () => void;
  /** Restarts an agent and reopens its chats (`AgentLifecycle.restartAgent`). */
  readonly restart: (name: string) => Promise<unknown>;
}

export function registerRegistryCommands(options: RegistryCommandsOptions): vscode.Disposable[] {
  const { registryAgents } = options;
  return [
    vscode.commands.registerCommand(RegistryCommandIds.addAgent, () => options.openGallery()),
    vscode.commands.registerCommand(RegistryCommandIds.updateAgent, async (argument: RegistryArgument) => {
      const installed = await resolveInstalled(options, argument, { title: vscode.l10n.t('Update Agent'), placeHolder: vscode.l10n.t('Update which agent?') });
      if (!installed) return;
      const available = registryAgents.updateFor(installed.id);
      if (available === undefined) {
        void vscode.window.showInformationMessage(vscode.l10n.t('{0} {1} is the latest version the ACP Registry lists.', installed.name, installed.version));
        return;
      }
      const outcome = await withProgress(registryAgents, installed.id, vscode.l10n.t('Updating {0} to {1}', installed.name, available), (signal) =>
        registryAgents.perform(installed.id, 'install', undefined, signal),
      );
      if (outcome.kind !== 'done') return report(outcome);
      const name = agentNameOf(options.agents, installed.id);
      const running = name !== undefined && isRunning(options.agents.find(name));
      if (!running) {
        void vscode.window.showInformationMessage(vscode.l10n.t('{0} was updated to {1}.', installed.name, available));
        return;
      }
      const restart = vscode.l10n.t('Restart Agent');
      const choice = await vscode.window.showInformationMessage(
        vscode.l10n.t('{0} was updated to {1}. Its running sessions keep the old version until the agent restarts.', installed.name, available),
        restart,
      );
      if (choice === restart) await options.restart(name);
    }),
    vscode.commands.registerCommand(RegistryCommandIds.uninstallAgent, async (argument: RegistryArgument) => {
      const installed = await resolveInstalled(options, argument, {
        title: vscode.l10n.t('Uninstall Agent'),
        placeHolder: vscode.l10n.t('Uninstall which agent?'),
      });
      if (!installed) return;
      if (!(await confirmUninstall(options.agents, installed))) return;
      report(
        await withProgress(registryAgents, installed.id, vscode.l10n.t('Uninstalling {0}', installed.name), (signal) =>
          registryAgents.perform(installed.id, 'uninstall', undefined, signal),
        ),
      );
    }),
  ];
}

/** The installed agent an argument names, or the one the user picks. */
async function resolveInstalled(
  options: RegistryCommandsOptions,
  argument: RegistryArgument,
  question: { title: string; placeHolder: string },
): Promise<InstalledAgent | undefined> {
  const all = options.registryAgents.listInput().installed;
  const id = typeof argument === 'string' ? argument : argument?.definition.registry?.id;
  if (id !== undefined) {
    const found = all.find((agent) => agent.id === id);
    if (!found) void vscode.window.showWarningMessage(vscode.l10n.t('No agent with the id "{0}" is installed from the ACP Registry.', id));
    return found;
  }
  if (all.length === 0) {
    const add = vscode.l10n.t('Add Agent…');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('No agent is installed from the ACP Registry.'), add);
    if (choice === add) await vscode.commands.executeCommand(RegistryCommandIds.addAgent);
    return undefined;
  }
  const items = all.map((agent) => {
    const update = options.registryAgents.updateFor(agent.id);
    return {
      label: agent.name,
      description: update ? vscode.l10n.t('{0} → {1}', agent.version, update) : agent.version,
      detail: agent.description,
      agent,
    };
  });
  const picked = await vscode.window.showQuickPick(items, { title: question.title, placeHolder: question.placeHolder, matchOnDetail: true });
  return picked?.agent;
}

/** The modal confirmation: which agent, what is removed, what stays. */
async function confirmUninstall(agents: AgentRegistry, installed: InstalledAgent): Promise<boolean> {
  const name = agentNameOf(agents, installed.id);
  const running = name !== undefined && isRunning(agents.find(name));
  const removed =
    installed.dir !== undefined
      ? vscode.l10n.t('Its files are removed from {0}.', installed.dir)
      : vscode.l10n.t('It is removed from the agent list; {0} keeps the package in its own cache.', installed.distribution);
  const stays = vscode.l10n.t('What the agent keeps in your home folder (sign-ins, settings, its sessions) stays.');
  const detail = [removed, running ? vscode.l10n.t('It is running: its sessions end.') : undefined, stays].filter(Boolean).join('\n\n');
  const uninstall = vscode.l10n.t('Uninstall');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Uninstall {0} {1}?', installed.name, installed.version),
    { modal: true, detail },
    uninstall,
  );
  return choice === uninstall;
}

/** Runs an action on a registry agent with a cancellable notification that follows its progress. */
function withProgress(
  registryAgents: RegistryAgents,
  id: string,
  title: string,
  action: (signal: AbortSignal) => Promise<ActionOutcome>,
): Thenable<ActionOutcome> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const controller = new AbortController();
    const cancelled = token.onCancellationRequested(() => controller.abort());
    let shown = 0;
    const follow = registryAgents.onDidChange(() => {
      const busy = registryAgents.busy(id);
      if (!busy) return;
      const fraction = busy.progress.fraction;
      // withProgress adds increments up: report what was gained since the last report.
      const increment = fraction === undefined ? undefined : Math.max(0, Math.round(fraction * 100) - shown);
      if (increment !== undefined) shown += increment;
      progress.report({ message: busy.progress.message, ...(increment ? { increment } : {}) });
    });
    try {
      return await action(controller.signal);
    } finally {
      follow.dispose();
      cancelled.dispose();
    }
  });
}

function report(outcome: ActionOutcome): void {
  switch (outcome.kind) {
    case 'done':
    case 'cancelled':
      return;
    case 'busy':
      void vscode.window.showInformationMessage(vscode.l10n.t('Another install, update or uninstall of this agent is running.'));
      return;
    case 'failed':
      void vscode.window.showErrorMessage(outcome.message);
      return;
  }
}

/** The name the agent list shows for a registry agent (a preset's name when it backs one). */
function agentNameOf(agents: AgentRegistry, id: string): string | undefined {
  return agents.list().find((status) => status.definition.registry?.id === id)?.definition.name;
}

function isRunning(status: AgentStatus | undefined): boolean {
  return status?.state === 'running' || status?.state === 'starting';
}
