/** Where the extension writes what it observes. The VS Code layer backs this with a LogOutputChannel. */
export interface Logger {
  trace(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Discards everything (tests and benchmarks that do not look at logs). */
export const silentLogger: Logger = {
  trace: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * Text from an agent made safe for a log line: control characters (a NUL in a path, escape sequences,
 * carriage returns that would overwrite what the line shows) become `\u0000`-style escapes; line breaks and
 * tabs stay as they are.
 */
export function escapeControl(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
