/**
 * How a session's title matches a search, the pieces the Sessions model's title search (titleSearch.ts) is
 * made of:
 *
 * - every word of the query must occur in the title, as a substring or, failing that, as a subsequence (so
 *   "rfctr" finds "refactor"); a match is ranked by how well its words matched (a word start beats the
 *   middle of a word, a substring beats scattered letters: a cheap tier per word, summed), then by recency;
 * - the matched characters of a shown title are worked out for highlighting ({@link matchTitle});
 * - {@link charMask} is a 32-bit summary of which characters a text contains: a title whose mask lacks a bit
 *   of a word's mask cannot match that word, which rules out most titles without looking at them;
 * - transcript text is searched elsewhere (transcriptSearch.ts); {@link snippetAround} cuts an excerpt.
 *
 * (fuzzysort was the first choice; at 100,000 titles it took 30–80 ms for one- to three-letter queries,
 * above the 16 ms a keystroke may take. See bench/sessions.bench.ts.)
 */

/** [start, end) in UTF-16 code units. */
export type Range = readonly [number, number];

export interface Snippet {
  readonly text: string;
  readonly highlights: readonly Range[];
}

export interface Searchable {
  readonly title: string;
  /** Whether `title` is the real title (a placeholder is not searched). */
  readonly titled: boolean;
}

/** How many matches a search shows at most (the best ones). */
export const MAX_RESULTS = 2000;
const SNIPPET_BEFORE = 40;
const SNIPPET_AFTER = 100;

/** The words of a query, lower-cased, without repeats. */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))];
}

/** Whether a word starts at `at` (a letter or digit after something that is neither, or the text's start). */
export function isWordStart(text: string, at: number): boolean {
  if (at === 0) return true;
  return !isAlnum(text.charCodeAt(at - 1)) && isAlnum(text.charCodeAt(at));
}

function isAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || code > 127;
}

/**
 * How `word` occurs in `text`, cheaply: 0 = as a substring at a word start, 1 = as a substring inside a
 * word, 2 = as scattered letters, -1 = not at all.
 */
export function tierOf(text: string, word: string): number {
  let at = text.indexOf(word);
  if (at >= 0) {
    for (; at >= 0; at = text.indexOf(word, at + 1)) if (isWordStart(text, at)) return 0;
    return 1;
  }
  if (word.length === 1) return -1;
  at = 0;
  for (let i = 0; i < word.length; i++) {
    at = text.indexOf(word[i]!, at);
    if (at < 0) return -1;
    at++;
  }
  return 2;
}

/** Where one word matches (its best occurrence); undefined when it does not. */
function matchWord(text: string, word: string): { ranges: Array<[number, number]> } | undefined {
  let at = text.indexOf(word);
  // Prefer an occurrence at a word start over an earlier one inside a word.
  const first = at;
  while (at >= 0 && !isWordStart(text, at)) at = text.indexOf(word, at + 1);
  if (at >= 0) return { ranges: [[at, at + word.length]] };
  if (first >= 0) return { ranges: [[first, first + word.length]] };
  // Subsequence: greedy, preferring word starts for each letter when one comes soon enough.
  const ranges: Array<[number, number]> = [];
  let from = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word[i]!;
    const next = text.indexOf(c, from);
    if (next < 0) return undefined;
    let pick = next;
    const previous = ranges[ranges.length - 1];
    if (!(previous && previous[1] === next)) {
      // Not continuing a run: jump to a word start with this letter within a few characters, if any.
      for (let probe = next; probe >= 0 && probe < next + 12; probe = text.indexOf(c, probe + 1)) {
        if (isWordStart(text, probe)) {
          pick = probe;
          break;
        }
      }
    }
    if (previous && previous[1] === pick) previous[1] = pick + 1;
    else ranges.push([pick, pick + 1]);
    from = pick + 1;
  }
  return { ranges };
}

/** The characters of a title that matched the query's words (all must match); undefined when one does not. */
export function matchTitle(lowerTitle: string, words: readonly string[]): Range[] | undefined {
  const ranges: Array<[number, number]> = [];
  for (const word of words) {
    const match = matchWord(lowerTitle, word);
    if (!match) return undefined;
    ranges.push(...match.ranges);
  }
  return mergeRanges(ranges);
}

function mergeRanges(ranges: Array<[number, number]>): Range[] {
  const sorted = ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** A snippet of `text` around the first occurrence of `needle` (lower-case) in `lowerText`, on one line. */
export function snippetAround(text: string, lowerText: string, needle: string): Snippet | undefined {
  const at = lowerText.indexOf(needle);
  if (at < 0) return undefined;
  let start = Math.max(0, at - SNIPPET_BEFORE);
  const end = Math.min(text.length, at + needle.length + SNIPPET_AFTER);
  if (start > 0) {
    const space = text.lastIndexOf(' ', at);
    if (space > start) start = space + 1;
  }
  const prefix = start > 0 ? '…' : '';
  const suffix = end < text.length ? '…' : '';
  const flat = text.slice(start, end).replace(/\s/g, ' ');
  const offset = prefix.length + (at - start);
  return { text: prefix + flat + suffix, highlights: [[offset, offset + needle.length]] };
}

/**
 * Which characters occur in a (lower-case) text, as bits: a–z one bit each, the digits folded into five bits,
 * everything else in the last bit. A text can only contain a word, even as scattered letters, when its mask
 * has every bit of the word's mask.
 */
export function charMask(text: string): number {
  let mask = 0;
  for (let i = 0; i < text.length; i++) mask |= charBit(text.charCodeAt(i));
  return mask;
}

function charBit(code: number): number {
  if (code >= 97 && code <= 122) return 1 << (code - 97);
  if (code >= 48 && code <= 57) return 1 << (26 + ((code - 48) % 5));
  return code === 32 ? 0 : 1 << 31;
}
