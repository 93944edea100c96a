import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { determineBranch, BinTrieFlags, decodeHTML, decodeHTMLStrict, htmlDecodeTree } from 'entities/lib/decode.js';
import * as esbuild from 'esbuild';
import { REPO_ROOT, tooling } from './workbench';

/** Every name `entities` decodes (with the semicolon, and the legacy ones without), from its own table. */
function entityNames(): string[] {
  const chars = [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz;'].map((c) => c.charCodeAt(0));
  const names: string[] = [];
  const walk = (node: number, prefix: string) => {
    const current = htmlDecodeTree[node]!;
    const valueLength = (current & BinTrieFlags.VALUE_LENGTH) >> 14;
    if (valueLength !== 0) names.push(prefix);
    // A value in the node's own word leaves no room for branches: a leaf.
    if (valueLength === 1) return;
    for (const char of chars) {
      const next = determineBranch(htmlDecodeTree, current, node + Math.max(1, valueLength), char);
      if (next >= 0) walk(next, prefix + String.fromCharCode(char));
    }
  };
  for (const char of chars) {
    const next = determineBranch(htmlDecodeTree, htmlDecodeTree[0]!, 1, char);
    if (next >= 0) walk(next, String.fromCharCode(char));
  }
  return names;
}

describe('HTML entities in agent markdown, decoded by the browser (Chromium)', function () {
  this.timeout(120_000);

  it('decodes every reference markdown-it hands over exactly as the `entities` package does, without its table', async () => {
    const names = entityNames();
    assert.equal(names.length, 2231, 'the whole WHATWG table: 2,125 names with a semicolon, 106 legacy ones without');
    // What markdown-it passes: one `&…;` reference (its entity rule and unescapeAll match that first).
    const inputs = [
      ...names.filter((name) => name.endsWith(';')).map((name) => `&${name}`),
      // A legacy name followed by more letters matches a prefix in HTML text (`&notit;` → `¬it;`), never strictly.
      ...names.filter((name) => !name.endsWith(';')).flatMap((name) => [`&${name}x;`, `&${name}1;`]),
      ...['&foo;', '&Amp;', '&ampersand;', '&semi;', '&SEMI;', '&a;', '&notin;', '&NotNestedLessLess;', '&abcdefghijklmnopqrstuvwxyz012345;'],
      ...['&#0;', '&#59;', '&#65;', '&#x41;', '&#X41;', '&#128;', '&#x9F;', '&#xD800;', '&#x10FFFF;', '&#x110000;', '&#99999999;', '&#xzz;', '&#;'],
    ];
    const { browser } = await tooling();
    const built = await esbuild.build({
      entryPoints: [path.join(REPO_ROOT, 'src', 'webview', 'common', 'htmlEntities.ts')],
      bundle: true,
      format: 'iife',
      globalName: 'htmlEntities',
      platform: 'browser',
      target: 'chrome120',
      write: false,
      logLevel: 'warning',
    });
    const launched = await browser.launchBrowser();
    try {
      const page = await launched.context.newPage();
      await page.setContent('<!DOCTYPE html><title>entities</title>');
      await page.addScriptTag({ content: built.outputFiles[0]!.text });
      const decoded = await page.evaluate((all) => {
        const decoder = (globalThis as unknown as { htmlEntities: { decodeHTML(s: string): string; decodeHTMLStrict(s: string): string } }).htmlEntities;
        return all.map((input) => [decoder.decodeHTML(input), decoder.decodeHTMLStrict(input)]);
      }, inputs);
      const differences = inputs
        .map((input, i) => ({ input, ours: decoded[i]!, theirs: [decodeHTML(input), decodeHTMLStrict(input)] }))
        .filter(({ ours, theirs }) => ours[0] !== theirs[0] || ours[1] !== theirs[1]);
      assert.deepEqual(differences.slice(0, 10), [], `${differences.length} of ${inputs.length} references decode differently`);
    } finally {
      await launched.close();
    }
  });
});
