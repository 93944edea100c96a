/**
 * The one bounded Server-Sent Events reader of the remote links (Streamable HTTP, Sandbox Agent): cuts a byte
 * stream into events, each at most `limit` bytes. An event over the limit is skipped as it streams in (only its
 * first 64 KiB are kept, to tell what it was) and reported as an `oversize` item; reading goes on with the next
 * event, so memory stays bounded and one huge message does not end the stream. `eventsource-parser` reads the
 * fields (`data:` lines joined, `event:`, `id:`, comments ignored); lines may end with CRLF, LF or CR, split
 * anywhere across chunks.
 *
 * Fast path: when the current event cannot outgrow the limit within a chunk, the whole chunk is decoded and fed to
 * the parser at once, and only a backward scan finds where the last event in it starts; otherwise the chunk is
 * walked event by event. `bench/sandboxSse.bench.ts` measures it against the stdio framing.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StringDecoder } from 'node:string_decoder';

/** One thing read from the stream. */
export type SseItem =
  | { readonly kind: 'event'; readonly data: string; readonly event?: string; readonly id?: string }
  /** An event over the limit, skipped: its size (its lines, without the blank line ending it) and the start of its data. */
  | { readonly kind: 'oversize'; readonly bytes: number; readonly head: string };

/** How much of a skipped event is kept. */
const HEAD_BYTES = 64 * 1024;
/** Room for the field names around a message of `maxMessageBytes` (`data: `, `event: message`, `id: …`, line ends). */
export const SSE_FIELD_SLACK = 1024;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The events of `body`, in order, until it ends: one batch per chunk read (the events that chunk completed;
 * often none), then the event the stream ended inside, if any. Events are bounded by `maxEventBytes` plus
 * {@link SSE_FIELD_SLACK}. Throws what reading the body throws (a reset connection, an abort). Breaking out of
 * the loop cancels the body.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>, maxEventBytes: number): AsyncGenerator<readonly SseItem[], void, undefined> {
  const splitter = new EventSplitter(maxEventBytes + SSE_FIELD_SLACK);
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const items = splitter.push(value);
      if (items.length > 0) yield items;
    }
    finished = true;
    const last = splitter.end();
    if (last.length > 0) yield last;
  } finally {
    if (!finished) void reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Cuts a byte stream into SSE events, each at most `limit` bytes (its lines, without the blank line ending it). */
export class EventSplitter {
  /** Keeps a character split across chunks whole (Node's decoder: faster than TextDecoder on big chunks). */
  private decoder = new StringDecoder('utf8');
  private found: SseItem[] = [];
  private readonly parser = createParser({ onEvent: (event) => this.found.push(itemOf(event)) });
  /** Bytes of the current event so far (counted whatever the state). */
  private eventBytes = 0;
  /** The current event's first bytes (copies), kept until it ends, to tell what it was if it is skipped. */
  private head: Uint8Array[] = [];
  private headBytes = 0;
  /** The current event outgrew the limit: its bytes are counted, not parsed, until its blank line. */
  private skipping = false;
  /** The last byte seen ended a line (or nothing was seen yet). */
  private atLineStart = true;
  /** The last byte seen was a CR: an LF right after it belongs to the same line end. */
  private afterCr = false;
  /** While walking a chunk: where its next CR is (-1: none left). */
  private nextCr = -1;

  constructor(private readonly limit: number) {}

  /** The events `chunk` completes, in order. */
  push(chunk: Uint8Array): SseItem[] {
    if (!this.skipping && this.eventBytes + chunk.length <= this.limit) this.pushWhole(chunk);
    else this.pushByEvent(chunk);
    const items = this.found;
    this.found = [];
    return items;
  }

  /** The stream ended: an event without its final blank line still counts. */
  end(): SseItem[] {
    if (this.skipping) this.endSkipped();
    else if (this.eventBytes > 0) this.parser.feed(this.decoder.end() + '\n\n');
    this.startEvent();
    this.atLineStart = true;
    this.afterCr = false;
    const items = this.found;
    this.found = [];
    return items;
  }

  /** The whole chunk fits: parsed at once; a backward scan finds where its last event starts. */
  private pushWhole(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.parser.feed(this.decoder.write(chunk));
    const end = this.lastBlankLineEnd(chunk);
    if (end === -1) {
      this.eventBytes += chunk.length;
      this.keepHead(chunk);
    } else {
      this.startEvent();
      // An LF right after a CR that ended the blank line belongs to it.
      const from = chunk[end] === CR && chunk[end + 1] === LF ? end + 2 : end + 1;
      this.eventBytes = chunk.length - from;
      if (from < chunk.length) this.keepHead(chunk.subarray(from));
    }
    const last = chunk[chunk.length - 1]!;
    this.atLineStart = last === LF || last === CR;
    this.afterCr = last === CR;
    if (this.afterCr && end === chunk.length - 1) this.endBlankCr();
  }

  /**
   * The parser was just fed a CR that ends a blank line, last in what it was given: eventsource-parser (3.x) waits
   * for the next byte to know whether an LF belongs to it, holding the event back until more bytes come (for ever
   * at the end of the stream, and dropped by a `reset` when the next event is skipped). An LF given now completes
   * that line end and the event is dispatched at once. A real LF coming next is read by the parser as one more
   * blank line, which dispatches nothing (its data buffer is empty).
   */
  private endBlankCr(): void {
    this.parser.feed('\n');
  }

  /** The event may outgrow the limit in this chunk: walked event by event. */
  private pushByEvent(chunk: Uint8Array): void {
    let at = 0;
    this.nextCr = chunk.indexOf(CR);
    while (at < chunk.length) {
      const blank = this.nextBlankLine(chunk, at);
      // The event's bytes in this chunk: up to its blank line, or all the rest.
      const contentEnd = blank === -1 ? chunk.length : blank;
      const next = blank === -1 ? chunk.length : blank + 1;
      if (!this.skipping && this.eventBytes + (contentEnd - at) > this.limit) {
        // It outgrew the limit: what the parser holds of it is dropped, the rest is counted until its end.
        this.skipping = true;
        this.parser.reset({ consume: false });
        this.decoder = new StringDecoder('utf8');
      }
      this.eventBytes += contentEnd - at;
      if (this.skipping) {
        this.keepHead(chunk.subarray(at, contentEnd));
        if (blank !== -1) this.endSkipped();
      } else {
        this.parser.feed(this.decoder.write(chunk.subarray(at, next)));
        if (blank === -1) this.keepHead(chunk.subarray(at, contentEnd));
        else {
          this.startEvent();
          if (chunk[blank] === CR) this.endBlankCr();
        }
      }
      at = next;
    }
  }

  /** The skipped event ended: reported with its size and the data of its start. */
  private endSkipped(): void {
    const head = Buffer.concat(this.head, this.headBytes).toString('utf8');
    this.found.push({ kind: 'oversize', bytes: this.eventBytes, head: dataOf(head) });
    this.skipping = false;
    this.startEvent();
  }

  private startEvent(): void {
    this.eventBytes = 0;
    this.head = [];
    this.headBytes = 0;
  }

  private keepHead(bytes: Uint8Array): void {
    if (this.headBytes >= HEAD_BYTES || bytes.length === 0) return;
    const take = bytes.subarray(0, HEAD_BYTES - this.headBytes);
    this.head.push(Uint8Array.prototype.slice.call(take));
    this.headBytes += take.length;
  }

  /**
   * Where the next blank line's line end starts in `chunk` from `from` (it ends the current event), or -1; moves
   * the line state along.
   */
  private nextBlankLine(chunk: Uint8Array, from: number): number {
    let at = from;
    while (at < chunk.length) {
      if (this.afterCr) {
        this.afterCr = false;
        if (chunk[at] === LF) {
          at++;
          continue;
        }
      }
      // The next CR is looked for once per CR passed, not once per line (servers end lines with LF).
      if (this.nextCr !== -1 && this.nextCr < at) this.nextCr = chunk.indexOf(CR, at);
      const cr = this.nextCr;
      const lf = chunk.indexOf(LF, at);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) {
        this.atLineStart = false;
        return -1;
      }
      if (end > at) this.atLineStart = false;
      const blank = this.atLineStart;
      this.atLineStart = true;
      this.afterCr = chunk[end] === CR;
      if (blank) return end;
      at = end + 1;
    }
    return -1;
  }

  /**
   * Where the last blank line in `chunk` ends (the index of its line end's first byte), or -1, given the line state
   * before the chunk. A line end is LF, CR, or CR LF; a blank line's line end comes right after another line end.
   */
  private lastBlankLineEnd(chunk: Uint8Array): number {
    let cr = chunk.lastIndexOf(CR);
    let lf = chunk.lastIndexOf(LF);
    while (cr !== -1 || lf !== -1) {
      const at = Math.max(cr, lf);
      if (at === lf) lf = at === 0 ? -1 : chunk.lastIndexOf(LF, at - 1);
      else cr = at === 0 ? -1 : chunk.lastIndexOf(CR, at - 1);
      const byte = chunk[at];
      // The LF of a CR LF pair: the pair starts at the CR (looked at next).
      if (byte === LF && at > 0 && chunk[at - 1] === CR) continue;
      // An LF first in the chunk after a CR last in the one before: the end of that line, not a line end of its own.
      if (byte === LF && at === 0 && this.afterCr) continue;
      const blank = at === 0 ? this.atLineStart : chunk[at - 1] === LF || chunk[at - 1] === CR;
      if (blank) return at;
    }
    return -1;
  }
}

function itemOf(event: EventSourceMessage): SseItem {
  // Built field by field (no spread): this runs once per event on the hot path.
  const item: { kind: 'event'; data: string; event?: string; id?: string } = { kind: 'event', data: event.data };
  if (event.event) item.event = event.event;
  if (event.id) item.id = event.id;
  return item;
}

/** The data of a skipped event's start: its `data:` lines without the field name. */
function dataOf(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
}
