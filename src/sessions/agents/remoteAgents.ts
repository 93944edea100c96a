/**
 * The agents of `remote` entries: each a {@link RemoteAgent} over the link its endpoint needs (WebSocket, Streamable
 * HTTP, a Sandbox Agent server's ACP endpoint), its credentials read from the secret storage at every connect, and,
 * when its entry maps folders, every message through the path mapping (`mappedTransport`), whose refusals the chat
 * shows. Also says which folders such an agent can be given at all.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { createPathMapper, type PathMapper } from '../../acp/pathMapping';
import { mappedTransport, type PathRefusal } from '../../acp/pathMappingTransport';
import type { RemoteCredentials, RemoteKind, RemoteLinkFactory } from '../../acp/transport/remote';
import { streamableHttpLink } from '../../acp/transport/streamableHttp';
import { webSocketLink } from '../../acp/transport/ws';
import { remoteAgentConfig, type RemoteAgentDefinition } from '../../agents/agentConfig';
import type { AgentRuntime } from '../../process/agentRuntime';
import { RemoteAgent } from '../../remote/remoteAgent';
import type { SharedRuntimeOptions } from './agentRuntimes';

export interface RemoteAgentsOptions {
  /** The credentials for an endpoint URL (the secret storage), read at every connect. */
  readonly credentials: (url: string) => Promise<RemoteCredentials>;
  /** A remote agent asked for a path its mapping does not share (answered already; the chat shows it). */
  readonly onRefused: (agentName: string, refusal: PathRefusal) => void;
  /** The link for each kind of endpoint (tests may replace it). */
  readonly linkFactory?: (kind: RemoteKind) => RemoteLinkFactory;
}

/** The real links. */
export function defaultLinkFactory(kind: RemoteKind, sandboxAgentLink: RemoteLinkFactory): RemoteLinkFactory {
  switch (kind) {
    case 'websocket':
      return webSocketLink;
    case 'http':
      return streamableHttpLink;
    case 'sandbox-agent':
      return sandboxAgentLink;
  }
}

export class RemoteAgents {
  /** Mappers by the entry's mappings (an entry changed in the settings gets a new one). */
  private readonly mappers = new Map<string, PathMapper>();

  constructor(private readonly options: RemoteAgentsOptions & { readonly linkFactory: (kind: RemoteKind) => RemoteLinkFactory }) {}

  /** The runtime of one remote entry. */
  create(definition: RemoteAgentDefinition, shared: SharedRuntimeOptions): AgentRuntime {
    const config = remoteAgentConfig(definition.remote, os.homedir());
    const mapper = this.mapperFor(definition);
    return new RemoteAgent({
      name: definition.name,
      endpoint: config.endpoint,
      credentials: () => this.options.credentials(config.endpoint.url),
      linkFactory: this.options.linkFactory,
      ...(mapper
        ? { wrapTransport: (link) => mappedTransport(link, mapper, { onRefused: (refusal) => this.options.onRefused(definition.name, refusal) }) }
        : {}),
      logger: shared.logger,
      clientInfo: shared.clientInfo,
      features: shared.features,
      // Its commands would run here, where it is not confined: the terminal only with its entry's opt-in.
      registerHandlers: (connection) => shared.registerHandlers(connection, undefined, { localTerminal: definition.remote.localTerminal }),
      maxMessageBytes: shared.maxMessageBytes,
      tap: shared.tap,
    });
  }

  /**
   * Which of this machine's folders the agent can be given: those its mappings cover; undefined when the entry maps
   * nothing (the agent sees this machine's paths).
   */
  mappedFolders(definition: RemoteAgentDefinition): ((folder: string) => boolean) | undefined {
    const mapper = this.mapperFor(definition);
    return mapper && ((folder: string) => mapper.toRemote(folder) !== undefined);
  }

  private mapperFor(definition: RemoteAgentDefinition): PathMapper | undefined {
    const { pathMappings } = remoteAgentConfig(definition.remote, os.homedir());
    if (pathMappings.length === 0) return undefined;
    // Workspace folders are compared by real path (a folder opened through a link is the folder it links to).
    const real = pathMappings.map((m) => ({ local: realPath(m.local), remote: m.remote }));
    const key = JSON.stringify(real);
    let mapper = this.mappers.get(key);
    if (!mapper) {
      // The settings reader already refused mappings that cannot be used (checkPathMappings).
      mapper = createPathMapper(real);
      this.mappers.set(key, mapper);
    }
    return mapper;
  }
}

function realPath(folder: string): string {
  try {
    return fs.realpathSync.native(folder);
  } catch {
    return folder;
  }
}
