/**
 * The retained output of one terminal: decoded text, at most `limitBytes` bytes of it (counted in UTF-8),
 * the most recent kept. When more arrives, whole chunks are dropped from the beginning and the first
 * remaining chunk is cut at a character (code point) boundary, so the text never starts inside a UTF-8
 * sequence or a surrogate pair; the retained output may then be a few bytes shorter than the limit, as
 * ACP's `outputByteLimit` allows. Grapheme clusters (an emoji with modifiers, say) may be cut between
 * their code points.
 *
 * Cost: appending is proportional to the chunk (plus, when truncating, to the one chunk that is cut);
 * reading joins the chunks once per change.
 */

/** Hard cap on what one terminal keeps, whatever the agent asked for (so a runaway command cannot exhaust memory). */
import * as l10n from '@vscode/l10n';
export const MAX_RETAINED_OUTPUT_BYTES = 16 * 1024 * 1024;

/** Text that keeps only its most recent `limitBytes` UTF-8 bytes. */
export class OutputBuffer {
  private chunks: string[] = [];
  private sizes: number[] = [];
  /** Index of the first live chunk (dropped chunks before it are compacted away now and then). */
  private head = 0;
  private bytes = 0;
  private joined: string | undefined = '';
  private truncatedValue = false;

  /** @param limitBytes most bytes kept (a non-negative integer; `Infinity` keeps everything). */
  constructor(readonly limitBytes: number) {
    if (!(limitBytes >= 0)) throw new RangeError(l10n.t('An output limit must be a non-negative number, got {0}', limitBytes));
  }

  /** The retained text. */
  get text(): string {
    if (this.joined === undefined) {
      this.compact();
      this.joined = this.chunks.join('');
      // Keep one chunk from now on only when that is cheap to cut later.
      if (this.chunks.length > 1 && this.joined.length <= 65_536) {
        this.chunks = [this.joined];
        this.sizes = [this.bytes];
      }
    }
    return this.joined;
  }

  /** UTF-8 length of {@link text}. */
  get byteLength(): number {
    return this.bytes;
  }

  /** Whether anything was ever dropped from the beginning. */
  get truncated(): boolean {
    return this.truncatedValue;
  }

  /** Appends decoded text (well-formed: no lone surrogates, as a `StringDecoder` produces). */
  append(text: string): void {
    if (text === '') return;
    let size = Buffer.byteLength(text, 'utf8');
    if (size > this.limitBytes) {
      // This chunk alone is over the limit: everything before it goes, and its beginning too.
      text = utf8Tail(text, this.limitBytes);
      size = Buffer.byteLength(text, 'utf8');
      this.chunks = [];
      this.sizes = [];
      this.head = 0;
      this.bytes = 0;
      this.truncatedValue = true;
    }
    if (text !== '') {
      this.chunks.push(text);
      this.sizes.push(size);
      this.bytes += size;
    }
    while (this.bytes > this.limitBytes) {
      const first = this.chunks[this.head]!;
      const firstSize = this.sizes[this.head]!;
      const excess = this.bytes - this.limitBytes;
      this.truncatedValue = true;
      if (firstSize <= excess) {
        this.chunks[this.head] = '';
        this.head++;
        this.bytes -= firstSize;
      } else {
        const kept = utf8Tail(first, firstSize - excess);
        const keptSize = Buffer.byteLength(kept, 'utf8');
        this.chunks[this.head] = kept;
        this.sizes[this.head] = keptSize;
        this.bytes -= firstSize - keptSize;
      }
    }
    if (this.head > 1024 && this.head * 2 > this.chunks.length) this.compact();
    this.joined = undefined;
  }

  private compact(): void {
    if (this.head === 0) return;
    this.chunks = this.chunks.slice(this.head);
    this.sizes = this.sizes.slice(this.head);
    this.head = 0;
  }
}

/**
 * The longest end of `text` whose UTF-8 encoding has at most `maxBytes` bytes, starting at a code point
 * boundary (so possibly up to 3 bytes shorter than `maxBytes`).
 */
export function utf8Tail(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - Math.max(0, Math.floor(maxBytes));
  // Continuation bytes are 10xxxxxx; a code point starts at any other byte.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.toString('utf8', start);
}
