/**
 * An agent's stderr, split into lines in linear time with bounded memory, whatever it writes: a line longer
 * than {@link MAX_LINE_CHARS} keeps its start and says how long it was. (Joining every chunk to the unfinished
 * line and splitting again cost quadratic time: a 60 MB line took over a minute of the extension host.)
 */

/** The longest part of one stderr line kept (in the log, in exit reasons). */
export const MAX_LINE_CHARS = 4096;

export class StderrLines {
  private partial = '';
  /** Characters of the current line beyond what is kept. */
  private dropped = 0;

  constructor(private readonly onLine: (line: string) => void) {}

  /** Decoded text as it arrives (a stream with `setEncoding('utf8')` never splits a character). */
  push(text: string): void {
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      const end = newline === -1 ? text.length : newline;
      this.keep(text, start, end);
      if (newline === -1) return;
      this.emit();
      start = newline + 1;
    }
  }

  /** The stream ended: the last line, if it had no newline. */
  end(): void {
    if (this.partial !== '' || this.dropped > 0) this.emit();
  }

  private keep(text: string, start: number, end: number): void {
    const room = Math.max(0, MAX_LINE_CHARS - this.partial.length);
    const taken = Math.min(room, end - start);
    if (taken > 0) this.partial += text.slice(start, start + taken);
    this.dropped += end - start - taken;
  }

  private emit(): void {
    let line = this.partial.endsWith('\r') && this.dropped === 0 ? this.partial.slice(0, -1) : this.partial;
    if (this.dropped > 0) line = `${line}… (${(this.partial.length + this.dropped).toLocaleString('en')} characters in all)`;
    this.partial = '';
    this.dropped = 0;
    this.onLine(line);
  }
}
