/**
 * A change too large for one webview message, cut into pieces. Posting a transcript of 60,000 entries (a
 * replayed session) as one message blocks the extension host while it is serialized and the webview while
 * it is read and validated, for a second or more each; pieces of about {@link PIECE_CHARS} characters take a
 * few milliseconds each. The webview holds the pieces of a change until the last one arrived and shows the
 * change whole (see `more` in chatProtocol.ts). An entry that is larger than a piece by its text alone (a
 * huge message) goes as the entry with the start of its text, then appends of the rest.
 */
import type { ChatOp, ViewEntry } from '../shared/chatModel';

/** About how many characters (of text, mostly) a piece carries. */
export const PIECE_CHARS = 256 * 1024;

/** Roughly the serialized size of a value: its strings' lengths plus a little per field. O(fields), not O(text). */
export function sizeOf(value: unknown): number {
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
  for (let at = 0; at < text.length; ) {
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
  if (text === undefined || text.length <= budget || sizeOf(op.entry) <= budget) return [op];
  const [first = '', ...rest] = parts(text, budget);
  return [{ op: 'entry', entry: withText(op.entry, first) }, ...rest.map((part): ChatOp => ({ op: 'append', id: op.entry.id, text: part }))];
}

/**
 * Ops cut into consecutive pieces of about `budget` characters (one piece when they fit), in order: applied
 * one after the other they do what the ops do.
 */
export function cutOps(ops: readonly ChatOp[], budget = PIECE_CHARS): ChatOp[][] {
  const pieces: ChatOp[][] = [];
  let piece: ChatOp[] = [];
  let size = 0;
  for (const op of ops) {
    for (const part of split(op, budget)) {
      const partSize = sizeOf(part);
      if (piece.length > 0 && size + partSize > budget) {
        pieces.push(piece);
        piece = [];
        size = 0;
      }
      piece.push(part);
      size += partSize;
    }
  }
  if (piece.length > 0 || pieces.length === 0) pieces.push(piece);
  return pieces;
}

/**
 * A snapshot's entries cut the same way: the entries of its first piece (whole entries; the first one may be
 * the start of a huge one), and the ops that follow as patches.
 */
export function cutSnapshot(entries: readonly ViewEntry[], budget = PIECE_CHARS): { first: ViewEntry[]; rest: ChatOp[][] } {
  const pieces = cutOps(
    entries.map((entry) => ({ op: 'entry', entry })),
    budget,
  );
  const first: ViewEntry[] = [];
  let at = 0;
  const head = pieces[0] ?? [];
  while (at < head.length && head[at]!.op === 'entry') first.push((head[at++] as Extract<ChatOp, { op: 'entry' }>).entry);
  const rest = head.length > at ? [head.slice(at), ...pieces.slice(1)] : pieces.slice(1);
  return { first, rest };
}
