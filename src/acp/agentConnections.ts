/**
 * The one place that chooses the protocol adapter for a new connection to an agent, for an agent process of ours
 * (`process/AgentProcess`) and for an agent behind a URL (`remote/RemoteAgent`) alike. Today that is ACP v1
 * (`AcpConnection`) for every agent; the version is then confirmed from the `initialize` answer
 * (`protocolVersion.ts`), where v2 plugs in. The owner gets the port's {@link AgentConnection} plus what only an
 * owner does with it: initialize it, close it, end it.
 */
import type { AgentCaps } from './capabilities';
import { AcpConnection, type AcpConnectionOptions, type InitializeOptions } from './connection';
import type { AgentConnection, CancellationToken } from './port/agentConnection';

export type { InitializeOptions } from './connection';

/** The options of a new connection: its transport, log, message tap, and how it explains the agent's errors. */
export type AgentConnectionOptions = AcpConnectionOptions;

/** A connection as the runtime that owns it holds it. */
export interface OwnedAgentConnection extends AgentConnection {
  /** Negotiates version and capabilities; register what the client serves first (it is advertised from that). */
  initialize(options: InitializeOptions, token?: CancellationToken): Promise<AgentCaps>;
  /** Delivers what arrived, then ends the connection: outstanding requests fail with `reason`. */
  close(reason: string, drainTimeoutMs?: number): void;
  /** Ends the connection at once. */
  dispose(reason?: string): void;
}

export function createAgentConnection(options: AgentConnectionOptions): OwnedAgentConnection {
  return new AcpConnection(options);
}
