/**
 * The connection to one agent as the application sees it, whatever the protocol version: what the agent is and
 * advertised ({@link AgentCaps}), its lifecycle, a session's setup, a turn, and the agent's permission requests.
 * Each protocol adapter (today ACP v1: `AcpConnection` in `acp/connection.ts`) implements it and maps its wire
 * shapes to the plain types here; nothing above `acp/` sees a wire type.
 *
 * What an agent may or may not support is a capability sub-interface ({@link SessionLister}, {@link SessionLoader},
 * {@link SessionForker}, {@link SessionCloser}, {@link SessionDeleter}, {@link SessionTitles}, {@link SessionSettings}), obtained from the
 * connection only when the agent advertised it (Zed's `AgentConnection` with its optional capability traits is the
 * model): a missing capability is an `undefined` the type checker makes the caller handle, not a check to forget.
 * The adapter still refuses an unsupported call with a `CapabilityError` ({@link AgentConnection.unsupported}).
 */
import type { CancellationToken, Disposable } from 'vscode-jsonrpc/node';
import type { Event } from '../../common/events';
import type { ClientServing } from './client';
import type { ConfigOption, ToolCallChange, TranscriptEvent } from './events';
import type { McpServerConfig } from './mcp';
import type { Turn } from './turn';

export type { CancellationToken, Disposable } from 'vscode-jsonrpc/node';

// ---- what the agent is and advertised -------------------------------------------------------------

/** Who the agent says it is. */
export interface AgentInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
}

/** Which ACP version to offer an agent: v1 only, v2 and take what it answers, or v2 only. */
export type ProtocolChoice = 'v1' | 'auto' | 'v2';

/** Who this client says it is to an agent (the same fields). */
export type ClientInfo = AgentInfo;

/**
 * A way to sign in the agent offers: `agent` methods are run by the agent (`authenticate`), `terminal` methods
 * run the agent's own command (plus `args`, `env`) in a terminal for the user; `unknown`: a kind this client
 * cannot run, kept as sent.
 */
export type AuthMethod =
  | { readonly type: 'agent'; readonly id: string; readonly name: string; readonly description?: string }
  | {
      readonly type: 'terminal';
      readonly id: string;
      readonly name: string;
      readonly description?: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
    }
  | { readonly type: 'unknown'; readonly tag: string; readonly raw: unknown };

/** Everything the agent advertised, flattened to booleans. */
export interface AgentCaps {
  readonly protocolVersion: number;
  readonly agentInfo: AgentInfo | undefined;
  /** Reopening a session with its history replayed (v1 `session/load`). */
  readonly loadSession: boolean;
  readonly prompt: { readonly image: boolean; readonly audio: boolean; readonly embeddedContext: boolean };
  readonly mcp: { readonly http: boolean; readonly sse: boolean };
  readonly sessions: {
    readonly list: boolean;
    readonly resume: boolean;
    readonly close: boolean;
    readonly delete: boolean;
    readonly additionalDirectories: boolean;
    /** Unstable in v1 (`session/fork`). */
    readonly fork: boolean;
    /** Unstable in v1 (`session/set_title`). */
    readonly setTitle: boolean;
  };
  readonly auth: { readonly logout: boolean };
  readonly authMethods: readonly AuthMethod[];
}

/** The capabilities a sub-interface stands for (the words of {@link AgentConnection.unsupported}); the last three are a session's. */
export type AgentCapability = 'list' | 'load' | 'resume' | 'fork' | 'close' | 'delete' | 'setTitle' | 'modes' | 'models' | 'configOptions';

// ---- what crosses the port ------------------------------------------------------------------------

/** The roots and MCP servers of a session's setup (new, load, resume, fork): always the complete lists. */
export interface SessionSetupParams {
  /** The primary folder (absolute). */
  readonly cwd: string;
  /** The other folders (absolute); only when the agent advertised `additionalDirectories`. */
  readonly additionalDirectories?: readonly string[];
  readonly mcpServers?: readonly McpServerConfig[];
}

export interface SessionMode {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
}

export interface SessionModeState {
  readonly currentModeId: string;
  readonly availableModes: readonly SessionMode[];
}

export interface ModelInfo {
  readonly modelId: string;
  readonly name: string;
  readonly description?: string;
}

/** The model picker of a session (unstable in v1), when no config option has category `model`. */
export interface SessionModelState {
  readonly currentModelId: string;
  readonly availableModels: readonly ModelInfo[];
}

/** What the agent's setup answer (new, load, resume, fork) said about the session. */
export interface SessionSetupAnswer {
  readonly sessionId: string;
  readonly modes?: SessionModeState;
  /** Absent when the agent sent none, or an invalid block (reported as a protocol error). */
  readonly models?: SessionModelState;
  readonly configOptions?: readonly ConfigOption[];
}

/** One session an agent listed. `additionalDirectories` is authoritative when the agent gives it. */
export interface ListedSession {
  readonly sessionId: string;
  readonly cwd: string;
  readonly additionalDirectories?: readonly string[];
  readonly title?: string;
  /** As the agent sent it (ISO 8601 when it is a time at all). */
  readonly updatedAt?: string;
  /** The agent's extension data, as sent. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** One page of a session list; pass `nextCursor` back unchanged for the next. */
export interface ListedPage {
  readonly sessions: readonly ListedSession[];
  readonly nextCursor?: string;
}

/** A piece of a prompt the client sends. */
export type PromptBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mimeType: string; readonly data: string; readonly uri?: string }
  | { readonly type: 'audio'; readonly mimeType: string; readonly data: string }
  | { readonly type: 'resource_link'; readonly uri: string; readonly name: string; readonly mimeType?: string; readonly title?: string }
  | {
      readonly type: 'resource';
      readonly resource:
        | { readonly uri: string; readonly text: string; readonly mimeType?: string }
        | { readonly uri: string; readonly blob: string; readonly mimeType?: string };
    };

/** A choice the agent offers on a permission request: allow_once, allow_always, reject_once, reject_always (open-ended). */
export interface PermissionOption {
  readonly optionId: string;
  readonly name: string;
  readonly kind: string;
}

/** The agent asks the user to approve a tool call (`toolCall`: what it tells about the call, as a change). */
export interface PermissionRequest {
  readonly sessionId: string;
  readonly toolCall: ToolCallChange;
  readonly options: readonly PermissionOption[];
}

/** The user's answer: an option by id, or none (the request was withdrawn, the turn cancelled). */
export type PermissionOutcome = { readonly outcome: 'selected'; readonly optionId: string } | { readonly outcome: 'cancelled' };

/** Answers the agent's permission requests; `token` is cancelled when the agent withdraws the request. */
export type PermissionHandler = (request: PermissionRequest, token: CancellationToken) => Promise<PermissionOutcome>;

// ---- capability sub-interfaces --------------------------------------------------------------------

/** Lists the agent's sessions, a page at a time. */
export interface SessionLister {
  listSessions(params: { readonly cwd?: string; readonly cursor?: string }, token?: CancellationToken): Promise<ListedPage>;
}

/** Reopens a session under its own id: with its history replayed as transcript events before it answers (load), or without (resume). */
export interface SessionLoader {
  reopen(sessionId: string, params: SessionSetupParams, token?: CancellationToken): Promise<SessionSetupAnswer>;
}

/** A new session with another's history and the roots given here. */
export interface SessionForker {
  forkSession(sessionId: string, params: SessionSetupParams, token?: CancellationToken): Promise<SessionSetupAnswer>;
}

/** Closes a session on the agent's side (frees what it holds). An unknown session counts as closed. */
export interface SessionCloser {
  closeSession(sessionId: string, token?: CancellationToken): Promise<void>;
}

/** Deletes a session from the agent's history. An unknown session counts as deleted. */
export interface SessionDeleter {
  deleteSession(sessionId: string, token?: CancellationToken): Promise<void>;
}

export interface SessionTitles {
  setSessionTitle(sessionId: string, title: string, token?: CancellationToken): Promise<void>;
}

/** What a session's setup answer offered to change: its mode, its model, its config options (each only if offered). */
export interface SessionSettings {
  readonly modes: boolean;
  readonly models: boolean;
  readonly configOptions: boolean;
  setMode(modeId: string, token?: CancellationToken): Promise<void>;
  setModel(modelId: string, token?: CancellationToken): Promise<void>;
  /** A select option to a value id, or a boolean option. Answers the whole set. */
  setConfigOption(configId: string, value: string | boolean, token?: CancellationToken): Promise<readonly ConfigOption[]>;
}

// ---- the connection -------------------------------------------------------------------------------

/** The connection to one agent; what the client serves it (file system, terminals) is registered through {@link ClientServing}. */
export interface AgentConnection extends ClientServing {
  /** The agent's display name, used in every message the user may see. */
  readonly agentName: string;
  /** What the agent advertised (initialized connections only). */
  readonly caps: AgentCaps;
  readonly isClosed: boolean;
  /** The agent runs elsewhere (a remote link): its errors are explained without this machine's stderr or commands. */
  readonly isRemote: boolean;
  /** The agent's last stderr lines (bounded, secrets redacted; none for a remote agent). */
  readonly recentStderr: readonly string[];
  /** The connection ended, with why in words. */
  readonly onDidClose: Event<string>;
  /** Something the agent sent could not be read (the message is dropped, the connection stays). */
  readonly onProtocolError: Event<Error>;
  /** What the agent streams about its sessions, as transcript events. One handler per connection. */
  onTranscriptEvent(handler: (sessionId: string, event: TranscriptEvent) => void): Disposable;
  /** The agent's permission requests (a turn waits while one is open). One handler per connection, before initialize. */
  servePermissions(handler: PermissionHandler): Disposable;

  newSession(params: SessionSetupParams, token?: CancellationToken): Promise<SessionSetupAnswer>;
  /** Starts a prompt turn; the turn never rejects (see {@link Turn.ended}). */
  startTurn(params: { readonly sessionId: string; readonly prompt: readonly PromptBlock[] }, token?: CancellationToken): Turn;
  /** Asks the agent to end the session's running turn. */
  cancel(sessionId: string): Promise<void>;
  /** Runs one of the agent's `agent` sign-in methods. */
  authenticate(methodId: string, token?: CancellationToken): Promise<void>;
  logout(token?: CancellationToken): Promise<void>;

  /** Present iff the agent lists sessions. */
  lister(): SessionLister | undefined;
  /** Present iff the agent reopens sessions with their history replayed. */
  loader(): SessionLoader | undefined;
  /** Present iff the agent reopens sessions without replaying their history. */
  resumer(): SessionLoader | undefined;
  /** Present iff the agent forks sessions. */
  forker(): SessionForker | undefined;
  /** Present iff the agent closes sessions. */
  closer(): SessionCloser | undefined;
  /** Present iff the agent deletes sessions. */
  deleter(): SessionDeleter | undefined;
  /** Present iff the agent takes a session's title from the client. */
  titles(): SessionTitles | undefined;
  /** Present iff the session's setup answer offered modes, models or config options. */
  settings(sessionId: string): SessionSettings | undefined;
  /**
   * The error the adapter raises for a call the agent did not advertise, for a caller that got `undefined`
   * (`sessionId`: for a session's modes, models or config options).
   */
  unsupported(capability: AgentCapability, sessionId?: string): Error;
}
