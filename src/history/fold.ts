/**
 * How search compares text: one fold for session titles (search.ts) and transcript text (fulltext/tokens.ts),
 * so a query finds the same words in both. Unicode lower-casing after compatibility decomposition with the
 * combining marks dropped: `Café`, `CAFE` and `cafe` are one word (users rarely type accents in a search box;
 * a query with accents is folded the same way, so it still finds them).
 */

const NON_ASCII = /[^\u0000-\u007f]/;
const MARKS = /\p{M}/gu;

/** Whether a text is all ASCII (its fold is then its lower case, one code unit each). */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

/** A text folded for comparison: compatibility-decomposed, without combining marks, lower-cased. */
export function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** Per UTF-16 code unit beyond ASCII, its folded form once worked out (0: not yet). */
const FOLDED = new Uint16Array(0x10000);

/**
 * A code unit's {@link fold}, where text must keep its length (title search marks the matched characters of
 * the title as it is): a character folds to its fold when that is one code unit (`É` and the Kelvin sign to
 * `e` and `k`), else to its lower case when that is one code unit, else to itself (a combining mark, `ﬁ`).
 */
export function foldCode(code: number): number {
  if (code < 128) return code >= 65 && code <= 90 ? code + 32 : code;
  let folded = FOLDED[code]!;
  if (folded === 0) {
    const char = String.fromCharCode(code);
    const full = fold(char);
    const lower = char.toLowerCase();
    folded = full.length === 1 ? full.charCodeAt(0) : lower.length === 1 ? lower.charCodeAt(0) : code;
    FOLDED[code] = folded;
  }
  return folded;
}
