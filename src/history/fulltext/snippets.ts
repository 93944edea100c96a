/**
 * An excerpt of a transcript around the first place a query matches, by the index's own rules (tokens.ts): a
 * query word matches where a word or one of its sub-words starts with it, folded. The excerpt is one line
 * (whitespace flattened), about {@link SNIPPET_BEFORE} characters before the hit and {@link SNIPPET_AFTER} after,
 * with every hit inside it highlighted.
 */
import type { Range, Snippet } from '../search';
import { fold, forEachWord, MAX_TERM_CHARS, subwordStarts } from './tokens';

export const SNIPPET_BEFORE = 40;
export const SNIPPET_AFTER = 100;
const MAX_HIGHLIGHTS = 32;

/** How many characters of `original` (from its start) fold to at least `length` characters. */
function originalLength(original: string, length: number): number {
  if (!/[^\u0000-\u007f]/.test(original)) return Math.min(length, original.length);
  for (let n = 1; n <= original.length; n++) if (fold(original.slice(0, n)).length >= length) return n;
  return original.length;
}

/** Where `words` match in `text`: [start, end) ranges in order, stopping after `limit` of them or past `until`. */
function hits(text: string, words: readonly string[], from: number, until: number, limit: number): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  forEachWord(text.slice(from, until), (start, end, word) => {
    const starts = word.length === 1 ? [0] : subwordStarts(word);
    for (const sub of starts) {
      const rest = sub === 0 ? word : word.slice(sub);
      const folded = fold(rest).slice(0, MAX_TERM_CHARS);
      const match = words.find((w) => folded.startsWith(w));
      if (!match) continue;
      const at = from + start + sub;
      found.push([at, Math.min(from + end, at + originalLength(rest, match.length))]);
      break;
    }
    return found.length < limit;
  });
  return found;
}

/** The excerpt around the first match of `words` (folded query words) in `text`, or undefined if none. */
export function snippetOf(text: string, words: readonly string[]): Snippet | undefined {
  if (words.length === 0) return undefined;
  const [first] = hits(text, words, 0, text.length, 1);
  if (!first) return undefined;
  let start = Math.max(0, first[0] - SNIPPET_BEFORE);
  const end = Math.min(text.length, first[1] + SNIPPET_AFTER);
  if (start > 0) {
    // Start at a word boundary when there is one nearby.
    const space = text.lastIndexOf(' ', first[0]);
    if (space >= start) start = space + 1;
    // Never split a surrogate pair.
    if ((text.charCodeAt(start) & 0xfc00) === 0xdc00) start++;
  }
  const prefix = start > 0 ? '…' : '';
  const suffix = end < text.length ? '…' : '';
  const highlights: Range[] = hits(text, words, start, end, MAX_HIGHLIGHTS)
    .filter(([, e]) => e <= end)
    .map(([s, e]) => [prefix.length + s - start, prefix.length + e - start] as const);
  return { text: prefix + text.slice(start, end).replace(/\s/g, ' ') + suffix, highlights };
}
