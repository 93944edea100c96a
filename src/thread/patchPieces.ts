/**
 * A change too large for one webview message, cut into pieces. Posting a transcript of 60,000 entries (a
 * replayed session) as one message blocks the extension host while it is serialized and the webview while
 * it is read and validated, for a second or more each; pieces of about {@link PIECE_CHARS} characters take a
 * few milliseconds each. The webview holds the pieces of a change until the last one arrived and shows the
 * change whole (see `more` in chatProtocol.ts). An entry that is larger than a piece by its text alone (a
 * huge message) goes as the entry with the start of its text, then appends of the rest.
 */
import type { ChatOp, ViewContent, ViewEntry } from '../shared/chatModel';

/** About how many characters (of text, mostly) a piece carries. */
export const PIECE_CHARS = 256 * 1024;

/** Roughly the serialized size of a value: its strings' lengths plus a little per field. O(fields), not O(text). */
export function sizeOf(value: unknown): number {
  if (isEntryOp(value)) return 20 + entrySize(value.entry);
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return 8;
  let size = 2;
  if (Array.isArray(value)) {
    for (const item of value) size += sizeOf(item) + 1;
    return size;
  }
  for (const key in value) size += key.length + 4 + sizeOf((value as Record<string, unknown>)[key]);
  return size;
}

function isEntryOp(value: unknown): value is Extract<ChatOp, { op: 'entry' }> {
  return typeof value === 'object' && value !== null && (value as { op?: unknown }).op === 'entry';
}

function blocksSize(blocks: readonly ViewContent[]): number {
  let size = 2;
  for (const block of blocks) size += block.type === 'text' ? block.text.length + 30 : sizeOf(block);
  return size;
}

/**
 * The size of an entry, quickly for the kinds a long transcript is made of (messages, thoughts, tool calls:
 * a replay of 60,000 entries is measured in milliseconds), by its fields for the others.
 */
function entrySize(entry: ViewEntry): number {
  switch (entry.kind) {
    case 'user':
    case 'agent':
      return 40 + entry.id.length + blocksSize(entry.blocks);
    case 'thought':
      return 40 + entry.id.length + entry.text.length;
    case 'tool': {
      let size = 160 + entry.id.length + entry.toolCallId.length + entry.title.length + (entry.rawInput?.length ?? 0);
      for (const location of entry.locations) size += location.path.length + 30;
      for (const content of entry.content) size += content.type === 'content' ? 30 + blocksSize([content.content]) : sizeOf(content);
      return size;
    }
    case 'plan':
    case 'notice':
    case 'permission':
    case 'turnEnd':
    case 'error':
    case 'refusal':
    case 'info':
    case 'terminal':
    case 'changes':
    case 'unknown': {
      let size = 2;
      for (const key in entry) size += key.length + 4 + sizeOf((entry as Record<string, unknown>)[key]);
      return size;
    }
  }
}

/** The text an entry can be cut in (its last block's text, or a thought's), if any. */
function cuttableText(entry: ViewEntry): string | undefined {
  if (entry.kind === 'thought') return entry.text;
  if (entry.kind !== 'agent' && entry.kind !== 'user') return undefined;
  const last = entry.blocks[entry.blocks.length - 1];
  return last?.type === 'text' ? last.text : undefined;
}

function withText(entry: ViewEntry, text: string): ViewEntry {
  if (entry.kind === 'thought') return { ...entry, text };
  if (entry.kind !== 'agent' && entry.kind !== 'user') return entry;
  return { ...entry, blocks: [...entry.blocks.slice(0, -1), { type: 'text', text }] };
}

/** `text` in parts of at most `size` characters, never between the two halves of a surrogate pair. */
function parts(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + size);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** One op as ops of at most about `budget` characters each (most ops are small and stay as they are). */
function split(op: ChatOp, budget: number): ChatOp[] {
  if (op.op === 'append') {
    return op.text.length <= budget ? [op] : parts(op.text, budget).map((text) => ({ op: 'append', id: op.id, text }));
  }
  if (op.op !== 'entry') return [op];
  const text = cuttableText(op.entry);
  if (text === undefined || text.length <= budget || entrySize(op.entry) <= budget) return [op];
  const [first = '', ...rest] = parts(text, budget);
  return [{ op: 'entry', entry: withText(op.entry, first) }, ...rest.map((part): ChatOp => ({ op: 'append', id: op.entry.id, text: part }))];
}

/**
 * The pieces of a change, cut one at a time as they are sent (a replay of 60,000 entries is not measured and
 * cut in one go): consecutive, in order, each of about `budget` characters; applied one after the other
 * they do what the ops do. `opAt` gives the ops lazily (a snapshot's entries become ops only as they go).
 */
export class Pieces {
  private at = 0;
  /** Parts of a large op not sent yet, and ops given back by {@link unshift}. */
  private carry: ChatOp[] = [];
  private taken = 0;
  private cut = 0;

  constructor(
    private readonly length: number,
    private readonly opAt: (index: number) => ChatOp,
    private readonly budget = PIECE_CHARS,
  ) {}

  static of(ops: readonly ChatOp[], budget = PIECE_CHARS): Pieces {
    return new Pieces(ops.length, (index) => ops[index]!, budget);
  }

  /** Every op was handed out. */
  get done(): boolean {
    return this.carry.length === 0 && this.at >= this.length;
  }

  /** About how many pieces are left (at least 1 until {@link done}), from the ops per piece so far. */
  get left(): number {
    if (this.done) return 0;
    const perPiece = this.cut === 0 ? 1 : Math.max(1, this.taken / this.cut);
    return Math.max(1, Math.ceil((this.length - this.at) / perPiece) + (this.carry.length > 0 ? 1 : 0));
  }

  /** The next piece (empty only for a change without ops). */
  next(): ChatOp[] {
    const piece: ChatOp[] = [];
    let size = 0;
    while (!this.done) {
      if (this.carry.length === 0) {
        this.carry = split(this.opAt(this.at++), this.budget);
        this.taken++;
      }
      const part = this.carry[0]!;
      const partSize = sizeOf(part);
      if (piece.length > 0 && size + partSize > this.budget) break;
      this.carry.shift();
      piece.push(part);
      size += partSize;
    }
    this.cut++;
    return piece;
  }

  /** Gives ops back: the next piece starts with them. */
  unshift(ops: readonly ChatOp[]): void {
    this.carry.unshift(...ops);
  }
}

/** Ops cut into all their pieces at once (one piece when they fit). */
export function cutOps(ops: readonly ChatOp[], budget = PIECE_CHARS): ChatOp[][] {
  const pieces = Pieces.of(ops, budget);
  const out = [pieces.next()];
  while (!pieces.done) out.push(pieces.next());
  return out;
}

/**
 * A snapshot's entries cut the same way: the entries of its first piece (whole entries; the first one may be
 * the start of a huge one), and the pieces that follow as patches.
 */
export function cutSnapshot(entries: readonly ViewEntry[], budget = PIECE_CHARS): { first: ViewEntry[]; rest: Pieces } {
  const rest = new Pieces(entries.length, (index): ChatOp => ({ op: 'entry', entry: entries[index]! }), budget);
  const head = entries.length === 0 ? [] : rest.next();
  let at = 0;
  const first: ViewEntry[] = [];
  for (; at < head.length; at++) {
    const op = head[at]!;
    if (op.op !== 'entry') break;
    first.push(op.entry);
  }
  rest.unshift(head.slice(at));
  return { first, rest };
}
