/**
 * Reads JSONC (`.vscode/mcp.json`) with jsonc-parser, the scanner and parser VS Code itself uses: `//` and
 * `/* … *\/` comments and trailing commas are accepted as VS Code accepts them. On top of it this module
 * gives what a reader of a hand-edited, possibly hostile configuration file needs:
 *
 * - it never throws, and a text it cannot read gives one readable error with the line and column of the
 *   first problem (jsonc-parser recovers and reports many);
 * - the error never quotes the text itself (a configuration file may hold secrets);
 * - nesting is bounded: jsonc-parser recurses once per level, and about 10,000 `[` overflow its stack;
 * - a `"__proto__"` key stays an ordinary property, as with `JSON.parse` (jsonc-parser's own `parse`
 *   assigns it, which replaces the object's prototype);
 * - a leading byte order mark is skipped, as VS Code does when it reads a file.
 *
 * A key given twice keeps its last value, as with `JSON.parse` and VS Code's configuration reader.
 */
import * as l10n from '@vscode/l10n';
import { printParseErrorCode, visit } from 'jsonc-parser';

export type JsoncResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** Nesting deeper than this is refused (a configuration file never needs it; recursion stays bounded). */
const MAX_DEPTH = 256;

/** Thrown from the visitor to stop at the first problem. */
class JsoncError {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

type Container = { readonly kind: 'object'; readonly value: Record<string, unknown>; key: string } | { readonly kind: 'array'; readonly value: unknown[] };

/** What the parser looks for next, so that an error can say what was expected. */
type Expecting = 'value' | 'property' | 'colon' | 'next';

// Functions: t() runs after activate() set the bundle. Braces go in as arguments (t() reads them as placeholders).
const valueExpected = (): string => l10n.t('expected a value (an object, array, string, number, true, false or null)');
const endsInsideObject = (): string => l10n.t("the JSON ends inside an object (a '{0}' is missing)", '}');
const endsInsideList = (): string => l10n.t("the JSON ends inside a list (a '{0}' is missing)", ']');
const lineBreakInString = (): string => l10n.t('a string contains a line break or control character (write it as {0}, {1}, …)', '\\n', '\\t');

/** Parses JSONC text. An empty text (or one holding only comments) is an error, as in JSON. */
export function parseJsonc(text: string): JsoncResult {
  // A byte order mark becomes a space, so offsets (and so the line and column of an error) match the text.
  const source = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const open: Container[] = [];
  let root: unknown;
  let expecting: Expecting = 'value';

  const add = (value: unknown): void => {
    const parent = open.at(-1);
    if (parent === undefined) root = value;
    else if (parent.kind === 'array') parent.value.push(value);
    // defineProperty: a "__proto__" key stays an ordinary property, as with JSON.parse.
    else Object.defineProperty(parent.value, parent.key, { value, enumerable: true, writable: true, configurable: true });
    expecting = 'next';
  };
  const begin = (container: Container, offset: number): void => {
    if (open.length >= MAX_DEPTH) throw new JsoncError(offset, l10n.t('the JSON is nested too deeply'));
    add(container.value);
    open.push(container);
    expecting = container.kind === 'object' ? 'property' : 'value';
  };
  const end = (): void => {
    open.pop();
    expecting = 'next';
  };

  /** The error for jsonc-parser's code at `offset` (a token of `length` characters), worded for a person. */
  const describe = (name: ReturnType<typeof printParseErrorCode>, offset: number, length: number): JsoncError => {
    const fail = (reason: string, at = offset): JsoncError => new JsoncError(at, reason);
    const atEnd = offset >= source.length;
    const inside = open.at(-1)?.kind;
    switch (name) {
      case 'InvalidSymbol':
        if (source[offset] === "'")
          return fail(expecting === 'property' ? l10n.t('property names must use double quotes') : l10n.t('strings must use double quotes'));
        return fail(expected(expecting, inside));
      case 'ValueExpected':
      case 'PropertyNameExpected':
      case 'ColonExpected':
      case 'CommaExpected':
        if (atEnd)
          return fail(inside === 'object' ? endsInsideObject() : inside === 'array' ? endsInsideList() : l10n.t('the JSON ends where a value was expected'));
        return fail(expected(expecting, inside));
      case 'CloseBraceExpected':
        return fail(endsInsideObject());
      case 'CloseBracketExpected':
        return fail(endsInsideList());
      case 'EndOfFileExpected':
        return fail(expected('next', undefined));
      case 'UnexpectedEndOfComment':
        return fail(l10n.t('a /* comment is never closed'));
      case 'UnexpectedEndOfString':
        // The scanner also ends a string at a line break; then the string is cut there, not unclosed.
        return offset + length < source.length ? fail(lineBreakInString(), offset + length) : fail(l10n.t('a string is never closed'));
      case 'InvalidCharacter':
        return fail(lineBreakInString());
      case 'InvalidEscapeCharacter':
        return fail(l10n.t('a string contains an unknown escape ({0} must be written as {1})', '\\', '\\\\'));
      case 'InvalidUnicode':
        return fail(l10n.t('{0} must be followed by four hexadecimal digits', '\\u'));
      case 'InvalidNumberFormat':
      case 'UnexpectedEndOfNumber':
        return fail(l10n.t('a number is not written as JSON allows'));
      case 'InvalidCommentToken':
      case '<unknown ParseErrorCode>':
        return fail(l10n.t('the text is not valid JSON'));
    }
  };

  try {
    visit(
      source,
      {
        onObjectBegin: (offset) => begin({ kind: 'object', value: {}, key: '' }, offset),
        onArrayBegin: (offset) => begin({ kind: 'array', value: [] }, offset),
        onObjectEnd: end,
        onArrayEnd: end,
        onObjectProperty: (name) => {
          const parent = open.at(-1);
          if (parent?.kind === 'object') parent.key = name;
          expecting = 'colon';
        },
        onSeparator: (character) => {
          expecting = character === ':' || open.at(-1)?.kind === 'array' ? 'value' : 'property';
        },
        onLiteralValue: (value: unknown) => add(value),
        onError: (code, offset, length) => {
          throw describe(printParseErrorCode(code), offset, length);
        },
      },
      { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false },
    );
    return { ok: true, value: root };
  } catch (error) {
    if (error instanceof JsoncError) return { ok: false, error: `${lineAndColumn(source, error.offset)}: ${error.reason}` };
    return { ok: false, error: l10n.t('the text could not be read') };
  }
}

function expected(expecting: Expecting, inside: Container['kind'] | undefined): string {
  switch (expecting) {
    case 'value':
      return valueExpected();
    case 'property':
      return l10n.t("expected a property name in double quotes or '{0}'", '}');
    case 'colon':
      return l10n.t("expected ':' after a property name");
    case 'next':
      if (inside === 'object') return l10n.t("expected ',' or '{0}' after a property value", '}');
      if (inside === 'array') return l10n.t("expected ',' or ']' after a list item");
      return l10n.t('unexpected text after the end of the JSON value');
  }
}

/** 1-based line and column of `offset`; `\r\n`, `\r` and `\n` each end a line, as in VS Code. */
function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}
