/**
 * Secrets out of text before it is kept, shown or logged: the one rule for what looks like an API key, a token,
 * a password or credentials in a URL (an agent's stderr, a start failure's details). Structured values whose
 * secrets are known by place (MCP server env and headers) are replaced where they are (acp/trace.ts,
 * mcp/mcpSelection.ts).
 */

const REDACTED = '[redacted]';

/** Secret-looking parts of a line, each replaced whole (order matters: specific shapes first). */
const SECRET_PATTERNS: readonly [RegExp, string | ((...groups: string[]) => string)][] = [
  // Bearer tokens and Basic credentials in headers.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, (_m, scheme) => `${scheme} ${REDACTED}`],
  // Well-known key shapes: Anthropic, OpenAI, GitHub, Google, Slack, AWS, JWTs.
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{16,}/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{16,}/g, REDACTED],
  [/\bAIza[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\bAKIA[A-Z0-9]{16}\b/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  // user:password@ in URLs.
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, (_m, scheme) => `${scheme}${REDACTED}@`],
  // NAME_KEY=value, "api_key": "value", token: value, password=value …
  [
    /\b([A-Za-z0-9_-]*(?:api[_-]?key|token|secret|password|passwd|auth[_-]?key|credential)s?)(["']?\s*[:=]\s*["']?)([^\s"',;]{4,})/gi,
    (_m, name, separator) => `${name}${separator}${REDACTED}`,
  ],
];

/** The line with anything that looks like a secret replaced by "[redacted]". */
export function redactSecrets(line: string): string {
  let text = line;
  for (const [pattern, replacement] of SECRET_PATTERNS) {
    text = typeof replacement === 'string' ? text.replace(pattern, replacement) : text.replace(pattern, replacement as (...groups: string[]) => string);
  }
  return text;
}
