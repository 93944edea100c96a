import * as assert from 'node:assert/strict';
import { changesSummary, diffRows, linesWithin } from '../../../src/shared/changesView';

describe('changesView (summaries and hunk rows for changed files)', () => {
  const file = (rootPath: string, added: number, removed: number) => ({ rootPath, added, removed });

  it('summarises files: singular, plural, folders named only when several', () => {
    assert.equal(changesSummary([file('/w/a', 3, 1)]), '1 file changed, +3 −1');
    assert.equal(changesSummary([file('/w/a', 3, 1), file('/w/a', 0, 2)]), '2 files changed, +3 −3');
    assert.equal(changesSummary([file('/w/a', 30, 10), file('/w/b', 10, 2), file('/w/a', 0, 0)]), '3 files changed in 2 folders, +40 −12');
    assert.equal(changesSummary([file('/w/a', 1, 0), file('/w/b', 0, 1)], 'pending'), '2 files in 2 folders, +1 −1');
    assert.equal(changesSummary([], 'pending'), '0 files, +0 −0');
  });

  it('numbers hunk lines on both sides from the header', () => {
    const rows = diffRows({ oldStart: 10, newStart: 12, lines: [' a', '-b', '-c', '+B', ' d', '+e', '\\ No newline at end of file'] });
    assert.deepEqual(rows, [
      { kind: 'context', oldLine: 10, newLine: 12, text: 'a' },
      { kind: 'removed', oldLine: 11, text: 'b' },
      { kind: 'removed', oldLine: 12, text: 'c' },
      { kind: 'added', newLine: 13, text: 'B' },
      { kind: 'context', oldLine: 13, newLine: 14, text: 'd' },
      { kind: 'added', newLine: 15, text: 'e' },
      { kind: 'note', text: '\\ No newline at end of file' },
    ]);
    assert.deepEqual(diffRows({ oldStart: 0, newStart: 1, lines: ['+x'] }), [{ kind: 'added', newLine: 1, text: 'x' }]);
  });

  it('renders whole hunks while the budget lasts, then part of one, then none', () => {
    const hunk = (n: number) => ({ lines: new Array<string>(n).fill(' x') });
    assert.deepEqual(linesWithin([hunk(3), hunk(4)], 10), { shown: [3, 4], hidden: 0 });
    assert.deepEqual(linesWithin([hunk(3), hunk(4), hunk(5)], 5), { shown: [3, 2, 0], hidden: 7 });
    assert.deepEqual(linesWithin([hunk(3)], Infinity), { shown: [3], hidden: 0 });
  });
});
