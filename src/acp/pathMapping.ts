/**
 * Path mapping for agents whose files are not the client's (a remote agent in a container, a sandbox, another
 * machine): per agent, each shared workspace folder has the path the agent sees, like a debugger's
 * `localRoot`/`remoteRoot`. Everything above the transport works in local paths; {@link PathMapper} translates
 * at the edge (see pathMappingTransport.ts).
 *
 * Rules:
 * - Remote paths are POSIX (`/workspace/app`). A Windows remote is out of scope: its paths are refused as not
 *   absolute.
 * - Local paths follow the local platform: on win32 drive letters (`C:\`) and UNC shares, backslashes or slashes,
 *   and names compared case-insensitively (as NTFS and VS Code's `extUri` on Windows do).
 * - Both sides are normalised lexically (`.`, `..`, repeated separators, a trailing separator) BEFORE matching:
 *   `/workspace/app/../secret` is not under `/workspace/app`.
 * - Matching is on whole segments and the longest root wins: `/w/app2` is not under `/w/app`; with `/w` and
 *   `/w/app` both mapped, `/w/app/x` goes through `/w/app`.
 * - A path with a NUL byte, a relative path or a path outside every root maps to `undefined`: not shared.
 */
import * as l10n from '@vscode/l10n';
import * as path from 'node:path';

/** One shared folder: the client's path and the path the agent sees for it. */
export interface PathMapping {
  readonly local: string;
  readonly remote: string;
}

/** The local side's path rules. */
export type LocalPlatform = 'posix' | 'win32';

export interface PathMapperOptions {
  /** Default: this machine's (`process.platform === 'win32'` → `win32`). */
  readonly localPlatform?: LocalPlatform;
}

/** Translates paths and `file:` URIs between the client's side and one agent's side. */
export interface PathMapper {
  /** The mappings, normalised, longest local first. */
  readonly mappings: readonly PathMapping[];
  /** The agent's roots (normalised remote paths), for messages that say what is shared. */
  readonly remoteRoots: readonly string[];
  /** The agent's path for a local path; `undefined` when it is not inside a mapped folder (or not a valid path). */
  toRemote(local: string): string | undefined;
  /** The local path for an agent's path; `undefined` when it is not inside a mapped root (or not a valid path). */
  toLocal(remote: string): string | undefined;
  /**
   * The agent's `file:` URI for a local one (query and fragment kept, e.g. `#L10`). A URI of another scheme is
   * returned unchanged: it names nothing on either disk. `undefined`: a file URI that does not map.
   */
  toRemoteUri(uri: string): string | undefined;
  /** The local `file:` URI for an agent's one; same rules as {@link toRemoteUri}. */
  toLocalUri(uri: string): string | undefined;
}

/** A problem with the mappings the user gave, in words. */
export class PathMappingError extends Error {
  override readonly name = 'PathMappingError';
  constructor(readonly problems: readonly string[]) {
    super(l10n.t('The path mapping cannot be used: {0}', problems.join(' ')));
  }
}

/** The rules of one side: how to normalise, split and compare. */
interface Side {
  /** Normalised absolute path, or undefined when the input is not an absolute path. */
  normalise(input: string): string | undefined;
  readonly separator: string;
  /** Comparison key (case-folded on win32). */
  key(normalised: string): string;
  /** A segment coming from the other side that this side cannot hold as one segment. */
  badSegment(segment: string): boolean;
}

const posixSide: Side = {
  normalise(input) {
    if (!input.startsWith('/') || input.includes('\0')) return undefined;
    return stripTrailing(path.posix.normalize(input), '/');
  },
  separator: '/',
  key: (normalised) => normalised,
  badSegment: (segment) => segment.includes('/'),
};

const win32Side: Side = {
  normalise(input) {
    if (input.includes('\0')) return undefined;
    // Drive-absolute (`C:\x`, `C:/x`) or UNC (`\\server\share\x`); `\x` (current drive) and `C:x` are relative.
    if (!/^[A-Za-z]:[\\/]/.test(input) && !/^[\\/]{2}[^\\/]+[\\/]+[^\\/]+/.test(input)) return undefined;
    const normalised = path.win32.normalize(input);
    // normalize keeps the root's separator (`C:\`); anything longer loses its trailing one.
    return /^[A-Za-z]:\\$/.test(normalised) ? normalised : stripTrailing(normalised, '\\');
  },
  separator: '\\',
  key: (normalised) => normalised.toLowerCase(),
  // A backslash or slash would be a separator here; a colon names a drive or an alternate data stream; Windows
  // drops a trailing dot or space, so `.. ` would act as `..`.
  badSegment: (segment) => /[\\/:]|[. ]$/.test(segment),
};

function stripTrailing(value: string, separator: string): string {
  return value.length > 1 && value.endsWith(separator) ? value.slice(0, -1) : value;
}

/** The segments of `full` below `root` (both normalised on `side`), or undefined when it is not inside. */
function relativeSegments(side: Side, root: string, full: string): string[] | undefined {
  const rootKey = side.key(root);
  const fullKey = side.key(full);
  if (fullKey === rootKey) return [];
  const prefix = rootKey.endsWith(side.separator) ? rootKey : rootKey + side.separator;
  if (!fullKey.startsWith(prefix)) return undefined;
  return full.slice(prefix.length).split(side.separator);
}

function join(side: Side, root: string, segments: readonly string[]): string {
  if (segments.length === 0) return root;
  return (root.endsWith(side.separator) ? root : root + side.separator) + segments.join(side.separator);
}

/** A translated path, and how many of its last segments came from the input (the rest is the root). */
interface Translated {
  readonly path: string;
  readonly tail: number;
}

/** Translates `input` from one side to the other through the longest matching root. */
function translate(from: Side, to: Side, roots: ReadonlyArray<readonly [string, string]>, input: string): Translated | undefined {
  if (typeof input !== 'string') return undefined;
  const normalised = from.normalise(input);
  if (normalised === undefined) return undefined;
  for (const [fromRoot, toRoot] of roots) {
    const segments = relativeSegments(from, fromRoot, normalised);
    if (segments === undefined) continue;
    if (segments.some((segment) => to.badSegment(segment))) return undefined;
    const result = join(to, toRoot, segments);
    // Defence in depth: what we built must still lie inside the root it was built from.
    const check = to.normalise(result);
    return check !== undefined && relativeSegments(to, toRoot, check) !== undefined ? { path: check, tail: segments.length } : undefined;
  }
  return undefined;
}

/**
 * What is wrong with `mappings`, one readable sentence each (empty when they can be used): a side that is
 * not an absolute path (remote: POSIX), a NUL byte, a folder mapped twice, two folders given the same agent
 * path, and an agent path inside another one whose local folder does not match (files of one folder would
 * be taken for files of the other). A local folder inside another local folder is fine: the longest wins.
 */
export function checkPathMappings(mappings: readonly PathMapping[], options: PathMapperOptions = {}): string[] {
  const local = sideFor(options.localPlatform);
  const problems: string[] = [];
  const valid: Array<{ local: string; remote: string }> = [];
  for (const mapping of mappings) {
    const l = typeof mapping.local === 'string' ? local.normalise(mapping.local) : undefined;
    const r = typeof mapping.remote === 'string' ? posixSide.normalise(mapping.remote) : undefined;
    if (l === undefined) problems.push(l10n.t('The folder "{0}" is not an absolute path on this machine.', String(mapping.local)));
    if (r === undefined) problems.push(l10n.t('The agent path "{0}" is not an absolute POSIX path (such as /workspace/app).', String(mapping.remote)));
    if (l !== undefined && r !== undefined) valid.push({ local: l, remote: r });
  }
  for (let i = 0; i < valid.length; i++) {
    for (let j = i + 1; j < valid.length; j++) {
      const a = valid[i]!;
      const b = valid[j]!;
      if (local.key(a.local) === local.key(b.local)) {
        problems.push(l10n.t('The folder "{0}" is mapped twice.', a.local));
      } else if (a.remote === b.remote) {
        problems.push(l10n.t('The folders "{0}" and "{1}" are both mapped to "{2}".', a.local, b.local, a.remote));
      } else {
        const problem = nestingProblem(local, a, b) ?? nestingProblem(local, b, a);
        if (problem) problems.push(problem);
      }
    }
  }
  return problems;
}

/** When `inner`'s agent path lies inside `outer`'s, its folder must be the matching one inside `outer`'s folder. */
function nestingProblem(local: Side, outer: PathMapping, inner: PathMapping): string | undefined {
  const segments = relativeSegments(posixSide, outer.remote, inner.remote);
  if (segments === undefined) return undefined;
  const expected = local.normalise(join(local, outer.local, segments));
  if (expected !== undefined && local.key(expected) === local.key(inner.local)) return undefined;
  return l10n.t(
    'The agent path "{0}" lies inside "{1}", so it must be mapped from "{2}", not "{3}": otherwise files of one folder would be taken for files of the other.',
    inner.remote,
    outer.remote,
    expected ?? join(local, outer.local, segments),
    inner.local,
  );
}

function sideFor(platform: LocalPlatform | undefined): Side {
  return (platform ?? (process.platform === 'win32' ? 'win32' : 'posix')) === 'win32' ? win32Side : posixSide;
}

/**
 * Makes the mapper for one agent. Throws a {@link PathMappingError} listing every problem
 * ({@link checkPathMappings}) when the mappings cannot be used.
 */
export function createPathMapper(mappings: readonly PathMapping[], options: PathMapperOptions = {}): PathMapper {
  const problems = checkPathMappings(mappings, options);
  if (problems.length > 0) throw new PathMappingError(problems);
  const local = sideFor(options.localPlatform);
  const normalised = mappings.map((m) => ({ local: local.normalise(m.local)!, remote: posixSide.normalise(m.remote)! }));
  const byLocal = [...normalised].sort((a, b) => b.local.length - a.local.length).map((m) => [m.local, m.remote] as const);
  const byRemote = [...normalised].sort((a, b) => b.remote.length - a.remote.length).map((m) => [m.remote, m.local] as const);
  const toRemote = (input: string) => translate(local, posixSide, byLocal, input);
  const toLocal = (input: string) => translate(posixSide, local, byRemote, input);
  const localFiles = local === win32Side ? win32FileUris : posixFileUris;
  return {
    mappings: byLocal.map(([l, r]) => ({ local: l, remote: r })),
    remoteRoots: byRemote.map(([r]) => r),
    toRemote: (input) => toRemote(input)?.path,
    toLocal: (input) => toLocal(input)?.path,
    toRemoteUri: (uri) => mapUri(uri, localFiles, posixFileUris, '/', toRemote),
    toLocalUri: (uri) => mapUri(uri, posixFileUris, localFiles, local.separator, toLocal),
  };
}

// ---- file: URIs ------------------------------------------------------------------------------------

/** A `file:` URI taken apart. */
interface FileUri {
  /** The decoded path. */
  readonly path: string;
  /**
   * The path's segments as they were encoded, when they match the decoded path's one for one (no `.`, `..`,
   * empty or encoded-separator segments): the part below the root is then kept exactly as it was encoded.
   */
  readonly encodedSegments: readonly string[] | undefined;
  /** `?…#…`, kept verbatim. */
  readonly suffix: string;
}

interface FileUris {
  parse(uri: string): FileUri | undefined;
  format(path: string): string;
}

/** Splits a `file:` URI (`file:///p`, `file://localhost/p`, `file://host/p` for UNC). */
function splitFileUri(
  uri: string,
  separators: RegExp,
): { authority: string; path: string; encoded: readonly string[] | undefined; suffix: string } | undefined {
  if (uri.slice(0, 7).toLowerCase() !== 'file://') return undefined;
  const rest = uri.slice(7);
  const end = rest.search(/[?#]/);
  const body = end === -1 ? rest : rest.slice(0, end);
  const slash = body.indexOf('/');
  if (slash === -1) return undefined;
  const encodedPath = body.slice(slash);
  let decoded: string;
  let clean = true;
  try {
    decoded = decodeURIComponent(encodedPath);
    const segments = encodedPath.split('/');
    for (let i = 1; i < segments.length; i++) {
      const segment = decodeURIComponent(segments[i]!);
      if (segment === '' ? i !== segments.length - 1 : segment === '.' || segment === '..' || separators.test(segment)) clean = false;
    }
  } catch {
    return undefined;
  }
  return {
    authority: body.slice(0, slash).toLowerCase(),
    path: decoded,
    encoded: clean ? encodedPath.split('/').filter((segment) => segment !== '') : undefined,
    suffix: end === -1 ? '' : rest.slice(end),
  };
}

/**
 * Percent-encodes a path for a `file:` URI as Node's `pathToFileURL` (what the prompt builder uses) does
 * in Node 20. Only used for the root and for a path that had to be normalised; the rest keeps its encoding.
 */
function encodePath(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f && !'"#%<>?[\\]^`{|}~'.includes(char)) out += char;
    else out += encodeURIComponent(char);
  }
  return out;
}

const posixFileUris: FileUris = {
  parse(uri) {
    const parts = splitFileUri(uri, /\//);
    if (!parts || (parts.authority !== '' && parts.authority !== 'localhost')) return undefined;
    return { path: parts.path, encodedSegments: parts.encoded, suffix: parts.suffix };
  },
  format: (p) => `file://${encodePath(p)}`,
};

const win32FileUris: FileUris = {
  parse(uri) {
    const parts = splitFileUri(uri, /[\\/]/);
    if (!parts) return undefined;
    if (parts.authority !== '' && parts.authority !== 'localhost') {
      return { path: `\\\\${parts.authority}${parts.path.replace(/\//g, '\\')}`, encodedSegments: parts.encoded, suffix: parts.suffix };
    }
    // `/C:/x` (or VS Code's `/c%3A/x`) → `C:\x`.
    if (!/^\/[A-Za-z]:/.test(parts.path)) return undefined;
    return { path: parts.path.slice(1).replace(/\//g, '\\'), encodedSegments: parts.encoded, suffix: parts.suffix };
  },
  format(p) {
    const slashed = p.replace(/\\/g, '/');
    if (slashed.startsWith('//')) {
      const [, , host, ...rest] = slashed.split('/');
      return `file://${host!.toLowerCase()}/${encodePath(rest.join('/'))}`;
    }
    return `file:///${encodePath(slashed)}`;
  },
};

function mapUri(uri: string, from: FileUris, to: FileUris, separator: string, map: (path: string) => Translated | undefined): string | undefined {
  if (typeof uri !== 'string') return undefined;
  if (uri.slice(0, 5).toLowerCase() !== 'file:') return uri;
  const parsed = from.parse(uri);
  if (!parsed) return undefined;
  const mapped = map(parsed.path);
  if (mapped === undefined) return undefined;
  if (parsed.encodedSegments === undefined || mapped.tail === 0) return to.format(mapped.path) + parsed.suffix;
  // The root is written in the other side's form; what lies below it keeps the encoding it came with.
  const segments = mapped.path.split(separator);
  const root = segments.slice(0, segments.length - mapped.tail).join(separator) || separator;
  const rootUri = to.format(root);
  const tail = parsed.encodedSegments.slice(parsed.encodedSegments.length - mapped.tail).join('/');
  return `${rootUri.endsWith('/') ? rootUri : `${rootUri}/`}${tail}${parsed.suffix}`;
}
