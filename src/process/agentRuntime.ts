/**
 * What the rest of the extension knows of a running agent, wherever it runs: a child process of ours
 * ({@link AgentProcess}) or an agent behind a URL (`remote/RemoteAgent`). The registry, the views and the
 * sessions only use this contract.
 */
import type { Event } from 'vscode-jsonrpc/node';
import type { AgentCaps } from '../acp/capabilities';
import type { AgentConnection } from '../acp/port/agentConnection';
import type { Confinement } from './confinement/types';

/** Lifecycle states, as vscode-languageclient names them. */
export type AgentState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export interface AgentStateChange {
  readonly state: AgentState;
  /** Why, in words, when it stopped or failed (or, for a remote agent, why it is reconnecting). */
  readonly message?: string;
}

/** Where a remote agent is, for the UI (never any secret: no token, no header values). */
export interface RemoteAgentInfo {
  /** The URL as the user configured it (a Sandbox Agent server's base URL for its agents). */
  readonly url: string;
  /** `websocket`, `http` (Streamable HTTP) or `sandbox-agent` (a Sandbox Agent server's ACP endpoint). */
  readonly kind: 'websocket' | 'http' | 'sandbox-agent';
  /** The agent's id on a Sandbox Agent server. */
  readonly sandboxAgent?: string;
  /** Set while the link is down and a reconnect is planned: when the next attempt starts (ms since epoch). */
  readonly reconnectAt?: number;
  /** Set when its server refused the credentials at the last connect (it waits for Set Token… and a restart). */
  readonly credentialsRefused?: boolean;
}

export interface AgentRuntime {
  readonly name: string;
  readonly state: AgentState;
  /** The initialized connection while running. */
  readonly connection: AgentConnection | undefined;
  readonly caps: AgentCaps | undefined;
  /** How a local agent was started (confined or not); undefined for a remote agent. */
  readonly confinement: Confinement | undefined;
  /** The last lines a local agent wrote to stderr (bounded, secrets redacted); a remote agent has none. */
  readonly recentStderr: readonly string[];
  /** Process id of a local agent while a process exists. */
  readonly pid: number | undefined;
  /** Set for an agent reached over the network. */
  readonly remote?: RemoteAgentInfo;
  /** Every state change, with the reason when it stopped or failed. */
  readonly onDidChangeState: Event<AgentStateChange>;
  /**
   * A new connection after the old one ended unexpectedly (a local agent restarted automatically, a remote
   * agent reconnected): the sessions of the old one are gone and are to be reopened.
   */
  readonly onDidRestart: Event<AgentConnection>;
  /** Starts (or joins a start in progress) and resolves with the initialized connection. */
  start(): Promise<AgentConnection>;
  /** Stops it; outstanding requests fail with `reason`. */
  stop(reason?: string): Promise<void>;
  /** Stops (if needed) and starts again. */
  restart(): Promise<AgentConnection>;
  /** Stops it for good; settles when it is gone. */
  dispose(): Promise<void>;
}
