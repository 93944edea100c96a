import * as assert from 'node:assert/strict';
import { HeightIndex } from '../../../src/shared/heightIndex';

/** The same answers, computed the slow way. */
class Oracle {
  constructor(readonly heights: number[]) {}
  offset(i: number): number {
    return this.heights.slice(0, i).reduce((a, b) => a + b, 0);
  }
  indexAt(y: number): number {
    if (this.heights.length === 0 || y <= 0) return 0;
    let at = 0;
    for (let i = 0; i < this.heights.length; i++) {
      if (this.offset(i + 1) <= y) at = i + 1;
    }
    return Math.min(at, this.heights.length - 1);
  }
}

describe('HeightIndex (offsets of items with heights of their own)', () => {
  it('places each item after the heights before it, and finds the item at an offset', () => {
    const index = new HeightIndex([30, 10, 0, 25]);
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => index.offset(i)),
      [0, 30, 40, 40, 65],
    );
    assert.equal(index.total, 65);
    assert.equal(index.indexAt(-5), 0);
    assert.equal(index.indexAt(0), 0);
    assert.equal(index.indexAt(29.5), 0);
    assert.equal(index.indexAt(30), 1);
    // An item of height 0 holds no offset: 40 is where the next one starts.
    assert.equal(index.indexAt(40), 3);
    assert.equal(index.indexAt(1000), 3, 'past the end: the last item');
    assert.equal(new HeightIndex().indexAt(100), 0);
  });

  it('changes a height and appends items, growing past its first capacity', () => {
    const index = new HeightIndex();
    const oracle = new Oracle([]);
    for (let i = 0; i < 100; i++) {
      const height = (i * 37) % 50;
      index.push(height);
      oracle.heights.push(height);
    }
    index.set(7, 500);
    oracle.heights[7] = 500;
    index.set(99, 1.5);
    oracle.heights[99] = 1.5;
    index.push(12);
    oracle.heights.push(12);
    assert.equal(index.count, 101);
    for (let i = 0; i <= 101; i++) assert.equal(index.offset(i), oracle.offset(i), `offset ${i}`);
    for (const y of [0, 1, 17, 260, 499, 500, 501, 2000, 2623, 2624, 9999]) assert.equal(index.indexAt(y), oracle.indexAt(y), `indexAt ${y}`);
    assert.throws(() => index.set(101, 1), RangeError);
  });

  it('agrees with a plain sum on 2,000 random operations', () => {
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const index = new HeightIndex([5, 5, 5]);
    const oracle = new Oracle([5, 5, 5]);
    for (let step = 0; step < 2000; step++) {
      const r = random();
      if (r < 0.4) {
        const height = Math.floor(random() * 300) / 4;
        index.push(height);
        oracle.heights.push(height);
      } else if (r < 0.8) {
        const i = Math.floor(random() * oracle.heights.length);
        const height = Math.floor(random() * 300);
        index.set(i, height);
        oracle.heights[i] = height;
      } else {
        const y = random() * (oracle.offset(oracle.heights.length) + 50);
        assert.equal(index.indexAt(y), oracle.indexAt(y), `indexAt ${y} after ${step} steps`);
        const i = Math.floor(random() * (oracle.heights.length + 1));
        assert.equal(index.offset(i), oracle.offset(i), `offset ${i} after ${step} steps`);
      }
    }
  });

  it('stays exact for 300,000 items', () => {
    const index = new HeightIndex(Array.from({ length: 300_000 }, (_, i) => 20 + (i % 7)));
    index.set(150_000, 1000);
    const at = index.offset(200_000);
    let expected = 0;
    for (let i = 0; i < 200_000; i++) expected += i === 150_000 ? 1000 : 20 + (i % 7);
    assert.equal(at, expected);
    assert.equal(index.indexAt(at), 200_000);
    assert.equal(index.indexAt(at - 0.5), 199_999);
  });
});
