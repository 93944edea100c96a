/**
 * The runtime of each agent definition, built at its launch with the settings of the moment (message size limit,
 * protocol trace): a local agent's process (its command with variables expanded, started in the first local
 * folder, its confinement asked for at every launch so a restart picks up widened folders), or a remote entry's
 * runtime, both with the same handlers, features, size limit and trace. The VS Code adapter
 * (vscode/agents.ts) feeds it the settings and the folders; it needs no VS Code.
 */
import * as os from 'node:os';
import type { ClientFeatureOptions } from '../../acp/capabilities';
import type { AgentConnection, ProtocolChoice } from '../../acp/port/agentConnection';
import { traceTap, type TraceLevel } from '../../acp/trace';
import type { MessageTap } from '../../acp/transport/transport';
import {
  isRemoteAgent,
  resolveAgentCommand,
  resolveAgentWritablePaths,
  type AgentCommand,
  type AgentDefinition,
  type CommandVariables,
  type LocalAgentDefinition,
  type RemoteAgentDefinition,
} from '../../agents/agentConfig';
import type { Logger } from '../../common/logger';
import { AgentProcess, type AgentProcessOptions } from '../../process/agentProcess';
import type { AgentRuntime } from '../../process/agentRuntime';
import type { Confinement, LaunchConfinement } from '../../process/confinement/types';
import type { RemoteConnection } from '../routing/sessionRouter';
import type { LaunchInput } from './agentConfinement';

/** What every agent runtime of this window gets, local or remote. */
export interface SharedRuntimeOptions {
  readonly logger: Logger;
  readonly clientInfo: { readonly name: string; readonly title: string; readonly version: string };
  readonly features: ClientFeatureOptions;
  readonly maxMessageBytes: number;
  readonly tap: MessageTap;
  readonly registerHandlers: (connection: AgentConnection, confinement?: Confinement, remote?: RemoteConnection) => void;
}

export interface AgentRuntimesOptions {
  readonly logger: Logger;
  readonly features: ClientFeatureOptions;
  /**
   * Registers the agent → client handlers on every new connection, before `initialize`: `confinement` for a local
   * agent (its commands run as it does), `remote` for one that runs elsewhere (see SessionRouter.connect).
   */
  readonly connect: (connection: AgentConnection, confinement?: Confinement, remote?: RemoteConnection) => void;
  /** What each launch of an agent is to use (`acpWorkspace.sandbox`), asked at every launch. */
  readonly confinement?: (agentName: string, input: LaunchInput) => Promise<LaunchConfinement>;
  /**
   * Makes the runtime of an agent that runs elsewhere (`remote` entries: WebSocket, Streamable HTTP, a Sandbox
   * Agent server), with the same handlers, features, size limit and trace as a local one.
   */
  readonly remoteAgent: (definition: RemoteAgentDefinition, shared: SharedRuntimeOptions) => AgentRuntime;
  /** This extension's version, sent as the client's in `initialize`. */
  readonly version: () => string;
  /** Where the extension is installed, and its global storage (the `${extensionPath}`, `${globalStorage}` variables). */
  readonly extensionPath: string;
  readonly globalStorage: string;
  /** The size limit of one message (`acpWorkspace.maxMessageSizeMiB`), read at every launch. */
  readonly maxMessageBytes: () => number;
  /** Which ACP version to offer a local agent (`acpWorkspace.protocol`), read at every launch; its entry's `protocol` wins. */
  readonly protocol?: () => ProtocolChoice;
  /** The protocol trace level now (`acpWorkspace.trace`), asked on every message. */
  readonly trace: () => TraceLevel;
  /** The folder a local agent starts in, asked at every launch. */
  readonly cwd: () => string | undefined;
}

export class AgentRuntimes {
  constructor(private readonly options: AgentRuntimesOptions) {}

  /** The command line a local agent runs, variables expanded. */
  command(definition: LocalAgentDefinition): AgentCommand {
    return resolveAgentCommand(definition, this.variables(), process.env);
  }

  /** The runtime of one definition (the registry calls it at each launch of a new agent). */
  create(definition: AgentDefinition): AgentRuntime {
    const { logger, features, connect, confinement } = this.options;
    const shared: SharedRuntimeOptions = {
      logger,
      clientInfo: { name: 'acp-workspace', title: 'ACP Workspace', version: this.options.version() },
      features,
      maxMessageBytes: this.options.maxMessageBytes(),
      tap: traceTap(definition.name, this.options.trace, logger),
      registerHandlers: connect,
    };
    if (isRemoteAgent(definition)) return this.options.remoteAgent(definition, shared);
    // The launch asks for its confinement every time (a restart picks up widened folders).
    const options: AgentProcessOptions = {
      command: this.command(definition),
      cwd: this.options.cwd() ?? os.homedir(),
      logger,
      clientInfo: shared.clientInfo,
      features,
      maxLineBytes: shared.maxMessageBytes,
      tap: shared.tap,
      registerHandlers: connect,
      protocol: definition.protocol ?? this.options.protocol?.() ?? 'v1',
      ...(confinement ? { confinement: () => this.launchConfinement(definition, confinement) } : {}),
    };
    return new AgentProcess(options);
  }

  private variables(): CommandVariables {
    return {
      node: process.execPath,
      extensionPath: this.options.extensionPath,
      globalStorage: this.options.globalStorage,
      // Inside desktop VS Code the runtime is Electron; this makes it behave as plain Node.
      nodeEnv: { ELECTRON_RUN_AS_NODE: '1' },
    };
  }

  /** The confinement of one launch: the settings and the agent's paths as they are now. */
  private launchConfinement(definition: LocalAgentDefinition, confinement: NonNullable<AgentRuntimesOptions['confinement']>): Promise<LaunchConfinement> {
    const { paths, readable, ignored } = resolveAgentWritablePaths(definition, this.variables(), process.env, os.homedir());
    if (ignored.length > 0) this.options.logger.warn(`${definition.name}: paths left out (an unset variable, or not absolute): ${ignored.join(', ')}`);
    const registryId = definition.registry?.id;
    return confinement(definition.name, {
      command: this.command(definition),
      statePaths: paths,
      readablePaths: readable,
      editorSettings: definition.writableEditorSettings === true,
      extensionPath: this.options.extensionPath,
      ...(registryId !== undefined ? { registryId } : {}),
    });
  }
}
