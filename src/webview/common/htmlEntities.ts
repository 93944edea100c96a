/**
 * The two functions markdown-it takes from the `entities` package, done by the browser's own HTML parser:
 * `entities` carries the table of 2,231 named character references, 75 KB of the chat bundle, which the
 * browser already has. esbuild.mjs puts this module in place of `entities` in the webview bundles.
 *
 * markdown-it calls them with one reference at a time, `&name;` or `&#…;`, semicolon included (its entity rule
 * and `unescapeAll` match that first); anything else is returned as it is. test/e2e/htmlEntities.test.ts checks
 * that both agree with `entities` on every name it knows, and on prefixes, unknown names and numbers.
 */

/** One reference as markdown-it hands it over. */
const REFERENCE = /^&#?[a-z0-9]{1,32};$/i;

// A detached <textarea>: what is set as its HTML is parsed as RCDATA, so character references are decoded and
// nothing else is (no element is ever created, nothing loads or runs), and its value is the decoded text.
let decoder: HTMLTextAreaElement | undefined;

/** Decodes a reference as HTML text does: a legacy name may match a prefix (`&notit;` is `¬it;`). */
export function decodeHTML(text: string): string {
  if (!REFERENCE.test(text)) return text;
  decoder ??= document.createElement('textarea');
  decoder.innerHTML = text;
  return decoder.value;
}

/** Decodes a reference only when all of it, semicolon included, is one (`&notit;` stays as it is). */
export function decodeHTMLStrict(text: string): string {
  const decoded = decodeHTML(text);
  // A number is always whole. A name's prefix match leaves the semicolon behind; `&semi;` is the one whole
  // name that decodes to ";".
  if (text.startsWith('&#')) return decoded;
  return decoded.endsWith(';') && text !== '&semi;' ? text : decoded;
}
