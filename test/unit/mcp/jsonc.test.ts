import * as assert from 'node:assert/strict';
import { parseJsonc } from '../../../src/mcp/jsonc';

describe('JSONC reader', () => {
  it('reads plain JSON exactly like JSON.parse', () => {
    const samples = ['{}', '[]', '0', '-1.5e+3', '"a\\u00e9\\n\\"b\\\\"', 'true', 'null', '{"a":[1,{"b":null}],"c":"d"}', ' \n\t{"x" : 1 } '];
    for (const text of samples) assert.deepEqual(parseJsonc(text), { ok: true, value: JSON.parse(text) as unknown }, text);
  });

  it('accepts line and block comments and trailing commas, but not inside strings', () => {
    const text = [
      '// leading comment',
      '{',
      '  /* block',
      '     comment */ "url": "https://example.com/a//b", // not a comment inside the string',
      '  "glob": "/* not a comment */",',
      '  "list": [1, 2, /* c */ 3,],',
      '  "quote": "say \\"// hi\\"",',
      '} // trailing',
    ].join('\n');
    const result = parseJsonc(text);
    assert.ok(result.ok, result.ok ? '' : result.error);
    assert.deepEqual(result.value, { url: 'https://example.com/a//b', glob: '/* not a comment */', list: [1, 2, 3], quote: 'say "// hi"' });
    assert.deepEqual(parseJsonc('{"a": 1, /* x */ }'), { ok: true, value: { a: 1 } });
    assert.deepEqual(parseJsonc('\uFEFF{"a": 1}'), { ok: true, value: { a: 1 } });
  });

  it('reports the line and column of an error without quoting the text', () => {
    const cases: Array<[string, RegExp]> = [
      ['{\n  "a": 1\n  "secret-token-value": 2\n}', /^line 3, column 3: expected ',' or '}' after a property value$/],
      ['{"a": }', /^line 1, column 7: expected a value/],
      ['{"a": 1', /a '}' is missing/],
      ['[1, 2', /a '\]' is missing/],
      ['{"a": "unterminated', /^line 1, column 7: a string is never closed$/],
      ['{"a": 1} /* open', /a \/\* comment is never closed/],
      ["{'a': 1}", /double quotes/],
      ['{"a": 1}}', /unexpected text after the end/],
      ['[1,,2]', /expected a value/],
      ['{,}', /expected a property name/],
      ['{"a": "x\ny"}', /line break or control character/],
      ['{"a": "\\q"}', /unknown escape/],
      ['{"a": 01}', /expected ',' or '}'/],
      ['', /the JSON ends where a value was expected/],
      ['\uFEFF', /the JSON ends where a value was expected/],
      ['/* only a comment */', /the JSON ends where a value was expected/],
      ['['.repeat(10_000), /nested too deeply/],
      // jsonc-parser alone recurses once per level and overflows the stack long before this.
      ['['.repeat(100_000), /^line 1, column 257: the JSON is nested too deeply$/],
      ['{"a":'.repeat(100_000), /nested too deeply/],
    ];
    for (const [text, pattern] of cases) {
      const result = parseJsonc(text);
      assert.equal(result.ok, false, text);
      if (!result.ok) {
        assert.match(result.error, pattern, text);
        assert.ok(!result.error.includes('secret-token-value'));
      }
    }
  });

  it('accepts nesting up to 256 levels', () => {
    const text = `${'['.repeat(256)}${']'.repeat(256)}`;
    assert.deepEqual(parseJsonc(text), { ok: true, value: JSON.parse(text) as unknown });
  });

  it('keeps the last value of a key given twice, in the first position, like JSON.parse', () => {
    const text = '{"a": 1, "b": 2, "a": 3}';
    const result = parseJsonc(text);
    assert.deepEqual(result, { ok: true, value: { a: 3, b: 2 } });
    assert.deepEqual(Object.keys((result as { value: object }).value), Object.keys(JSON.parse(text) as object));
  });

  it('never throws, and reads every text JSON.parse reads to the same value (random texts)', () => {
    const atoms = [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '"b\\n"',
      '"\\u00e9"',
      '"__proto__"',
      '1',
      '-2.5e3',
      '0',
      '01',
      '1.',
      'true',
      'tru',
      'null',
      ' ',
      '\n',
      '\r\n',
      '\t',
      '// c\n',
      '/* c */',
      '"x',
      '\\',
      "'",
    ];
    let seed = 1;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 16) % n;
    };
    let valid = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      for (let n = 1 + random(12); n > 0; n--) text += atoms[random(atoms.length)];
      const result = parseJsonc(text);
      if (!result.ok) assert.match(result.error, /^line \d+, column \d+: [a-z\\]/, text);
      let expected: unknown;
      try {
        expected = JSON.parse(text);
      } catch {
        continue;
      }
      valid++;
      assert.deepEqual(result, { ok: true, value: expected }, text);
    }
    assert.ok(valid > 500, `only ${valid} valid texts`);
  });

  it('keeps a "__proto__" key as a plain property', () => {
    const result = parseJsonc('{"__proto__": {"polluted": true}}');
    assert.ok(result.ok);
    const value = result.value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value), ['__proto__']);
    assert.equal((value as { polluted?: unknown }).polluted, undefined);
  });
});
