/**
 * What an agent supports, as one plain typed object read once from its `initialize` answer, and the
 * client capabilities this client advertises (derived from the handlers actually registered).
 */
import type { AuthMethod, ClientCapabilities, Implementation, InitializeResponse } from './schema';

/** Everything the agent advertised, flattened to booleans where the protocol uses `{}` / absent. */
export interface AgentCaps {
  readonly protocolVersion: number;
  readonly agentInfo: Implementation | undefined;
  /** `session/load` (with history replay). */
  readonly loadSession: boolean;
  readonly prompt: { readonly image: boolean; readonly audio: boolean; readonly embeddedContext: boolean };
  readonly mcp: { readonly http: boolean; readonly sse: boolean };
  readonly sessions: {
    readonly list: boolean;
    readonly resume: boolean;
    readonly close: boolean;
    readonly delete: boolean;
    readonly additionalDirectories: boolean;
    /** Unstable `session/fork`. */
    readonly fork: boolean;
    /** Unstable `session/set_title`. */
    readonly setTitle: boolean;
  };
  readonly auth: { readonly logout: boolean };
  readonly authMethods: readonly AuthMethod[];
}

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** Reads the typed capabilities from a validated `initialize` result. */
export function readAgentCaps(response: InitializeResponse): AgentCaps {
  const caps = response.agentCapabilities;
  const sessions = caps.sessionCapabilities;
  return {
    protocolVersion: response.protocolVersion,
    agentInfo: response.agentInfo ?? undefined,
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
    authMethods: response.authMethods,
  };
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
