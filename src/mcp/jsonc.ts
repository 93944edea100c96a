/**
 * A small JSONC reader: JSON plus `//` and `/* … *\/` comments and trailing commas, as VS Code allows in
 * its own configuration files (`.vscode/mcp.json`). It never throws: a text it cannot read gives one
 * readable error with the line and column. The error never quotes the text itself (a configuration file
 * may hold secrets), unlike `JSON.parse`'s messages.
 */

export type JsoncResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** Nesting deeper than this is refused (a configuration file never needs it; recursion stays bounded). */
const MAX_DEPTH = 256;

class JsoncError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Parses JSONC text. An empty text (or one holding only comments) is an error, as in JSON. */
export function parseJsonc(text: string): JsoncResult {
  const parser = new Parser(text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text);
  try {
    parser.skipTrivia();
    const value = parser.value(0);
    parser.skipTrivia();
    if (!parser.atEnd()) parser.fail('unexpected text after the end of the JSON value');
    return { ok: true, value };
  } catch (error) {
    if (error instanceof JsoncError) return { ok: false, error: `${lineAndColumn(text, error.offset)}: ${error.reason}` };
    return { ok: false, error: 'the text could not be read' };
  }
}

function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

class Parser {
  private pos = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  fail(reason: string, offset = this.pos): never {
    throw new JsoncError(offset, reason);
  }

  /** Skips whitespace and comments. */
  skipTrivia(): void {
    const { text } = this;
    while (this.pos < text.length) {
      const c = text[this.pos]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
        this.pos++;
      } else if (c === '/' && text[this.pos + 1] === '/') {
        const end = text.indexOf('\n', this.pos);
        this.pos = end < 0 ? text.length : end;
      } else if (c === '/' && text[this.pos + 1] === '*') {
        const end = text.indexOf('*/', this.pos + 2);
        if (end < 0) this.fail('a /* comment is never closed');
        this.pos = end + 2;
      } else {
        return;
      }
    }
  }

  value(depth: number): unknown {
    if (this.atEnd()) this.fail('the JSON ends where a value was expected');
    const c = this.text[this.pos]!;
    if (c === '{') return this.object(depth + 1);
    if (c === '[') return this.array(depth + 1);
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail(c === "'" ? 'strings must use double quotes' : 'expected a value (an object, array, string, number, true, false or null)');
  }

  private object(depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) this.fail('the JSON is nested too deeply');
    const result: Record<string, unknown> = {};
    this.pos++; // {
    this.skipTrivia();
    while (this.text[this.pos] !== '}') {
      if (this.atEnd()) this.fail("the JSON ends inside an object (a '}' is missing)");
      if (this.text[this.pos] !== '"') this.fail(this.text[this.pos] === "'" ? 'property names must use double quotes' : "expected a property name in double quotes or '}'");
      const key = this.string();
      this.skipTrivia();
      if (this.text[this.pos] !== ':') this.fail("expected ':' after a property name");
      this.pos++;
      this.skipTrivia();
      const value = this.value(depth);
      // defineProperty: a "__proto__" key stays an ordinary property, as with JSON.parse.
      Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      this.skipTrivia();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.skipTrivia();
      } else if (this.text[this.pos] !== '}') {
        this.fail(this.atEnd() ? "the JSON ends inside an object (a '}' is missing)" : "expected ',' or '}' after a property value");
      }
    }
    this.pos++; // }
    return result;
  }

  private array(depth: number): unknown[] {
    if (depth > MAX_DEPTH) this.fail('the JSON is nested too deeply');
    const result: unknown[] = [];
    this.pos++; // [
    this.skipTrivia();
    while (this.text[this.pos] !== ']') {
      if (this.atEnd()) this.fail("the JSON ends inside a list (a ']' is missing)");
      result.push(this.value(depth));
      this.skipTrivia();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.skipTrivia();
      } else if (this.text[this.pos] !== ']') {
        this.fail(this.atEnd() ? "the JSON ends inside a list (a ']' is missing)" : "expected ',' or ']' after a list item");
      }
    }
    this.pos++; // ]
    return result;
  }

  private string(): string {
    const start = this.pos;
    this.pos++; // opening quote
    let result = '';
    let chunkStart = this.pos;
    const { text } = this;
    for (;;) {
      if (this.pos >= text.length) this.fail('a string is never closed', start);
      const code = text.charCodeAt(this.pos);
      if (code === 0x22 /* " */) {
        result += text.slice(chunkStart, this.pos);
        this.pos++;
        return result;
      }
      if (code < 0x20) this.fail('a string contains a line break or control character (write it as \\n, \\t, …)');
      if (code === 0x5c /* \ */) {
        result += text.slice(chunkStart, this.pos);
        const escape = text[this.pos + 1];
        if (escape === 'u') {
          const hex = text.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('\\u must be followed by four hexadecimal digits');
          result += String.fromCharCode(parseInt(hex, 16));
          this.pos += 6;
        } else if (escape !== undefined && escape in ESCAPES) {
          result += ESCAPES[escape];
          this.pos += 2;
        } else {
          this.fail('a string contains an unknown escape (\\ must be written as \\\\)');
        }
        chunkStart = this.pos;
        continue;
      }
      this.pos++;
    }
  }

  private number(): number {
    const match = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (!match) this.fail('a number is not written as JSON allows');
    this.pos += match[0].length;
    return Number(match[0]);
  }
}
