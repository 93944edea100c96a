import * as assert from 'node:assert/strict';
import { fold } from '../../../../src/history/fold';
import { addTerms, forEachWord, indexTerms, MAX_TERM_CHARS, PREFIX_MARK, queryTerms, subwordStarts } from '../../../../src/history/fulltext/tokens';

function terms(text: string): string[] {
  const into = new Set<string>();
  addTerms(text, into);
  return [...into].sort();
}

function words(text: string): string[] {
  const found: string[] = [];
  forEachWord(text, (start, end, word) => {
    assert.equal(text.slice(start, end), word);
    found.push(word);
  });
  return found;
}

describe('Transcript tokenizer (full-text index)', () => {
  it('splits words at everything but letters, digits and marks', () => {
    assert.deepEqual(words('Fix parse_config in src/history/x.ts, a-b a.b (ok)!'), [
      'Fix',
      'parse',
      'config',
      'in',
      'src',
      'history',
      'x',
      'ts',
      'a',
      'b',
      'a',
      'b',
      'ok',
    ]);
    assert.deepEqual(words('naïve café 東京 😀 ok'), ['naïve', 'café', '東京', 'ok']);
    assert.deepEqual(words(''), []);
  });

  it('folds case and accents the same way for text and queries', () => {
    assert.equal(fold('Café'), 'cafe');
    assert.equal(fold('CAFÉ'), 'cafe');
    assert.equal(fold('Straße'), 'straße');
    assert.equal(fold('ΣΊΣΥΦΟΣ'), fold('σίσυφος'), 'Greek, final sigma included');
    assert.equal(fold('ﬁle'), 'file', 'compatibility forms decompose');
    assert.deepEqual(queryTerms('CAFÉ'), ['cafe']);
  });

  it('finds sub-words at camelCase humps, acronym ends and digit changes', () => {
    assert.deepEqual(subwordStarts('parseConfigFile'), [0, 5, 11]);
    assert.deepEqual(subwordStarts('HTMLParser'), [0, 4]);
    assert.deepEqual(subwordStarts('utf8Decoder'), [0, 3, 4]);
    assert.deepEqual(subwordStarts('plain'), [0]);
    assert.deepEqual(subwordStarts('ALLCAPS'), [0]);
    assert.deepEqual(subwordStarts('東京都'), [0, 1, 2], 'every Han character starts a sub-word');
  });

  it('indexes a word from each sub-word start, folded', () => {
    assert.deepEqual(terms('parseConfigFile'), ['configfile', 'file', 'parseconfigfile']);
    assert.deepEqual(terms('HTMLParser x'), ['htmlparser', 'parser', 'x']);
    assert.deepEqual(terms('Café café CAFE'), ['cafe']);
  });

  it('cuts long words, and never inside a surrogate pair', () => {
    const long = 'a'.repeat(100);
    assert.deepEqual(terms(long), ['a'.repeat(MAX_TERM_CHARS)]);
    const han = `${'x'.repeat(MAX_TERM_CHARS - 1)}𠀋`;
    for (const term of terms(han)) assert.ok(!/[\ud800-\udbff]$/.test(term), 'no lone high surrogate at the end');
  });

  it('adds the short prefixes of every term for one- to three-letter query words', () => {
    const all = indexTerms('Refactor');
    assert.ok(all.has('refactor'));
    for (const prefix of ['r', 're', 'ref']) assert.ok(all.has(PREFIX_MARK + prefix), prefix);
    assert.ok(!all.has(PREFIX_MARK + 'refa'));
  });

  it('reads a query as distinct folded words, dropping a word another one starts with', () => {
    assert.deepEqual(queryTerms('  Parse  parseConfig  PARSE '), ['parseconfig']);
    assert.deepEqual(queryTerms('auth flow'), ['auth', 'flow']);
    assert.deepEqual(queryTerms('src/history'), ['src', 'history']);
    assert.deepEqual(queryTerms('!!! ...'), []);
  });
});
