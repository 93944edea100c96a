/**
 * Starting and reopening sessions with their roots. `session/new`, `session/load`, `session/resume` and
 * `session/fork` always carry the complete list: `additionalDirectories` is sent whenever the agent
 * advertises it (an empty list means "no extra roots" and says so explicitly), and never otherwise.
 */
import * as l10n from '@vscode/l10n';
import type { AgentConnection, SessionSetupAnswer } from '../../acp/port/agentConnection';
import type { McpServerConfig } from '../../acp/port/mcp';
import { additionalPaths, describeRoots, type RootSet } from '../../roots/rootSet';
import { AgentSession, type SessionSetup } from './agentSession';

export interface SessionOptions {
  readonly mcpServers?: readonly McpServerConfig[];
}

/** The root fields of a lifecycle request for this agent. Throws if the agent cannot take the set. */
export function rootParams(connection: AgentConnection, rootSet: RootSet): { cwd: string; additionalDirectories?: string[] } {
  const additional = additionalPaths(rootSet);
  if (connection.caps.sessions.additionalDirectories) return { cwd: rootSet.cwd.path, additionalDirectories: additional };
  if (additional.length > 0) {
    throw new Error(
      l10n.t(
        '{0} can only see one folder, but {1} were chosen. Choose one primary folder, or start one session per folder.',
        connection.agentName,
        describeRoots(rootSet),
      ),
    );
  }
  return { cwd: rootSet.cwd.path };
}

/** `session/new` with the given roots. */
export async function startSession(connection: AgentConnection, rootSet: RootSet, options: SessionOptions = {}): Promise<AgentSession> {
  const result = await connection.newSession({ ...rootParams(connection, rootSet), mcpServers: options.mcpServers ?? [] });
  return new AgentSession(connection.agentName, result.sessionId, connection, rootSet, setupOf(result));
}

/** The requests that reopen a session under its own id (which one: see `history/reopenPolicy.ts`). */
export type ReopenMode = 'resume' | 'load';

/**
 * Reopens `sessionId` with `rootSet` as its complete root list, by `session/resume` or `session/load`. Load
 * replays the history as `session/update` before it answers; whoever listens to updates sees the replay.
 */
export async function reopenSession(
  connection: AgentConnection,
  sessionId: string,
  rootSet: RootSet,
  options: SessionOptions & { readonly mode: ReopenMode },
): Promise<AgentSession> {
  const params = { ...rootParams(connection, rootSet), mcpServers: options.mcpServers ?? [] };
  const loader = options.mode === 'resume' ? connection.resumer() : connection.loader();
  if (!loader) throw connection.unsupported(options.mode);
  const result = await loader.reopen(sessionId, params);
  return new AgentSession(connection.agentName, sessionId, connection, rootSet, setupOf(result));
}

/**
 * `session/fork` (unstable): a new session with the source's history and `rootSet` as its complete root
 * list (the agent must not inherit the source's roots).
 */
export async function forkSession(connection: AgentConnection, sessionId: string, rootSet: RootSet, options: SessionOptions = {}): Promise<AgentSession> {
  const params = { ...rootParams(connection, rootSet), mcpServers: options.mcpServers ?? [] };
  const forker = connection.forker();
  if (!forker) throw connection.unsupported('fork');
  const result = await forker.forkSession(sessionId, params);
  return new AgentSession(connection.agentName, result.sessionId, connection, rootSet, setupOf(result));
}

function setupOf(result: SessionSetupAnswer): SessionSetup {
  return { modes: result.modes, models: result.models, configOptions: result.configOptions };
}
