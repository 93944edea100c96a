import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { markdownText } from '../../../src/common/markdownText';

/**
 * The GFM autolink literal of marked, the renderer of VS Code's hovers and tooltips (its `url` rule and the
 * trailing punctuation it gives back, as in VS Code 1.100's workbench): the links it would make of a text.
 */
function markedAutolinks(markdown: string): string[] {
  const URL = /^((?:ftp|https?):\/\/|www\.)(?:[a-zA-Z0-9-]+\.?)+[^\s<]*/i;
  const BACKPEDAL = /(?:[^?!.,:;*_'"~()&]+|\([^)]*\)|&(?![a-zA-Z0-9]+;$)|[?!.,:;*_'"~)]+(?!$))+/;
  const links: string[] = [];
  // Code spans are not looked into.
  const outside = markdown.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
  for (let at = 0; at < outside.length; at++) {
    if (at > 0 && /[A-Za-z0-9]/.test(outside[at - 1]!)) continue;
    const match = URL.exec(outside.slice(at));
    if (!match) continue;
    let link = match[0];
    for (let previous = ''; previous !== link;) {
      previous = link;
      link = BACKPEDAL.exec(link)?.[0] ?? '';
    }
    links.push(link);
    at += match[0].length;
  }
  return links;
}

const messages = [
  'Lost the connection to Box opencode (http://127.0.0.1:2468): opencode stopped on the Sandbox Agent server at http://127.0.0.1:2468. Reconnecting in 1 s…',
  'Could not reconnect to Box (https://box.example/acp?team=a): Box refused the credentials (HTTP 401: Token Invalid). Reconnecting in 2 s (attempt 1 of 10)…',
  'Lost the connection to Served (ws://127.0.0.1:41379): The connection to Served at ws://127.0.0.1:41379 was lost.',
  'A name with *stars*, [brackets], `ticks`, <b>tags</b>, $(icons) and 1. a list marker',
];

describe('markdownText: plain text in a Markdown tooltip', () => {
  it('shows every message as it was written (no backslash, no link, no markup)', () => {
    const md = new MarkdownIt({ linkify: true });
    for (const message of messages) {
      const html = md.renderInline(markdownText(message));
      assert.doesNotMatch(html, /<a |<b>|<em>/, message);
      const text = html
        .replace(/<\/?code>/g, '')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
      assert.equal(text, message);
    }
  });

  it('gives VS Code\'s renderer no URL to autolink with a backslash in it (it showed "http://127\\.0\\.0\\.1:2468\\)")', () => {
    for (const message of messages)
      assert.deepEqual(
        markedAutolinks(markdownText(message)).filter((link) => link.includes('\\')),
        [],
        message,
      );
  });

  it('keeps the punctuation that ends a sentence outside the URL, and a parenthesis the URL opened inside it', () => {
    assert.equal(markdownText('see (http://a.example/x).'), 'see \\(`http://a.example/x`\\)\\.');
    assert.equal(markdownText('at http://a.example/wiki/A_(b), then'), 'at `http://a.example/wiki/A_(b)`, then');
  });
});
