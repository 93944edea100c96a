/**
 * What went wrong, as text: an `Error`'s message, or anything else thrown turned into a string. The one place
 * that turns a caught `unknown` into words for a log line or a message.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
