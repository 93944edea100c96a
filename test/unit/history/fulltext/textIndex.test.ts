import * as assert from 'node:assert/strict';
import { SearchCancelled, TextIndex } from '../../../../src/history/fulltext/textIndex';
import { addTerms, queryTerms } from '../../../../src/history/fulltext/tokens';

const stamp = { mtimeMs: 1, size: 1 };

function find(index: TextIndex, query: string): string[] {
  return index.search(queryTerms(query)).sort();
}

/** What the index must answer, worked out the slow way: every query word starts one of the document's terms. */
function oracle(texts: ReadonlyMap<string, string>, query: string): string[] {
  const words = queryTerms(query);
  if (words.length === 0) return [];
  const found: string[] = [];
  for (const [key, text] of texts) {
    const terms = new Set<string>();
    addTerms(text, terms);
    if (words.every((w) => [...terms].some((t) => t.startsWith(w)))) found.push(key);
  }
  return found.sort();
}

function random(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

describe('TextIndex (the transcripts’ full-text index)', () => {
  it('finds documents by word prefixes, every query word required', () => {
    const index = new TextIndex();
    index.put('a', 'User: please refactor the auth flow\n\nAgent: done', stamp);
    index.put('b', 'User: fix the greeting in the parser', stamp);
    index.put('c', 'User: the authentication token expired', stamp);
    assert.deepEqual(find(index, 'refactor'), ['a']);
    assert.deepEqual(find(index, 'ref'), ['a']);
    assert.deepEqual(find(index, 'auth'), ['a', 'c'], 'a prefix of "authentication" too');
    assert.deepEqual(find(index, 'auth flow'), ['a']);
    assert.deepEqual(find(index, 'the'), ['a', 'b', 'c']);
    assert.deepEqual(find(index, 'factor'), [], 'not in the middle of a word');
    assert.deepEqual(find(index, 'auth zebra'), []);
    assert.deepEqual(find(index, ''), []);
  });

  it('ignores case and accents, in text and query', () => {
    const index = new TextIndex();
    index.put('a', 'Le CAFÉ est fermé. Ελληνικά κείμενα. 東京タワー', stamp);
    assert.deepEqual(find(index, 'cafe'), ['a']);
    assert.deepEqual(find(index, 'Café FERME'), ['a']);
    index.put('b', 'Cafe refactor', stamp);
    assert.deepEqual(find(index, 'café'), ['a', 'b'], '"café" finds "Cafe refactor"');
    assert.deepEqual(find(index, 'café refactor'), ['b']);
    assert.deepEqual(find(index, 'ελληνικα'), ['a']);
    assert.deepEqual(find(index, '京'), ['a'], 'a Han character starts a sub-word');
    assert.deepEqual(find(index, 'タワー'), ['a']);
  });

  it('finds camelCase, snake_case and path pieces', () => {
    const index = new TextIndex();
    index.put('a', 'see parseConfigFile() in src/history/localIndex.ts', stamp);
    index.put('b', 'the HTMLParser and max_retry_count', stamp);
    assert.deepEqual(find(index, 'config'), ['a']);
    assert.deepEqual(find(index, 'configFile'), ['a']);
    assert.deepEqual(find(index, 'parseconfig'), ['a']);
    assert.deepEqual(find(index, 'index'), ['a']);
    assert.deepEqual(find(index, 'history/local'), ['a']);
    assert.deepEqual(find(index, 'parser'), ['b']);
    assert.deepEqual(find(index, 'retry_count'), ['b']);
    assert.deepEqual(find(index, 'onfig'), []);
  });

  it('replaces a document’s text and removes documents', () => {
    const index = new TextIndex();
    index.put('a', 'alpha beta', stamp);
    index.put('b', 'alpha gamma', stamp);
    index.put('a', 'delta', { mtimeMs: 2, size: 5 });
    assert.deepEqual(find(index, 'alpha'), ['b']);
    assert.deepEqual(find(index, 'delta'), ['a']);
    assert.deepEqual(index.stampOf('a'), { mtimeMs: 2, size: 5 });
    assert.equal(index.remove('b'), true);
    assert.equal(index.remove('b'), false);
    assert.deepEqual(find(index, 'alpha'), []);
    assert.equal(index.documentCount, 1);
  });

  it('answers like a plain scan through adds, replacements, removals, merges and renumbering', () => {
    const next = random(42);
    const vocabulary = [
      'alpha',
      'alphabet',
      'beta',
      'betamax',
      'gamma',
      'parseConfig',
      'configFile',
      'HTTPServer',
      'server',
      'café',
      'naïve',
      'x1',
      'x10',
      'zeta',
    ];
    const texts = new Map<string, string>();
    const index = new TextIndex();
    const queries = [
      'a',
      'al',
      'alpha',
      'alphab',
      'beta',
      'config',
      'configfile',
      'server',
      'http',
      'cafe',
      'naive',
      'x1',
      'x',
      'ze',
      'alpha beta',
      'config server',
      'zzz',
    ];
    for (let round = 0; round < 1500; round++) {
      const key = `k${Math.floor(next() * 300)}`;
      if (next() < 0.15) {
        texts.delete(key);
        index.remove(key);
      } else {
        const text = Array.from({ length: 1 + Math.floor(next() * 6) }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(' ');
        texts.set(key, text);
        index.put(key, text, stamp);
      }
      if (round % 97 === 0) while (index.maintain());
      if (round % 250 === 0) for (const query of queries) assert.deepEqual(find(index, query), oracle(texts, query), `round ${round}, "${query}"`);
    }
    while (index.maintain());
    assert.ok(index.segmentCount < 10, `merged into few segments (${index.segmentCount})`);
    for (const query of queries) assert.deepEqual(find(index, query), oracle(texts, query), `after merges, "${query}"`);
    index.renumber();
    assert.equal(index.segmentCount, 1);
    assert.equal(index.idLimit, texts.size, 'ids are 0…n-1 again');
    for (const query of queries) assert.deepEqual(find(index, query), oracle(texts, query), `after renumbering, "${query}"`);
  });

  it('merges segments in tiers as documents are put one at a time', () => {
    const index = new TextIndex();
    for (let i = 0; i < 100; i++) {
      index.put(`k${i}`, `word${i} common`, stamp);
      while (index.maintain());
    }
    assert.ok(index.segmentCount < 16, `${index.segmentCount} segments`);
    assert.equal(find(index, 'common').length, 100);
    assert.deepEqual(find(index, 'word42'), ['k42']);
  });

  it('stops a search when it is cancelled', () => {
    const index = new TextIndex();
    for (let i = 0; i < 20; i++) index.put(`k${i}`, `alpha${i} beta`, stamp);
    let asked = 0;
    assert.throws(
      () => index.search(['alpha'], () => ++asked > 3),
      (error: unknown) => error instanceof SearchCancelled && error.name === 'AbortError',
    );
    assert.equal(asked, 4, 'it stopped at the first check that said so');
  });
});
