import * as assert from 'node:assert/strict';
import { RowLayout } from '../../../src/shared/rowLayout';
import { ROW_HEIGHTS } from '../../../src/shared/historyProtocol';

describe('RowLayout (where each row of the virtual list is)', () => {
  const specials = [
    { index: 0, kind: 'group1' as const },
    { index: 1, kind: 'group2' as const },
    { index: 5, kind: 'group2' as const },
    { index: 9, kind: 'status' as const },
  ];
  const layout = new RowLayout(10, specials, ROW_HEIGHTS.session);

  it('places every row by summing the heights of the rows before it', () => {
    let y = 0;
    for (let i = 0; i < 10; i++) {
      assert.equal(layout.offset(i), y, `row ${i}`);
      y += layout.heightOf(i);
    }
    assert.equal(layout.total, y);
    assert.equal(layout.heightOf(0), ROW_HEIGHTS.group1);
    assert.equal(layout.heightOf(9), ROW_HEIGHTS.status);
    assert.equal(layout.heightOf(4), ROW_HEIGHTS.session);
  });

  it('finds the row at a scroll position, at the edges too', () => {
    for (let i = 0; i < 10; i++) {
      assert.equal(layout.indexAt(layout.offset(i)), i);
      assert.equal(layout.indexAt(layout.offset(i) + layout.heightOf(i) - 1), i);
    }
    assert.equal(layout.indexAt(-50), 0);
    assert.equal(layout.indexAt(layout.total + 500), 9);
    assert.equal(new RowLayout(0, [], 46).indexAt(100), 0);
  });

  it('stays exact for 100,000 rows', () => {
    const big = new RowLayout(
      100_000,
      [
        { index: 0, kind: 'group2' },
        { index: 50_000, kind: 'group2' },
      ],
      ROW_HEIGHTS.sessionWithSnippet,
    );
    const at = big.offset(75_000);
    assert.equal(at, ROW_HEIGHTS.group2 * 2 + (75_000 - 2) * ROW_HEIGHTS.sessionWithSnippet);
    assert.equal(big.indexAt(at + 1), 75_000);
  });
});
