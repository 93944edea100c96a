/**
 * A session's roots: `[cwd, ...additionalDirectories]`, each an absolute path with a display name (as MCP
 * roots carry one). Validation follows the additional-directories RFD and lives only here:
 * absolute, non-empty, never `null`; exact duplicates removed keeping the first; no entry equal to `cwd`;
 * nested folders kept (they can matter to an agent's discovery order).
 */
import * as l10n from '@vscode/l10n';
import * as path from 'node:path';

export interface Root {
  /** Absolute path (a real path when it comes from the workspace). */
  readonly path: string;
  /** Shown to the user: the folder's name. */
  readonly name: string;
}

export interface RootSet {
  /** The primary folder: the base for relative paths. */
  readonly cwd: Root;
  /** The other roots, in workspace order. */
  readonly additionalDirectories: readonly Root[];
}

/** A root list that breaks the RFD's rules; `problems` says which entry and why. */
export class RootSetError extends Error {
  override readonly name = 'RootSetError';
  constructor(readonly problems: readonly string[]) {
    super(`Invalid roots: ${problems.join('; ')}`);
  }
}

export interface ValidatedRootPaths {
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  /** Entries left out on purpose, with why: exact duplicates, or equal to `cwd`. */
  readonly removed: ReadonlyArray<{ readonly path: string; readonly why: 'duplicate' | 'equals-cwd' }>;
}

/**
 * Validates root paths from anywhere (the workspace, an agent's `SessionInfo`, the local index): throws a
 * {@link RootSetError} naming each bad entry; removes exact duplicates and entries equal to `cwd`.
 */
export function validateRootPaths(cwd: unknown, additionalDirectories: unknown, isAbsolute: (p: string) => boolean = path.isAbsolute): ValidatedRootPaths {
  const problems: string[] = [];
  const checkEntry = (value: unknown, label: string): value is string => {
    if (value === null) problems.push(`${label} is null`);
    else if (typeof value !== 'string') problems.push(`${label} is not a string`);
    else if (value.length === 0) problems.push(`${label} is empty`);
    else if (value.includes('\0')) problems.push(`${label} contains a NUL character`);
    else if (!isAbsolute(value)) problems.push(`${label} "${value}" is not an absolute path`);
    else return true;
    return false;
  };
  const cwdOk = checkEntry(cwd, 'cwd');
  const entries: string[] = [];
  if (additionalDirectories !== undefined) {
    if (!Array.isArray(additionalDirectories)) problems.push('additionalDirectories is not a list');
    else additionalDirectories.forEach((entry: unknown, index) => checkEntry(entry, `additionalDirectories[${index}]`) && entries.push(entry));
  }
  if (problems.length > 0 || !cwdOk) throw new RootSetError(problems);
  const seen = new Set<string>([cwd as string]);
  const kept: string[] = [];
  const removed: Array<{ path: string; why: 'duplicate' | 'equals-cwd' }> = [];
  for (const entry of entries) {
    if (entry === cwd) removed.push({ path: entry, why: 'equals-cwd' });
    else if (seen.has(entry)) removed.push({ path: entry, why: 'duplicate' });
    else {
      seen.add(entry);
      kept.push(entry);
    }
  }
  return { cwd: cwd as string, additionalDirectories: kept, removed };
}

/** Builds a validated root set from named roots (see {@link validateRootPaths}). */
export function createRootSet(cwd: Root, additionalDirectories: readonly Root[] = [], isAbsolute?: (p: string) => boolean): RootSet {
  const valid = validateRootPaths(
    cwd.path,
    additionalDirectories.map((root) => root.path),
    isAbsolute,
  );
  const byPath = new Map<string, Root>();
  for (const root of additionalDirectories) if (!byPath.has(root.path)) byPath.set(root.path, root);
  return { cwd, additionalDirectories: valid.additionalDirectories.map((p) => byPath.get(p)!) };
}

/** A root set from paths alone, named after their last segment. */
export function rootSetFromPaths(cwd: string, additionalDirectories: readonly string[] = []): RootSet {
  return createRootSet(namedRoot(cwd), additionalDirectories.map(namedRoot));
}

export function namedRoot(rootPath: string): Root {
  return { path: rootPath, name: path.basename(rootPath) || rootPath };
}

/** The effective ordered list `[cwd, ...additionalDirectories]`. */
export function rootPaths(set: RootSet): string[] {
  return [set.cwd.path, ...set.additionalDirectories.map((root) => root.path)];
}

export function additionalPaths(set: RootSet): string[] {
  return set.additionalDirectories.map((root) => root.path);
}

/** Exact, ordered equality of two root lists (the RFD's root-set matching). */
export function sameRootPaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((entry, index) => entry === b[index]);
}

/** "app, lib and docs" (names), for messages. */
export function describeRoots(set: RootSet): string {
  return listInWords([set.cwd, ...set.additionalDirectories].map((root) => root.name));
}

export function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return l10n.t('{0} and {1}', items.slice(0, -1).join(', '), items[items.length - 1]!);
}
