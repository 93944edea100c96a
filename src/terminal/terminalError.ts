/**
 * The error every terminal operation fails with. It is the port's {@link ClientRefusal}, so a terminal host can
 * let it propagate and the agent receives its code, message and data unchanged (the protocol adapter answers
 * with them).
 */
import { ClientRefusal, RefusalCodes } from '../acp/port/client';

/** Codes a {@link TerminalError} carries. */
export const TerminalErrorCodes = {
  /** Bad request: an empty command, a cwd that is not allowed or not a folder. */
  InvalidParams: RefusalCodes.InvalidParams,
  /** No such terminal in this session (never created, released, or another session's). */
  UnknownTerminal: RefusalCodes.ResourceNotFound,
  /** The command could not be started (not found, not executable…). */
  SpawnFailed: RefusalCodes.InternalError,
  /** `terminal/wait_for_exit` was cancelled. */
  Cancelled: RefusalCodes.RequestCancelled,
  /** The client terminal is not offered to this agent (it was not advertised). */
  NotOffered: RefusalCodes.MethodNotFound,
  /** The command was refused: the user did not allow it, or it cannot be confined. */
  Refused: RefusalCodes.InvalidParams,
} as const;

/** Extra details sent with the error (`data`), for logs and for agents that read them. */
export interface TerminalErrorData {
  readonly terminalId?: string;
  readonly sessionId?: string;
  readonly command?: string;
  readonly cwd?: string;
  /** The session's roots, when the cwd was refused. */
  readonly roots?: readonly string[];
  /** The guard's or the operating system's reason (`outside-roots`, `ENOENT`…). */
  readonly reason?: string;
}

/** A terminal operation that failed; `code` is the JSON-RPC error code to answer with. */
export class TerminalError extends ClientRefusal<TerminalErrorData> {
  override name = 'TerminalError';
}

/**
 * The session's RootGuard refused the folder a command was to run in (outside the roots, or a path it cannot
 * settle): a refused request, like a refused file access. A folder that is fine but missing is a plain
 * {@link TerminalError}.
 */
export class TerminalCwdRefusedError extends TerminalError {
  override name = 'TerminalCwdRefusedError';
  constructor(
    message: string,
    data: TerminalErrorData,
    /** The guard's words: which path and why, naming the roots where useful. */
    readonly reason: string,
  ) {
    super(TerminalErrorCodes.InvalidParams, message, data);
  }
}

/**
 * A command the client would not run for the agent: a remote agent is not offered the client terminal, the user
 * did not allow the command, or it cannot be confined here. A refused request, like a refused folder: the chat
 * shows `reason` (for the user), the agent gets the message.
 */
export class TerminalCommandRefusedError extends TerminalError {
  override name = 'TerminalCommandRefusedError';
  constructor(
    code: number,
    message: string,
    data: TerminalErrorData,
    /** What the chat says about it. */
    readonly reason: string,
  ) {
    super(code, message, data);
  }
}
