import * as assert from 'node:assert/strict';
import { acceptHunk, encodeText, fileHunks, hunksOf, noHunksReason, rejectHunk } from '../../../src/review/hunks';

/** Lines `l1`..`lN` joined with `eol`, with `eol` after the last one unless `noFinal`. */
function numbered(n: number, eol = '\n', noFinal = false): string[] {
  const lines = Array.from({ length: n }, (_, i) => `l${i + 1}`);
  return noFinal ? [lines.join(eol)] : [lines.join(eol) + eol];
}

/** A 30-line file and a version that changes lines 2, 15 and 28 (three hunks, far apart). */
function threeHunks(eol = '\n'): { base: string; current: string } {
  const base = numbered(30, eol)[0]!;
  const current = base.replace(`l2${eol}`, `two${eol}`).replace(`l15${eol}`, `fifteen${eol}extra${eol}`).replace(`l28${eol}`, '');
  return { base, current };
}

describe('hunks', () => {
  it('gives unified hunks with 3 lines of context, 1-based ranges', () => {
    const { base, current } = threeHunks();
    const hunks = hunksOf(base, current);
    assert.equal(hunks.length, 3);
    assert.deepEqual(hunks[0], { oldStart: 1, oldLines: 5, newStart: 1, newLines: 5, lines: [' l1', '-l2', '+two', ' l3', ' l4', ' l5'] });
    assert.deepEqual(hunks[1]!.lines, [' l12', ' l13', ' l14', '-l15', '+fifteen', '+extra', ' l16', ' l17', ' l18']);
    assert.deepEqual([hunks[1]!.oldStart, hunks[1]!.oldLines, hunks[1]!.newStart, hunks[1]!.newLines], [12, 7, 12, 8]);
    assert.deepEqual(hunks[2]!.lines, [' l25', ' l26', ' l27', '-l28', ' l29', ' l30']);
  });

  it('joins changes whose context overlaps into one hunk', () => {
    const base = numbered(12)[0]!;
    const current = base.replace('l3\n', 'x\n').replace('l9\n', 'y\n');
    assert.equal(hunksOf(base, current).length, 1);
    assert.equal(hunksOf(base, base.replace('l2\n', 'x\n').replace('l10\n', 'y\n')).length, 2);
  });

  it('accepts or rejects each hunk of a 3-hunk file independently', () => {
    const { base, current } = threeHunks();
    for (let i = 0; i < 3; i++) {
      const newBase = acceptHunk(base, current, i);
      const left = hunksOf(newBase, current);
      assert.equal(left.length, 2, `accepting hunk ${i} leaves two`);
      const newCurrent = rejectHunk(base, current, i);
      assert.equal(hunksOf(base, newCurrent).length, 2, `rejecting hunk ${i} leaves two`);
    }
    // All accepted one by one (indices shift down after each) → base = current.
    let b = base;
    b = acceptHunk(b, current, 1);
    assert.deepEqual(
      hunksOf(b, current).map((h) => h.lines.find((l) => l.startsWith('-'))),
      ['-l2', '-l28'],
      'the third hunk is now index 1',
    );
    b = acceptHunk(b, current, 1);
    b = acceptHunk(b, current, 0);
    assert.equal(b, current);
    // All rejected one by one from the end → current = base.
    let c = current;
    for (let i = 2; i >= 0; i--) c = rejectHunk(base, c, i);
    assert.equal(c, base);
    assert.throws(() => acceptHunk(base, current, 3), RangeError);
  });

  it('keeps CRLF line endings exactly', () => {
    const { base, current } = threeHunks('\r\n');
    const hunks = hunksOf(base, current);
    assert.equal(hunks.length, 3);
    assert.ok(
      hunks.every((h) => h.lines.every((l) => !l.includes('\r'))),
      'endings are not shown',
    );
    const rejected = rejectHunk(base, current, 1);
    assert.equal(rejected, current.replace('fifteen\r\nextra\r\n', 'l15\r\n'));
    const accepted = acceptHunk(base, current, 0);
    assert.equal(accepted, base.replace('l2\r\n', 'two\r\n'));
    assert.ok(!/[^\r]\n/.test(accepted) && !/[^\r]\n/.test(rejected));
  });

  it('keeps a missing newline at the end of the file, and mixed endings', () => {
    const base = 'a\r\nb\nc\r\nd\ne\nf\ng\nh\ni\nlast';
    const current = 'a\r\nB\nc\r\nd\ne\nf\ng\nh\ni\nLAST';
    assert.equal(hunksOf(base, current).length, 2);
    assert.equal(rejectHunk(base, current, 1), 'a\r\nB\nc\r\nd\ne\nf\ng\nh\ni\nlast');
    assert.equal(rejectHunk(base, current, 0), 'a\r\nb\nc\r\nd\ne\nf\ng\nh\ni\nLAST');
    assert.equal(acceptHunk(base, current, 1), 'a\r\nb\nc\r\nd\ne\nf\ng\nh\ni\nLAST');
    // Adding the final newline is a change of the last line.
    const withEol = hunksOf('x\ny', 'x\ny\n');
    assert.deepEqual(withEol[0]!.lines, [' x', '-y', '+y']);
    assert.equal(rejectHunk('x\ny', 'x\ny\n', 0), 'x\ny');
    assert.equal(acceptHunk('x\ny', 'x\ny\n', 0), 'x\ny\n');
  });

  it('handles a created and an emptied file', () => {
    assert.deepEqual(hunksOf('', 'a\nb\n'), [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ['+a', '+b'] }]);
    assert.deepEqual(hunksOf('a\n', ''), [{ oldStart: 1, oldLines: 1, newStart: 0, newLines: 0, lines: ['-a'] }]);
    assert.equal(rejectHunk('', 'a\nb\n', 0), '');
  });

  it('bounds the lines sent per hunk', () => {
    const current = Array.from({ length: 1000 }, (_, i) => `n${i}\n`).join('');
    const [hunk] = hunksOf('', current, { maxLinesPerHunk: 100 });
    assert.equal(hunk!.lines.length, 100);
    assert.equal(hunk!.omitted, 900);
    assert.equal(hunk!.newLines, 1000);
  });

  it('says why there are no hunks: symlink, binary, too large, too many lines, not UTF-8', () => {
    const text = (s: string) => ({ bytes: encodeText(s), mode: 'file' as const });
    assert.equal(noHunksReason(text('a\n'), text('b\n')), undefined);
    assert.match(noHunksReason({ bytes: encodeText('target'), mode: 'symlink' }, text('b'))!, /symbolic link/);
    assert.match(noHunksReason(undefined, { bytes: new Uint8Array([1, 0, 2]), mode: 'file' })!, /binary/);
    assert.match(noHunksReason(text('x'.repeat(1024 * 1024 + 1)), text(''))!, /1 MiB/);
    assert.match(noHunksReason(text('\n'.repeat(20_001)), undefined)!, /20,000 lines/);
    assert.match(noHunksReason({ bytes: new Uint8Array([0xc3, 0x28]), mode: 'file' }, undefined)!, /UTF-8/);
    const binary = fileHunks(undefined, { bytes: new Uint8Array([0, 1]), mode: 'file' });
    assert.equal(binary.binary, true);
    assert.equal(binary.hunks, undefined);
  });

  it('counts added and removed lines, and keeps a BOM', () => {
    const result = fileHunks({ bytes: encodeText('\uFEFFa\nb\n'), mode: 'file' }, { bytes: encodeText('\uFEFFa\nc\nd\n'), mode: 'file' });
    assert.equal(result.added, 2);
    assert.equal(result.removed, 1);
    assert.equal(rejectHunk('\uFEFFa\nb\n', '\uFEFFa\nc\n', 0), '\uFEFFa\nb\n');
  });
});
