/**
 * Plain text for a Markdown string VS Code renders (a tree item's tooltip): every character Markdown could read
 * as syntax is escaped, and every URL goes into a code span as it is. An escaped URL would not do: the GFM
 * autolinks of VS Code's renderer (marked) take a URL up to the next space, backslashes included, so
 * `(http://127\.0\.0\.1:2468\)` showed as a link "http://127\.0\.0\.1:2468\" followed by ")".
 */

/** A URL in running text: a scheme, `://`, and what follows up to a space, a quote, a backtick or an angle bracket. */
const URL_IN_TEXT = /\b(?:https?|wss?|ftp):\/\/[^\s<>"'`]+/gi;

export function markdownText(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const url = trimTrailing(match[0]);
    out += escapeMarkdown(text.slice(last, match.index)) + `\`${url}\``;
    last = match.index + url.length;
  }
  return out + escapeMarkdown(text.slice(last));
}

/** Escapes every character Markdown (and VS Code's `$(icon)` syntax) could read as syntax. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>$]/g, '\\$&');
}

/** A URL without the punctuation that ends the sentence around it (a closing parenthesis it did not open, a full stop). */
function trimTrailing(url: string): string {
  let end = url.length;
  for (;;) {
    const last = url[end - 1];
    if (last !== undefined && '.,:;!?'.includes(last)) {
      end--;
      continue;
    }
    if (last === ')' && count(url.slice(0, end), '(') < count(url.slice(0, end), ')')) {
      end--;
      continue;
    }
    return url.slice(0, end);
  }
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}
