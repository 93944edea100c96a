/**
 * The one check every path of the review passes before any file system call: relative to its root,
 * `/`-separated, no `..`, `.` or empty segment, no absolute or drive form, no NUL or backslash. Checkpoint
 * stores and records read back from storage could hold anything; the review never lets such a path reach
 * {@link ReviewFs} (which checks the real path against the roots as well).
 */

/** Why `path` is not a safe relative path, in words; `undefined` when it is one. */
export function relativePathProblem(path: string): string | undefined {
  if (path === '') return 'The path is empty.';
  if (path.includes('\0')) return 'The path contains a NUL character.';
  if (path.includes('\\')) return `"${path}" contains a backslash.`;
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return `"${path}" is absolute, not relative to its folder.`;
  if (path.split('/').some((segment) => segment === '..' || segment === '.' || segment === '')) {
    return `"${path}" has a "..", "." or empty segment.`;
  }
  return undefined;
}

/** A path the review refuses to touch (see {@link relativePathProblem}). */
export class UnsafePathError extends Error {
  override name = 'UnsafePathError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** @throws UnsafePathError unless `path` is a safe relative path. */
export function assertRelativePath(path: string): void {
  const problem = relativePathProblem(path);
  if (problem !== undefined) throw new UnsafePathError(path, problem);
}
