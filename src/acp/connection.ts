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
  type AuthMethod,
  type McpServer,
  type ParamsOf,
  type RequestDefinition,
  type ResultOf,
  InvalidModels,
  type SessionModelState,
  formatIssues,
} from './schema';

import type {
  AgentCapability,
  AgentConnection,
  ClientInfo,
  PermissionHandler,
  PromptBlock,
  SessionCloser,
  SessionDeleter,
  SessionForker,
  SessionLister,
  SessionLoader,
  SessionSettings,
  SessionSetupAnswer,
  SessionSetupParams,
  SessionTitles,
} from './port/agentConnection';
import type { TranscriptEvent } from './port/events';
import { TurnRecord, type Turn } from './port/turn';
import { v1McpServers } from './v1/mcpServers';
import { listedSession, permissionRequest, permissionResponse, promptBlocks, setupAnswer } from './v1/sessionMapping';
import { configOptions, transcriptEvent } from './v1/transcriptEvents';
import type { FileSystemHost, ServeTerminalsOptions, TerminalHost } from './port/client';
import * as clientServing from './v1/clientServing';
import type { PeerChannel } from './v2/connection';
import { InitializeOffer, InitializeResultV2, PROTOCOL_V2 } from './v2/methods';

export { HandlerError, type CancellationToken, type NotificationHandler, type RequestHandler } from './rpcPeer';

export interface AcpConnectionOptions extends RpcPeerOptions {
  /** The agent's last stderr lines (bounded, secrets redacted), to explain its errors to the user. */
  readonly recentStderr?: () => readonly string[];
  /** The agent runs elsewhere (a remote link): its errors are explained without this machine's stderr or commands. */
  readonly remote?: boolean;
}

export interface InitializeOptions {
  readonly clientInfo: ClientInfo;
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

/** What each capability sub-interface needs, in the words of the {@link CapabilityError} for a call without it. */
const CAPABILITY_WORDS: Record<Exclude<AgentCapability, SessionSetting>, readonly [what: string, capability: string]> = {
  list: ['listing sessions (session/list)', 'sessionCapabilities.list'],
  load: ['reopening sessions with their history (session/load)', 'agentCapabilities.loadSession'],
  resume: ['resuming sessions (session/resume)', 'sessionCapabilities.resume'],
  fork: ['forking sessions (session/fork)', 'sessionCapabilities.fork'],
  close: ['closing sessions (session/close)', 'sessionCapabilities.close'],
  delete: ['deleting sessions (session/delete)', 'sessionCapabilities.delete'],
  setTitle: ['renaming sessions (session/set_title)', 'sessionCapabilities.title'],
};

/** A session's settings, offered (or not) by its setup answer. */
type SessionSetting = 'modes' | 'models' | 'configOptions';
const isSessionSetting = (capability: AgentCapability): capability is SessionSetting =>
  capability === 'modes' || capability === 'models' || capability === 'configOptions';

/** The typed client side of one ACP connection: the v1 adapter behind the port's {@link AgentConnection}. */
export class AcpConnection extends RpcPeer implements AgentConnection {
  private readonly sessionSetup = new Map<string, SessionSetupFlags>();
  private agentCaps: AgentCaps | undefined;
  /** The sign-in methods as v1 sent them (errors name them; `authenticate` checks the id against them). */
  private v1AuthMethods: readonly AuthMethod[] = [];
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

  /** v1: `session/request_permission`, mapped both ways. */
  servePermissions(handler: PermissionHandler): Disposable {
    return this.onRequest(RequestPermissionMethod, async (params, token) => permissionResponse(await handler(permissionRequest(params), token)));
  }

  // ---- capability sub-interfaces (present iff advertised) -------------------------------------------

  lister(): SessionLister | undefined {
    if (!this.caps.sessions.list) return undefined;
    return {
      listSessions: async (params, token) => {
        const page = await this.listSessions({ ...params }, token);
        return {
          sessions: page.sessions.map(listedSession),
          ...(page.nextCursor !== undefined && page.nextCursor !== null ? { nextCursor: page.nextCursor } : {}),
        };
      },
    };
  }

  loader(): SessionLoader | undefined {
    if (!this.caps.loadSession) return undefined;
    return { reopen: async (sessionId, params, token) => setupAnswer(sessionId, await this.loadSession({ sessionId, ...this.v1Setup(params) }, token)) };
  }

  resumer(): SessionLoader | undefined {
    if (!this.caps.sessions.resume) return undefined;
    return { reopen: async (sessionId, params, token) => setupAnswer(sessionId, await this.resumeSession({ sessionId, ...this.v1Setup(params) }, token)) };
  }

  forker(): SessionForker | undefined {
    if (!this.caps.sessions.fork) return undefined;
    return {
      forkSession: async (sessionId, params, token) => {
        const result = await this.forkSession({ sessionId, ...this.v1Setup(params) }, token);
        return setupAnswer(result.sessionId, result);
      },
    };
  }

  closer(): SessionCloser | undefined {
    return this.caps.sessions.close ? { closeSession: (sessionId, token) => this.closeSession(sessionId, token) } : undefined;
  }

  deleter(): SessionDeleter | undefined {
    return this.caps.sessions.delete ? { deleteSession: (sessionId, token) => this.deleteSession(sessionId, token) } : undefined;
  }

  titles(): SessionTitles | undefined {
    if (!this.caps.sessions.setTitle) return undefined;
    return {
      setSessionTitle: async (sessionId, title, token) => {
        await this.setSessionTitle(sessionId, title, token);
      },
    };
  }

  settings(sessionId: string): SessionSettings | undefined {
    const flags = this.sessionSetup.get(sessionId);
    if (!flags || !(flags.modes || flags.models || flags.configOptions)) return undefined;
    return {
      modes: flags.modes,
      models: flags.models,
      configOptions: flags.configOptions,
      setMode: async (modeId, token) => {
        await this.setMode(sessionId, modeId, token);
      },
      setModel: async (modelId, token) => {
        await this.setModel(sessionId, modelId, token);
      },
      setConfigOption: async (configId, value, token) => configOptions((await this.setConfigOption(sessionId, configId, value, token)).configOptions),
    };
  }

  unsupported(capability: AgentCapability, sessionId?: string): CapabilityError {
    if (isSessionSetting(capability)) {
      const what = capability === 'configOptions' ? 'config options' : capability;
      return new CapabilityError(this.agentName, `${what} for session ${sessionId}`, `${capability} in its session setup answer`);
    }
    const [what, name] = CAPABILITY_WORDS[capability];
    return new CapabilityError(this.agentName, what, name);
  }

  // ---- client → agent -----------------------------------------------------------------------------

  /**
   * Negotiates version and capabilities. Client capabilities are derived from the handlers registered
   * so far (so register them first). If the agent answers another protocol version, the connection is
   * closed and a {@link ProtocolVersionError} thrown.
   */
  async initialize(options: InitializeOptions, token?: CancellationToken): Promise<AgentCaps> {
    if (this.agentCaps) throw new Error(`The connection to ${this.agentName} is already initialized.`);
    const clientCapabilities = this.clientCapabilities(options);
    const result = await this.send(InitializeMethod, { protocolVersion: PROTOCOL_VERSION, clientCapabilities, clientInfo: { ...options.clientInfo } }, token);
    return this.adoptV1(result);
  }

  /**
   * `initialize` offering ACP v2 (see `v2/methods.ts`, {@link InitializeV2}): v2's fields and v1's side by side,
   * so an agent that speaks only v1 answers v1 on the same round trip. Answered 1: this connection is initialized
   * as v1 (as {@link initialize} does); answered 2: the v2 answer, for the v2 adapter over {@link channel}; any
   * other version closes the connection with a {@link ProtocolVersionError}.
   */
  async initializeOfferingV2(
    options: InitializeOptions,
    token?: CancellationToken,
  ): Promise<{ readonly version: 1; readonly caps: AgentCaps } | { readonly version: 2; readonly answer: InitializeResultV2 }> {
    if (this.agentCaps) throw new Error(`The connection to ${this.agentName} is already initialized.`);
    const clientCapabilities = this.clientCapabilities(options);
    const info = { name: options.clientInfo.name, version: options.clientInfo.version };
    // v2's client capabilities: none yet (v2 has no file system or terminals to offer; its elicitation is not served yet).
    const capabilities = {};
    const raw = await this.request(InitializeOffer, { protocolVersion: PROTOCOL_V2, info, capabilities, clientInfo: info, clientCapabilities }, token);
    const version = (raw as { protocolVersion?: unknown }).protocolVersion;
    if (version === PROTOCOL_V2) {
      const answer = InitializeResultV2.safeParse(raw);
      if (answer.success) return { version: 2, answer: answer.data };
      const error = new InvalidResponseError(this.agentName, 'initialize', formatIssues(answer.error.issues));
      this.dispose(error.message);
      throw error;
    }
    const v1 = InitializeMethod.result.safeParse(raw);
    if (!v1.success) {
      const error = new InvalidResponseError(this.agentName, 'initialize', formatIssues(v1.error.issues));
      this.dispose(error.message);
      throw error;
    }
    return { version: 1, caps: this.adoptV1(v1.data) };
  }

  /**
   * The JSON-RPC peer under this connection, for the v2 adapter once `initialize` chose v2 (its requests are
   * checked, answered and mapped as v1's are; nothing of v1's session bookkeeping is involved).
   */
  channel(): PeerChannel {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below read the live peer
    const peer = this;
    return {
      agentName: this.agentName,
      get isClosed() {
        return peer.isClosed;
      },
      isRemote: this.isRemote,
      get recentStderr() {
        return peer.recentStderr;
      },
      onDidClose: this.onDidClose,
      onProtocolError: this.onProtocolError,
      request: (definition, params, token) => this.request(definition, params, token),
      notify: (definition, params) => this.notify(definition, params),
      onRequest: (definition, handler) => super.onRequest(definition, handler),
      onNotification: (definition, handler) => this.onNotification(definition, handler),
      reportProtocolError: (error) => this.reportProtocolError(error),
    };
  }

  /** The client capabilities v1 advertises: from the handlers registered so far (register them first). */
  private clientCapabilities(options: InitializeOptions): ReturnType<typeof buildClientCapabilities> {
    const has = (method: string) => this.registered.has(method);
    return buildClientCapabilities(
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
  }

  /** Initialized as v1 from its `initialize` answer; another version closes the connection. */
  private adoptV1(result: ResultOf<typeof InitializeMethod>): AgentCaps {
    if (chooseProtocolVersion(result.protocolVersion) !== 1) {
      const error = new ProtocolVersionError(this.agentName, result.protocolVersion, PROTOCOL_VERSION);
      this.dispose(error.message);
      throw error;
    }
    this.agentCaps = readAgentCaps(result);
    this.v1AuthMethods = result.authMethods;
    return this.agentCaps;
  }

  /** Runs one of the agent's `authMethods` (agent type only; terminal methods are run by the client). */
  async authenticate(methodId: string, token?: CancellationToken): Promise<void> {
    this.ready('authenticate');
    const method = this.v1AuthMethods.find((m) => m.type !== '$unknown' && m.id === methodId);
    if (!method) throw new CapabilityError(this.agentName, `the sign-in method "${methodId}"`, 'it in authMethods');
    if (method.type === 'terminal') {
      throw new Error(`The sign-in method "${methodId}" of ${this.agentName} runs in a terminal; it is never sent to authenticate.`);
    }
    await this.send(AuthenticateMethod, { methodId }, token);
  }

  async logout(token?: CancellationToken): Promise<void> {
    this.require(this.ready('logout').auth.logout, 'logging out', 'agentCapabilities.auth.logout');
    await this.send(LogoutMethod, {}, token);
  }

  async newSession(params: SessionSetupParams, token?: CancellationToken): Promise<SessionSetupAnswer> {
    const v1 = this.v1Setup(params);
    this.checkSessionSetup('session/new', v1);
    const result = await this.send(SessionNewMethod, v1, token);
    return setupAnswer(result.sessionId, this.rememberSetup(result.sessionId, 'session/new', result));
  }

  /** Replays the session's history as `session/update` notifications, then answers. */
  async loadSession(params: Params<typeof SessionLoadMethod>, token?: CancellationToken): Promise<SetupAnswer<ResultOf<typeof SessionLoadMethod>>> {
    this.requireCapability(this.ready('session/load').loadSession, 'load');
    this.checkSessionSetup('session/load', params);
    return this.rememberSetup(params.sessionId, 'session/load', await this.send(SessionLoadMethod, params, token));
  }

  async resumeSession(params: Params<typeof SessionResumeMethod>, token?: CancellationToken): Promise<SetupAnswer<ResultOf<typeof SessionResumeMethod>>> {
    this.requireCapability(this.ready('session/resume').sessions.resume, 'resume');
    this.checkSessionSetup('session/resume', params);
    return this.rememberSetup(params.sessionId, 'session/resume', await this.send(SessionResumeMethod, params, token));
  }

  /** Unstable `session/fork`: a new session with the source's history and the roots given here. */
  async forkSession(params: Params<typeof SessionForkMethod>, token?: CancellationToken): Promise<SetupAnswer<ResultOf<typeof SessionForkMethod>>> {
    this.requireCapability(this.ready('session/fork').sessions.fork, 'fork');
    this.checkSessionSetup('session/fork', params);
    const result = await this.send(SessionForkMethod, params, token);
    return this.rememberSetup(result.sessionId, 'session/fork', result);
  }

  /** One page of `session/list`. Pass the previous page's `nextCursor` unchanged. */
  async listSessions(params: Params<typeof SessionListMethod>, token?: CancellationToken): Promise<ResultOf<typeof SessionListMethod>> {
    this.requireCapability(this.ready('session/list').sessions.list, 'list');
    if (params.cwd !== undefined && params.cwd !== null) this.requireAbsolute('session/list', 'cwd', params.cwd);
    return this.send(SessionListMethod, params, token);
  }

  /** `session/close`. An unknown session counts as closed. */
  async closeSession(sessionId: string, token?: CancellationToken): Promise<void> {
    this.requireCapability(this.ready('session/close').sessions.close, 'close');
    return this.sendIgnoringNotFound(SessionCloseMethod, { sessionId }, token).then(() => {
      this.sessionSetup.delete(sessionId);
    });
  }

  /** `session/delete`. An unknown session counts as deleted. */
  async deleteSession(sessionId: string, token?: CancellationToken): Promise<void> {
    this.requireCapability(this.ready('session/delete').sessions.delete, 'delete');
    return this.sendIgnoringNotFound(SessionDeleteMethod, { sessionId }, token).then(() => {
      this.sessionSetup.delete(sessionId);
    });
  }

  async setMode(sessionId: string, modeId: string, token?: CancellationToken): Promise<ResultOf<typeof SessionSetModeMethod>> {
    this.ready('session/set_mode');
    if (this.sessionSetup.get(sessionId)?.modes !== true) throw this.unsupported('modes', sessionId);
    return this.send(SessionSetModeMethod, { sessionId, modeId }, token);
  }

  /** Unstable `session/set_model`: only for a session whose setup answer had `models`. */
  async setModel(sessionId: string, modelId: string, token?: CancellationToken): Promise<ResultOf<typeof SessionSetModelMethod>> {
    this.ready('session/set_model');
    if (this.sessionSetup.get(sessionId)?.models !== true) throw this.unsupported('models', sessionId);
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
    if (this.sessionSetup.get(sessionId)?.configOptions !== true) throw this.unsupported('configOptions', sessionId);
    const params = typeof value === 'boolean' ? { sessionId, configId, type: 'boolean' as const, value } : { sessionId, configId, value };
    return this.send(SessionSetConfigOptionMethod, params, token);
  }

  /** Unstable `session/set_title`. */
  async setSessionTitle(sessionId: string, title: string, token?: CancellationToken): Promise<ResultOf<typeof SessionSetTitleMethod>> {
    this.requireCapability(this.ready('session/set_title').sessions.setTitle, 'setTitle');
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
  startTurn(params: { readonly sessionId: string; readonly prompt: readonly PromptBlock[] }, token?: CancellationToken): Turn {
    const turn = new TurnRecord(params.sessionId);
    this.turns.set(params.sessionId, turn);
    const forget = () => {
      if (this.turns.get(params.sessionId) === turn) this.turns.delete(params.sessionId);
    };
    this.prompt({ sessionId: params.sessionId, prompt: promptBlocks(params.prompt) }, token).then(
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

  private requireCapability(supported: boolean, capability: AgentCapability): void {
    if (!supported) throw this.unsupported(capability);
  }

  /** The port's setup parameters as v1 sends them. */
  private v1Setup(params: SessionSetupParams): { cwd: string; additionalDirectories?: string[]; mcpServers: McpServer[] } {
    return {
      cwd: params.cwd,
      ...(params.additionalDirectories !== undefined ? { additionalDirectories: [...params.additionalDirectories] } : {}),
      mcpServers: v1McpServers(params.mcpServers ?? []),
    };
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
    const mapped = toAcpError(error, this.agentName, definition.method, this.v1AuthMethods, params);
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
