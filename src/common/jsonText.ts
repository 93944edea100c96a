/**
 * A value (from an agent, usually) as JSON text, written the way `JSON.stringify(value, null, indent)` writes
 * it, but bounded: nesting deeper than `maxDepth` reads `{…}` / `[…]` (`JSON.stringify` overflows the stack on
 * input nested some thousands deep, and an agent may send one), and the text stops after `maxChars` with `…`.
 * The cost is linear in what is written.
 */
export interface JsonTextOptions {
  /** Spaces per level; 0 writes compact JSON. */
  readonly indent?: number;
  readonly maxChars: number;
  readonly maxDepth?: number;
}

export function jsonText(value: unknown, options: JsonTextOptions): string {
  const step = ' '.repeat(options.indent ?? 0);
  const maxDepth = options.maxDepth ?? 64;
  const parts: string[] = [];
  let length = 0;
  const push = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const write = (item: unknown, indent: string, depth: number): void => {
    if (item === null || typeof item !== 'object') {
      push(JSON.stringify(item) ?? 'null');
      return;
    }
    const array = Array.isArray(item);
    const [open, close] = array ? ['[', ']'] : ['{', '}'];
    const entries: Array<[string | undefined, unknown]> = array
      ? (item as unknown[]).map((element) => [undefined, element])
      : Object.entries(item as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== 'function');
    if (entries.length === 0) return push(`${open}${close}`);
    if (depth >= maxDepth) return push(`${open}…${close}`);
    const inner = step ? `${indent}${step}` : '';
    const newline = step ? '\n' : '';
    push(`${open}${newline}`);
    for (let index = 0; index < entries.length && length <= options.maxChars; index++) {
      const [key, element] = entries[index]!;
      push(key === undefined ? inner : `${inner}${JSON.stringify(key)}:${step ? ' ' : ''}`);
      write(element, inner, depth + 1);
      push(index < entries.length - 1 ? `,${newline}` : newline);
    }
    push(`${step ? indent : ''}${close}`);
  };
  write(value, '', 0);
  const text = parts.join('');
  return text.length > options.maxChars ? `${text.slice(0, options.maxChars)}…` : text;
}
