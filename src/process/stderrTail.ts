/**
 * The last lines an agent wrote to stderr, kept to explain a failure: at most {@link TAIL_LINES} lines and
 * {@link TAIL_CHARS} characters, each line redacted first (what looks like an API key, a token, a password or
 * credentials in a URL is never kept, shown or logged).
 */

/** Lines kept. */
export const TAIL_LINES = 20;
/** Characters kept across those lines. */
export const TAIL_CHARS = 4000;
/** The longest line kept (longer lines keep their start). */
const LINE_CHARS = 500;

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

/** The bounded, redacted tail of one process's stderr. */
export class StderrTail {
  private readonly kept: string[] = [];
  private chars = 0;

  /** One line as {@link StderrLines} hands it over; blank lines are not kept. */
  push(line: string): void {
    if (line.trim() === '') return;
    const short = line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line;
    const redacted = redactSecrets(short);
    this.kept.push(redacted);
    this.chars += redacted.length;
    while (this.kept.length > TAIL_LINES || (this.chars > TAIL_CHARS && this.kept.length > 1)) {
      this.chars -= this.kept.shift()!.length;
    }
  }

  /** The lines kept, oldest first. */
  lines(): readonly string[] {
    return [...this.kept];
  }

  clear(): void {
    this.kept.length = 0;
    this.chars = 0;
  }
}
