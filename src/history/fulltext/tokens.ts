/**
 * The words of a transcript as the full-text index sees them, and the words of a query.
 *
 * - A word is a run of letters, digits and combining marks; everything else separates words (so `parse_config`,
 *   `src/history/x.ts`, `a-b` and `a.b` are several words).
 * - Folding: the one fold of search (history/fold.ts, titles use it too): `Café`, `CAFE` and `cafe` are one word.
 * - Sub-words: a word is also indexed from each of its sub-word starts (a camelCase hump, the end of an acronym,
 *   a letter/digit change, every Han or Kana character), so `parseConfigFile` is found by `parse`, `config`,
 *   `configfile` and `file`, and `HTMLParser` by `parser`. Any other position inside a word is not a start:
 *   matching anywhere inside words (n-grams) would triple the index and mostly find noise (`con` in `icon`).
 * - A query word matches an indexed term it is a prefix of; every query word must match.
 * - Terms are cut at {@link MAX_TERM_CHARS} characters (a query word too), a word gives at most
 *   {@link MAX_SUBWORDS} sub-word starts.
 */

import { fold, isAscii } from '../fold';

export const MAX_TERM_CHARS = 32;
export const MAX_SUBWORDS = 8;
/** Terms of this length or shorter are also indexed as prefixes, so a one- or two-letter query word is a single lookup. */
export const SHORT_PREFIX_CHARS = 3;
/** Marks an indexed prefix term; no word contains it. */
export const PREFIX_MARK = '\u0001';

const IDEOGRAPH = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Where sub-words start inside `word` (as written, before folding), 0 first; at most {@link MAX_SUBWORDS}.
 * ASCII rules for camelCase and digits; outside ASCII, every Han/Kana character and a change from lower to
 * upper case.
 */
export function subwordStarts(word: string): number[] {
  const starts = [0];
  const ascii = isAscii(word);
  for (let i = 1; i < word.length && starts.length < MAX_SUBWORDS; i++) {
    const prev = word.charCodeAt(i - 1);
    const here = word.charCodeAt(i);
    if (ascii || (prev < 128 && here < 128)) {
      const next = i + 1 < word.length ? word.charCodeAt(i + 1) : 0;
      const hump = isLower(prev) && isUpper(here);
      const acronymEnd = isUpper(prev) && isUpper(here) && isLower(next);
      const digitChange = (isDigit(prev) && !isDigit(here)) || (!isDigit(prev) && isDigit(here));
      if (hump || acronymEnd || digitChange) starts.push(i);
      continue;
    }
    if (here >= 0xdc00 && here <= 0xdfff) continue; // the second half of a surrogate pair
    const char = String.fromCodePoint(word.codePointAt(i)!);
    if (IDEOGRAPH.test(char)) {
      starts.push(i);
      continue;
    }
    const prevChar = String.fromCodePoint(word.codePointAt(i - 1 - (prev >= 0xdc00 && prev <= 0xdfff ? 1 : 0))!);
    if (char !== char.toLowerCase() && prevChar !== prevChar.toUpperCase()) starts.push(i);
  }
  return starts;
}

function cut(term: string): string {
  if (term.length <= MAX_TERM_CHARS) return term;
  // Never cut a surrogate pair in two.
  const end = (term.charCodeAt(MAX_TERM_CHARS - 1) & 0xfc00) === 0xd800 ? MAX_TERM_CHARS - 1 : MAX_TERM_CHARS;
  return term.slice(0, end);
}

const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
/** Per BMP code unit: 0 not yet known, 1 a word character, 2 not. */
const wordChars = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) wordChars[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 2;

/** How many code units the word character at `i` takes (1 or 2), or 0 when it is not one. */
function wordCharAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  const known = wordChars[c]!;
  if (known !== 0 && (c < 0xd800 || c > 0xdfff)) return known === 1 ? 1 : 0;
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) return WORD_CHAR.test(text.slice(i, i + 2)) ? 2 : 0;
  if (c >= 0xd800 && c <= 0xdfff) return 0;
  const is = WORD_CHAR.test(text[i]!);
  wordChars[c] = is ? 1 : 2;
  return is ? 1 : 0;
}

/**
 * Calls `visit` with every word of `text` and its position [start, end) in `text`. Stops when `visit`
 * returns false.
 */
export function forEachWord(text: string, visit: (start: number, end: number, word: string) => boolean | void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let step = wordCharAt(text, i);
    if (step === 0) {
      i++;
      continue;
    }
    const start = i;
    while (step !== 0) {
      i += step;
      step = i < n ? wordCharAt(text, i) : 0;
    }
    if (visit(start, i, text.slice(start, i)) === false) return;
  }
}

/** The terms of one word: the word from each of its sub-word starts, folded and cut. */
export function wordTerms(word: string, into: Set<string>): void {
  if (word.length === 1) {
    into.add(fold(word));
    return;
  }
  for (const start of subwordStarts(word)) {
    const term = cut(fold(start === 0 ? word : word.slice(start)));
    if (term.length > 0) into.add(term);
  }
}

/** The distinct terms of `text` (each word from each of its sub-word starts, folded and cut), added to `into`. */
export function addTerms(text: string, into: Set<string>): void {
  const words = new Set<string>();
  forEachWord(text, (_start, _end, word) => {
    words.add(word);
  });
  for (const word of words) wordTerms(word, into);
}

/** The index's terms for `text`: its words' terms and their short prefixes ({@link PREFIX_MARK} first). */
export function indexTerms(text: string): Set<string> {
  const terms = new Set<string>();
  addTerms(text, terms);
  const prefixes = new Set<string>();
  for (const term of terms) {
    for (let n = 1; n <= SHORT_PREFIX_CHARS && n <= term.length; n++) prefixes.add(PREFIX_MARK + term.slice(0, n));
  }
  for (const prefix of prefixes) terms.add(prefix);
  return terms;
}

/**
 * The words of a query, folded and cut, without repeats and without a word that another word of the query
 * starts with (it would match whatever the longer word matches).
 */
export function queryTerms(query: string): string[] {
  const words = new Set<string>();
  forEachWord(query, (_start, _end, word) => {
    const term = cut(fold(word));
    if (term.length > 0) words.add(term);
  });
  const all = [...words];
  return all.filter((word) => !all.some((other) => other !== word && other.startsWith(word)));
}

/** Whether the folded `term` (a word from one of its sub-word starts) is matched by query word `word`. */
export function termMatches(term: string, word: string): boolean {
  return cut(term).startsWith(word);
}
