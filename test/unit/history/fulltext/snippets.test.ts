import * as assert from 'node:assert/strict';
import { snippetOf } from '../../../../src/history/fulltext/snippets';
import { queryTerms } from '../../../../src/history/fulltext/tokens';

function highlighted(snippet: { text: string; highlights: readonly (readonly [number, number])[] } | undefined): string[] {
  return (snippet?.highlights ?? []).map(([s, e]) => snippet!.text.slice(s, e));
}

describe('Transcript snippets', () => {
  it('shows the text around the first hit on one line, with every hit in it highlighted', () => {
    const text = `User: ${'filler '.repeat(30)}please refactor the auth\nflow and the Auth tests\n\nAgent: ${'more '.repeat(40)}`;
    const snippet = snippetOf(text, queryTerms('auth refac'));
    assert.ok(snippet);
    assert.ok(snippet.text.startsWith('…'), 'cut before');
    assert.ok(snippet.text.endsWith('…'), 'cut after');
    assert.ok(!snippet.text.includes('\n'), 'one line');
    assert.deepEqual(highlighted(snippet), ['refac', 'auth', 'Auth']);
  });

  it('matches by the index’s rules: sub-words, case and accents, not the middle of a word', () => {
    assert.deepEqual(highlighted(snippetOf('call parseConfigFile now', queryTerms('config'))), ['Config']);
    assert.deepEqual(highlighted(snippetOf('Le CAFÉ est là', queryTerms('cafe'))), ['CAFÉ']);
    assert.equal(snippetOf('reconfigure', queryTerms('config')), undefined);
    assert.equal(snippetOf('anything', []), undefined);
  });

  it('does not cut a short text', () => {
    assert.deepEqual(snippetOf('User: fix the greeting', queryTerms('greet')), { text: 'User: fix the greeting', highlights: [[14, 19]] });
  });

  it('shows the agent’s Markdown as plain text: no **, backticks, link targets, heading or list marks, fences', () => {
    const text = [
      'User: how do I install it?',
      '',
      'Agent: ## Install',
      '',
      '- Run **`npm ci`** in the _project_ folder, then see [the guide](https://example.com/guide.md) or <https://example.com>.',
      '> A ~~slow~~ first install fetches ![the icon](icon.png) once.',
      '```sh',
      'npm ci --install-links',
      '```',
    ].join('\n');
    const snippet = snippetOf(text, queryTerms('install'));
    assert.equal(snippet?.text, 'User: how do I install it?  Agent: Install  Run npm ci in the project folder, then see the guide or https://example.com. A…');
    assert.deepEqual(highlighted(snippet), ['install', 'Install']);
    const later = snippetOf(text, queryTerms('fetches'));
    assert.equal(later?.text, '…fetches the icon once. npm ci --install-links');
    assert.equal(
      snippetOf('see [the guide](https://example.com/secret-page)', queryTerms('secret'))?.text,
      'see [the guide](https://example.com/secret-page)',
      'a hit only in the Markdown: its text as it is',
    );
    assert.equal(snippetOf('keep snake_case_names and 2 * 3 * 4', queryTerms('snake'))?.text, 'keep snake_case_names and 2 * 3 * 4', 'no emphasis there');
  });
});
