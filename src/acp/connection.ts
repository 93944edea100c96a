/**
 * A typed ACP client connection to one agent over newline-delimited JSON-RPC (vscode-jsonrpc).
 *
 * - One method per client → agent request. Each checks the agent's advertised capabilities first and
 *   throws a {@link CapabilityError} before anything is sent when a method or field is not supported.
 * - Agent → client requests and notifications are validated with zod before their handler runs: bad
 *   params answer `-32602` with a readable message; unknown requests get `-32601`; unknown
 *   notifications are logged and ignored.
 * - Answers are validated too; agent errors become typed errors (see `errors.ts`).
 * - `$/cancel_request` works both ways.
 */
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import {
  CancellationTokenSource,
  Emitter,
  Message,
  ResponseError,
  createMessageConnection,
  type CancellationId,
  type CancellationStrategy,
  type CancellationToken,
  type Disposable,
  type Event,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
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
import { silentLogger, type Logger } from '../common/logger';
import {
  AuthenticateMethod,
  CancelRequestNotification,
  ElicitationCreateMethod,
  InitializeMethod,
  LogoutMethod,
  PROTOCOL_VERSION,
  ReadTextFileMethod,
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
  SessionSetTitleMethod,
  TerminalCreateMethod,
  TerminalKillMethod,
  TerminalOutputMethod,
  TerminalReleaseMethod,
  TerminalWaitForExitMethod,
  WriteTextFileMethod,
  formatIssues,
  type Implementation,
  type McpServer,
  type NotificationDefinition,
  type ParamsOf,
  type RequestDefinition,
  type ResultOf,
} from './schema';
import { END_OF_STREAM_METHOD, NdjsonMessageReader, NdjsonMessageWriter, type MessageTap } from './transport';

export { ResponseError as HandlerError } from 'vscode-jsonrpc/node';
export type { CancellationToken } from 'vscode-jsonrpc/node';

export interface AcpConnectionOptions {
  /** The agent's display name, used in every message the user may see. */
  readonly agentName: string;
  /** The agent's stdout. */
  readonly input: Readable;
  /** The agent's stdin. */
  readonly output: Writable;
  /** Longest accepted line (default 32 MiB). */
  readonly maxLineBytes?: number;
  readonly logger?: Logger;
  /** Sees every message sent and received (protocol trace). */
  readonly tap?: MessageTap;
  /**
   * After the agent's output ended and everything it sent was delivered, how long to wait for the owner
   * to {@link AcpConnection.close} with a better reason (an exit code, say) before closing with a
   * generic one. Default 250 ms.
   */
  readonly closeGraceMs?: number;
}

export interface InitializeOptions {
  readonly clientInfo: Implementation;
  readonly features?: ClientFeatureOptions;
}

/** A handler for one agent → client request. Throw a `HandlerError` to answer with a specific code. */
export type RequestHandler<D extends RequestDefinition> = (
  params: ParamsOf<D>,
  token: CancellationToken,
) => ResultOf<D> | Promise<ResultOf<D>>;

export type NotificationHandler<D extends NotificationDefinition> = (params: ParamsOf<D>) => void;

/** What the agent declared for one session in its setup answer; gates `set_mode` / `set_config_option`. */
interface SessionSetupFlags {
  modes: boolean;
  configOptions: boolean;
}

type Params<D extends RequestDefinition> = ParamsOf<D>;

/** A request in flight, so that closing the connection can fail it with the real reason. */
interface Pending {
  readonly method: string;
  readonly reject: (error: Error) => void;
}

/** The typed client side of one ACP connection. */
export class AcpConnection implements Disposable {
  readonly agentName: string;
  private readonly connection: MessageConnection;
  private readonly logger: Logger;
  private readonly pending = new Set<Pending>();
  private readonly incomingCancellations = new Map<CancellationId, CancellationTokenSource>();
  private readonly registered = new Set<string>();
  private readonly sessionSetup = new Map<string, SessionSetupFlags>();
  private agentCaps: AgentCaps | undefined;
  private closedReason: string | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  /** Set once every message the agent sent before its output ended has been dispatched. */
  private drained = false;
  /** Why the peer went away, when the owner told us before the drain finished. */
  private pendingCloseReason: string | undefined;
  private readonly closeGraceMs: number;
  /** Messages handed to vscode-jsonrpc's queue and not yet taken out of it. */
  private queued = 0;
  /** Notification handlers that may run straight from the reader (see {@link dispatchDirectly}). */
  private readonly directNotifications = new Map<string, (params: unknown) => void>();

  private readonly closeEmitter = new Emitter<string>();
  private readonly protocolErrorEmitter = new Emitter<Error>();
  /** Fires once when the connection closes, with the reason in words. */
  readonly onDidClose: Event<string> = this.closeEmitter.event;
  /** Fires for every problem with what the agent sent that did not fail a request (bad lines, bad notifications). */
  readonly onProtocolError: Event<Error> = this.protocolErrorEmitter.event;

  constructor(options: AcpConnectionOptions) {
    this.agentName = options.agentName;
    this.logger = options.logger ?? silentLogger;
    const reader = new NdjsonMessageReader(options.input, {
      peer: options.agentName,
      maxLineBytes: options.maxLineBytes,
      tap: options.tap,
      intercept: (message) => this.dispatchDirectly(message),
    });
    const writer = new NdjsonMessageWriter(options.output, { peer: options.agentName, tap: options.tap });
    this.connection = createMessageConnection(reader, writer, this.jsonRpcLogger(), {
      cancellationStrategy: this.cancellationStrategy(),
      messageStrategy: {
        handleMessage: (message, next) => {
          this.queued--;
          return next(message);
        },
      },
    });
    this.connection.onError(([error]) => this.reportProtocolError(error));
    this.connection.onUnhandledNotification((message) => {
      const note = `${this.agentName} sent a notification this client does not handle: ${message.method}`;
      if (message.method.startsWith('_') || message.method.startsWith('$/')) this.logger.trace(note);
      else this.logger.info(note);
    });
    this.closeGraceMs = options.closeGraceMs ?? 250;
    this.connection.onNotification(END_OF_STREAM_METHOD, () => {
      this.drained = true;
      if (this.pendingCloseReason !== undefined) return this.dispose(this.pendingCloseReason);
      clearTimeout(this.closeTimer);
      this.closeTimer = setTimeout(() => this.dispose(`${this.agentName} closed the connection.`), this.closeGraceMs);
    });
    this.connection.onNotification(CancelRequestNotification.method, (params: unknown) => {
      const parsed = CancelRequestNotification.params.safeParse(params);
      if (!parsed.success) {
        this.reportProtocolError(new Error(`${this.agentName} sent an invalid $/cancel_request: ${formatIssues(parsed.error.issues)}`));
        return;
      }
      if (parsed.data.requestId !== null) this.incomingCancellations.get(parsed.data.requestId)?.cancel();
    });
    this.connection.listen();
  }

  /** True once the connection has closed; every request then fails at once. */
  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  /** The agent's capabilities. Only valid after {@link initialize}. */
  get caps(): AgentCaps {
    if (!this.agentCaps) throw new Error(`The connection to ${this.agentName} is not initialized yet.`);
    return this.agentCaps;
  }

  // ---- agent → client handlers --------------------------------------------------------------------

  /** Registers the handler for one agent → client request. Its params are validated before it runs. */
  onRequest<D extends RequestDefinition>(definition: D, handler: RequestHandler<D>): Disposable {
    if (this.registered.has(definition.method)) throw new Error(`A handler for ${definition.method} is already registered.`);
    this.registered.add(definition.method);
    const registration = this.connection.onRequest(definition.method, async (raw: unknown, token: CancellationToken) => {
      const parsed = definition.params.safeParse(raw);
      if (!parsed.success) {
        const details = formatIssues(parsed.error.issues);
        this.logger.warn(`${this.agentName} sent ${definition.method} with invalid params: ${details}`);
        return new ResponseError(ErrorCodes.InvalidParams, `Invalid params for ${definition.method}: ${details}`);
      }
      try {
        return await handler(parsed.data as ParamsOf<D>, token);
      } catch (error) {
        if (error instanceof ResponseError) return error;
        const message = error instanceof Error ? error.message : String(error);
        this.logger.error(`Handling ${definition.method} from ${this.agentName} failed: ${message}`);
        return new ResponseError(ErrorCodes.InternalError, message);
      }
    });
    return {
      dispose: () => {
        this.registered.delete(definition.method);
        registration.dispose();
      },
    };
  }

  /**
   * Registers the handler for one agent → client notification. Invalid params are reported through
   * {@link onProtocolError} and the log; the handler never sees them. A throwing handler is logged.
   */
  onNotification<D extends NotificationDefinition>(definition: D, handler: NotificationHandler<D>): Disposable {
    if (this.directNotifications.has(definition.method)) throw new Error(`A handler for ${definition.method} is already registered.`);
    const dispatch = (raw: unknown) => {
      const parsed = definition.params.safeParse(raw);
      if (!parsed.success) {
        this.reportProtocolError(
          new Error(`${this.agentName} sent an invalid ${definition.method} notification: ${formatIssues(parsed.error.issues)}`),
        );
        return;
      }
      try {
        handler(parsed.data as ParamsOf<D>);
      } catch (error) {
        this.logger.error(`Handling ${definition.method} from ${this.agentName} failed: ${error instanceof Error ? error.stack : String(error)}`);
      }
    };
    this.directNotifications.set(definition.method, dispatch);
    const registration = this.connection.onNotification(definition.method, dispatch);
    return {
      dispose: () => {
        this.directNotifications.delete(definition.method);
        registration.dispose();
      },
    };
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
    const result = await this.send(
      InitializeMethod,
      { protocolVersion: PROTOCOL_VERSION, clientCapabilities, clientInfo: options.clientInfo },
      token,
    );
    if (result.protocolVersion !== PROTOCOL_VERSION) {
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

  async newSession(params: Params<typeof SessionNewMethod>, token?: CancellationToken): Promise<ResultOf<typeof SessionNewMethod>> {
    this.checkSessionSetup('session/new', params);
    const result = await this.send(SessionNewMethod, params, token);
    this.rememberSetup(result.sessionId, result);
    return result;
  }

  /** Replays the session's history as `session/update` notifications, then answers. */
  async loadSession(params: Params<typeof SessionLoadMethod>, token?: CancellationToken): Promise<ResultOf<typeof SessionLoadMethod>> {
    this.require(this.ready('session/load').loadSession, 'reopening sessions with their history (session/load)', 'agentCapabilities.loadSession');
    this.checkSessionSetup('session/load', params);
    const result = await this.send(SessionLoadMethod, params, token);
    this.rememberSetup(params.sessionId, result);
    return result;
  }

  async resumeSession(params: Params<typeof SessionResumeMethod>, token?: CancellationToken): Promise<ResultOf<typeof SessionResumeMethod>> {
    this.require(this.ready('session/resume').sessions.resume, 'resuming sessions (session/resume)', 'sessionCapabilities.resume');
    this.checkSessionSetup('session/resume', params);
    const result = await this.send(SessionResumeMethod, params, token);
    this.rememberSetup(params.sessionId, result);
    return result;
  }

  /** Unstable `session/fork`: a new session with the source's history and the roots given here. */
  async forkSession(params: Params<typeof SessionForkMethod>, token?: CancellationToken): Promise<ResultOf<typeof SessionForkMethod>> {
    this.require(this.ready('session/fork').sessions.fork, 'forking sessions (session/fork)', 'sessionCapabilities.fork');
    this.checkSessionSetup('session/fork', params);
    const result = await this.send(SessionForkMethod, params, token);
    this.rememberSetup(result.sessionId, result);
    return result;
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
    const params =
      typeof value === 'boolean' ? { sessionId, configId, type: 'boolean' as const, value } : { sessionId, configId, value };
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

  /** `session/cancel`: ask the agent to end the running turn (it answers the prompt with `cancelled`). */
  async cancel(sessionId: string): Promise<void> {
    this.ready('session/cancel');
    await this.notify(SessionCancelNotification, { sessionId });
  }

  /**
   * The agent is gone (it exited): deliver whatever it sent before that, then close with `reason`.
   * If its output does not end soon (a helper process may hold the pipe open), close anyway.
   */
  close(reason: string, drainTimeoutMs = 2000): void {
    if (this.closedReason !== undefined) return;
    if (this.drained) return this.dispose(reason);
    this.pendingCloseReason = reason;
    clearTimeout(this.closeTimer);
    this.closeTimer = setTimeout(() => this.dispose(reason), drainTimeoutMs);
  }

  /**
   * Closes the connection now. Outstanding requests fail with a {@link ConnectionClosedError} carrying
   * `reason` (say, "the agent exited with code 1"). Idempotent; the first reason wins.
   */
  dispose(reason = 'the connection was closed.'): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    if (this.closeTimer) clearTimeout(this.closeTimer);
    for (const entry of this.pending) entry.reject(new ConnectionClosedError(this.agentName, entry.method, reason));
    this.pending.clear();
    for (const source of this.incomingCancellations.values()) source.cancel();
    this.incomingCancellations.clear();
    this.connection.dispose();
    this.closeEmitter.fire(reason);
    this.closeEmitter.dispose();
    this.protocolErrorEmitter.dispose();
  }

  // ---- internals ----------------------------------------------------------------------------------

  /** The capabilities, once initialized and while open; otherwise a clear error for `method`. */
  private ready(method: string): AgentCaps {
    if (this.closedReason !== undefined) throw new ConnectionClosedError(this.agentName, method, this.closedReason);
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
      this.require(
        caps.sessions.additionalDirectories,
        'additional workspace folders (additionalDirectories)',
        'sessionCapabilities.additionalDirectories',
      );
      for (const entry of params.additionalDirectories) this.requireAbsolute(method, 'additionalDirectories entry', entry);
    }
    for (const server of params.mcpServers ?? []) {
      if ('type' in server && server.type === 'http') this.require(caps.mcp.http, `the HTTP MCP server "${server.name}"`, 'mcpCapabilities.http');
      if ('type' in server && server.type === 'sse') this.require(caps.mcp.sse, `the SSE MCP server "${server.name}"`, 'mcpCapabilities.sse');
    }
  }

  private rememberSetup(sessionId: string, result: { modes?: unknown; configOptions?: unknown }): void {
    this.sessionSetup.set(sessionId, {
      modes: result.modes !== undefined && result.modes !== null,
      configOptions: Array.isArray(result.configOptions),
    });
  }

  private async sendIgnoringNotFound<D extends RequestDefinition>(definition: D, params: ParamsOf<D>, token?: CancellationToken): Promise<void> {
    try {
      await this.send(definition, params, token);
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
      this.logger.info(`${this.agentName}: ${definition.method} for an unknown session counts as done.`);
    }
  }

  /** Sends one request, validates the answer and maps errors. */
  private send<D extends RequestDefinition>(definition: D, params: ParamsOf<D>, token?: CancellationToken): Promise<ResultOf<D>> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new ConnectionClosedError(this.agentName, definition.method, this.closedReason));
    }
    if (definition.method !== InitializeMethod.method && !this.agentCaps) {
      return Promise.reject(new Error(`${definition.method}: the connection to ${this.agentName} is not initialized yet.`));
    }
    return new Promise<ResultOf<D>>((resolve, reject) => {
      const entry: Pending = { method: definition.method, reject };
      this.pending.add(entry);
      // Only pass a token when there is one: vscode-jsonrpc would send `undefined` as a second positional param.
      const sent = token ? this.connection.sendRequest(definition.method, params, token) : this.connection.sendRequest(definition.method, params);
      sent.then(
        (raw: unknown) => {
          if (!this.pending.delete(entry)) return;
          const parsed = definition.result.safeParse(raw);
          if (parsed.success) resolve(parsed.data as ResultOf<D>);
          else reject(new InvalidResponseError(this.agentName, definition.method, formatIssues(parsed.error.issues)));
        },
        (error: unknown) => {
          if (!this.pending.delete(entry)) return;
          const authMethods = this.agentCaps?.authMethods ?? [];
          const mapped = toAcpError(error, this.agentName, definition.method, authMethods, params);
          reject(mapped instanceof Error ? mapped : new AgentRequestError(this.agentName, definition.method, ErrorCodes.InternalError, String(mapped)));
        },
      );
    });
  }

  private async notify<D extends NotificationDefinition>(definition: D, params: ParamsOf<D>): Promise<void> {
    if (this.closedReason !== undefined) throw new ConnectionClosedError(this.agentName, definition.method, this.closedReason);
    await this.connection.sendNotification(definition.method, params);
  }

  /**
   * The fast path for streamed notifications. vscode-jsonrpc dispatches one queued message per event
   * loop turn; an agent streaming thousands of `session/update`s would pay that per message. When
   * nothing is waiting in its queue, a notification with a registered handler is dispatched here,
   * synchronously, which keeps the exact arrival order; anything else goes through the queue.
   */
  private dispatchDirectly(message: Message): boolean {
    if (this.queued === 0 && this.closedReason === undefined && Message.isNotification(message)) {
      const dispatch = this.directNotifications.get(message.method);
      if (dispatch) {
        dispatch(message.params);
        return true;
      }
    }
    this.queued++;
    return false;
  }

  private reportProtocolError(error: Error): void {
    this.logger.warn(error.message);
    this.protocolErrorEmitter.fire(error);
  }

  /** ACP's `$/cancel_request {requestId}` instead of LSP's `$/cancelRequest {id}`. */
  private cancellationStrategy(): CancellationStrategy {
    const incoming = this.incomingCancellations;
    return {
      receiver: {
        createCancellationTokenSource(id: CancellationId) {
          const source = new CancellationTokenSource();
          incoming.set(id, source);
          const dispose = source.dispose.bind(source);
          source.dispose = () => {
            incoming.delete(id);
            dispose();
          };
          return source;
        },
      },
      sender: {
        sendCancellation: (connection, id) => connection.sendNotification(CancelRequestNotification.method, { requestId: id }),
        cleanup: () => undefined,
      },
    };
  }

  private jsonRpcLogger() {
    const { logger, agentName } = this;
    return {
      error: (message: string) => logger.error(`${agentName}: ${message}`),
      warn: (message: string) => logger.warn(`${agentName}: ${message}`),
      info: (message: string) => logger.info(`${agentName}: ${message}`),
      log: (message: string) => logger.trace(`${agentName}: ${message}`),
    };
  }
}
