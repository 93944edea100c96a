/**
 * Reads a `.env` file (the `envFile` of a VS Code MCP server): `NAME=value` lines, optionally prefixed
 * with `export`; `#` comments; values in single quotes (literal), double quotes (`\n`, `\t`, `\"`, `\\`
 * escapes, may span lines) or bare (trimmed, ` #` starts a comment). Lines that are none of these are
 * ignored, as dotenv does. Values are never part of any message.
 */

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/;

/** The variables of a `.env` text, in file order (a later line with the same name wins). */
export function parseEnvFile(text: string): Map<string, string> {
  const result = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const match = LINE.exec(lines[i]!);
    if (!match) continue;
    const name = match[1]!;
    let rest = match[2]!;
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      // A quoted value may continue over the following lines until its closing quote.
      let end = closingQuote(rest, quote);
      while (end < 0 && i + 1 < lines.length) {
        rest += `\n${lines[++i]!}`;
        end = closingQuote(rest, quote);
      }
      if (end < 0) continue; // never closed: ignored, like any unreadable line
      const inner = rest.slice(1, end);
      result.set(name, quote === '"' ? unescapeDouble(inner) : inner);
    } else {
      const comment = rest.search(/\s#/);
      result.set(name, (comment < 0 ? rest : rest.slice(0, comment)).trim());
    }
  }
  return result;
}

function closingQuote(text: string, quote: string): number {
  for (let i = 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === quote) return i;
  }
  return -1;
}

function unescapeDouble(text: string): string {
  return text.replace(/\\([nrt"\\])/g, (_match, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c as 'n' | 'r' | 't'] ?? c);
}
