import * as assert from 'node:assert/strict';
import { SortedSlots } from '../../../src/history/sortedSlots';

/** Slots ordered by a key (larger first), ties by slot: the order the Sessions model keeps. */
function keyed(size: number) {
  const keys = new Float64Array(size);
  const order = (a: number, b: number) => (keys[a] !== keys[b] ? (keys[a]! > keys[b]! ? -1 : 1) : a - b);
  return { keys, order, reference: (slots: Iterable<number>) => [...slots].sort(order) };
}

describe('SortedSlots (the ordered lists of the Sessions model)', () => {
  it('keeps slots in order through batches of inserts and removals, keys changing in between (against a plain sort)', () => {
    let seed = 3;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const size = 3000;
    const { keys, order, reference } = keyed(size);
    for (let slot = 0; slot < size; slot++) keys[slot] = Math.floor(random() * 200); // many ties
    const list = new SortedSlots(order);
    const present = new Set<number>();
    for (let round = 0; round < 300; round++) {
      const batch = [...new Set(Array.from({ length: 1 + Math.floor(random() * 40) }, () => Math.floor(random() * size)))];
      const leaving = batch.filter((slot) => present.has(slot));
      list.remove(leaving); // with their old keys in place
      for (const slot of leaving) present.delete(slot);
      for (const slot of batch) keys[slot] = random() < 0.2 ? 1000 + round : Math.floor(random() * 200); // some move to the top
      const arriving = batch.filter(() => random() < 0.8);
      if (random() < 0.5) list.insert(arriving);
      else for (const slot of arriving) list.add(slot);
      for (const slot of arriving) present.add(slot);
      assert.deepEqual([...list.view()], reference(present), `round ${round}`);
    }
    for (const slot of present) assert.equal(list.has(slot), true);
    assert.equal(list.has(size + 1), false);
  });

  it('appends a batch that comes after everything without moving anything, and finds ranges by binary search', () => {
    const { keys, order } = keyed(20);
    for (let slot = 0; slot < 20; slot++) keys[slot] = 100 - slot; // newest first by slot
    const list = new SortedSlots(order);
    list.insert([0, 1, 2, 3, 4]);
    list.insert([9, 7, 8, 5, 6]);
    assert.deepEqual([...list.view()], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(
      list.partition((slot) => keys[slot]! >= 96),
      5,
    );
    assert.equal(list.positionOf(7), 7);
    list.remove([0, 0, 9, 42]);
    assert.deepEqual([...list.view()], [1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('keeps only what a filter takes, in order', () => {
    const { keys, order } = keyed(10);
    keys.set([5, 9, 1, 7, 3, 8, 2, 6, 4, 0]);
    const all = new SortedSlots(order);
    all.reset([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const even = new SortedSlots(order);
    even.filterFrom(all, (slot) => slot % 2 === 0);
    assert.deepEqual([...all.view()], [1, 5, 3, 7, 0, 8, 4, 6, 2, 9]);
    assert.deepEqual([...even.view()], [0, 8, 4, 6, 2]);
  });
});
