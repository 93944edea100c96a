/**
 * One JSON-RPC peer over an {@link AcpTransport}, with every message checked against its definition: the
 * ground {@link AcpConnection} stands on.
 *
 * - Incoming requests and notifications are validated with zod before their handler runs: bad params
 *   answer `-32602` with a readable message; unknown requests get `-32601`; unknown notifications are
 *   logged and ignored; a throwing handler answers `-32603` (or the code of its `HandlerError` or the port's
 *   `ClientRefusal`).
 * - Answers to outgoing requests are validated too; errors are mapped by the subclass.
 * - `$/cancel_request` (ACP's form) works both ways.
 * - Streamed notifications take a fast path (see {@link RpcPeer.dispatchDirectly}).
 * - When the other side ends, everything it sent is delivered before the peer closes; outstanding
 *   requests then fail with the real reason.
 */
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
  type MessageWriter,
} from 'vscode-jsonrpc/node';
import { silentLogger, type Logger } from '../common/logger';
import { ConnectionClosedError, ErrorCodes } from './errors';
import { ClientRefusal } from './port/client';
import { CancelRequestNotification, formatIssues, type NotificationDefinition, type ParamsOf, type RequestDefinition, type ResultOf } from './schema';
import { FramingError, formatSize } from './transport/ndjson';
import { END_OF_STREAM_METHOD, type AcpTransport, type MessageTap } from './transport/transport';
import { errorMessage } from '../common/errors';

export { ResponseError as HandlerError } from 'vscode-jsonrpc/node';
export type { CancellationToken } from 'vscode-jsonrpc/node';

export interface RpcPeerOptions {
  /** How messages travel (stdio today). */
  readonly transport: AcpTransport;
  readonly logger?: Logger;
  /** Sees every message sent and received (protocol trace). */
  readonly tap?: MessageTap;
  /**
   * After the other side's output ended and everything it sent was delivered, how long to wait for the
   * owner to {@link RpcPeer.close} with a better reason (an exit code, say) before closing with a generic
   * one. Default 250 ms.
   */
  readonly closeGraceMs?: number;
}

/** A handler for one incoming request. Throw a `HandlerError` to answer with a specific code. */
export type RequestHandler<D extends RequestDefinition> = (params: ParamsOf<D>, token: CancellationToken) => ResultOf<D> | Promise<ResultOf<D>>;

export type NotificationHandler<D extends NotificationDefinition> = (params: ParamsOf<D>) => void;

/** A request in flight, so that closing can fail it with the real reason. */
interface Pending {
  readonly method: string;
  readonly reject: (error: Error) => void;
}

export abstract class RpcPeer implements Disposable {
  /** Who is at the other end, in every message the user may see. */
  readonly peer: string;
  protected readonly logger: Logger;
  private readonly connection: MessageConnection;
  /** The transport's writer, for the one answer vscode-jsonrpc cannot send: to a request that was discarded. */
  private readonly writer: MessageWriter;
  private readonly pending = new Set<Pending>();
  private readonly incomingCancellations = new Map<CancellationId, CancellationTokenSource>();
  /** Methods with a registered request handler that serves them (what the client capabilities advertise). */
  protected readonly registered = new Set<string>();
  /** Methods with a handler registered only to answer them in words, never advertised (see {@link onRequest}). */
  private readonly unadvertised = new Set<string>();
  private closedReason: string | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  /** Set once every message the other side sent before its output ended has been dispatched. */
  private drained = false;
  /** Why the other side went away, when the owner told us before the drain finished. */
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
  /** Fires for every problem with what the other side sent that did not fail a request (bad lines, bad notifications). */
  readonly onProtocolError: Event<Error> = this.protocolErrorEmitter.event;

  constructor(options: RpcPeerOptions) {
    this.peer = options.transport.peer;
    this.logger = options.logger ?? silentLogger;
    const { reader, writer } = options.transport.open({ tap: options.tap, intercept: (message) => this.dispatchDirectly(message) });
    this.writer = writer;
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
      const note = `${this.peer} sent a notification this client does not handle: ${message.method}`;
      if (message.method.startsWith('_') || message.method.startsWith('$/')) this.logger.trace(note);
      else this.logger.info(note);
    });
    this.closeGraceMs = options.closeGraceMs ?? 250;
    this.connection.onNotification(END_OF_STREAM_METHOD, () => {
      this.drained = true;
      if (this.pendingCloseReason !== undefined) return this.dispose(this.pendingCloseReason);
      clearTimeout(this.closeTimer);
      this.closeTimer = setTimeout(() => this.dispose(`${this.peer} closed the connection.`), this.closeGraceMs);
    });
    this.connection.onNotification(CancelRequestNotification.method, (params: unknown) => {
      const parsed = CancelRequestNotification.params.safeParse(params);
      if (!parsed.success) {
        this.reportProtocolError(new Error(`${this.peer} sent an invalid $/cancel_request: ${formatIssues(parsed.error.issues)}`));
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

  /**
   * Registers the handler for one incoming request. Its params are validated before it runs. With
   * `advertise: false` the method is answered but not counted among the handlers the client advertises (a
   * handler that only refuses, in words the user sees, what this agent is not offered).
   */
  onRequest<D extends RequestDefinition>(definition: D, handler: RequestHandler<D>, options: { readonly advertise?: boolean } = {}): Disposable {
    if (this.registered.has(definition.method) || this.unadvertised.has(definition.method))
      throw new Error(`A handler for ${definition.method} is already registered.`);
    const registered = options.advertise === false ? this.unadvertised : this.registered;
    registered.add(definition.method);
    const registration = this.connection.onRequest(definition.method, async (raw: unknown, token: CancellationToken) => {
      const parsed = definition.params.safeParse(raw);
      if (!parsed.success) {
        const details = formatIssues(parsed.error.issues);
        this.logger.warn(`${this.peer} sent ${definition.method} with invalid params: ${details}`);
        return new ResponseError(ErrorCodes.InvalidParams, `Invalid params for ${definition.method}: ${details}`);
      }
      try {
        return await handler(parsed.data as ParamsOf<D>, token);
      } catch (error) {
        if (error instanceof ResponseError) return error;
        // A refusal the application chose (the port's words for it): the agent gets its code, message and data.
        if (error instanceof ClientRefusal) return new ResponseError(error.code, error.message, error.data);
        const message = errorMessage(error);
        this.logger.error(`Handling ${definition.method} from ${this.peer} failed: ${message}`);
        return new ResponseError(ErrorCodes.InternalError, message);
      }
    });
    return {
      dispose: () => {
        registered.delete(definition.method);
        registration.dispose();
      },
    };
  }

  /**
   * Registers the handler for one incoming notification. Invalid params are reported through
   * {@link onProtocolError} and the log; the handler never sees them. A throwing handler is logged.
   */
  onNotification<D extends NotificationDefinition>(definition: D, handler: NotificationHandler<D>): Disposable {
    if (this.directNotifications.has(definition.method)) throw new Error(`A handler for ${definition.method} is already registered.`);
    const dispatch = (raw: unknown) => {
      const parsed = definition.params.safeParse(raw);
      if (!parsed.success) {
        this.reportProtocolError(new Error(`${this.peer} sent an invalid ${definition.method} notification: ${formatIssues(parsed.error.issues)}`));
        return;
      }
      try {
        handler(parsed.data as ParamsOf<D>);
      } catch (error) {
        this.logger.error(`Handling ${definition.method} from ${this.peer} failed: ${error instanceof Error ? error.stack : String(error)}`);
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

  /**
   * The other side is gone (it exited): deliver whatever it sent before that, then close with `reason`.
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
    for (const entry of this.pending) entry.reject(new ConnectionClosedError(this.peer, entry.method, reason));
    this.pending.clear();
    for (const source of this.incomingCancellations.values()) source.cancel();
    this.incomingCancellations.clear();
    this.connection.dispose();
    this.closeEmitter.fire(reason);
    this.closeEmitter.dispose();
    this.protocolErrorEmitter.dispose();
  }

  /** Throws the {@link ConnectionClosedError} for `method` once closed. */
  protected checkOpen(method: string): void {
    if (this.closedReason !== undefined) throw new ConnectionClosedError(this.peer, method, this.closedReason);
  }

  /** Turns an error answer (or a failure to send) into the error a caller gets. */
  protected abstract mapError(error: unknown, definition: RequestDefinition, params: unknown): Error;

  /** Sends one request and validates the answer; errors go through {@link mapError}. */
  protected request<D extends RequestDefinition>(definition: D, params: ParamsOf<D>, token?: CancellationToken): Promise<ResultOf<D>> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new ConnectionClosedError(this.peer, definition.method, this.closedReason));
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
          else reject(this.invalidAnswer(definition, formatIssues(parsed.error.issues)));
        },
        (error: unknown) => {
          if (!this.pending.delete(entry)) return;
          reject(this.mapError(error, definition, params));
        },
      );
    });
  }

  /** The error for an answer that does not validate against the method's result schema. */
  protected abstract invalidAnswer(definition: RequestDefinition, details: string): Error;

  protected async notify<D extends NotificationDefinition>(definition: D, params: ParamsOf<D>): Promise<void> {
    this.checkOpen(definition.method);
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

  /** Logs a protocol error of the agent's and fires {@link onProtocolError}. */
  protected reportProtocolError(error: Error): void {
    this.logger.warn(error.message);
    this.answerDiscardedRequest(error);
    this.protocolErrorEmitter.fire(error);
  }

  /**
   * A request the agent sent was discarded (over the size limit): answer it with an error, so the agent does
   * not wait for an answer that would never come. (A discarded answer fails its request in the reader.)
   */
  private answerDiscardedRequest(error: Error): void {
    if (!(error instanceof FramingError) || !error.oversize || this.isClosed) return;
    const { method, id, answer } = error.oversize.head;
    if (method === undefined || id === undefined || answer) return;
    const message = `The ${method} request was ${formatSize(error.oversize.bytes)}, over this client's limit of ${formatSize(error.oversize.limitBytes)}; it was not read.`;
    void this.writer.write({ jsonrpc: '2.0', id, error: { code: ErrorCodes.InvalidRequest, message } } as Message).catch(() => undefined);
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
    const { logger, peer } = this;
    return {
      error: (message: string) => logger.error(`${peer}: ${message}`),
      warn: (message: string) => logger.warn(`${peer}: ${message}`),
      info: (message: string) => logger.info(`${peer}: ${message}`),
      log: (message: string) => logger.trace(`${peer}: ${message}`),
    };
  }
}
