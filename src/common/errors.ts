/**
 * What went wrong, as text: an `Error`'s message, or anything else thrown turned into a string. The one place
 * that turns a caught `unknown` into words for a log line or a message.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The never-check that ends a switch over a closed union, after the case of every member (not a `default`:
 * the lint's switch-exhaustiveness-check says so): a member added later fails the type-check here, and a
 * value outside the type at run time throws instead of being skipped without a word.
 */
export function assertNever(value: never, what = 'value'): never {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  throw new Error(`Unexpected ${what}: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
}
