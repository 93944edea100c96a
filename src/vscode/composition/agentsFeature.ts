/**
 * The agents: how each launch is confined, the ACP Registry (its catalog, the agents installed from it, their
 * icons), remote agents (links, credentials, path mappings), the agent list from the settings and its registry,
 * Add Remote Agent…, and the MCP servers sessions are given.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sandboxAgentLink } from '../../acp/transport/sandboxAgentLink';
import { isRemoteAgent, presetsByRegistryId } from '../../agents/agentConfig';
import type { AgentRegistry } from '../../agents/agentRegistry';
import { IconCache } from '../../agents/registry/icons';
import { RegistryInstaller } from '../../agents/registry/install/installer';
import { HttpRegistrySource, snapshotFromFile } from '../../agents/registry/registrySource';
import { isNewer } from '../../agents/registry/version';
import type { Logger } from '../../common/logger';
import { McpServers } from '../../mcp/mcpServers';
import { findConfiner } from '../../process/confinement/find';
import { probeAddress } from '../../remote/reachability';
import { SandboxAgentServer } from '../../remote/sandboxAgentServer';
import { AddRemoteAgent } from '../../sessions/agents/addRemoteAgent';
import { AgentConfinement } from '../../sessions/agents/agentConfinement';
import { RegistryAgents } from '../../sessions/agents/registryAgents';
import { defaultLinkFactory, RemoteAgents } from '../../sessions/agents/remoteAgents';
import { sandboxServersOver } from '../../sessions/agents/sandboxServers';
import type { IsMapped } from '../../sessions/opening/mappedFolders';
import type { AgentPool } from '../../sessions/ports';
import { AgentsFromSettings } from '../agents';
import { RemoteSecrets } from '../remoteSecrets';
import { readRegistryUrl, readSandbox } from '../settings';
import { localFolders } from '../workspace';
import type { ChatsFeature } from './chatsFeature';
import type { Uis } from './uis';

export interface AgentsFeature {
  readonly confinement: AgentConfinement;
  readonly registrySource: HttpRegistrySource;
  readonly registryAgents: RegistryAgents;
  readonly remoteSecrets: RemoteSecrets;
  /** The agents of the settings (their runtimes); `registry` is their state. */
  readonly agents: AgentsFromSettings;
  readonly registry: AgentRegistry;
  readonly addRemoteAgent: AddRemoteAgent;
  /** Every start and restart of an agent by a session: a refusal to run unconfined is asked about (fail closed). */
  readonly pool: AgentPool;
  readonly mcp: McpServers;
  /** A remote agent whose entry maps folders is given only those. */
  readonly mappedFolders: (agentName: string) => IsMapped;
}

export function composeAgents(context: vscode.ExtensionContext, logger: Logger, uis: Uis, { grants, sessions, router, chats }: ChatsFeature): AgentsFeature {
  // How each launch is confined; the agents' lifecycle (sessionsFeature) restarts an agent when its folders change.
  const confinement = new AgentConfinement({
    mode: readSandbox,
    findConfiner: (env) => findConfiner(process.platform, env),
    grants,
    sessions,
    // The sessions of the agent's open chats: a launch (a restart, a recovery) serves them.
    serving: (name) => chats.all().flatMap((chat) => (chat.session.agentName === name ? [chat.session] : [])),
    ui: () => uis.confinement,
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
    connect: (connection, launched, remote) => router.connect(connection, launched, remote),
    confinement: (name, input) => confinement.launch(name, input),
    remoteAgent: (definition, shared) => remoteAgents.create(definition, shared),
  });
  const registry = agents.registry;
  const addRemoteAgent = new AddRemoteAgent({
    ui: () => uis.remoteAgent,
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
  const mcp = new McpServers(
    {
      folders: localFolders,
      setting: () => vscode.workspace.getConfiguration('acpWorkspace').get<unknown>('mcpServers'),
      trusted: () => vscode.workspace.isTrusted,
    },
    logger,
  );
  const mappedFolders = (name: string): IsMapped => {
    const definition = registry.find(name)?.definition;
    return definition && isRemoteAgent(definition) ? remoteAgents.mappedFolders(definition) : undefined;
  };
  return {
    confinement,
    registrySource,
    registryAgents,
    remoteSecrets,
    agents,
    registry,
    addRemoteAgent,
    pool: confinement.guardPool(registry),
    mcp,
    mappedFolders,
  };
}
