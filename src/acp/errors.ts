/**
 * Errors of the ACP layer, each saying in plain words what went wrong and with which agent.
 * JSON-RPC error codes from the agent are mapped to typed errors by {@link toAcpError}.
 */
import * as l10n from '@vscode/l10n';
import type { AuthMethod } from './schema';

/** JSON-RPC and ACP error codes. */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** ACP: the request was cancelled (`$/cancel_request` or `session/cancel`). */
  RequestCancelled: -32800,
  /** ACP: authentication required; call `authenticate` with one of the agent's `authMethods`. */
  AuthRequired: -32000,
  /** ACP: resource not found (unknown or inactive session). */
  ResourceNotFound: -32002,
} as const;

/** An error the agent returned for one of our requests. */
export class AgentRequestError extends Error {
  override name = 'AgentRequestError';
  constructor(
    readonly agent: string,
    readonly method: string,
    readonly code: number,
    readonly agentMessage: string,
    readonly data?: unknown,
  ) {
    super(`${agent} rejected ${method}: ${withDetails(agentMessage, data)} (error ${code})`);
  }
}

/**
 * The agent's error message plus `data.details` when that holds the real reason: the ACP SDKs answer an
 * error thrown in a handler with `-32603 "Internal error"` and put the thrown message in `details`
 * (claude-agent-acp's "Session not found", for one).
 */
export function withDetails(message: string, data: unknown): string {
  const details = typeof data === 'object' && data !== null ? (data as { details?: unknown }).details : undefined;
  if (typeof details !== 'string' || details.trim() === '' || message.includes(details.trim())) return message;
  return `${message}: ${details.trim()}`;
}

/** `-32000`: the agent wants the user to sign in first. Carries the methods it offered at initialize. */
export class AuthRequiredError extends AgentRequestError {
  override name = 'AuthRequiredError';
  constructor(
    agent: string,
    method: string,
    agentMessage: string,
    data: unknown,
    readonly authMethods: readonly AuthMethod[],
  ) {
    super(agent, method, ErrorCodes.AuthRequired, agentMessage, data);
    this.message = l10n.t('{0} needs you to sign in before {1}: {2}', agent, method, agentMessage);
  }
}

/** `-32002`: the session does not exist (any more) on the agent's side. */
export class SessionNotFoundError extends AgentRequestError {
  override name = 'SessionNotFoundError';
  constructor(
    agent: string,
    method: string,
    agentMessage: string,
    data: unknown,
    readonly sessionId: string | undefined,
  ) {
    super(agent, method, ErrorCodes.ResourceNotFound, agentMessage, data);
    this.message =
      sessionId === undefined
        ? l10n.t('{0} does not know the session ({1}): {2}', agent, method, agentMessage)
        : l10n.t('{0} does not know session {1} ({2}): {3}', agent, sessionId, method, agentMessage);
  }
}

/** `-32800`: the request was cancelled. */
export class RequestCancelledError extends AgentRequestError {
  override name = 'RequestCancelledError';
  constructor(agent: string, method: string, agentMessage: string, data?: unknown) {
    super(agent, method, ErrorCodes.RequestCancelled, agentMessage, data);
    this.message = `${method} to ${agent} was cancelled`;
  }
}

/** The agent answered, but not with what the protocol says. Nothing is guessed from such an answer. */
export class InvalidResponseError extends Error {
  override name = 'InvalidResponseError';
  constructor(
    readonly agent: string,
    readonly method: string,
    readonly details: string,
  ) {
    super(`${agent} sent an invalid answer to ${method}: ${details}`);
  }
}

/** A method or field the agent did not advertise. Thrown before anything is sent. */
export class CapabilityError extends Error {
  override name = 'CapabilityError';
  constructor(
    readonly agent: string,
    readonly what: string,
    readonly capability: string,
  ) {
    super(`${agent} does not support ${what} (it did not advertise ${capability}).`);
  }
}

/** The agent speaks another protocol version; the connection was closed. */
export class ProtocolVersionError extends Error {
  override name = 'ProtocolVersionError';
  constructor(
    readonly agent: string,
    readonly agentVersion: unknown,
    readonly clientVersion: number,
  ) {
    super(
      `${agent} speaks ACP protocol version ${JSON.stringify(agentVersion)}, but ACP Workspace speaks version ${clientVersion}. ` +
        'Update the agent or ACP Workspace so both use the same version.',
    );
  }
}

/** The connection ended (agent exited, stopped, or disposed) while a request was outstanding. */
export class ConnectionClosedError extends Error {
  override name = 'ConnectionClosedError';
  constructor(
    readonly agent: string,
    readonly method: string | undefined,
    readonly reason: string,
  ) {
    super(method ? `${method} to ${agent} failed: ${reason}` : `${agent}: ${reason}`);
  }
}

/** Shape of a JSON-RPC error as vscode-jsonrpc hands it over. */
interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

function isWireError(error: unknown): error is WireError {
  return typeof error === 'object' && error !== null && typeof (error as WireError).code === 'number' && typeof (error as WireError).message === 'string';
}

/**
 * Maps what a request rejected with onto the typed errors above. Errors that are already ours pass
 * through; anything else becomes an {@link AgentRequestError} or stays as it is.
 */
export function toAcpError(error: unknown, agent: string, method: string, authMethods: readonly AuthMethod[], params?: unknown): unknown {
  if (error instanceof AgentRequestError || error instanceof ConnectionClosedError) return error;
  if (!isWireError(error)) return error;
  switch (error.code) {
    case ErrorCodes.AuthRequired:
      return new AuthRequiredError(agent, method, error.message, error.data, authMethods);
    case ErrorCodes.ResourceNotFound:
      return new SessionNotFoundError(agent, method, error.message, error.data, sessionIdOf(error.data) ?? sessionIdOf(params));
    case ErrorCodes.RequestCancelled:
      return new RequestCancelledError(agent, method, error.message, error.data);
    default:
      return new AgentRequestError(agent, method, error.code, error.message, error.data);
  }
}

function sessionIdOf(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null) {
    const id = (value as { sessionId?: unknown }).sessionId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}
