import * as assert from 'node:assert/strict';
import { parseEnvFile } from '../../../src/mcp/envFile';

describe('.env reader (envFile)', () => {
  it('reads names and values the way dotenv does', () => {
    const text = [
      '# comment',
      'export A=1',
      'B = spaced value   # trailing comment',
      "C='single # kept $x'",
      'D="line\\nbreak \\"q\\""',
      'E="multi',
      'line"',
      'not a variable line',
      'F=',
      'B=later wins',
    ].join('\r\n');
    assert.deepEqual(Object.fromEntries(parseEnvFile(text)), {
      A: '1',
      B: 'later wins',
      C: 'single # kept $x',
      // Only \n and \r are expanded in double quotes (dotenv, and VS Code's own reader): \" stays as written.
      D: 'line\nbreak \\"q\\"',
      E: 'multi\nline',
      F: '',
    });
  });

  it("follows VS Code's envFile rules where a hand-written reader is easy to get wrong", () => {
    const text = [
      '\uFEFFFIRST=1',
      'HASH=a#b',
      'TICKS=`literal \\n`',
      'COLON: value',
      'URL=http://host:8080/x',
      "SINGLE='no \\n here'",
      'TAB="a\\tb"',
      "OPEN='never closed",
      'AFTER=still read',
    ].join('\n');
    assert.deepEqual(Object.fromEntries(parseEnvFile(text)), {
      FIRST: '1',
      HASH: 'a',
      TICKS: 'literal \\n',
      COLON: 'value',
      URL: 'http://host:8080/x',
      SINGLE: 'no \\n here',
      TAB: 'a\\tb',
      OPEN: "'never closed",
      AFTER: 'still read',
    });
  });

  it('reads an empty text as no variables', () => {
    assert.equal(parseEnvFile('').size, 0);
    assert.equal(parseEnvFile('\n# only a comment\n').size, 0);
  });
});
