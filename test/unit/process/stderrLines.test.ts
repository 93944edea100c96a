import * as assert from 'node:assert/strict';
import { MAX_LINE_CHARS, StderrLines } from '../../../src/process/stderrLines';

function split(chunks: readonly string[]): string[] {
  const lines: string[] = [];
  const reader = new StderrLines((line) => lines.push(line));
  for (const chunk of chunks) reader.push(chunk);
  reader.end();
  return lines;
}

describe('StderrLines (an agent’s stderr in lines, bounded)', () => {
  it('splits lines across and within chunks, drops CR before LF, and ends with a last unterminated line', () => {
    assert.deepEqual(split(['one\r\ntw', 'o\nthree', '\nfour']), ['one', 'two', 'three', 'four']);
    assert.deepEqual(split(['', '\n', '\n']), ['', '']);
  });

  it('keeps the start of a line longer than the cap and says how long it was, however it arrives', () => {
    const long = 'x'.repeat(MAX_LINE_CHARS + 10);
    for (const chunks of [
      [`${long}\nnext`],
      [long.slice(0, 5), long.slice(5), '\nnext'],
      [...long].reduce<string[]>((acc, c, i) => (i % 1000 === 0 ? [...acc, c] : [...acc.slice(0, -1), acc.at(-1)! + c]), []).concat('\nnext'),
    ]) {
      const [first, second] = split(chunks);
      assert.equal(first, `${'x'.repeat(MAX_LINE_CHARS)}… (${(MAX_LINE_CHARS + 10).toLocaleString('en')} characters in all)`);
      assert.equal(second, 'next');
    }
    assert.equal(split(['y'.repeat(MAX_LINE_CHARS)])[0], 'y'.repeat(MAX_LINE_CHARS), 'exactly at the cap: whole');
  });
});
