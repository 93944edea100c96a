/**
 * What an agent asks the client to do, as the application serves it, whatever the protocol version: the file
 * system (read and write a text file) and terminals (create, output, wait for exit, kill, release).
 *
 * The application implements a host ({@link FileSystemHost}, {@link TerminalHost}) and hands it to the
 * connection ({@link ClientServing}); the protocol adapter registers the requests (v1: `fs/*`, `terminal/*`),
 * validates them, hands the host these plain requests, and sends its answers back. A host refuses by throwing a
 * {@link ClientRefusal}: the agent gets its code, message and data (v1: the JSON-RPC error). The client
 * capabilities the adapter advertises are exactly what is served.
 */
import type { IDisposable } from '../../common/lifecycle';

/**
 * The codes a refusal answers with: the JSON-RPC and ACP numbers, which both protocol versions use (the same as
 * `acp/errors.ts`'s `ErrorCodes`; the port stands below the adapters and imports none of them).
 */
export const RefusalCodes = {
  /** Bad request: a path or folder outside the session's roots, not a text file, an empty command… */
  InvalidParams: -32602,
  /** No such session on this connection, no such terminal in this session, no such file. */
  ResourceNotFound: -32002,
  /** The client could not do it (a command that cannot start). */
  InternalError: -32603,
  /** The request was cancelled before it was done. */
  RequestCancelled: -32800,
  /** Not offered to this agent (not advertised either). */
  MethodNotFound: -32601,
} as const;

/** A request the client refuses or cannot serve: the agent receives `code`, the message and `data` unchanged. */
export class ClientRefusal<D extends object = Readonly<Record<string, unknown>>> extends Error {
  override name = 'ClientRefusal';
  constructor(
    readonly code: number,
    message: string,
    /** Details for logs and for agents that read them (a path, the roots, a reason). */
    readonly data?: D,
  ) {
    super(message);
  }
}

/** A request's cancellation, as the adapter passes it on (the agent withdrew it, or the connection closed). */
export interface CancellationSignal {
  readonly isCancellationRequested: boolean;
  /** `listener` takes an argument it may ignore, so vscode-jsonrpc's and VS Code's tokens fit both ways. */
  onCancellationRequested(listener: (event: unknown) => void): IDisposable;
}

// ---- file system --------------------------------------------------------------------------------------

export interface ReadTextFileRequest {
  readonly sessionId: string;
  /** Absolute. */
  readonly path: string;
  /** First line to return, 1-based. */
  readonly line?: number | null;
  /** Most lines to return. */
  readonly limit?: number | null;
}

export interface WriteTextFileRequest {
  readonly sessionId: string;
  /** Absolute. */
  readonly path: string;
  readonly content: string;
}

/** Serves the agent's file reads and writes. */
export interface FileSystemHost {
  /** The text asked for. */
  readTextFile(request: ReadTextFileRequest, token: CancellationSignal): Promise<string>;
  writeTextFile(request: WriteTextFileRequest, token: CancellationSignal): Promise<void>;
}

// ---- terminals ----------------------------------------------------------------------------------------

export interface EnvVariable {
  readonly name: string;
  readonly value: string;
}

/** A command the agent wants run. */
export interface CreateTerminalRequest {
  readonly sessionId: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Set over the client's environment. */
  readonly env: readonly EnvVariable[];
  /** Absolute; absent: the session's folder. */
  readonly cwd?: string | null;
  /** Most output bytes to keep (the end is kept). */
  readonly outputByteLimit?: number | null;
}

/** Which terminal, asked for by which session. */
export interface TerminalRef {
  readonly sessionId: string;
  readonly terminalId: string;
}

export interface TerminalExitStatus {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/** `exitStatus` only once the command has exited. */
export interface TerminalOutput {
  readonly output: string;
  readonly truncated: boolean;
  readonly exitStatus?: TerminalExitStatus;
}

/** Serves the agent's terminals, each scoped to the session that created it. */
export interface TerminalHost {
  create(request: CreateTerminalRequest, token: CancellationSignal): Promise<{ readonly terminalId: string }>;
  output(ref: TerminalRef): TerminalOutput;
  waitForExit(ref: TerminalRef, token: CancellationSignal): Promise<TerminalExitStatus>;
  kill(ref: TerminalRef): Promise<void>;
  release(ref: TerminalRef): Promise<void>;
}

export interface ServeTerminalsOptions {
  /**
   * Whether the terminal is advertised (default true). False: the host only answers, with its refusal in words,
   * an agent that asks anyway (a remote agent that is not offered the client terminal).
   */
  readonly advertise?: boolean;
}

/** The client-served capabilities of a connection. Register before `initialize`, which advertises them. */
export interface ClientServing {
  serveFileSystem(host: FileSystemHost): IDisposable;
  serveTerminals(host: TerminalHost, options?: ServeTerminalsOptions): IDisposable;
}
