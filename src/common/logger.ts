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
