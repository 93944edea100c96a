/**
 * A typed ACP client connection to one agent, over any {@link AcpTransport} (see {@link RpcPeer} for the
 * JSON-RPC ground: validation where messages arrive, cancellation, delivery before close).
 *
 * - One method per client → agent request. Each checks the agent's advertised capabilities first and
 *   throws a {@link CapabilityError} before anything is sent when a method or field is not supported.
 * - Client capabilities are derived from the agent → client handlers actually registered.
 * - Agent errors become typed errors (see `errors.ts`); answers that do not validate become
 *   {@link InvalidResponseError}s.
 */
import * as path from 'node:path';
import type { CancellationToken, Disposable } from 'vscode-jsonrpc/node';
import { buildClientCapabilities, readAgentCaps, type AgentCaps, type ClientFeatureOptions } from './capabilities';
import {
  AgentRequestError,
  CapabilityError,
  ConnectionClosedError,
  ErrorCodes,
  InvalidResponseError,
  ProtocolVersionError,
  SessionNotFoundError,
  toAcpError,
} from './errors';
import { chooseProtocolVersion } from './protocolVersion';
import { RpcPeer, type RequestHandler, type RpcPeerOptions } from './rpcPeer';
import {
  AuthenticateMethod,
  ElicitationCreateMethod,
  InitializeMethod,
  LogoutMethod,
  PROTOCOL_VERSION,
  ReadTextFileMethod,
  RequestPermissionMethod,
  SessionCancelNotification,
  SessionCloseMethod,
  SessionDeleteMethod,
  SessionForkMethod,
  SessionListMethod,
  SessionLoadMethod,
  SessionNewMethod,
  SessionPromptMethod,
  SessionResumeMethod,
  SessionSetConfigOptionMethod,
  SessionSetModeMethod,
  SessionSetModelMethod,
  SessionSetTitleMethod,
  SessionUpdateNotification,
  TerminalCreateMethod,
  TerminalKillMethod,
  TerminalOutputMethod,
  TerminalReleaseMethod,
  TerminalWaitForExitMethod,
  WriteTextFileMethod,
  type Implementation,
  type McpServer,
  type ParamsOf,
  type RequestDefinition,
  type ResultOf,
  InvalidModels,
  type SessionModelState,
} from './schema';

import type { TranscriptEvent } from './port/events';
import { TurnRecord, type Turn } from './port/turn';
import { transcriptEvent } from './v1/transcriptEvents';
import type { FileSystemHost, ServeTerminalsOptions, TerminalHost } from './port/client';
import * as clientServing from './v1/clientServing';

export { HandlerError, type CancellationToken, type NotificationHandler, type RequestHandler } from './rpcPeer';

export interface AcpConnectionOptions extends RpcPeerOptions {
  /** The agent's last stderr lines (bounded, secrets redacted), to explain its errors to the user. */
  readonly recentStderr?: () => readonly string[];
  /** The agent runs elsewhere (a remote link): its errors are explained without this machine's stderr or commands. */
  readonly remote?: boolean;
}

export interface InitializeOptions {
  readonly clientInfo: Implementation;
  readonly features?: ClientFeatureOptions;
}

/** What the agent declared for one session in its setup answer; gates `set_mode` / `set_model` / `set_config_option`. */
interface SessionSetupFlags {
  modes: boolean;
  models: boolean;
  configOptions: boolean;
}

/** A setup answer as the connection hands it on: an invalid `models` block was reported and dropped. */
export type SetupAnswer<T> = T & { readonly models?: SessionModelState };

type Params<D extends RequestDefinition> = ParamsOf<D>;

/** The typed client side of one ACP connection. */
export class AcpConnection extends RpcPeer {
  private readonly sessionSetup = new Map<string, SessionSetupFlags>();
  private agentCaps: AgentCaps | undefined;
  /** The turn running in each session (see {@link startTurn}). */
  private readonly turns = new Map<string, TurnRecord>();

  constructor(private readonly connectionOptions: AcpConnectionOptions) {
    super(connectionOptions);
  }

  /** The last lines the agent wrote to stderr (none when it is not a process of ours). */
  get recentStderr(): readonly string[] {
    return this.connectionOptions.recentStderr?.() ?? [];
  }

  /** Whether the agent runs elsewhere, reached over a remote link. */
  get isRemote(): boolean {
    return this.connectionOptions.remote === true;
  }

  /** The agent's display name, used in every message the user may see. */
  get agentName(): string {
    return this.peer;
  }

  /** The agent's capabilities. Only valid after {@link initialize}. */
  get caps(): AgentCaps {
    if (!this.agentCaps) throw new Error(`The connection to ${this.agentName} is not initialized yet.`);
    return this.agentCaps;
  }

  /**
   * What the agent streams about its sessions (v1: the `session/update` notifications), as the transcript's
   * domain events. One handler per connection.
   */
  onTranscriptEvent(handler: (sessionId: string, event: TranscriptEvent) => void): Disposable {
    return this.onNotification(SessionUpdateNotification, (notification) => {
      this.turns.get(notification.sessionId)?.heard();
      handler(notification.sessionId, transcriptEvent(notification.update));
    });
  }

  /** A permission request keeps its session's turn {@link Turn waiting} until it is answered. */
  override onRequest<D extends RequestDefinition>(definition: D, handler: RequestHandler<D>, options: { readonly advertise?: boolean } = {}): Disposable {
    if (definition.method !== RequestPermissionMethod.method) return super.onRequest(definition, handler, options);
    const waiting: RequestHandler<D> = async (params, token) => {
      const sessionId = (params as { readonly sessionId?: unknown }).sessionId;
      const turn = typeof sessionId === 'string' ? this.turns.get(sessionId) : undefined;
      turn?.waitStarted();
      try {
        return await handler(params, token);
      } finally {
        turn?.waitEnded();
      }
    };
    return super.onRequest(definition, waiting, options);
  }

  // ---- client → agent -----------------------------------------------------------------------------

  /**
   * Negotiates version and capabilities. Client capabilities are derived from the handlers registered
   * so far (so register them first). If the agent answers another protocol version, the connection is
   * closed and a {@link ProtocolVersionError} thrown.
   */
  async initialize(options: InitializeOptions, token?: CancellationToken): Promise<AgentCaps> {
    if (this.agentCaps) throw new Error(`The connection to ${this.agentName} is already initialized.`);
    const has = (method: string) => this.registered.has(method);
    const clientCapabilities = buildClientCapabilities(
      {
        readTextFile: has(ReadTextFileMethod.method),
        writeTextFile: has(WriteTextFileMethod.method),
        terminal: [TerminalCreateMethod, TerminalOutputMethod, TerminalWaitForExitMethod, TerminalKillMethod, TerminalReleaseMethod].every((m) =>
          has(m.method),
        ),
        elicitationForm: has(ElicitationCreateMethod.method),
        elicitationUrl: false,
      },
      options.features ?? {},
    );
    const result = await this.send(InitializeMethod, { protocolVersion: PROTOCOL_VERSION, clientCapabilities, clientInfo: options.clientInfo }, token);
    // The version is chosen here, from the answer (only v1 exists yet; v2 plugs in at chooseProtocolVersion).
    if (chooseProtocolVersion(result.protocolVersion) === undefined) {
      const error = new ProtocolVersionError(this.agentName, result.protocolVersion, PROTOCOL_VERSION);
      this.dispose(error.message);
      throw error;
    }
    this.agentCaps = readAgentCaps(result);
    return this.agentCaps;
  }

  /** Runs one of the agent's `authMethods` (agent type only; terminal methods are run by the client). */
  async authenticate(methodId: string, token?: CancellationToken): Promise<ResultOf<typeof AuthenticateMethod>> {
    const method = this.ready('authenticate').authMethods.find((m) => m.type !== '$unknown' && m.id === methodId);
    if (!method) throw new CapabilityError(this.agentName, `the sign-in method "${methodId}"`, 'it in authMethods');
    if (method.type === 'terminal') {
      throw new Error(`The sign-in method "${methodId}" of ${this.agentName} runs in a terminal; it is never sent to authenticate.`);
    }
    return this.send(AuthenticateMethod, { methodId }, token);
  }

  async logout(token?: CancellationToken): Promise<ResultOf<typeof LogoutMethod>> {
    this.require(this.ready('logout').auth.logout, 'logging out', 'agentCapabilities.auth.logout');
    return this.send(LogoutMethod, {}, token);
  }

  async newSession(params: Params<typeof SessionNewMethod>, token?: CancellationToken): Promise<SetupAnswer<ResultOf<typeof SessionNewMethod>>> {
    this.checkSessionSetup('session/new', params);
    const result = await this.send(SessionNewMethod, params, token);
    return this.rememberSetup(result.sessionId, 'session/new', result);
  }

  /** Replays the session's history as `session/update` notifications, then answers. */
  async loadSession(params: Params<typeof SessionLoadMethod>, token?: CancellationToken): Promise<SetupAnswer<ResultOf<typeof SessionLoadMethod>>> {
    this.require(this.ready('session/load').loadSession, 'reopening sessions with their history (session/load)', 'agentCapabilities.loadSession');
    this.checkSessionSetup('session/load', params);
    return this.rememberSetup(params.sessionId, 'session/load', await this.send(SessionLoadMethod, params, token));
  }

  async resumeSession(params: Params<typeof SessionResumeMethod>, token?: CancellationToken): Promise<SetupAnswer<ResultOf<typeof SessionResumeMethod>>> {
    this.require(this.ready('session/resume').sessions.resume, 'resuming sessions (session/resume)', 'sessionCapabilities.resume');
    this.checkSessionSetup('session/resume', params);
    return this.rememberSetup(params.sessionId, 'session/resume', await this.send(SessionResumeMethod, params, token));
  }

  /** Unstable `session/fork`: a new session with the source's history and the roots given here. */
  async forkSession(params: Params<typeof SessionForkMethod>, token?: CancellationToken): Promise<SetupAnswer<ResultOf<typeof SessionForkMethod>>> {
    this.require(this.ready('session/fork').sessions.fork, 'forking sessions (session/fork)', 'sessionCapabilities.fork');
    this.checkSessionSetup('session/fork', params);
    const result = await this.send(SessionForkMethod, params, token);
    return this.rememberSetup(result.sessionId, 'session/fork', result);
  }

  /** One page of `session/list`. Pass the previous page's `nextCursor` unchanged. */
  async listSessions(params: Params<typeof SessionListMethod>, token?: CancellationToken): Promise<ResultOf<typeof SessionListMethod>> {
    this.require(this.ready('session/list').sessions.list, 'listing sessions (session/list)', 'sessionCapabilities.list');
    if (params.cwd !== undefined && params.cwd !== null) this.requireAbsolute('session/list', 'cwd', params.cwd);
    return this.send(SessionListMethod, params, token);
  }

  /** `session/close`. An unknown session counts as closed. */
  async closeSession(sessionId: string, token?: CancellationToken): Promise<void> {
    this.require(this.ready('session/close').sessions.close, 'closing sessions (session/close)', 'sessionCapabilities.close');
    return this.sendIgnoringNotFound(SessionCloseMethod, { sessionId }, token).then(() => {
      this.sessionSetup.delete(sessionId);
    });
  }

  /** `session/delete`. An unknown session counts as deleted. */
  async deleteSession(sessionId: string, token?: CancellationToken): Promise<void> {
    this.require(this.ready('session/delete').sessions.delete, 'deleting sessions (session/delete)', 'sessionCapabilities.delete');
    return this.sendIgnoringNotFound(SessionDeleteMethod, { sessionId }, token).then(() => {
      this.sessionSetup.delete(sessionId);
    });
  }

  async setMode(sessionId: string, modeId: string, token?: CancellationToken): Promise<ResultOf<typeof SessionSetModeMethod>> {
    this.ready('session/set_mode');
    this.require(this.sessionSetup.get(sessionId)?.modes === true, `modes for session ${sessionId}`, 'modes in its session setup answer');
    return this.send(SessionSetModeMethod, { sessionId, modeId }, token);
  }

  /** Unstable `session/set_model`: only for a session whose setup answer had `models`. */
  async setModel(sessionId: string, modelId: string, token?: CancellationToken): Promise<ResultOf<typeof SessionSetModelMethod>> {
    this.ready('session/set_model');
    this.require(this.sessionSetup.get(sessionId)?.models === true, `models for session ${sessionId}`, 'models in its session setup answer');
    return this.send(SessionSetModelMethod, { sessionId, modelId }, token);
  }

  /** Sets a select option to a value id, or a boolean option (sent with `type: "boolean"`). Answers the full set. */
  async setConfigOption(
    sessionId: string,
    configId: string,
    value: string | boolean,
    token?: CancellationToken,
  ): Promise<ResultOf<typeof SessionSetConfigOptionMethod>> {
    this.ready('session/set_config_option');
    this.require(
      this.sessionSetup.get(sessionId)?.configOptions === true,
      `config options for session ${sessionId}`,
      'configOptions in its session setup answer',
    );
    const params = typeof value === 'boolean' ? { sessionId, configId, type: 'boolean' as const, value } : { sessionId, configId, value };
    return this.send(SessionSetConfigOptionMethod, params, token);
  }

  /** Unstable `session/set_title`. */
  async setSessionTitle(sessionId: string, title: string, token?: CancellationToken): Promise<ResultOf<typeof SessionSetTitleMethod>> {
    this.require(this.ready('session/set_title').sessions.setTitle, 'renaming sessions (session/set_title)', 'sessionCapabilities.title');
    return this.send(SessionSetTitleMethod, { sessionId, title }, token);
  }

  /** One prompt turn. Content types beyond text and resource links need the matching prompt capability. */
  async prompt(params: Params<typeof SessionPromptMethod>, token?: CancellationToken): Promise<ResultOf<typeof SessionPromptMethod>> {
    const caps = this.ready('session/prompt');
    for (const block of params.prompt) {
      if (block.type === 'image') this.require(caps.prompt.image, 'images in prompts', 'promptCapabilities.image');
      if (block.type === 'audio') this.require(caps.prompt.audio, 'audio in prompts', 'promptCapabilities.audio');
      if (block.type === 'resource') this.require(caps.prompt.embeddedContext, 'embedded file contents in prompts', 'promptCapabilities.embeddedContext');
    }
    return this.send(SessionPromptMethod, params, token);
  }

  /**
   * Starts a prompt turn (v1: `session/prompt`; its answer ends the turn). The turn never rejects: a refused
   * prompt or an agent error ends it `failed`, a closed connection `agentGone`.
   */
  startTurn(params: Params<typeof SessionPromptMethod>, token?: CancellationToken): Turn {
    const turn = new TurnRecord(params.sessionId);
    this.turns.set(params.sessionId, turn);
    const forget = () => {
      if (this.turns.get(params.sessionId) === turn) this.turns.delete(params.sessionId);
    };
    this.prompt(params, token).then(
      (answer) => {
        forget();
        turn.finish({ reason: 'stopped', stopReason: answer.stopReason });
      },
      (error: unknown) => {
        forget();
        turn.finish(error instanceof ConnectionClosedError ? { reason: 'agentGone', error } : { reason: 'failed', error });
      },
    );
    return turn;
  }

  /** `session/cancel`: ask the agent to end the running turn (it answers the prompt with `cancelled`). */
  async cancel(sessionId: string): Promise<void> {
    this.ready('session/cancel');
    await this.notify(SessionCancelNotification, { sessionId });
  }

  // ---- internals ----------------------------------------------------------------------------------

  /** The capabilities, once initialized and while open; otherwise a clear error for `method`. */
  private ready(method: string): AgentCaps {
    this.checkOpen(method);
    if (!this.agentCaps) throw new Error(`${method}: the connection to ${this.agentName} is not initialized yet.`);
    return this.agentCaps;
  }

  private require(supported: boolean, what: string, capability: string): void {
    if (!supported) throw new CapabilityError(this.agentName, what, capability);
  }

  private requireAbsolute(method: string, field: string, value: string): void {
    if (value.length === 0 || !path.isAbsolute(value)) {
      throw new Error(`${method}: ${field} must be an absolute path, got ${JSON.stringify(value)}.`);
    }
  }

  /** The checks shared by session/new, load, resume and fork: roots and MCP transports. */
  private checkSessionSetup(method: string, params: { cwd: string; additionalDirectories?: string[]; mcpServers?: McpServer[] }): void {
    const caps = this.ready(method);
    this.requireAbsolute(method, 'cwd', params.cwd);
    if (params.additionalDirectories !== undefined) {
      this.require(caps.sessions.additionalDirectories, 'additional workspace folders (additionalDirectories)', 'sessionCapabilities.additionalDirectories');
      for (const entry of params.additionalDirectories) this.requireAbsolute(method, 'additionalDirectories entry', entry);
    }
    for (const server of params.mcpServers ?? []) {
      if ('type' in server && server.type === 'http') this.require(caps.mcp.http, `the HTTP MCP server "${server.name}"`, 'mcpCapabilities.http');
      if ('type' in server && server.type === 'sse') this.require(caps.mcp.sse, `the SSE MCP server "${server.name}"`, 'mcpCapabilities.sse');
    }
  }

  private rememberSetup<T extends { modes?: unknown; models?: SessionModelState | InvalidModels | null; configOptions?: unknown }>(
    sessionId: string,
    method: string,
    result: T,
  ): SetupAnswer<T> {
    const { models } = result;
    if (models instanceof InvalidModels) {
      this.reportProtocolError(new Error(`${this.agentName} sent an invalid models block in its ${method} answer (ignored): ${models.issues}`));
    }
    const kept = models instanceof InvalidModels || models === null ? undefined : models;
    this.sessionSetup.set(sessionId, {
      modes: result.modes !== undefined && result.modes !== null,
      models: kept !== undefined,
      configOptions: Array.isArray(result.configOptions),
    });
    const answer: T & { models?: unknown } = { ...result };
    if (kept === undefined) delete answer.models;
    else answer.models = kept;
    return answer as SetupAnswer<T>;
  }

  private async sendIgnoringNotFound<D extends RequestDefinition>(definition: D, params: ParamsOf<D>, token?: CancellationToken): Promise<void> {
    try {
      await this.send(definition, params, token);
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
      this.logger.info(`${this.agentName}: ${definition.method} for an unknown session counts as done.`);
    }
  }

  /** Sends one request once initialized, validates the answer and maps errors. */
  private send<D extends RequestDefinition>(definition: D, params: ParamsOf<D>, token?: CancellationToken): Promise<ResultOf<D>> {
    if (!this.isClosed && definition.method !== InitializeMethod.method && !this.agentCaps) {
      return Promise.reject(new Error(`${definition.method}: the connection to ${this.agentName} is not initialized yet.`));
    }
    return this.request(definition, params, token);
  }

  protected mapError(error: unknown, definition: RequestDefinition, params: unknown): Error {
    const mapped = toAcpError(error, this.agentName, definition.method, this.agentCaps?.authMethods ?? [], params);
    return mapped instanceof Error ? mapped : new AgentRequestError(this.agentName, definition.method, ErrorCodes.InternalError, String(mapped));
  }

  protected invalidAnswer(definition: RequestDefinition, details: string): Error {
    return new InvalidResponseError(this.agentName, definition.method, details);
  }

  // ---- client-served capabilities (the port's acp/port/client.ts, on v1 by acp/v1/clientServing.ts) ----

  /** Serves the agent's `fs/read_text_file` and `fs/write_text_file` with `host`. Before `initialize`, which advertises them. */
  serveFileSystem(host: FileSystemHost): Disposable {
    return clientServing.serveFileSystem(this, host);
  }

  /** Serves the agent's five `terminal/*` requests with `host`. Before `initialize`, which advertises them unless told not to. */
  serveTerminals(host: TerminalHost, options?: ServeTerminalsOptions): Disposable {
    return clientServing.serveTerminals(this, host, options);
  }
}
