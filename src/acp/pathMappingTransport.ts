/**
 * An {@link AcpTransport} that translates paths at the edge, for an agent whose files are not the client's:
 * everything above it (the connection, sessions, views) works in local paths, the agent sees its own.
 * Which messages carry paths and what becomes of a path that does not map: pathMappingMessages.ts.
 *
 * The contract of transport.ts holds: messages keep their order; each reaches the connection's `intercept`
 * first; {@link END_OF_STREAM_METHOD} and anything else the inner reader makes up itself pass untouched.
 * The tap is on the connection's side: it sees what the connection sees, in local paths (a request refused
 * here, and its refusal, never reach it; `onRefused` reports them).
 */
import * as l10n from '@vscode/l10n';
import { Message, type DataCallback, type MessageReader, type MessageWriter, type RequestMessage, type ResponseMessage } from 'vscode-jsonrpc/node';
import { ErrorCodes } from './errors';
import type { PathMapper } from './pathMapping';
import { incomingCarriesPaths, outgoingCarriesPaths, translateIncoming, translateListResult, translateOutgoingRequest } from './pathMappingMessages';
import type { AcpTransport, TransportHooks } from './transport/transport';

/** An agent's request refused because its path maps to no shared folder. */
export interface PathRefusal {
  readonly method: string;
  /** The path as the agent sent it. */
  readonly path: string;
  readonly sessionId?: string;
}

export interface MappedTransportHooks {
  /** Called for each agent request answered here with a refusal (the caller tells the user). */
  onRefused?(refusal: PathRefusal): void;
}

type RequestId = string | number;

/**
 * Wraps `inner` so that every path crossing it is translated by `mapper` (client: local paths; agent: its
 * own). An agent's `fs/*` or `terminal/create` outside the mapped roots is answered here with `-32602` naming
 * the path and the agent's roots, and never reaches the connection's handlers.
 */
export function mappedTransport(inner: AcpTransport, mapper: PathMapper, hooks: MappedTransportHooks = {}): AcpTransport {
  return {
    peer: inner.peer,
    open: (connection) => new MappedLink(inner, mapper, hooks, connection).open(),
  };
}

/** One opened mapped transport: the translation state of one connection. */
class MappedLink {
  /** Incoming messages replaced by their translation (looked up when the inner reader hands them on). */
  private readonly translated = new WeakMap<Message, Message>();
  /** Ids of `session/list` requests sent and not answered yet: their answers carry the agent's paths. */
  private readonly lists = new Set<RequestId>();
  private innerWriter: MessageWriter | undefined;
  private deliver: DataCallback | undefined;

  constructor(
    private readonly inner: AcpTransport,
    private readonly mapper: PathMapper,
    private readonly hooks: MappedTransportHooks,
    private readonly connection: TransportHooks,
  ) {}

  open(): { readonly reader: MessageReader; readonly writer: MessageWriter } {
    // No tap for the inner transport: the connection's tap sees translated messages (see receive/write).
    const { reader, writer } = this.inner.open({ intercept: (message) => this.receive(message) });
    this.innerWriter = writer;
    const mappedReader: MessageReader = {
      onError: reader.onError,
      onClose: reader.onClose,
      onPartialMessage: reader.onPartialMessage,
      listen: (callback) => {
        this.deliver = callback;
        return reader.listen((message) => callback(this.passOn(message)));
      },
      dispose: () => reader.dispose(),
    };
    const mappedWriter: MessageWriter = {
      onError: writer.onError,
      onClose: writer.onClose,
      write: (message) => this.send(message),
      end: () => writer.end(),
      dispose: () => writer.dispose(),
    };
    return { reader: mappedReader, writer: mappedWriter };
  }

  /** The inner reader's intercept: translate, refuse, or hand the translation to the connection's intercept. */
  private receive(message: Message): boolean {
    const translated = this.translateIncoming(message);
    if (translated === undefined) return true;
    this.connection.tap?.('receive', translated);
    if (this.connection.intercept(translated)) return true;
    if (translated !== message) this.translated.set(message, translated);
    return false;
  }

  /** What the inner reader hands on: the translation made in {@link receive}, or the message itself. */
  private passOn(message: Message): Message {
    const translated = this.translated.get(message);
    if (translated !== undefined) {
      this.translated.delete(message);
      return translated;
    }
    // An answer the inner reader made up (an oversize answer it discarded): forget its request.
    if (Message.isResponse(message) && message.id !== null) this.lists.delete(message.id);
    return message;
  }

  /** The local form of an incoming message, or undefined when it was answered here. */
  private translateIncoming(message: Message): Message | undefined {
    if (Message.isResponse(message)) {
      if (message.id === null || !this.lists.delete(message.id) || message.result === undefined) return message;
      return { ...message, result: translateListResult(message.result, this.mapper) } as ResponseMessage;
    }
    if (!Message.isRequest(message) && !Message.isNotification(message)) return message;
    if (!incomingCarriesPaths(message.method)) return message;
    const outcome = translateIncoming(message.method, message.params, this.mapper);
    switch (outcome.kind) {
      case 'deliver':
        return outcome.params === message.params ? message : ({ ...message, params: outcome.params } as Message);
      case 'refuse':
        if (Message.isRequest(message)) this.refuse(message, outcome.path, outcome.sessionId);
        return undefined;
    }
  }

  private refuse(request: RequestMessage, path: string, sessionId: string | undefined): void {
    const roots = this.mapper.remoteRoots;
    const message =
      roots.length === 0
        ? l10n.t('{0} is outside the folders shared with this agent: none are shared.', path)
        : l10n.t('{0} is outside the folders shared with this agent ({1}).', path, roots.join(', '));
    const answer: ResponseMessage = {
      jsonrpc: '2.0',
      id: request.id,
      error: { code: ErrorCodes.InvalidParams, message, data: { path, roots, reason: 'not-shared' } },
    };
    // A failed write is reported by the inner writer's onError, like any other.
    this.innerWriter?.write(answer).catch(() => undefined);
    this.hooks.onRefused?.({ method: request.method, path, ...(sessionId === undefined ? {} : { sessionId }) });
  }

  /** The writer: the tap sees the local form, the agent gets its own. */
  private send(message: Message): Promise<void> {
    this.connection.tap?.('send', message);
    const writer = this.innerWriter!;
    if (!Message.isRequest(message) || !outgoingCarriesPaths(message.method)) return writer.write(message);
    const outcome = translateOutgoingRequest(message.method, message.params, this.mapper, this.inner.peer);
    switch (outcome.kind) {
      case 'send':
        if (message.method === 'session/list' && message.id !== null) this.lists.add(message.id);
        return writer.write(outcome.params === message.params ? message : ({ ...message, params: outcome.params } as RequestMessage));
      case 'answer':
        this.answerHere({ jsonrpc: '2.0', id: message.id, result: outcome.result } as ResponseMessage);
        return Promise.resolve();
      case 'refuse':
        this.answerHere({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCodes.InvalidParams, message: outcome.message, data: outcome.data } });
        return Promise.resolve();
    }
  }

  /** Answers a client request in the agent's place, as if it had arrived (after the write returned, like a real answer). */
  private answerHere(answer: ResponseMessage): void {
    setImmediate(() => {
      this.connection.tap?.('receive', answer);
      if (!this.connection.intercept(answer)) this.deliver?.(answer);
    });
  }
}
