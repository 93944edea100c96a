import * as assert from 'node:assert/strict';
import { parseEnvFile } from '../../../src/mcp/envFile';
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
      ['['.repeat(10_000), /nested too deeply/],
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

  it('keeps a "__proto__" key as a plain property', () => {
    const result = parseJsonc('{"__proto__": {"polluted": true}}');
    assert.ok(result.ok);
    const value = result.value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value), ['__proto__']);
    assert.equal((value as { polluted?: unknown }).polluted, undefined);
  });
});

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
      D: 'line\nbreak "q"',
      E: 'multi\nline',
      F: '',
    });
  });
});
