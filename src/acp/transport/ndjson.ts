/**
 * Newline-delimited JSON framing for vscode-jsonrpc (ACP's stdio transport: one JSON-RPC message per
 * line, no Content-Length headers). vscode-jsonrpc's stock reader expects LSP headers, so this module
 * supplies its own reader and writer on top of the library's abstract classes, keeping the contract of
 * `AcpTransport` (transport.ts).
 */
import * as l10n from '@vscode/l10n';
import type { Readable, Writable } from 'node:stream';
import { AbstractMessageReader, AbstractMessageWriter, Disposable, type DataCallback, type Message } from 'vscode-jsonrpc/node';
import { ErrorCodes } from '../errors';
import { readMessageHead, type MessageHead } from './messageHead';
import { END_OF_STREAM_METHOD, type MessageTap } from './transport';

/** 32 MiB: large enough for a big file read or diff, small enough that a runaway agent cannot exhaust memory. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** How much of a discarded line is kept, to tell what it was and which session it was for. */
const HEAD_BYTES = 64 * 1024;

/** A line over the limit: how long it was, the limit, and what its start says it was. */
export interface OversizeLine {
  /** Its length in bytes. */
  readonly bytes: number;
  readonly limitBytes: number;
  /** Its `method`, `id` and `params.sessionId`, when they come early enough in the line to be read. */
  readonly head: MessageHead;
}

/** A line the peer sent that could not be turned into a message. The connection goes on with the next line. */
export class FramingError extends Error {
  override readonly name = 'FramingError';
  constructor(
    message: string,
    /** Which agent sent it, for the user. */
    readonly peer: string,
    /** Why: `oversize` (longer than the limit), `json` (not JSON) or `shape` (JSON but not a JSON-RPC message). */
    readonly reason: 'oversize' | 'json' | 'shape',
    /** For `oversize`: the line's size and what it was. */
    readonly oversize?: OversizeLine,
  ) {
    super(message);
  }
}

export interface ReaderOptions {
  /** Shown in errors, e.g. "Claude Code". */
  readonly peer: string;
  /** Longest accepted line in bytes (default {@link DEFAULT_MAX_LINE_BYTES}). */
  readonly maxLineBytes?: number;
  readonly tap?: MessageTap;
  /**
   * Sees each message before it is handed to vscode-jsonrpc; returning true means it was handled
   * here (the connection's fast path for notifications, see connection.ts).
   */
  readonly intercept?: (message: Message) => boolean;
}

/**
 * Splits a byte stream into lines and parses each as one JSON-RPC message. Handles chunks that split a
 * line (or a multi-byte character), several lines per chunk, CRLF and blank lines. A line over the
 * limit is discarded as it streams in (memory stays bounded: only its first {@link HEAD_BYTES} are kept)
 * and reported once, when it ended, with its size and what its start says it was; a line that is not a
 * JSON-RPC message is reported; either way reading goes on with the next line.
 */
export class NdjsonMessageReader extends AbstractMessageReader {
  private readonly maxLineBytes: number;
  /** Bytes of the current, unfinished line. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** While skipping the rest of an oversize line: its bytes so far and its start. */
  private discarding: { bytes: number; readonly head: Buffer } | undefined;
  private callback: DataCallback | undefined;

  constructor(
    private readonly readable: Readable,
    private readonly options: ReaderOptions,
  ) {
    super();
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    const onEnd = () => this.onEnd();
    const onError = (error: Error) => this.fireError(error);
    this.readable.on('data', onData);
    this.readable.on('end', onEnd);
    this.readable.on('close', onEnd);
    this.readable.on('error', onError);
    return Disposable.create(() => {
      this.callback = undefined;
      this.readable.off('data', onData);
      this.readable.off('end', onEnd);
      this.readable.off('close', onEnd);
      this.readable.off('error', onError);
    });
  }

  private closed = false;
  private onEnd(): void {
    if (this.closed) return;
    this.closed = true;
    // A final line without a trailing newline still counts.
    if (this.discarding) this.endDiscarded();
    else if (this.pendingBytes > 0) this.emitLine(this.takePending());
    this.callback?.({ jsonrpc: '2.0', method: END_OF_STREAM_METHOD } as Message);
    this.fireClose();
  }

  private onData(chunk: Buffer): void {
    const first = chunk.indexOf(NEWLINE);
    if (first === -1) return this.keep(chunk, 0, chunk.length);
    let start = 0;
    if (this.discarding || this.pendingBytes > 0) {
      this.keep(chunk, 0, first);
      if (this.discarding) this.endDiscarded();
      else this.emitLine(this.takePending());
      start = first + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= start) {
      this.emitLines(chunk, start, last);
      start = last + 1;
    }
    this.keep(chunk, start, chunk.length);
  }

  /**
   * Emits the complete lines in `chunk[start, end)` (`end` is a newline). A newline byte never occurs
   * inside a multi-byte UTF-8 sequence, so the whole run can be decoded at once and split as text;
   * only a run longer than the limit is split on bytes, so each line can be measured.
   */
  private emitLines(chunk: Buffer, start: number, end: number): void {
    if (end - start <= this.maxLineBytes) {
      const text = chunk.toString('utf8', start, end);
      let from = 0;
      for (;;) {
        const newline = text.indexOf('\n', from);
        this.emitText(newline === -1 ? text.slice(from) : text.slice(from, newline));
        if (newline === -1) return;
        from = newline + 1;
      }
    }
    for (let from = start; ;) {
      let newline = chunk.indexOf(NEWLINE, from);
      if (newline === -1 || newline > end) newline = end;
      this.emitLine(chunk.subarray(from, newline));
      if (newline >= end) return;
      from = newline + 1;
    }
  }

  /** Holds part of an unfinished line, or starts discarding it once it outgrows the limit (keeping its start). */
  private keep(chunk: Buffer, start: number, end: number): void {
    if (this.discarding) {
      this.discarding.bytes += end - start;
      return;
    }
    if (end === start) return;
    // One byte of slack for a CR that ends the line (the limit applies to the line without it).
    if (this.pendingBytes + (end - start) > this.maxLineBytes + 1) {
      const parts = [...this.pending, chunk.subarray(start, Math.min(end, start + HEAD_BYTES))];
      this.discarding = { bytes: this.pendingBytes + (end - start), head: Buffer.concat(parts, Math.min(HEAD_BYTES, this.pendingBytes + (end - start))) };
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    // Copy: the stream may reuse the chunk's memory.
    this.pending.push(Buffer.from(chunk.subarray(start, end)));
    this.pendingBytes += end - start;
  }

  /** The oversize line being skipped ended (at a newline, or with the stream). */
  private endDiscarded(): void {
    const { bytes, head } = this.discarding!;
    this.discarding = undefined;
    this.reportOversize(head, bytes);
  }

  private reportOversize(head: Buffer, bytes: number): void {
    const line: OversizeLine = { bytes, limitBytes: this.maxLineBytes, head: readMessageHead(head.toString('utf8')) };
    const what = line.head.method === undefined ? '' : `, ${line.head.method}${line.head.sessionId === undefined ? '' : ` for session ${line.head.sessionId}`}`;
    this.fireError(
      new FramingError(
        `${this.options.peer} sent a message longer than ${formatBytes(this.maxLineBytes)} (${formatSize(bytes)}${what}); it was discarded.`,
        this.options.peer,
        'oversize',
        line,
      ),
    );
    // A discarded answer must not leave its request waiting forever: it fails with the reason instead.
    const { id, method, answer } = line.head;
    if (answer && method === undefined && id !== undefined) {
      this.callback?.({
        jsonrpc: '2.0',
        id,
        error: {
          code: ErrorCodes.InternalError,
          message: l10n.t(
            "{0}'s answer was {1}, over the limit of {2} (setting acpWorkspace.maxMessageSizeMiB); it was discarded.",
            this.options.peer,
            formatSize(bytes),
            formatBytes(this.maxLineBytes),
          ),
        },
      } as Message);
    }
  }

  private takePending(): Buffer {
    const line = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }

  private emitLine(bytes: Buffer): void {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CARRIAGE_RETURN) end--;
    if (end > this.maxLineBytes) {
      this.reportOversize(bytes.subarray(0, HEAD_BYTES), end);
      return;
    }
    this.emitText(bytes.toString('utf8', 0, end));
  }

  /** Parses one line (a trailing CR is ignored; blank lines are skipped) and hands the message on. */
  private emitText(line: string): void {
    const text = line.length > 0 && line.charCodeAt(line.length - 1) === CARRIAGE_RETURN ? line.slice(0, -1) : line;
    if (isBlank(text)) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      this.fireError(
        new FramingError(`${this.options.peer} wrote a line that is not JSON (${(error as Error).message}): ${preview(text)}`, this.options.peer, 'json'),
      );
      return;
    }
    if (!isJsonRpcMessage(message)) {
      this.fireError(new FramingError(`${this.options.peer} wrote JSON that is not a JSON-RPC 2.0 message: ${preview(text)}`, this.options.peer, 'shape'));
      return;
    }
    this.options.tap?.('receive', message);
    if (this.options.intercept?.(message)) return;
    this.callback?.(message);
  }
}

export interface WriterOptions {
  readonly peer: string;
  readonly tap?: MessageTap;
}

/** Writes each message as one line of JSON (JSON.stringify never emits a raw newline). */
export class NdjsonMessageWriter extends AbstractMessageWriter {
  private errorCount = 0;

  constructor(
    private readonly writable: Writable,
    private readonly options: WriterOptions,
  ) {
    super();
    writable.on('error', (error: Error) => this.fireError(error, undefined, ++this.errorCount));
    writable.on('close', () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    this.options.tap?.('send', message);
    const line = JSON.stringify(message) + '\n';
    return new Promise((resolve, reject) => {
      if (this.writable.destroyed || this.writable.writableEnded) {
        const error = new Error(`Cannot send to ${this.options.peer}: its input is closed.`);
        this.fireError(error, message, ++this.errorCount);
        reject(error);
        return;
      }
      this.writable.write(line, (error) => {
        if (error) {
          this.fireError(error, message, ++this.errorCount);
          reject(error);
        } else {
          resolve();
        }
      });
    });
  }

  end(): void {
    this.writable.end();
  }
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}

function isJsonRpcMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

function preview(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(0)} MiB` : `${bytes} bytes`;
}

/** A measured size: MiB with one decimal from 1 MiB on. */
export function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes.toLocaleString('en-US')} bytes`;
}
