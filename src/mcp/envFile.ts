/**
 * Reads a `.env` file (the `envFile` of a VS Code MCP server) with dotenv's `parse`, whose rules VS Code's
 * own reader (`src/vs/base/common/envfile.ts`, tested on dotenv's examples) follows: `NAME=value` or
 * `NAME: value` lines, optionally prefixed with `export`; `#` starts a comment outside quotes; values in
 * single quotes or backticks are literal, in double quotes `\n` and `\r` are expanded (nothing else);
 * bare values are trimmed; a byte order mark is skipped. Lines that are none of these are ignored. One
 * difference: a quoted value may span lines here, where VS Code reads one line at a time. dotenv never
 * throws, and values are never part of a message.
 */
import { parse } from 'dotenv';

/** The variables of a `.env` text (a later line with the same name wins). */
export function parseEnvFile(text: string): Map<string, string> {
  return new Map(Object.entries(parse(text)));
}
