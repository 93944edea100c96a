/**
 * The agents of the settings and the ACP Registry: presets, the agents installed from the registry and
 * `acpWorkspace.agents` fed into the {@link AgentRegistry} (again whenever the setting, the catalog or the
 * installed agents change), each runtime built by {@link AgentRuntimes} with the settings of the moment (message
 * size limit, protocol trace) and VS Code's folders. Problems with the setting are reported, never fatal.
 */
import * as vscode from 'vscode';
import { isRemoteAgent, type AgentCommand, type RegistryAgentsInput } from '../agents/agentConfig';
import { AgentRegistry } from '../agents/agentRegistry';
import type { Event } from '../common/events';
import { Disposable } from '../common/lifecycle';
import { AgentRuntimes, type AgentRuntimesOptions } from '../sessions/agents/agentRuntimes';
import { affectsUs, readAgents, readMaxMessageBytes, readProtocol, readTrace } from './settings';

export interface AgentsOptions extends Pick<AgentRuntimesOptions, 'logger' | 'features' | 'connect' | 'confinement' | 'remoteAgent'> {
  readonly context: vscode.ExtensionContext;
  /** What the ACP Registry adds (`RegistryAgents`): read again whenever it says it changed. */
  readonly registry?: { listInput(): RegistryAgentsInput; readonly onDidChangeAgents: Event<void> };
}

export class AgentsFromSettings extends Disposable {
  readonly registry: AgentRegistry;
  /** The trace setting, read when it changes (the trace tap asks for it on every message). */
  private trace = readTrace();
  /** The problems last reported, so a change of the registry does not repeat them. */
  private reported = '';
  private readonly runtimes: AgentRuntimes;

  constructor(private readonly options: AgentsOptions) {
    super();
    const { context, logger, features, connect, confinement, remoteAgent } = options;
    this.runtimes = new AgentRuntimes({
      logger,
      features,
      connect,
      ...(confinement ? { confinement } : {}),
      remoteAgent,
      version: () => String(context.extension.packageJSON.version ?? '0.0.0'),
      extensionPath: context.extensionUri.fsPath,
      globalStorage: context.globalStorageUri.fsPath,
      maxMessageBytes: readMaxMessageBytes,
      trace: () => this.trace,
      protocol: readProtocol,
      cwd: () => vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath,
    });
    this.registry = this._register(
      new AgentRegistry({ isTrusted: () => vscode.workspace.isTrusted, createProcess: (definition) => this.runtimes.create(definition) }),
    );
    this.reload();
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsUs(event, 'agents')) this.reload();
        if (affectsUs(event, 'trace')) this.trace = readTrace();
      }),
    );
    if (options.registry) this._register(options.registry.onDidChangeAgents(() => this.reload(false)));
  }

  /** The command line an agent runs (variables expanded), e.g. for a terminal sign-in; none for a remote agent. */
  commandFor(name: string): AgentCommand | undefined {
    const status = this.registry.find(name);
    return status && !isRemoteAgent(status.definition) ? this.runtimes.command(status.definition) : undefined;
  }

  /** `settingsChanged`: the problems are reported again even when they are the same as before. */
  private reload(settingsChanged = true): void {
    const { agents, problems } = readAgents(this.options.registry?.listInput());
    this.registry.setDefinitions(agents);
    const reported = problems.join('\n');
    if (!settingsChanged && reported === this.reported) return;
    this.reported = reported;
    if (problems.length === 0) return;
    for (const problem of problems) this.options.logger.warn(problem);
    const openSettings = vscode.l10n.t('Open Settings');
    void vscode.window
      .showWarningMessage(
        problems.length > 1
          ? vscode.l10n.t('ACP Workspace: {0} (and {1} more, see the log)', problems[0]!, problems.length - 1)
          : vscode.l10n.t('ACP Workspace: {0}', problems[0]!),
        openSettings,
      )
      .then((choice) => {
        if (choice === openSettings) void vscode.commands.executeCommand('workbench.action.openSettingsJson');
      });
  }
}
