/**
 * How a session's title matches a search, the pieces the Sessions model's title search (titleSearch.ts) is
 * made of:
 *
 * - every word of the query must occur in the title, ignoring case and accents (the one fold of search,
 *   fold.ts, a code unit at a time: {@link foldCode}), as a substring or,
 *   failing that, as a subsequence (so "rfctr" finds "Refactor"); a match is ranked by how well its words
 *   matched (a word start beats the middle of a word, a substring beats scattered letters: a cheap tier per
 *   word, summed), then by recency. Titles are searched as they are: no lower-case copy of a million titles
 *   is kept;
 * - the matched characters of a shown title are worked out for highlighting ({@link matchTitle});
 * - {@link charMask} is a 32-bit summary of which characters a text contains: a title whose mask lacks a bit
 *   of a word's mask cannot match that word, which rules out most titles without looking at them;
 * - transcript text is searched elsewhere (transcriptSearch.ts); {@link snippetAround} cuts an excerpt.
 *
 * (fuzzysort was the first choice; at 100,000 titles it took 30–80 ms for one- to three-letter queries,
 * above the 16 ms a keystroke may take. See bench/sessions.bench.ts.)
 */

import { fold, foldCode, isAscii } from './fold';

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

/** The words of a query, folded ({@link fold}), without repeats. */
export function queryWords(query: string): string[] {
  return [...new Set(fold(query).split(/\s+/).filter(Boolean))];
}

/** Whether a word starts at `at` (a letter or digit after something that is neither, or the text's start). */
export function isWordStart(text: string, at: number): boolean {
  if (at === 0) return true;
  return !isAlnum(foldCode(text.charCodeAt(at - 1))) && isAlnum(foldCode(text.charCodeAt(at)));
}

function isAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || code > 127;
}

const CHARS = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));

let lastText = '';
let lastAscii = true;

/** Whether a title is all ASCII; the last title asked about is remembered (one title is asked many times in a row). */
function asciiTitle(text: string): boolean {
  if (text !== lastText) {
    lastText = text;
    lastAscii = isAscii(text);
  }
  return lastAscii;
}

/** The first position at or after `from` of a character that folds to `code` (folded); -1 when none. */
function findChar(text: string, code: number, from: number): number {
  // An ASCII character in an ASCII title: the engine's own search (beyond ASCII, `é` folds to `e` too).
  if (code < 128 && asciiTitle(text)) {
    const at = text.indexOf(CHARS[code]!, from);
    if (code < 97 || code > 122) return at;
    // A letter: either case, each found by the engine's own search.
    const upper = text.indexOf(CHARS[code - 32]!, from);
    return at < 0 ? upper : upper < 0 ? at : Math.min(at, upper);
  }
  for (let i = from; i < text.length; i++) if (foldCode(text.charCodeAt(i)) === code) return i;
  return -1;
}

/** The first position at or after `from` where `word` (folded) occurs in `text`, ignoring case; -1 when none. */
function find(text: string, word: string, from: number): number {
  const first = word.charCodeAt(0);
  const length = word.length;
  for (let at = findChar(text, first, from); at >= 0 && at + length <= text.length; at = findChar(text, first, at + 1)) {
    let k = 1;
    while (k < length && foldCode(text.charCodeAt(at + k)) === word.charCodeAt(k)) k++;
    if (k === length) return at;
  }
  return -1;
}

/**
 * How `word` (folded) occurs in `text` (any case), cheaply: 0 = as a substring at a word start, 1 = as a
 * substring inside a word, 2 = as scattered letters, -1 = not at all.
 */
export function tierOf(text: string, word: string): number {
  let at = find(text, word, 0);
  if (at >= 0) {
    for (; at >= 0; at = find(text, word, at + 1)) if (isWordStart(text, at)) return 0;
    return 1;
  }
  if (word.length === 1) return -1;
  at = 0;
  for (let i = 0; i < word.length; i++) {
    at = findChar(text, word.charCodeAt(i), at);
    if (at < 0) return -1;
    at++;
  }
  return 2;
}

/** Where one word matches (its best occurrence); undefined when it does not. */
function matchWord(text: string, word: string): { ranges: Array<[number, number]> } | undefined {
  let at = find(text, word, 0);
  // Prefer an occurrence at a word start over an earlier one inside a word.
  const first = at;
  while (at >= 0 && !isWordStart(text, at)) at = find(text, word, at + 1);
  if (at >= 0) return { ranges: [[at, at + word.length]] };
  if (first >= 0) return { ranges: [[first, first + word.length]] };
  // Subsequence: greedy, preferring word starts for each letter when one comes soon enough.
  const ranges: Array<[number, number]> = [];
  let from = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    const next = findChar(text, c, from);
    if (next < 0) return undefined;
    let pick = next;
    const previous = ranges[ranges.length - 1];
    if (!(previous && previous[1] === next)) {
      // Not continuing a run: jump to a word start with this letter within a few characters, if any.
      for (let probe = next; probe >= 0 && probe < next + 12; probe = findChar(text, c, probe + 1)) {
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

/**
 * The characters of a title (any case) that matched the query's words (folded, all must match), as ranges of
 * the title; undefined when one does not match.
 */
export function matchTitle(title: string, words: readonly string[]): Range[] | undefined {
  const ranges: Array<[number, number]> = [];
  for (const word of words) {
    const match = matchWord(title, word);
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
 * Which characters occur in a text (folded: any case, any accent), as bits: a–z one bit each, the digits
 * folded into five bits, everything else in the last bit. A text can only contain a word, even as scattered
 * letters, when its mask has every bit of the word's mask.
 */
export function charMask(text: string): number {
  let mask = 0;
  for (let i = 0; i < text.length; i++) {
    mask |= charBit(foldCode(text.charCodeAt(i)));
  }
  return mask;
}

/**
 * A title's two masks, in one pass (a million titles are read when an agent lists a million sessions): its
 * {@link charMask} into `chars[at]`, and the same bits of only the characters that begin a word into
 * `starts[at]`. For a query of single letters the two decide the match and its tier without reading the title.
 */
export function writeMasks(text: string, chars: Uint32Array, starts: Uint32Array, at: number): void {
  let all = 0;
  let first = 0;
  let previousAlnum = false;
  for (let i = 0; i < text.length; i++) {
    const code = foldCode(text.charCodeAt(i));
    const bit = charBit(code);
    all |= bit;
    const alnum = (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || code > 127;
    if (alnum && !previousAlnum) first |= bit;
    previousAlnum = alnum;
  }
  chars[at] = all;
  starts[at] = first;
}

/** The bit of a letter a–z in the masks, or 0 for any other character. */
export function letterBit(code: number): number {
  return code >= 97 && code <= 122 ? 1 << (code - 97) : 0;
}

function charBit(code: number): number {
  if (code >= 97 && code <= 122) return 1 << (code - 97);
  if (code >= 48 && code <= 57) return 1 << (26 + ((code - 48) % 5));
  return code === 32 ? 0 : 1 << 31;
}
