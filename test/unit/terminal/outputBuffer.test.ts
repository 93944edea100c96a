import * as assert from 'node:assert/strict';
import { MAX_RETAINED_OUTPUT_BYTES, OutputBuffer, utf8Tail } from '../../../src/terminal/outputBuffer';

/** Independent oracle: the most code points from the end whose UTF-8 length stays within `limit`. */
function tailOracle(text: string, limit: number): string {
  const points = [...text];
  let bytes = 0;
  let i = points.length;
  while (i > 0 && bytes + Buffer.byteLength(points[i - 1]!, 'utf8') <= limit) bytes += Buffer.byteLength(points[--i]!, 'utf8');
  return points.slice(i).join('');
}

const bytesOf = (s: string): number => Buffer.byteLength(s, 'utf8');

describe('OutputBuffer', () => {
  it('keeps everything under the limit, untruncated', () => {
    const b = new OutputBuffer(100);
    b.append('hello ');
    b.append('wörld');
    assert.equal(b.text, 'hello wörld');
    assert.equal(b.byteLength, 12);
    assert.equal(b.truncated, false);
  });

  it('drops from the beginning, never inside a multi-byte character', () => {
    // a b 😀(4) c d é(2) 😀(4) = 14 bytes; the last 10 start inside the first 😀, so 8 bytes remain.
    const b = new OutputBuffer(10);
    b.append('ab😀cdé😀');
    assert.equal(b.text, 'cdé😀');
    assert.equal(b.byteLength, 8);
    assert.equal(b.truncated, true);

    const c = new OutputBuffer(4);
    c.append('abcé'); // é is bytes 3..4 of 5
    c.append('xyz');
    assert.equal(c.text, 'xyz');
    assert.equal(c.truncated, true);
  });

  it('cuts exactly at the limit when it falls on a boundary', () => {
    const b = new OutputBuffer(6);
    b.append('ééé');
    b.append('éé');
    assert.equal(b.text, 'ééé');
    assert.equal(b.byteLength, 6);
  });

  it('a single chunk over the limit replaces everything before it', () => {
    const b = new OutputBuffer(5);
    b.append('old');
    b.append('0123456789😀');
    assert.equal(b.text, '9😀');
    assert.equal(b.truncated, true);
  });

  it('limit 0 keeps nothing but remembers that output was dropped', () => {
    const b = new OutputBuffer(0);
    assert.equal(b.truncated, false);
    b.append('x');
    assert.equal(b.text, '');
    assert.equal(b.truncated, true);
  });

  it('matches the oracle on random multi-byte streams (1,000 runs)', () => {
    const alphabet = ['a', 'b', '\n', 'é', 'ß', '€', '中', '😀', '🇫🇷', 'z'];
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let run = 0; run < 1000; run++) {
      const limit = random(40);
      const b = new OutputBuffer(limit);
      let all = '';
      for (let chunks = random(12); chunks >= 0; chunks--) {
        let chunk = '';
        for (let k = random(15); k > 0; k--) chunk += alphabet[random(alphabet.length)];
        b.append(chunk);
        all += chunk;
        if (random(3) === 0) assert.equal(b.text, tailOracle(all, limit)); // reading in between changes nothing
      }
      const expected = tailOracle(all, limit);
      assert.equal(b.text, expected, `run ${run}`);
      assert.ok(b.byteLength <= limit && b.byteLength === bytesOf(expected));
      assert.equal(b.truncated, bytesOf(all) > limit, `run ${run}`);
      assert.ok(!/^[\udc00-\udfff]/.test(b.text), 'never starts with half a surrogate pair');
    }
  });

  it('stays bounded and fast over many chunks', () => {
    const b = new OutputBuffer(1000);
    for (let i = 0; i < 100_000; i++) b.append(`line ${i} é\n`);
    assert.ok(b.byteLength <= 1000);
    assert.ok(b.text.endsWith('line 99999 é\n'));
  });

  it('caps memory at 16 MiB by default', () => {
    assert.equal(MAX_RETAINED_OUTPUT_BYTES, 16 * 1024 * 1024);
  });

  it('utf8Tail returns the text itself when it fits', () => {
    assert.equal(utf8Tail('😀', 4), '😀');
    assert.equal(utf8Tail('😀', 3), '');
  });
});
