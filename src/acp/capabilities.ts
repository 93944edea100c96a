/**
 * ACP v1: what an agent supports, read once from its `initialize` answer into the port's {@link AgentCaps}, and
 * the client capabilities this client advertises (derived from the handlers actually registered).
 */
import type { AgentCaps, AuthMethod } from './port/agentConnection';
import type { AuthMethod as V1AuthMethod, ClientCapabilities, InitializeResponse } from './schema';

export type { AgentCaps } from './port/agentConnection';

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** Reads the typed capabilities from a validated `initialize` result. */
export function readAgentCaps(response: InitializeResponse): AgentCaps {
  const caps = response.agentCapabilities;
  const sessions = caps.sessionCapabilities;
  return {
    protocolVersion: response.protocolVersion,
    agentInfo: response.agentInfo
      ? {
          name: response.agentInfo.name,
          version: response.agentInfo.version,
          ...(response.agentInfo.title !== undefined && response.agentInfo.title !== null ? { title: response.agentInfo.title } : {}),
        }
      : undefined,
    loadSession: caps.loadSession,
    prompt: {
      image: caps.promptCapabilities.image,
      audio: caps.promptCapabilities.audio,
      embeddedContext: caps.promptCapabilities.embeddedContext,
    },
    mcp: { http: caps.mcpCapabilities.http, sse: caps.mcpCapabilities.sse },
    sessions: {
      list: present(sessions.list),
      resume: present(sessions.resume),
      close: present(sessions.close),
      delete: present(sessions.delete),
      additionalDirectories: present(sessions.additionalDirectories),
      fork: present(sessions.fork),
      setTitle: present(sessions.title),
    },
    auth: { logout: present(caps.auth.logout) },
    authMethods: response.authMethods.map(authMethod),
  };
}

function authMethod(method: V1AuthMethod): AuthMethod {
  if (method.type === '$unknown') return { type: 'unknown', tag: method.tag, raw: method.raw };
  const base = {
    id: method.id,
    name: method.name,
    ...(method.description !== undefined && method.description !== null ? { description: method.description } : {}),
  };
  return method.type === 'terminal' ? { ...base, type: 'terminal', args: method.args, env: method.env } : { ...base, type: 'agent' };
}

/** The parts of the client's capabilities that depend on UI rather than on registered handlers. */
export interface ClientFeatureOptions {
  /** The client renders boolean config options. */
  readonly booleanConfigOptions?: boolean;
  /** The client renders `notice` updates. */
  readonly notices?: boolean;
  /** The client renders compaction updates. */
  readonly compaction?: boolean;
  /** The client can run `terminal` auth methods (the agent command in a terminal). */
  readonly terminalAuth?: boolean;
}

/** Which agent → client request handlers are registered. */
export interface RegisteredHandlers {
  readonly readTextFile: boolean;
  readonly writeTextFile: boolean;
  /** All five `terminal/*` methods. */
  readonly terminal: boolean;
  readonly elicitationForm: boolean;
  readonly elicitationUrl: boolean;
}

/** Builds honest client capabilities: a capability is advertised only if it is really served. */
export function buildClientCapabilities(handlers: RegisteredHandlers, features: ClientFeatureOptions): ClientCapabilities {
  const capabilities: ClientCapabilities = {
    fs: { readTextFile: handlers.readTextFile, writeTextFile: handlers.writeTextFile },
    terminal: handlers.terminal,
    auth: { terminal: features.terminalAuth ?? false },
  };
  const session: NonNullable<ClientCapabilities['session']> = {};
  if (features.booleanConfigOptions) session.configOptions = { boolean: {} };
  if (features.notices) session.notices = {};
  if (features.compaction) session.compaction = {};
  if (Object.keys(session).length > 0) capabilities.session = session;
  if (handlers.elicitationForm || handlers.elicitationUrl) {
    const elicitation: NonNullable<ClientCapabilities['elicitation']> = {};
    if (handlers.elicitationForm) elicitation.form = {};
    if (handlers.elicitationUrl) elicitation.url = {};
    capabilities.elicitation = elicitation;
  }
  return capabilities;
}
