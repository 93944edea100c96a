/**
 * The last lines an agent wrote to stderr, kept to explain a failure: at most {@link TAIL_LINES} lines and
 * {@link TAIL_CHARS} characters, each line redacted first (what looks like an API key, a token, a password or
 * credentials in a URL is never kept, shown or logged: {@link redactSecrets}).
 */
import { redactSecrets } from '../common/redact';

/** Lines kept. */
export const TAIL_LINES = 20;
/** Characters kept across those lines. */
export const TAIL_CHARS = 4000;
/** The longest line kept (longer lines keep their start). */
const LINE_CHARS = 500;

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
