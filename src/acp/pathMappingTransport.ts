/**
 * An {@link AcpTransport} that translates paths at the edge, for an agent whose files are not the client's:
 * everything above it (the connection, sessions, views) works in local paths, the agent sees its own.
 * Which messages carry paths and what becomes of a path that does not map: pathMappingMessages.ts.
 *
 * The contract of transport.ts holds: messages keep their order; each reaches the connection's `intercept`
 * first; {@link END_OF_STREAM_METHOD} and anything else the inner reader makes up itself pass untouched.
 * The tap (the protocol trace) is on the agent's side: it sees what the agent received and what it sent, in the
 * agent's paths, a request refused here and its refusal included; a request of ours answered here never reached
 * the agent and is not in it.
 */
import * as l10n from '@vscode/l10n';
import { Message, type DataCallback, type MessageReader, type MessageWriter, type RequestMessage, type ResponseMessage } from 'vscode-jsonrpc/node';
import { ErrorCodes } from './errors';
import type { PathMapper } from './pathMapping';
import { agentFacingError } from './pathMappingErrors';
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

/** Agent requests whose answers may quote paths (the handlers answer in local paths; the agent must not read them). */
const PATH_REQUESTS = new Set(['fs/read_text_file', 'fs/write_text_file', 'terminal/create']);
/** Client requests that set up a session with its folders. */
const SETUPS = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);

/** An agent request with a path, on its way to a handler: what its answer is rewritten with. */
interface PendingPathRequest {
  readonly method: string;
  readonly agentPath: string | undefined;
  readonly sessionId: string | undefined;
}

/**
 * Wraps `inner` so that every path crossing it is translated by `mapper` (client: local paths; agent: its
 * own). An agent's `fs/*` or `terminal/create` outside the mapped roots is answered here with `-32602` naming
 * the path and the session's folders (in the agent's paths), and never reaches the connection's handlers; the
 * handlers' own error answers to those requests reach the agent in its paths too (pathMappingErrors.ts).
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
  /** Session set-ups sent and not answered yet: the folders they give (agent's paths), the session when named. */
  private readonly setups = new Map<RequestId, { readonly sessionId: string | undefined; readonly roots: readonly string[] }>();
  /** Each session's folders in the agent's paths, as last set up through this link (refusals name these). */
  private readonly sessionRoots = new Map<string, readonly string[]>();
  /** The agent's `fs/*` and `terminal/create` requests handed to the connection and not answered yet, by id. */
  private readonly pathRequests = new Map<string, PendingPathRequest>();
  private innerWriter: MessageWriter | undefined;
  private deliver: DataCallback | undefined;

  constructor(
    private readonly inner: AcpTransport,
    private readonly mapper: PathMapper,
    private readonly hooks: MappedTransportHooks,
    private readonly connection: TransportHooks,
  ) {}

  open(): { readonly reader: MessageReader; readonly writer: MessageWriter } {
    // The inner transport taps what crosses the wire: the trace shows what the agent actually received and sent.
    const { reader, writer } = this.inner.open({ ...(this.connection.tap ? { tap: this.connection.tap } : {}), intercept: (message) => this.receive(message) });
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
    if (this.connection.intercept(translated)) return true;
    // Its answer will be rewritten in the agent's paths (answerInAgentPaths).
    if (Message.isRequest(message) && message.id !== null && PATH_REQUESTS.has(message.method)) this.pathRequests.set(idKey(message.id), pendingOf(message));
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
    if (Message.isResponse(message) && message.id !== null) {
      this.lists.delete(message.id);
      this.setups.delete(message.id);
    }
    return message;
  }

  /** The local form of an incoming message, or undefined when it was answered here. */
  private translateIncoming(message: Message): Message | undefined {
    if (Message.isResponse(message)) {
      if (message.id !== null) this.setUp(message);
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

  /** A session's set-up was answered: from now on its refusals name the folders it was given. */
  private setUp(answer: ResponseMessage): void {
    const setup = this.setups.get(answer.id!);
    if (!setup) return;
    this.setups.delete(answer.id!);
    if (answer.error !== undefined) return;
    const named = (answer.result as { sessionId?: unknown } | null | undefined)?.sessionId;
    const sessionId = typeof named === 'string' ? named : setup.sessionId;
    if (sessionId !== undefined) this.sessionRoots.set(sessionId, setup.roots);
  }

  private refuse(request: RequestMessage, path: string, sessionId: string | undefined): void {
    // Only the folders of the session that asked, as the agent sees them: never every mapped one, never a local path.
    const roots = (sessionId === undefined ? undefined : this.sessionRoots.get(sessionId)) ?? [];
    const message =
      roots.length === 0
        ? l10n.t("{0} is outside this session's folders (it has none this agent can reach).", path)
        : l10n.t("{0} is outside this session's folders ({1}).", path, roots.join(', '));
    const answer: ResponseMessage = {
      jsonrpc: '2.0',
      id: request.id,
      error: { code: ErrorCodes.InvalidParams, message, data: { path, roots, reason: 'not-shared' } },
    };
    // A failed write is reported by the inner writer's onError, like any other.
    this.innerWriter?.write(answer).catch(() => undefined);
    this.hooks.onRefused?.({ method: request.method, path, ...(sessionId === undefined ? {} : { sessionId }) });
  }

  /** The writer: the agent gets its own form (the inner writer taps it). */
  private send(message: Message): Promise<void> {
    const writer = this.innerWriter!;
    if (Message.isResponse(message)) return writer.write(this.answerInAgentPaths(message));
    if (!Message.isRequest(message) || !outgoingCarriesPaths(message.method)) return writer.write(message);
    const outcome = translateOutgoingRequest(message.method, message.params, this.mapper, this.inner.peer);
    switch (outcome.kind) {
      case 'send':
        if (message.method === 'session/list' && message.id !== null) this.lists.add(message.id);
        if (SETUPS.has(message.method) && message.id !== null) this.setups.set(message.id, setupOf(outcome.params));
        return writer.write(outcome.params === message.params ? message : ({ ...message, params: outcome.params } as RequestMessage));
      case 'answer':
        this.answerHere({ jsonrpc: '2.0', id: message.id, result: outcome.result } as ResponseMessage);
        return Promise.resolve();
      case 'refuse':
        this.answerHere({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCodes.InvalidParams, message: outcome.message, data: outcome.data } });
        return Promise.resolve();
    }
  }

  /** The connection's answer to an agent's `fs/*` or `terminal/create`: an error goes out in the agent's paths. */
  private answerInAgentPaths(answer: ResponseMessage): ResponseMessage {
    if (answer.id === null) return answer;
    const pending = this.pathRequests.get(idKey(answer.id));
    if (!pending) return answer;
    this.pathRequests.delete(idKey(answer.id));
    if (answer.error === undefined) return answer;
    const sessionRoots = pending.sessionId === undefined ? undefined : this.sessionRoots.get(pending.sessionId);
    const error = agentFacingError(answer.error, { method: pending.method, agentPath: pending.agentPath, sessionRoots }, this.mapper);
    return { ...answer, error } as ResponseMessage;
  }

  /** Answers a client request in the agent's place, as if it had arrived (after the write returned, like a real answer). */
  private answerHere(answer: ResponseMessage): void {
    setImmediate(() => {
      if (!this.connection.intercept(answer)) this.deliver?.(answer);
    });
  }
}

function idKey(id: RequestId): string {
  return `${typeof id}:${String(id)}`;
}

/** What an agent's path request's answer is rewritten with: its method, its path as the agent wrote it, its session. */
function pendingOf(request: RequestMessage): PendingPathRequest {
  const params = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as Record<string, unknown>;
  const value = params[request.method === 'terminal/create' ? 'cwd' : 'path'];
  const sessionId = params['sessionId'];
  return { method: request.method, agentPath: typeof value === 'string' ? value : undefined, sessionId: typeof sessionId === 'string' ? sessionId : undefined };
}

/** The folders a session set-up gives, in the agent's paths (the params already translated). */
function setupOf(params: unknown): { sessionId: string | undefined; roots: string[] } {
  const fields = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  const extra = Array.isArray(fields['additionalDirectories']) ? fields['additionalDirectories'].filter((d): d is string => typeof d === 'string') : [];
  const cwd = typeof fields['cwd'] === 'string' ? [fields['cwd']] : [];
  // session/fork names the session it copies; the answer names the new one (see setUp).
  return { sessionId: typeof fields['sessionId'] === 'string' ? fields['sessionId'] : undefined, roots: [...cwd, ...extra] };
}
