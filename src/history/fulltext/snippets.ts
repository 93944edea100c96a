/**
 * An excerpt of a transcript around the first place a query matches, by the index's own rules (tokens.ts): a
 * query word matches where a word or one of its sub-words starts with it, folded. The excerpt is one line
 * (whitespace flattened), about {@link SNIPPET_BEFORE} characters before the hit and {@link SNIPPET_AFTER} after,
 * with every hit inside it highlighted. The agent's words are Markdown: the excerpt shows them as plain text (no
 * `**`, backticks, link targets, heading or list marks), as the chat shows them rendered.
 */
import type { Range, Snippet } from '../search';
import { fold } from '../fold';
import { forEachWord, MAX_TERM_CHARS, subwordStarts } from './tokens';

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

/**
 * Markdown as the text a reader sees: inline code, emphasis and strike-through without their marks, links and
 * images as their text, autolinks as their address, heading, quote and list marks and code fences gone. Underscores
 * inside a word (snake_case) and a lone `*` (2 * 3) are not emphasis and stay.
 */
export function markdownPlainText(markdown: string): string {
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) continue; // a code fence: its code stays, the fence goes
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) continue; // a rule
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) continue; // a table's separator row
    lines.push(
      line
        .replace(/^(\s*>)+\s?/, '')
        .replace(/^(\s*(?:User|Agent): )?\s{0,3}#{1,6}\s+/, '$1')
        .replace(/^(\s*(?:User|Agent): )?\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, '$1')
        .replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, _ticks: string, code: string) => code.trim())
        .replace(/!\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, '$1')
        .replace(/\[([^\]]+)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, '$1')
        .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
        .replace(/<((?:https?|mailto|ftp):[^>\s]+)>/g, '$1')
        .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
        .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])/g, '$1$2')
        .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2')
        .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
        .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1'),
    );
  }
  return lines.join('\n');
}

/**
 * The excerpt around the first match of `words` (folded query words) in `text` shown as plain text (see
 * {@link markdownPlainText}), or in `text` as it is when the words match only its Markdown (a link's address);
 * undefined if none.
 */
export function snippetOf(text: string, words: readonly string[]): Snippet | undefined {
  if (words.length === 0) return undefined;
  return rawSnippetOf(markdownPlainText(text), words) ?? rawSnippetOf(text, words);
}

function rawSnippetOf(text: string, words: readonly string[]): Snippet | undefined {
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
