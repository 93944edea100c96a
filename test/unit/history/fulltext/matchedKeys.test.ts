import * as assert from 'node:assert/strict';
import { HandleTable, MatchedKeys } from '../../../../src/history/fulltext/matchedKeys';

describe('MatchedKeys (a search result as a set of record keys over handles)', () => {
  it('answers has, size and iteration like a Set of the matched keys', () => {
    const table = new HandleTable(['A\u0000a', 'A\u0000b', 'A\u0000c']);
    const matched = new MatchedKeys(Uint32Array.from([2, 0, 2, 99]), table);
    assert.equal(matched.size, 2, 'a repeated or unknown handle counts once or not at all');
    assert.equal(matched.has('A\u0000a'), true);
    assert.equal(matched.has('A\u0000b'), false);
    assert.equal(matched.has('A\u0000nowhere'), false);
    assert.deepEqual([...matched], ['A\u0000a', 'A\u0000c']);
    assert.deepEqual(new Set(matched), new Set(['A\u0000a', 'A\u0000c']));
    const seen: string[] = [];
    matched.forEach((key) => seen.push(key));
    assert.deepEqual(seen, ['A\u0000a', 'A\u0000c']);
  });

  it('does not count a key given a handle after the result', () => {
    const table = new HandleTable(['A\u0000a']);
    const matched = new MatchedKeys(Uint32Array.from([0]), table);
    assert.equal(table.handleOf('A\u0000later'), 1);
    assert.equal(table.handleOf('A\u0000a'), 0);
    assert.equal(matched.has('A\u0000later'), false);
    assert.equal(matched.size, 1);
  });
});
