/**
 * RootGuard: decides whether a path an agent asks the client to touch (`fs/read_text_file`,
 * `fs/write_text_file`, a terminal `cwd`) lies inside one of a session's roots.
 *
 * The decision is made on the path as the operating system would resolve it, never on a lexical
 * normalisation of the agent's string: `/root/link/../x` is `<target of link>/../x` to the kernel, not
 * `/root/x`. The longest prefix of the original string that exists is resolved with the C library's
 * `realpath` (`fs.realpath.native`, which follows symlinks, junctions and `..` physically), and the
 * non-existent rest is appended segment by segment; a dangling symlink met on the way is followed
 * through its target. Anything this cannot settle — a loop, a permission error, `..` after a missing
 * directory, a path longer than the OS accepts — is refused ("fail closed", as the additionalDirectories
 * RFD requires of clients that enforce roots).
 *
 * Callers must do their I/O on the decision's `realPath`, never on the agent's string.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { errorMessage } from '../common/errors';

/**
 * Why a path was refused.
 *
 * - `not-a-string`, `empty`, `nul-byte`, `not-absolute`: the path is malformed.
 * - `unsupported-form`: a Windows form the guard does not reason about (`\\?\…`, `\\.\…`, alternate data
 *   streams, reserved device names, names the Win32 layer would silently rewrite).
 * - `too-long`: longer than the OS accepts (whole path or one component), before or after resolution.
 * - `dotdot-after-missing`: `..` follows a directory that does not exist, so where it leads is undecidable.
 * - `symlink-loop`: symbolic links that never end (`ELOOP`, or more than 40 links followed).
 * - `not-a-directory`: a component used as a directory is a file (`ENOTDIR`).
 * - `unresolvable`: any other error while resolving (permission denied, I/O error…).
 * - `outside-roots`: the real path lies outside every root of the session.
 */
export type GuardRefusal =
  | 'not-a-string'
  | 'empty'
  | 'nul-byte'
  | 'not-absolute'
  | 'unsupported-form'
  | 'too-long'
  | 'dotdot-after-missing'
  | 'symlink-loop'
  | 'not-a-directory'
  | 'unresolvable'
  | 'outside-roots';

/** The outcome of {@link RootGuard.check}. */
export type GuardDecision =
  | {
      readonly allowed: true;
      /** Where the path really is (symlinks resolved). Do all I/O on this, never on the agent's string. */
      readonly realPath: string;
      /** The (most specific) root containing `realPath`. */
      readonly root: string;
      /** Whether `realPath` existed when it was resolved. */
      readonly exists: boolean;
    }
  | {
      readonly allowed: false;
      readonly reason: GuardRefusal;
      /** Says in words which path was refused and why, naming the session's folders where useful. */
      readonly message: string;
    };

/** Options of {@link RootGuard}. */
export interface RootGuardOptions {
  /**
   * Whose containment comparison rule to apply: case-insensitive (ASCII letters only) for `win32`,
   * case-sensitive otherwise. Defaults to `process.platform`. Path syntax and resolution always follow
   * the platform the extension host really runs on.
   */
  readonly platform?: NodeJS.Platform;
}

/** A root given to {@link RootGuard} that is not an absolute path (a programming error: validate roots first). */
export class InvalidRootError extends Error {
  override name = 'InvalidRootError';
  constructor(
    readonly root: unknown,
    message: string,
  ) {
    super(message);
  }
}

/** A well-formed root that grants nothing because it does not resolve to an existing folder. */
export interface UnavailableRoot {
  /** The root as given. */
  readonly root: string;
  /** Why, in words. */
  readonly reason: string;
}

/** Most symbolic links followed for one path (Linux's MAXSYMLINKS). */
const MAX_SYMLINK_HOPS = 40;
/** Fresh starts allowed when the file system changed in the middle of a resolution. */
const MAX_RETRIES = 3;
const IS_WINDOWS = process.platform === 'win32';
/** Longest path (bytes, without the terminating NUL; UTF-16 units on Windows) the OS accepts. */
const PATH_MAX = IS_WINDOWS ? 32_767 : process.platform === 'darwin' ? 1023 : 4095;
/** Longest single component (bytes; UTF-16 units on Windows). */
const NAME_MAX = 255;
const SEPARATORS = IS_WINDOWS ? /[\\/]/ : /\//;

const realpathNative = promisify(fs.realpath.native);

/** Guards file access of one session against its roots. Immutable; cheap to share. */
export class RootGuard {
  /** The roots that grant access: real paths, in the order given, exact duplicates removed. */
  readonly roots: readonly string[];
  /**
   * Roots that could not be resolved to an existing folder when the guard was built (deleted, a loop, not
   * a folder…). They grant nothing, even if the folder appears later (fail closed): build a new guard.
   */
  readonly unavailable: readonly UnavailableRoot[];
  private readonly caseInsensitive: boolean;
  /** Roots folded for comparison, each ending with a separator. */
  private readonly rootPrefixes: readonly string[];

  /**
   * @param roots absolute paths of existing directories. Real paths (`fs.realpathSync.native`) are kept
   *   as given; others are resolved here. Those that cannot be resolved to a folder are listed in
   *   {@link unavailable} and grant nothing.
   * @throws InvalidRootError when a root is not a string or not an absolute path.
   */
  constructor(roots: readonly string[], options: RootGuardOptions = {}) {
    this.caseInsensitive = (options.platform ?? process.platform) === 'win32';
    const real: string[] = [];
    const unavailable: UnavailableRoot[] = [];
    for (const root of roots as readonly unknown[]) {
      const resolved = resolveRoot(root);
      if (typeof resolved !== 'string') unavailable.push(resolved);
      else if (!real.includes(resolved)) real.push(resolved);
    }
    this.roots = Object.freeze(real);
    this.unavailable = Object.freeze(unavailable);
    this.rootPrefixes = Object.freeze(real.map((r) => this.fold(withTrailingSeparator(r))));
  }

  /**
   * Decides whether `candidate` (an absolute path from an agent) lies inside the roots, resolving it as
   * the OS would. Never throws.
   */
  async check(candidate: unknown): Promise<GuardDecision> {
    try {
      return await this.decide(candidate);
    } catch (error) {
      // Defensive: any unexpected failure refuses.
      return refuse('unresolvable', `${quotePath(candidate)} could not be checked: ${errorText(error)}`);
    }
  }

  /** Whether an already real path equals or lies under one of the roots; returns that root (the most specific). */
  containing(realPath: string): string | undefined {
    const folded = this.fold(realPath);
    const foldedWithSep = this.fold(withTrailingSeparator(realPath));
    let best: string | undefined;
    this.rootPrefixes.forEach((prefix, i) => {
      if (foldedWithSep === prefix || folded.startsWith(prefix)) {
        const root = this.roots[i]!;
        if (best === undefined || root.length > best.length) best = root;
      }
    });
    return best;
  }

  private async decide(candidate: unknown): Promise<GuardDecision> {
    const syntax = syntaxProblem(candidate);
    if (syntax) return syntax;
    const p = candidate as string;

    const resolved = await resolvePhysically(p);
    if ('reason' in resolved) return refuse(resolved.reason, resolved.message);
    if (pathLength(resolved.realPath) > PATH_MAX) {
      return refuse('too-long', l10n.t('{0} resolves to a path longer than this system allows', quotePath(p)));
    }
    const root = this.containing(resolved.realPath);
    if (root === undefined) {
      const lexical = path.resolve(p);
      const outside = this.outsideInWords(quotePath(p));
      const via = resolved.viaSymlink || lexical !== resolved.realPath;
      return refuse('outside-roots', via ? l10n.t('{0}: it resolves to {1}', outside, resolved.realPath) : outside);
    }
    return { allowed: true, realPath: resolved.realPath, root, exists: resolved.exists };
  }

  /** "<path> is outside this session's folders (…)": a clause the callers put in their sentences. */
  private outsideInWords(shown: string): string {
    const roots = this.roots.join(', ');
    if (this.unavailable.length === 0) {
      if (this.roots.length === 0) return l10n.t('{0} is outside this session’s folders (the session has none)', shown);
      return this.roots.length === 1
        ? l10n.t('{0} is outside this session’s folder ({1})', shown, roots)
        : l10n.t('{0} is outside this session’s folders ({1})', shown, roots);
    }
    const missing = this.unavailable.map((u) => u.root).join(', ');
    if (this.roots.length === 0) return l10n.t('{0} is outside this session’s folders (the session has none; not available: {1})', shown, missing);
    return this.roots.length === 1
      ? l10n.t('{0} is outside this session’s folder ({1}; not available: {2})', shown, roots, missing)
      : l10n.t('{0} is outside this session’s folders ({1}; not available: {2})', shown, roots, missing);
  }

  private fold(s: string): string {
    return this.caseInsensitive ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
  }
}

// ---------------------------------------------------------------------------------------------------
// Resolution

type Resolution =
  | { readonly realPath: string; readonly exists: boolean; readonly viaSymlink: boolean }
  /** `message`: a whole sentence naming the path as the agent gave it. */
  | { readonly reason: GuardRefusal; readonly message: string };

/**
 * Resolves an absolute path as the OS would: `realpath(3)` on the longest existing prefix, dangling
 * symlinks followed through their targets, missing segments appended (`.` and empty segments dropped,
 * `..` refused).
 */
async function resolvePhysically(original: string): Promise<Resolution> {
  const shown = quotePath(original);
  let current = original;
  let viaSymlink = false;
  let hops = 0;
  for (let retries = 0; retries <= MAX_RETRIES;) {
    try {
      return { realPath: await realpathNative(current), exists: true, viaSymlink };
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') return fromErrno(error, current, original);
    }

    // Something is missing: find the longest prefix (at separator boundaries) that resolves.
    const { top, segments } = splitPath(current);
    let base: string | undefined;
    let k = segments.length - 1;
    for (; k >= 0; k--) {
      if (k > 0 && (segments[k - 1] === '' || segments[k - 1] === '.')) continue; // same directory as a shorter prefix
      try {
        base = await realpathNative(top + segments.slice(0, k).join(path.sep));
        break;
      } catch (error) {
        if (codeOf(error) !== 'ENOENT') return fromErrno(error, current, original);
      }
    }
    if (base === undefined) return { reason: 'unresolvable', message: l10n.t('{0} could not be resolved: not even its top folder exists', shown) };

    const rest = segments.slice(k);
    while (rest.length > 0 && (rest[0] === '' || rest[0] === '.')) rest.shift();
    const first = rest[0];
    if (first === undefined || first === '..') {
      retries++; // changed under our feet: resolve again
      continue;
    }
    const next = joinReal(base, first);
    let stats: fs.Stats;
    try {
      stats = await fs.promises.lstat(next);
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') return fromErrno(error, next, original);
      return appendMissing(base, rest, viaSymlink, shown);
    }
    if (!stats.isSymbolicLink()) {
      retries++; // created meanwhile: resolve again
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS)
      return { reason: 'symlink-loop', message: l10n.t('{0} leads through more than {1} symbolic links (a loop?)', shown, MAX_SYMLINK_HOPS) };

    // A dangling symlink (or one whose target's path is partly missing): continue at its target.
    let target: string;
    try {
      target = await fs.promises.readlink(next);
    } catch (error) {
      return fromErrno(error, next, original);
    }
    if (target === '' || target.includes('\0')) return { reason: 'unresolvable', message: l10n.t('{0} leads through a broken link ({1})', shown, next) };
    viaSymlink = true;
    if (IS_WINDOWS) {
      target = target.replace(/^[\\/]{2}\?[\\/](?=[A-Za-z]:[\\/])/, ''); // \\?\C:\… → C:\…
      if (path.isAbsolute(target) && !/^([A-Za-z]:|[\\/]{2}[^\\/?.])/.test(target)) {
        return { reason: 'unresolvable', message: l10n.t('{0} leads through a link with a target this client does not follow ({1})', shown, target) };
      }
    }
    const targetPath = path.isAbsolute(target) ? target : joinReal(base, target);
    const remaining = rest.slice(1);
    current = remaining.length === 0 ? targetPath : `${targetPath}${path.sep}${remaining.join(path.sep)}`;
    if (pathLength(current) > PATH_MAX) return { reason: 'too-long', message: l10n.t('{0} resolves to a path longer than this system allows', shown) };
  }
  return { reason: 'unresolvable', message: l10n.t('{0} could not be resolved: its folders kept changing while it was being resolved', shown) };
}

/** `base` (real, existing) + missing segments: `.` and empty ones dropped, `..` refused. */
function appendMissing(base: string, rest: readonly string[], viaSymlink: boolean, shown: string): Resolution {
  const names: string[] = [];
  for (const segment of rest) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      return {
        reason: 'dotdot-after-missing',
        message: l10n.t('{0} uses ".." after a folder that does not exist ({1})', shown, joinReal(base, names.join(path.sep))),
      };
    }
    if (pathLength(segment) > NAME_MAX) return { reason: 'too-long', message: l10n.t('{0} has a name longer than this system allows', shown) };
    if (IS_WINDOWS && windowsNameProblem(segment))
      return { reason: 'unsupported-form', message: l10n.t('{0} has a name Windows would rewrite ({1})', shown, segment) };
    names.push(segment);
  }
  return { realPath: names.length === 0 ? base : joinReal(base, names.join(path.sep)), exists: false, viaSymlink };
}

function fromErrno(error: unknown, at: string, original: string): Resolution {
  const code = codeOf(error);
  const shown = quotePath(original);
  // Where it failed, when that is not the path itself: each message whole, with and without it.
  const here = at === original;
  switch (code) {
    case 'ELOOP':
      return {
        reason: 'symlink-loop',
        message: here ? l10n.t('{0} leads through a loop of symbolic links', shown) : l10n.t('{0} leads through a loop of symbolic links (at {1})', shown, at),
      };
    case 'ENOTDIR':
      return {
        reason: 'not-a-directory',
        message: here ? l10n.t('{0} uses a file as a folder', shown) : l10n.t('{0} uses a file as a folder (at {1})', shown, at),
      };
    case 'ENAMETOOLONG':
      return { reason: 'too-long', message: l10n.t('{0} is longer than this system allows', shown) };
    case 'EACCES':
    case 'EPERM':
      return {
        reason: 'unresolvable',
        message: here
          ? l10n.t('{0} could not be resolved: permission denied', shown)
          : l10n.t('{0} could not be resolved: permission denied (at {1})', shown, at),
      };
    case undefined:
    default:
      return {
        reason: 'unresolvable',
        message: here
          ? l10n.t('{0} could not be resolved: {1}', shown, errorText(error))
          : l10n.t('{0} could not be resolved: {1} (at {2})', shown, errorText(error), at),
      };
  }
}

/** Splits an absolute path into its root part (`/`, `C:\`, `\\server\share\`) and the segments after it. */
function splitPath(p: string): { top: string; segments: string[] } {
  const top = path.parse(p).root;
  const restText = p.slice(top.length);
  return { top: top.endsWith(path.sep) || top === '' ? top : top + path.sep, segments: restText === '' ? [] : restText.split(SEPARATORS) };
}

/** Concatenates without lexical normalisation (`..` in `tail` must stay for the OS to resolve). */
function joinReal(base: string, tail: string): string {
  return base.endsWith(path.sep) || /[\\/]$/.test(base) ? base + tail : base + path.sep + tail;
}

function withTrailingSeparator(p: string): string {
  return p.endsWith(path.sep) ? p : p + path.sep;
}

// ---------------------------------------------------------------------------------------------------
// Syntax

function syntaxProblem(candidate: unknown): GuardDecision | undefined {
  if (typeof candidate !== 'string') return refuse('not-a-string', `A path must be a string, not ${candidate === null ? 'null' : typeof candidate}`);
  if (candidate === '') return refuse('empty', 'The path is empty');
  if (candidate.includes('\0')) return refuse('nul-byte', `${quotePath(candidate)} contains a NUL character`);
  if (IS_WINDOWS) {
    if (/^[\\/]{2}[?.][\\/]/.test(candidate))
      return refuse('unsupported-form', `${quotePath(candidate)} uses a Windows device or verbatim path (\\\\?\\ or \\\\.\\), which is not supported`);
    if (!/^[A-Za-z]:[\\/]/.test(candidate) && !/^[\\/]{2}[^\\/]+[\\/][^\\/]+/.test(candidate)) {
      return refuse('not-absolute', `${quotePath(candidate)} is not an absolute path (it needs a drive letter or a \\\\server\\share)`);
    }
  } else if (!path.isAbsolute(candidate)) {
    return refuse('not-absolute', `${quotePath(candidate)} is not an absolute path`);
  }
  if (pathLength(candidate) > PATH_MAX) return refuse('too-long', `${quotePath(candidate)} is longer than this system allows (${PATH_MAX})`);
  const segments = splitPath(candidate).segments;
  if (segments.some((s) => pathLength(s) > NAME_MAX))
    return refuse('too-long', `${quotePath(candidate)} has a name longer than this system allows (${NAME_MAX})`);
  if (IS_WINDOWS) {
    if (candidate.indexOf(':', 2) !== -1) return refuse('unsupported-form', `${quotePath(candidate)} names an alternate data stream (":" after the drive)`);
    const odd = segments.find((s) => s !== '.' && s !== '..' && windowsNameProblem(s));
    if (odd !== undefined) return refuse('unsupported-form', `${quotePath(candidate)} has a name Windows would rewrite or treat as a device (${odd})`);
  }
  return undefined;
}

/** Names the Win32 layer rewrites (trailing dots or spaces), reserves (CON, NUL, COM1…) or forbids. */
function windowsNameProblem(name: string): boolean {
  if (name === '' || name === '.' || name === '..') return false;
  return /[. ]$/.test(name) || /[<>"|?*\u0000-\u001f]/.test(name) || /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i.test(name);
}

/** Length as the OS counts it: UTF-8 bytes on POSIX, UTF-16 code units on Windows. */
function pathLength(p: string): number {
  return IS_WINDOWS ? p.length : Buffer.byteLength(p, 'utf8');
}

function refuse(reason: GuardRefusal, message: string): GuardDecision {
  return { allowed: false, reason, message };
}

function resolveRoot(root: unknown): string | UnavailableRoot {
  if (typeof root !== 'string' || root === '' || root.includes('\0') || !path.isAbsolute(root)) {
    throw new InvalidRootError(root, l10n.t('A session folder must be an absolute path, got {0}', typeof root === 'string' ? quotePath(root) : typeof root));
  }
  let real: string;
  try {
    real = fs.realpathSync.native(root);
    if (!fs.statSync(real).isDirectory()) return { root, reason: `${quotePath(root)} is not a folder` };
  } catch (error) {
    return { root, reason: l10n.t('{0} cannot be resolved: {1}', quotePath(root), errorText(error)) };
  }
  return real;
}

/** The path in quotes, control characters escaped and very long paths shortened, for messages. */
export function quotePath(p: unknown): string {
  if (typeof p !== 'string') return String(p);
  const escaped = p.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped.length > 300 ? `${escaped.slice(0, 150)}…${escaped.slice(-100)}` : escaped}"`;
}

/** The `code` of a Node.js system error (`ENOENT`, …). */
export function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function errorText(error: unknown): string {
  const code = codeOf(error);
  const message = errorMessage(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}
