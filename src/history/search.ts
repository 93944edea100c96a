/**
 * Search in the session history, fast enough to run on every keystroke over 100,000 sessions:
 *
 * - titles: every word of the query must occur in the title, as a substring or, failing that, as a
 *   subsequence (so "rfctr" finds "refactor"); matches are ranked by how well the words matched (a word
 *   start beats the middle of a word, a substring beats scattered letters; a cheap tier per word), then
 *   by recency, and the matched characters of the best ones are returned for highlighting;
 * - transcript text this client has seen (the local index): the query as a phrase, case-insensitive, with a
 *   snippet around the first hit.
 *
 * Typing narrows: when the new query extends the previous one, only the previous matches are searched
 * again (a title or text matching "refa" also matches "ref"). Short queries match a lot; only the best
 * {@link MAX_RESULTS} are returned, and the result says how many matched.
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

export interface SearchHit<T> {
  readonly item: T;
  /** Matched by its title (else by its transcript text only). */
  readonly byTitle: boolean;
}

export interface SearchResult<T> {
  /** The best matches, best first (at most {@link MAX_RESULTS}). */
  readonly hits: SearchHit<T>[];
  /** How many sessions matched in all. */
  readonly matched: number;
  readonly searched: number;
  /** Of the searched sessions, how many had transcript text to search. */
  readonly textSearched: number;
  /** The matched characters of a hit's title (worked out when a row is shown). */
  highlights(hit: SearchHit<T>): readonly Range[];
  /** The transcript excerpt around a hit's text match, if its text matched. */
  snippet(hit: SearchHit<T>): Snippet | undefined;
}

export const MAX_RESULTS = 2000;
const SNIPPET_BEFORE = 40;
const SNIPPET_AFTER = 100;

/** The words of a query, lower-cased, without repeats. */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))];
}

function isWordStart(text: string, at: number): boolean {
  if (at === 0) return true;
  const before = text.charCodeAt(at - 1);
  const here = text.charCodeAt(at);
  const alnum = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c > 127;
  return !alnum(before) && alnum(here);
}

/**
 * How `word` occurs in `text`, cheaply: 0 = as a substring at a word start, 1 = as a substring inside a
 * word, 2 = as scattered letters, -1 = not at all.
 */
function tierOf(text: string, word: string): number {
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

export interface TextSource<T> {
  /** The items with transcript text (a subset of the searched items), and that text. */
  readonly items: readonly T[];
  text(item: T): { readonly text: string; readonly lower: string } | undefined;
}

/**
 * A search over one list of items (newest first), remembering the previous query's matches so that a
 * longer query only looks at those. Make a new one when the list changes.
 */
export class ListSearch<T extends Searchable> {
  private readonly lower: string[];
  private readonly position: Map<T, number>;
  private previous: { query: string; titles: Int32Array; texts: readonly T[] } | undefined;

  constructor(
    private readonly items: readonly T[],
    private readonly texts: TextSource<T>,
  ) {
    this.lower = items.map((item) => (item.titled ? item.title.toLowerCase() : ''));
    this.position = new Map(items.map((item, i) => [item, i]));
  }

  run(query: string): SearchResult<T> {
    const phrase = query.trim().toLowerCase();
    const words = queryWords(phrase);
    const narrowing = this.previous !== undefined && phrase.startsWith(this.previous.query) && this.previous.query.length > 0;
    // Titles: which match, and how well in coarse tiers (cheap), narrowed from the previous matches when
    // typing on. Within a tier the list's order (newest first) is kept.
    const pool = narrowing ? this.previous!.titles : undefined;
    const tiers: number[][] = Array.from({ length: 2 * words.length + 1 }, () => []);
    const matched: number[] = [];
    const count = pool ? pool.length : this.items.length;
    for (let k = 0; k < count; k++) {
      const i = pool ? pool[k]! : k;
      const title = this.lower[i]!;
      if (title.length === 0) continue;
      let tier = 0;
      for (const word of words) {
        const t = tierOf(title, word);
        if (t < 0) {
          tier = -1;
          break;
        }
        tier += t;
      }
      if (tier < 0) continue;
      matched.push(i);
      const bucket = tiers[tier]!;
      if (bucket.length < MAX_RESULTS) bucket.push(i);
    }
    // The best MAX_RESULTS: title matches by tier, then sessions whose text alone matched.
    const hits: SearchHit<T>[] = [];
    for (const bucket of tiers) {
      for (const i of bucket) {
        if (hits.length >= MAX_RESULTS) break;
        hits.push({ item: this.items[i]!, byTitle: true });
      }
    }
    // Transcript text: the query as a phrase.
    const textPool = narrowing ? this.previous!.texts : this.texts.items;
    const textMatches: T[] = [];
    for (const item of textPool) {
      const text = this.texts.text(item);
      if (text && text.lower.includes(phrase)) textMatches.push(item);
    }
    const titleMatch = new Uint8Array(this.items.length);
    for (const i of matched) titleMatch[i] = 1;
    const textMatched = new Set(textMatches);
    let textOnly = 0;
    for (const item of textMatches) {
      const position = this.position.get(item);
      if (position !== undefined && titleMatch[position] === 1) continue;
      textOnly++;
      if (hits.length < MAX_RESULTS) hits.push({ item, byTitle: false });
    }
    this.previous = { query: phrase, titles: Int32Array.from(matched), texts: textMatches };
    const texts = this.texts;
    const lower = (item: T) => this.lower[this.position.get(item) ?? -1] ?? '';
    return {
      hits,
      matched: matched.length + textOnly,
      searched: this.items.length,
      textSearched: texts.items.length,
      highlights: (hit) => (hit.byTitle ? (matchTitle(lower(hit.item), words) ?? []) : []),
      snippet: (hit) => {
        if (!textMatched.has(hit.item)) return undefined;
        const text = texts.text(hit.item);
        return text && snippetAround(text.text, text.lower, phrase);
      },
    };
  }
}
