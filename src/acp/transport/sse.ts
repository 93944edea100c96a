/**
 * A bounded Server-Sent Events reader: yields the events of a response body one by one, each at most
 * `maxEventBytes`. An event over the limit is skipped as it streams in (only its first 64 KiB are kept, to tell
 * what it was) and reported as an `oversize` item; reading goes on with the next event, so memory stays bounded
 * and one huge message does not end the stream. Events are cut at their blank line here (CRLF, LF or CR line
 * ends, split anywhere across chunks); `eventsource-parser` reads each event's fields (`data:` lines joined,
 * `event:`, `id:`, comments ignored).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One thing read from the stream. */
export type SseItem =
  | { readonly kind: 'event'; readonly data: string; readonly event?: string; readonly id?: string }
  /** An event over the limit, skipped: its size and the start of its data. */
  | { readonly kind: 'oversize'; readonly bytes: number; readonly head: string };

/** How much of a skipped event is kept. */
const HEAD_BYTES = 64 * 1024;
/** Room for the field names around the data (`data: `, `event: message`, `id: …`). */
const FIELD_SLACK = 256;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The events of `body`, in order, until it ends. Throws what reading the body throws (a reset connection, an
 * abort). Breaking out of the loop cancels the body.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>, maxEventBytes: number): AsyncGenerator<SseItem, void, undefined> {
  const splitter = new EventSplitter(maxEventBytes + FIELD_SLACK);
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* splitter.push(value);
    }
    finished = true;
    yield* splitter.end();
  } finally {
    if (!finished) void reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Cuts a byte stream into SSE events, bounded. Exported for tests. */
export class EventSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  /** Skipping an event over the limit: its size so far and its first bytes. */
  private skipping: { bytes: number; readonly head: Uint8Array } | undefined;
  /** The last byte seen ended a line (or nothing was seen yet in this event). */
  private atLineStart = true;
  /** The last byte seen was a CR: an LF right after it belongs to the same line end. */
  private afterCr = false;
  private readonly found: EventSourceMessage[] = [];
  private readonly parser = createParser({ onEvent: (event) => this.found.push(event) });

  constructor(private readonly limit: number) {}

  /** The events that `chunk` completes. */
  push(chunk: Uint8Array): SseItem[] {
    const items: SseItem[] = [];
    let i = 0;
    const length = chunk.length;
    while (i < length) {
      if (this.afterCr) {
        this.afterCr = false;
        if (chunk[i] === LF) {
          i++;
          continue;
        }
      }
      const end = nextLineEnd(chunk, i);
      if (end === -1) {
        this.keep(chunk.subarray(i));
        this.atLineStart = false;
        break;
      }
      if (end > i) {
        this.keep(chunk.subarray(i, end));
        this.atLineStart = false;
      }
      if (this.atLineStart) {
        // A blank line: the event is complete.
        const item = this.takeEvent();
        if (item) items.push(...item);
      } else {
        this.keep(NEWLINE);
        this.atLineStart = true;
      }
      this.afterCr = chunk[end] === CR;
      i = end + 1;
    }
    return items;
  }

  /** The stream ended: an event without its final blank line still counts. */
  end(): SseItem[] {
    if (!this.skipping && this.size === 0) return [];
    if (!this.atLineStart) this.keep(NEWLINE);
    return this.takeEvent() ?? [];
  }

  private keep(bytes: Uint8Array): void {
    if (this.skipping) {
      this.skipping.bytes += bytes.length;
      return;
    }
    if (this.size + bytes.length > this.limit) {
      const all = Buffer.concat([...this.parts, bytes]);
      this.skipping = { bytes: all.length, head: all.subarray(0, HEAD_BYTES) };
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(bytes === NEWLINE ? bytes : Uint8Array.prototype.slice.call(bytes));
    this.size += bytes.length;
  }

  private takeEvent(): SseItem[] | undefined {
    if (this.skipping) {
      const { bytes, head } = this.skipping;
      this.skipping = undefined;
      return [{ kind: 'oversize', bytes, head: dataOf(Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('utf8')) }];
    }
    if (this.size === 0) return undefined;
    const text = Buffer.concat(this.parts, this.size).toString('utf8');
    this.parts = [];
    this.size = 0;
    this.parser.feed(text + '\n');
    const events = this.found.splice(0);
    return events.map((event) => ({ kind: 'event', data: event.data, ...(event.event ? { event: event.event } : {}), ...(event.id ? { id: event.id } : {}) }));
  }
}

const NEWLINE = new Uint8Array([LF]);

function nextLineEnd(chunk: Uint8Array, from: number): number {
  const lf = chunk.indexOf(LF, from);
  // Servers end lines with LF: look for a CR only up to the LF.
  const cr = lf === -1 ? chunk.indexOf(CR, from) : indexBefore(chunk, CR, from, lf);
  if (cr === -1) return lf;
  return lf === -1 ? cr : Math.min(cr, lf);
}

function indexBefore(chunk: Uint8Array, byte: number, from: number, to: number): number {
  const at = chunk.subarray(from, to).indexOf(byte);
  return at === -1 ? -1 : from + at;
}

/** The data of a skipped event's start: its `data:` lines without the field name. */
function dataOf(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
}
