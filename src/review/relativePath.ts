/**
 * The one check every path of the review passes before any file system call: relative to its root,
 * `/`-separated, no `..`, `.` or empty segment, no absolute or drive form, no NUL or backslash. Checkpoint
 * stores and records read back from storage could hold anything; the review never lets such a path reach
 * {@link ReviewFs} (which checks the real path against the roots as well).
 */

/** Why `path` is not a safe relative path, in words; `undefined` when it is one. */
import * as l10n from '@vscode/l10n';
export function relativePathProblem(path: string): string | undefined {
  if (path === '') return l10n.t('The path is empty.');
  if (path.includes('\0')) return l10n.t('The path contains a NUL character.');
  if (path.includes('\\')) return l10n.t('"{0}" contains a backslash.', path);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return l10n.t('"{0}" is absolute, not relative to its folder.', path);
  if (path.split('/').some((segment) => segment === '..' || segment === '.' || segment === '')) {
    return l10n.t('"{0}" has a "..", "." or empty segment.', path);
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
