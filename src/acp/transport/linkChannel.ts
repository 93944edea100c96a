/**
 * The reader and writer halves every remote link (WebSocket, Streamable HTTP) hands the connection, so that
 * each link only deals with its wire: the reader keeps the {@link AcpTransport} contract (tap, `intercept` first,
 * errors reported with reading going on, END_OF_STREAM once after the last message), the writer checks the size
 * limit and refuses writes once the link ended.
 */
import { AbstractMessageReader, AbstractMessageWriter, Disposable, type DataCallback, type Message } from 'vscode-jsonrpc/node';
import { FramingError } from './ndjson';
import { unsentMessage, unsentRequestAnswer } from './messageIntake';
import type { LinkEnd } from './remote';
import { END_OF_STREAM_METHOD, type TransportHooks } from './transport';

/** Delivers what a link received. Messages that arrive before vscode-jsonrpc listens are kept, in order. */
export class LinkReader extends AbstractMessageReader {
  private callback: DataCallback | undefined;
  private early: Message[] = [];
  private ended = false;

  constructor(private readonly hooks: TransportHooks) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const early = this.early;
    this.early = [];
    for (const message of early) callback(message);
    return Disposable.create(() => {
      this.callback = undefined;
    });
  }

  /** A message from the agent: tapped, offered to `intercept`, then handed to vscode-jsonrpc. */
  deliver(message: Message): void {
    if (this.ended) return;
    this.hooks.tap?.('receive', message);
    if (this.hooks.intercept(message)) return;
    this.pass(message);
  }

  /** A message made here (an error answer for a request whose answer cannot come): not tapped, not intercepted. */
  answer(message: Message): void {
    if (!this.ended) this.pass(message);
  }

  /** Something the agent sent that could not be read; reading goes on. */
  report(error: Error): void {
    if (!this.ended) this.fireError(error);
  }

  /** The agent's side ended: END_OF_STREAM after the last message, then close. Idempotent. */
  end(): void {
    if (this.ended) return;
    this.pass({ jsonrpc: '2.0', method: END_OF_STREAM_METHOD } as Message);
    this.ended = true;
    this.fireClose();
  }

  private pass(message: Message): void {
    if (this.callback) this.callback(message);
    else this.early.push(message);
  }
}

/** How a link puts one serialized message on its wire. */
export type LinkSend = (message: Message, text: string) => Promise<void>;

/**
 * Serializes, checks the size limit (a message over it is not sent: the write rejects, and one of our requests
 * fails at once with an error answer instead of waiting forever), and refuses writes once the link ended.
 */
export class LinkWriter extends AbstractMessageWriter {
  private errorCount = 0;
  private endedWith: LinkEnd | undefined;

  constructor(
    private readonly peer: string,
    private readonly hooks: TransportHooks,
    private readonly maxMessageBytes: number,
    private readonly reader: LinkReader,
    private readonly send: LinkSend,
  ) {
    super();
  }

  /** The link ended: later writes reject with its reason. */
  ended(end: LinkEnd): void {
    if (this.endedWith) return;
    this.endedWith = end;
    this.fireClose();
  }

  async write(message: Message): Promise<void> {
    this.hooks.tap?.('send', message);
    if (this.endedWith) return this.fail(new Error(`Cannot send to ${this.peer}: ${this.endedWith.reason}`), message);
    const text = JSON.stringify(message);
    // Cheap bound first: a UTF-8 byte count only when the text could be over the limit.
    const bytes = text.length * 3 > this.maxMessageBytes ? Buffer.byteLength(text, 'utf8') : text.length;
    if (bytes > this.maxMessageBytes) {
      const what = (message as { method?: unknown }).method;
      const error = new FramingError(unsentMessage(this.peer, typeof what === 'string' ? what : 'answer', bytes, this.maxMessageBytes), this.peer, 'oversize');
      const answer = unsentRequestAnswer(this.peer, message, bytes, this.maxMessageBytes);
      if (answer) this.reader.answer(answer);
      return this.fail(error, message);
    }
    try {
      await this.send(message, text);
    } catch (error) {
      return this.fail(error instanceof Error ? error : new Error(String(error)), message);
    }
  }

  end(): void {
    // The link's own close() ends it; vscode-jsonrpc calls this on dispose, which must not close the link.
  }

  private fail(error: Error, message: Message): Promise<never> {
    this.fireError(error, message, ++this.errorCount);
    return Promise.reject(error);
  }
}

/** The `ended` promise of a link, settled once. */
export class LinkEnding {
  readonly promise: Promise<LinkEnd>;
  private resolve!: (end: LinkEnd) => void;
  private settled: LinkEnd | undefined;

  constructor() {
    this.promise = new Promise((resolve) => (this.resolve = resolve));
  }

  get done(): LinkEnd | undefined {
    return this.settled;
  }

  /** Settles with `end` unless already settled; returns whether this call settled it. */
  settle(end: LinkEnd): boolean {
    if (this.settled) return false;
    this.settled = end;
    this.resolve(end);
    return true;
  }
}
