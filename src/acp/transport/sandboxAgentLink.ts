/**
 * A {@link RemoteLink} to one agent on a Sandbox Agent server (rivet-dev/sandbox-agent 0.4.2), over its ACP
 * endpoint `<base>/v1/acp/<serverId>?agent=<id>`. What the server does (checked against the real 0.4.2 binary,
 * see CONTRIBUTING.md, "Transports"):
 * - the first POST to a new `serverId` must carry `?agent=`; it starts the agent and answers once the agent
 *   answered (a request's answer is the POST's `application/json` body; a notification or an answer we send gets
 *   `202` with no body). A GET before that first POST is `404 session_not_found`;
 * - `GET` is a `text/event-stream` that carries every message of the agent in order, the answers to our requests
 *   included, from the first one on (it replays what came before the GET), plus `: heartbeat` comments;
 * - agent→client requests come on that stream and are answered by POSTing the JSON-RPC answer (`202`);
 * - `DELETE` stops the agent; it may answer `204` only after a long while, so it is bounded here;
 * - errors are `application/problem+json` (`401 token_invalid`, `400 invalid_request`, `404 session_not_found`).
 *
 * So the event stream is the one source of what the agent says: answers are taken from it, in order with the
 * updates before them (a POST body could overtake the stream and end a turn before its last chunks), and POST
 * bodies are drained unread. An HTTP error on a request's POST answers that request with the server's words.
 */
import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { AbstractMessageReader, AbstractMessageWriter, Disposable, type DataCallback, type Message } from 'vscode-jsonrpc/node';
import { ErrorCodes } from '../errors';
import { readHttpError, type RemoteHttpError } from './httpProblem';
import { readMessageHead } from './messageHead';
import { FramingError, formatSize } from './ndjson';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  checkRemoteEndpoint,
  displayUrl,
  type LinkEnd,
  type RemoteLink,
  type RemoteLinkOptions,
} from './remote';
import { END_OF_STREAM_METHOD, type MessageTap, type TransportHooks } from './transport';

/** How long `close()` waits for the server's answer to DELETE (0.4.2 may take much longer; the agent is stopped anyway). */
const DELETE_TIMEOUT_MS = 2_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** How much of a discarded event is kept, to tell what it was. */
const HEAD_BYTES = 64 * 1024;

/** A link to `options.endpoint.sandboxAgent` on the Sandbox Agent server at `options.endpoint.url`. */
export function sandboxAgentLink(options: RemoteLinkOptions): RemoteLink {
  return new SandboxAgentLink(options);
}

/** The ACP endpoint of one connection (`serverId`) to one agent on a server whose base URL is `base`. */
export function sandboxAcpUrl(base: URL, serverId: string, agent: string | undefined): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/acp/${encodeURIComponent(serverId)}`;
  url.search = '';
  url.hash = '';
  if (agent !== undefined) url.searchParams.set('agent', agent);
  return url;
}

class SandboxAgentLink implements RemoteLink {
  readonly peer: string;
  readonly ended: Promise<LinkEnd>;
  private settle!: (end: LinkEnd) => void;
  private end: LinkEnd | undefined;
  private readonly maxMessageBytes: number;
  private readonly serverId = randomUUID();
  /** Aborts every request in flight when the link ends. */
  private readonly abort = new AbortController();
  private url: URL | undefined;
  private reader: SseMessageReader | undefined;
  /** The chain of POSTs: each starts once the one before it was accepted (or, for a request, sent). */
  private sending: Promise<void> = Promise.resolve();
  /** The first POST created the connection on the server (then the stream may be read and DELETE means something). */
  private created = false;
  /** The first POST went out (the server may have started the agent even if its answer never came). */
  private posted = false;
  private deleted = false;
  /** Requests sent and not yet answered on the stream, so an HTTP error can answer them instead. */
  private readonly unanswered = new Set<string | number>();

  constructor(private readonly options: RemoteLinkOptions) {
    this.peer = options.peer;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.ended = new Promise((resolve) => (this.settle = resolve));
  }

  open(hooks: TransportHooks): { reader: SseMessageReader; writer: PostMessageWriter } {
    this.reader = new SseMessageReader(this.peer, this.maxMessageBytes, hooks, (message) => this.received(message));
    const writer = new PostMessageWriter(this.peer, (message) => this.send(message), () => this.end !== undefined, hooks.tap);
    const url = checkRemoteEndpoint(this.options.endpoint);
    if (url instanceof Error) this.finish({ cause: 'http', reason: url.message, retry: false });
    else this.url = url;
    return { reader: this.reader, writer };
  }

  /**
   * Ends the link and deletes the connection on the server, which stops the agent there: also after the link ended
   * by itself (a broken stream may leave the agent running on a server that is still up).
   */
  async close(): Promise<void> {
    this.finish({ cause: 'stopped', reason: l10n.t('The connection to {0} was closed.', this.peer), retry: false });
    if (!this.posted || this.deleted || !this.url) return;
    this.deleted = true;
    // The server stops the agent on DELETE; its answer may be slow, so the wait is bounded.
    await fetch(sandboxAcpUrl(this.url, this.serverId, undefined), { method: 'DELETE', headers: this.headers(), signal: AbortSignal.timeout(DELETE_TIMEOUT_MS) })
      .then((response) => response.body?.cancel())
      .catch(() => undefined);
  }

  private get where(): string {
    return displayUrl(this.options.endpoint.url);
  }

  private headers(extra?: Record<string, string>): Record<string, string> {
    const { token, headers } = this.options.credentials;
    return { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
  }

  /** Queues one POST behind the others; resolves once this message was accepted (a request: once it was sent). */
  private send(message: Message): Promise<void> {
    let sent!: () => void;
    const started = new Promise<void>((resolve) => (sent = resolve));
    const done = this.sending.then(() => this.post(message, sent));
    if (isRequest(message)) {
      // A request does not hold up the next message (a cancel must reach the agent during a prompt); how it
      // fails reaches the connection as its answer or as the link's end.
      done.catch(() => undefined);
      this.sending = started;
      return started;
    }
    this.sending = done.catch(() => undefined);
    return done;
  }

  private async post(message: Message, sent: () => void): Promise<void> {
    if (this.end || !this.url) {
      sent();
      throw new Error(l10n.t('Cannot send to {0}: the connection is closed.', this.peer));
    }
    const first = !this.created;
    const id = requestId(message);
    if (id !== undefined) this.unanswered.add(id);
    const body = JSON.stringify(message);
    const size = Buffer.byteLength(body);
    if (size > this.maxMessageBytes) {
      sent();
      const words = l10n.t('The message to {0} is {1}, over the limit of {2}; it was not sent.', this.peer, formatSize(size), formatSize(this.maxMessageBytes));
      if (id === undefined) throw new Error(words);
      this.unanswered.delete(id);
      this.reader?.deliver({ jsonrpc: '2.0', id, error: { code: ErrorCodes.InternalError, message: words } } as Message);
      return;
    }
    const signals = [this.abort.signal];
    if (first) signals.push(AbortSignal.timeout(this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS));
    let response: Response;
    this.posted = true;
    try {
      const pending = fetch(sandboxAcpUrl(this.url, this.serverId, first ? this.options.endpoint.sandboxAgent : undefined), {
        method: 'POST',
        headers: this.headers({ 'content-type': 'application/json', accept: 'application/json' }),
        body,
        signal: AbortSignal.any(signals),
      });
      // The server must know the connection before anything else is sent or the stream is read.
      if (!first) sent();
      response = await pending;
    } catch (error) {
      sent();
      if (this.end) throw new Error(l10n.t('Cannot send to {0}: the connection is closed.', this.peer));
      const timedOut = (error as Error).name === 'TimeoutError';
      const refused = (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';
      this.finish({
        cause: 'network',
        reason: timedOut
          ? l10n.t('{0} at {1} did not answer within {2} seconds.', this.peer, this.where, Math.round((this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS) / 1000))
          : first || refused
            ? l10n.t('Cannot reach {0} at {1}: {2}', this.peer, this.where, networkWords(error))
            : l10n.t('The connection to {0} at {1} broke: {2}', this.peer, this.where, networkWords(error)),
        retry: true,
      });
      throw new Error(this.end!.reason);
    }
    if (first) {
      sent();
      if (response.ok) {
        this.created = true;
        void this.readStream();
      }
    }
    if (response.ok) {
      // The answer also comes on the event stream, in order: the body is drained without being kept.
      await drain(response);
      return;
    }
    const error = await readHttpError(response, this.peer, l10n.t('{0} at {1}', describe(message), this.where));
    this.failed(error, message, first);
  }

  /** A POST answered with an HTTP error: the link ends when it cannot go on, else the request fails with the words. */
  private failed(error: RemoteHttpError, message: Message, first: boolean): void {
    if (error.auth) this.finish({ cause: 'auth', reason: error.message, retry: false });
    // The server no longer knows this connection (it restarted, or it stopped the agent): a new link may help.
    else if (error.status === 404 && !first) this.finish({ cause: 'closed', reason: error.message, retry: true });
    else if (first) this.finish({ cause: 'http', reason: error.message, retry: error.status >= 500 });
    const id = requestId(message);
    if (id !== undefined && this.unanswered.delete(id) && this.end === undefined) {
      this.reader?.deliver({ jsonrpc: '2.0', id, error: { code: ErrorCodes.InternalError, message: error.message } } as Message);
      return;
    }
    if (id === undefined) throw error;
  }

  /** Reads the event stream until it ends; then the link ends. */
  private async readStream(): Promise<void> {
    let response: Response;
    try {
      response = await fetch(sandboxAcpUrl(this.url!, this.serverId, undefined), {
        headers: this.headers({ accept: 'text/event-stream' }),
        signal: this.abort.signal,
      });
    } catch (error) {
      this.finish({ cause: 'network', reason: l10n.t('Cannot reach {0} at {1}: {2}', this.peer, this.where, networkWords(error)), retry: true });
      return;
    }
    if (!response.ok) {
      const error = await readHttpError(response, this.peer, l10n.t('the event stream at {0}', this.where));
      this.finish({ cause: error.auth ? 'auth' : 'http', reason: error.message, retry: !error.auth && error.status >= 500 });
      return;
    }
    if (!response.body) {
      this.finish({ cause: 'protocol', reason: l10n.t('{0} at {1} sent an empty event stream.', this.peer, this.where), retry: true });
      return;
    }
    const body = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await body.read();
        if (done) break;
        this.reader!.feed(value);
      }
    } catch (error) {
      if (this.end) return;
      this.finish({ cause: 'network', reason: l10n.t('The connection to {0} at {1} broke: {2}', this.peer, this.where, networkWords(error)), retry: true });
      return;
    }
    this.finish({ cause: 'closed', reason: l10n.t('{0} at {1} ended the connection.', this.peer, this.where), retry: true });
  }

  /** A message from the stream, before it is handed on. */
  private received(message: Message): void {
    const id = (message as { id?: unknown }).id;
    if (!isRequest(message) && (typeof id === 'string' || typeof id === 'number')) this.unanswered.delete(id);
  }

  /** Ends the link once: settles {@link ended}, stops every request, and ends the reader after what it already has. */
  private finish(end: LinkEnd): void {
    if (this.end) return;
    this.end = end;
    if (end.cause !== 'stopped') this.options.logger?.warn(end.reason);
    this.abort.abort();
    this.settle(end);
    this.reader?.endOfStream();
  }
}

/** Sends each message through `send`; rejects (and reports) once the link is closed. */
class PostMessageWriter extends AbstractMessageWriter {
  private errors = 0;

  constructor(
    private readonly peer: string,
    private readonly send: (message: Message) => Promise<void>,
    private readonly closed: () => boolean,
    private readonly tap: MessageTap | undefined,
  ) {
    super();
  }

  async write(message: Message): Promise<void> {
    this.tap?.('send', message);
    try {
      if (this.closed()) throw new Error(l10n.t('Cannot send to {0}: the connection is closed.', this.peer));
      await this.send(message);
    } catch (error) {
      this.fireError(error as Error, message, ++this.errors);
      throw error;
    }
  }

  end(): void {
    // The link's close() ends the connection on the server.
  }
}

/**
 * The messages of a `text/event-stream`, each event's `data` one JSON-RPC message. Bytes are cut into lines
 * here and each complete line fed to eventsource-parser, so no event is held beyond the limit: an event over
 * `maxMessageBytes` is skipped as it streams in (only its first {@link HEAD_BYTES} kept) and reported once it
 * ended, and an answer among them fails its request instead of leaving it waiting. What the skipped event was
 * (`method`, `id`, `sessionId`) is read from the start of the line that outgrew the limit: its one `data:` line as
 * Sandbox Agent sends it (an event split over several `data:` lines says less).
 */
export class SseMessageReader extends AbstractMessageReader {
  private callback: DataCallback | undefined;
  /** Messages that came before `listen`. */
  private early: Message[] = [];
  private readonly parser: EventSourceParser;
  /** The unfinished line's bytes. */
  private line: Buffer[] = [];
  private lineBytes = 0;
  /** The current event's bytes so far (its complete lines and the unfinished one). */
  private eventBytes = 0;
  /** While skipping an oversize event: its start. */
  private skipping: Buffer[] | undefined;
  private skippedHead = 0;
  /** The current line's length and first byte, skipped or not: a line of only `\n` or `\r\n` ends an event. */
  private lineLength = 0;
  private lineFirst = -1;
  private ended = false;

  constructor(
    private readonly peer: string,
    private readonly maxMessageBytes: number,
    private readonly hooks: TransportHooks,
    private readonly observe: (message: Message) => void,
  ) {
    super();
    this.parser = createParser({ onEvent: (event) => this.onData(event.data) });
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const early = this.early;
    this.early = [];
    for (const message of early) callback(message);
    return Disposable.create(() => (this.callback = undefined));
  }

  /** Bytes from the stream. */
  feed(chunk: Uint8Array): void {
    let start = 0;
    const last = chunk.lastIndexOf(0x0a);
    // The fast path: when no event can outgrow the limit within this chunk, its complete lines are decoded and
    // fed at once (a newline never falls inside a multi-byte character); the rest goes line by line below.
    if (!this.skipping && last !== -1 && this.eventBytes + last + 1 <= this.maxMessageBytes + 1024) {
      const head = this.lineBytes > 0 ? [...this.line, chunk.subarray(0, last + 1)] : [chunk.subarray(0, last + 1)];
      // What of the current line came in earlier chunks: nothing, a lone `\r`, or more.
      const pending = this.lineBytes === 0 ? 'none' : this.lineBytes === 1 && this.lineFirst === 0x0d ? 'cr' : 'text';
      const blank = lastBlankLineEnd(chunk, last, pending);
      this.eventBytes = blank === -1 ? this.eventBytes + last + 1 : last - blank;
      this.line = [];
      this.lineBytes = 0;
      this.lineLength = 0;
      this.parser.feed(head.length === 1 ? Buffer.from(head[0]!.buffer, head[0]!.byteOffset, head[0]!.length).toString('utf8') : Buffer.concat(head).toString('utf8'));
      start = last + 1;
    }
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) {
        this.keep(chunk.subarray(start));
        return;
      }
      this.keep(chunk.subarray(start, newline + 1));
      this.endLine();
      start = newline + 1;
    }
  }

  /** The stream ended: END_OF_STREAM after the last message, then the reader closes. */
  endOfStream(): void {
    if (this.ended) return;
    this.deliver({ jsonrpc: '2.0', method: END_OF_STREAM_METHOD } as Message);
    this.ended = true;
    this.fireClose();
  }

  /** Hands a message to the connection (a message from the stream, or an answer made up for a failed POST). */
  deliver(message: Message): void {
    if (this.ended) return;
    if (this.callback) this.callback(message);
    else this.early.push(message);
  }

  private keep(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.lineLength === 0) this.lineFirst = bytes[0]!;
    this.lineLength += bytes.length;
    this.eventBytes += bytes.length;
    if (this.skipping) {
      this.keepHead(bytes);
      return;
    }
    // Some slack for the `data: ` prefixes and line ends around the message itself.
    if (this.eventBytes > this.maxMessageBytes + 1024) {
      this.skipping = [];
      this.skippedHead = 0;
      for (const part of this.line) this.keepHead(part);
      this.keepHead(bytes);
      this.line = [];
      this.lineBytes = 0;
      this.parser.reset({ consume: false });
      return;
    }
    this.line.push(Buffer.from(bytes));
    this.lineBytes += bytes.length;
  }

  private keepHead(bytes: Uint8Array): void {
    if (this.skippedHead >= HEAD_BYTES) return;
    const take = bytes.subarray(0, HEAD_BYTES - this.skippedHead);
    this.skipping!.push(Buffer.from(take));
    this.skippedHead += take.length;
  }

  /** A line ended (its newline is part of it). */
  private endLine(): void {
    const blank = this.lineLength === 1 || (this.lineLength === 2 && this.lineFirst === 0x0d);
    this.lineLength = 0;
    if (this.skipping) {
      if (blank) this.endSkipped();
      return;
    }
    const text = Buffer.concat(this.line, this.lineBytes).toString('utf8');
    this.line = [];
    this.lineBytes = 0;
    if (blank) this.eventBytes = 0;
    this.parser.feed(text);
  }

  private endSkipped(): void {
    const head = Buffer.concat(this.skipping!).toString('utf8').replace(/^(?:[^\n]*\n)*?data: ?/, '');
    const bytes = this.eventBytes;
    this.skipping = undefined;
    this.eventBytes = 0;
    this.reportOversize(readMessageHead(head), bytes);
  }

  private reportOversize(head: ReturnType<typeof readMessageHead>, bytes: number): void {
    const what = head.method === undefined ? '' : `, ${head.method}${head.sessionId === undefined ? '' : ` for session ${head.sessionId}`}`;
    this.fireError(
      new FramingError(`${this.peer} sent a message longer than ${formatSize(this.maxMessageBytes)} (${formatSize(bytes)}${what}); it was discarded.`, this.peer, 'oversize', {
        bytes,
        limitBytes: this.maxMessageBytes,
        head,
      }),
    );
    if (head.answer && head.method === undefined && head.id !== undefined) {
      this.deliver({
        jsonrpc: '2.0',
        id: head.id,
        error: {
          code: ErrorCodes.InternalError,
          message: l10n.t('{0}\'s answer was {1}, over the limit of {2} (setting acpWorkspace.maxMessageSizeMiB); it was discarded.', this.peer, formatSize(bytes), formatSize(this.maxMessageBytes)),
        },
      } as Message);
    }
  }

  private onData(data: string): void {
    if (data.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch (error) {
      this.fireError(new FramingError(`${this.peer} sent an event that is not JSON (${(error as Error).message}): ${preview(data)}`, this.peer, 'json'));
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message) || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.fireError(new FramingError(`${this.peer} sent JSON that is not a JSON-RPC 2.0 message: ${preview(data)}`, this.peer, 'shape'));
      return;
    }
    const rpc = message as Message;
    this.observe(rpc);
    this.hooks.tap?.('receive', rpc);
    if (this.hooks.intercept(rpc)) return;
    this.deliver(rpc);
  }
}

/**
 * Where the last empty line in `chunk[0, last]` ends (the index of its newline), or -1. An empty line is a newline
 * with nothing or only `\r` since the previous newline; for the chunk's first line, `pending` says what of it came
 * in earlier chunks.
 */
function lastBlankLineEnd(chunk: Uint8Array, last: number, pending: 'none' | 'cr' | 'text'): number {
  for (let at = last; at !== -1; at = at === 0 ? -1 : chunk.lastIndexOf(0x0a, at - 1)) {
    let before = at - 1;
    let cr = false;
    if (before >= 0 && chunk[before] === 0x0d) {
      before--;
      cr = true;
    }
    if (before >= 0 ? chunk[before] === 0x0a : pending === 'none' || (pending === 'cr' && !cr)) return at;
  }
  return -1;
}

function isRequest(message: Message): boolean {
  const m = message as { id?: unknown; method?: unknown };
  return typeof m.method === 'string' && m.id !== undefined && m.id !== null;
}

/** The id of a request (an answer or a notification has none). */
function requestId(message: Message): string | number | undefined {
  const id = (message as { id?: unknown }).id;
  return isRequest(message) && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

function describe(message: Message): string {
  const method = (message as { method?: unknown }).method;
  return typeof method === 'string' ? method : l10n.t('an answer');
}

async function drain(response: Response): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  try {
    while (!(await reader.read()).done) {
      // Discarded: the event stream carries the same answer.
    }
  } catch {
    // The link ended meanwhile; the stream says why.
  }
}

function networkWords(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return typeof cause.message === 'string' ? `${cause.code} (${cause.message})` : cause.code;
  return (error as Error).message ?? String(error);
}

function preview(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
