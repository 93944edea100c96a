/**
 * The agents of the settings and the ACP Registry: presets, the agents installed from the registry and
 * `acpWorkspace.agents` fed into the {@link AgentRegistry} (again whenever the setting, the catalog or the
 * installed agents change), each process built with the settings of the moment (message size limit, protocol
 * trace) and VS Code's runtime and folders. Problems with the setting are reported, never fatal.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { ClientFeatureOptions } from '../acp/capabilities';
import type { AcpConnection } from '../acp/connection';
import { traceTap } from '../acp/trace';
import {
  isRemoteAgent,
  resolveAgentCommand,
  resolveAgentWritablePaths,
  type AgentCommand,
  type AgentDefinition,
  type CommandVariables,
  type LocalAgentDefinition,
  type RegistryAgentsInput,
  type RemoteAgentDefinition,
} from '../agents/agentConfig';
import { AgentRegistry } from '../agents/agentRegistry';
import type { Event } from '../common/events';
import { Disposable } from '../common/lifecycle';
import type { Logger } from '../common/logger';
import { AgentProcess, type AgentProcessOptions } from '../process/agentProcess';
import type { AgentRuntime } from '../process/agentRuntime';
import type { MessageTap } from '../acp/transport/transport';
import type { Confinement, LaunchConfinement } from '../process/confinement/types';
import type { LaunchInput } from '../sessions/agents/agentConfinement';
import type { RemoteConnection } from '../sessions/routing/sessionRouter';
import { affectsUs, readAgents, readMaxMessageBytes, readTrace } from './settings';

export interface AgentsOptions {
  readonly context: vscode.ExtensionContext;
  readonly logger: Logger;
  readonly features: ClientFeatureOptions;
  /**
   * Registers the agent → client handlers on every new connection, before `initialize`: `confinement` for a local
   * agent (its commands run as it does), `remote` for one that runs elsewhere (see SessionRouter.connect).
   */
  readonly connect: (connection: AcpConnection, confinement?: Confinement, remote?: RemoteConnection) => void;
  /** What each launch of an agent is to use (`acpWorkspace.sandbox`), asked at every launch. */
  readonly confinement?: (agentName: string, input: LaunchInput) => Promise<LaunchConfinement>;
  /**
   * Makes the runtime of an agent that runs elsewhere (`remote` entries: WebSocket, Streamable HTTP, a Sandbox
   * Agent server), with the same handlers, features, size limit and trace as a local one.
   */
  readonly remoteAgent: (definition: RemoteAgentDefinition, shared: SharedRuntimeOptions) => AgentRuntime;
  /** What the ACP Registry adds (`RegistryAgents`): read again whenever it says it changed. */
  readonly registry?: { listInput(): RegistryAgentsInput; readonly onDidChangeAgents: Event<void> };
}

export class AgentsFromSettings extends Disposable {
  readonly registry: AgentRegistry;
  /** The trace setting, read when it changes (the trace tap asks for it on every message). */
  private trace = readTrace();
  /** The problems last reported, so a change of the registry does not repeat them. */
  private reported = '';

  constructor(private readonly options: AgentsOptions) {
    super();
    this.registry = this._register(new AgentRegistry({ isTrusted: () => vscode.workspace.isTrusted, createProcess: (definition) => this.createProcess(definition) }));
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
    return status && !isRemoteAgent(status.definition) ? this.resolve(status.definition) : undefined;
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
        problems.length > 1 ? vscode.l10n.t('ACP Workspace: {0} (and {1} more, see the log)', problems[0]!, problems.length - 1) : vscode.l10n.t('ACP Workspace: {0}', problems[0]!),
        openSettings,
      )
      .then((choice) => {
        if (choice === openSettings) void vscode.commands.executeCommand('workbench.action.openSettingsJson');
      });
  }

  private variables(): CommandVariables {
    const { context } = this.options;
    return {
      node: process.execPath,
      extensionPath: context.extensionUri.fsPath,
      globalStorage: context.globalStorageUri.fsPath,
      // Inside desktop VS Code the runtime is Electron; this makes it behave as plain Node.
      nodeEnv: { ELECTRON_RUN_AS_NODE: '1' },
    };
  }

  private resolve(definition: LocalAgentDefinition): AgentCommand {
    return resolveAgentCommand(definition, this.variables(), process.env);
  }

  /** The confinement of one launch: the settings and the agent's paths as they are now. */
  private launchConfinement(definition: LocalAgentDefinition, confinement: NonNullable<AgentsOptions['confinement']>): Promise<LaunchConfinement> {
    const { paths, readable, ignored } = resolveAgentWritablePaths(definition, this.variables(), process.env, os.homedir());
    if (ignored.length > 0) this.options.logger.warn(`${definition.name}: paths left out (an unset variable, or not absolute): ${ignored.join(', ')}`);
    const registryId = definition.registry?.id;
    return confinement(definition.name, {
      command: this.resolve(definition),
      statePaths: paths,
      readablePaths: readable,
      editorSettings: definition.writableEditorSettings === true,
      extensionPath: this.options.context.extensionUri.fsPath,
      ...(registryId !== undefined ? { registryId } : {}),
    });
  }

  private createProcess(definition: AgentDefinition): AgentRuntime {
    const { logger, features, context, connect, confinement } = this.options;
    const shared: SharedRuntimeOptions = {
      logger,
      clientInfo: { name: 'acp-workspace', title: 'ACP Workspace', version: String(context.extension.packageJSON.version ?? '0.0.0') },
      features,
      maxMessageBytes: readMaxMessageBytes(),
      tap: traceTap(definition.name, () => this.trace, logger),
      registerHandlers: connect,
    };
    if (isRemoteAgent(definition)) return this.options.remoteAgent(definition, shared);
    // The launch asks for its confinement every time (a restart picks up widened folders).
    const options: AgentProcessOptions = {
      command: this.resolve(definition),
      cwd: vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? os.homedir(),
      logger,
      clientInfo: shared.clientInfo,
      features,
      maxLineBytes: shared.maxMessageBytes,
      tap: shared.tap,
      registerHandlers: connect,
      ...(confinement ? { confinement: () => this.launchConfinement(definition, confinement) } : {}),
    };
    return new AgentProcess(options);
  }
}

/** What every agent runtime of this window gets, local or remote. */
export interface SharedRuntimeOptions {
  readonly logger: Logger;
  readonly clientInfo: { readonly name: string; readonly title: string; readonly version: string };
  readonly features: ClientFeatureOptions;
  readonly maxMessageBytes: number;
  readonly tap: MessageTap;
  readonly registerHandlers: (connection: AcpConnection, confinement?: Confinement, remote?: RemoteConnection) => void;
}
