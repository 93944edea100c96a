/** A greeting for `name`, trimmed and capitalized. */
export function formatGreeting(name: string): string {
  const clean = name.trim();
  const display = clean.length === 0 ? 'World' : clean[0]!.toUpperCase() + clean.slice(1);
  return `Hello, ${display}!`;
}
