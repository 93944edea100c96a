/**
 * The error answers a remote agent gets for its `fs/*` and `terminal/create` requests, in its own path space. The
 * handlers above the mapped transport work in local paths and say so in their errors (the RootGuard names the
 * session's folders and where a link leads, a failed open quotes the file); the agent must never read a local path
 * (issue 24). So an error answer to one of those requests is rewritten here, whichever layer produced it:
 * - every path the message quotes that a mapping covers becomes the agent's; the agent's own paths and the
 *   session's folders (its roots, in its paths) stay; if any other path is left (a link's target outside the
 *   shared folders, a folder of this machine), the whole message is replaced by words built only from the agent's
 *   path, the reason and the session's folders;
 * - `data` keeps only what names nothing of this machine: the agent's path (`path`, `cwd`), the session's folders
 *   (`roots`, mapped; a folder that does not map is left out), `reason`, `command`, `sessionId`, `terminalId`.
 * Pure: the transport (pathMappingTransport.ts) calls it with what it remembers of the request.
 */
import * as l10n from '@vscode/l10n';
import type { PathMapper } from './pathMapping';

/** A JSON-RPC error as it goes out. */
export interface WireError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** What the transport knows of the request being answered. */
export interface AnsweredRequest {
  readonly method: string;
  /** The path or folder as the agent sent it (`undefined`: a `terminal/create` without `cwd`). */
  readonly agentPath: string | undefined;
  /** The session's folders in the agent's paths, as last set up through this transport (undefined: not known). */
  readonly sessionRoots: readonly string[] | undefined;
}

/** `data` fields that hold a path or folder. */
const PATH_FIELDS = new Set(['path', 'cwd']);
/** `data` fields kept as they are: they name nothing of this machine. */
const PLAIN_FIELDS = new Set(['reason', 'command', 'sessionId', 'terminalId']);
/** Reasons of a refusal: the RootGuard's, a file that changed under the check, a path no mapping shares. */
const REFUSALS = new Set([
  'not-a-string',
  'empty',
  'nul-byte',
  'not-absolute',
  'unsupported-form',
  'too-long',
  'dotdot-after-missing',
  'symlink-loop',
  'not-a-directory',
  'unresolvable',
  'outside-roots',
  'changed',
  'not-shared',
]);

/**
 * A path in a message: quoted (`"…"`, `'…'`, as quotePath and Node's errors write them) or bare (not inside a
 * word: `fs/read_text_file` is a method); POSIX, a drive letter or a UNC path.
 */
const PATH_IN_TEXT = /"((?:\/|[A-Za-z]:[\\/]|\\\\)[^"]*)"|'((?:\/|[A-Za-z]:[\\/]|\\\\)[^']*)'|(?<![\w.~/\\-])((?:\/|[A-Za-z]:[\\/]|\\\\)[^\s"'(),;]*)/g;

/** The answer the agent gets instead of `error`. */
export function agentFacingError(error: WireError, request: AnsweredRequest, mapper: PathMapper): WireError {
  const data = isObject(error.data) ? error.data : undefined;
  const roots = sessionRootsOf(data, request, mapper);
  const safeData = data === undefined ? undefined : agentData(data, request, roots, mapper);
  const message = translateText(error.message, request, roots, mapper) ?? fallbackText(error, request, roots, safeData);
  return { code: error.code, message, ...(safeData === undefined ? {} : { data: safeData }) };
}

/** The session's folders in the agent's paths: the handler's `roots` mapped, else what the transport remembers. */
function sessionRootsOf(data: Record<string, unknown> | undefined, request: AnsweredRequest, mapper: PathMapper): readonly string[] | undefined {
  const roots = data?.['roots'];
  if (Array.isArray(roots)) return roots.flatMap((root) => (typeof root === 'string' ? (mapper.toRemote(root) ?? []) : []));
  return request.sessionRoots;
}

function agentData(data: Record<string, unknown>, request: AnsweredRequest, roots: readonly string[] | undefined, mapper: PathMapper): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (PATH_FIELDS.has(key)) {
      const remote =
        typeof value === 'string'
          ? request.agentPath !== undefined && mapper.toLocal(request.agentPath) === value
            ? request.agentPath
            : mapper.toRemote(value)
          : undefined;
      if (remote !== undefined) out[key] = remote;
    } else if (key === 'roots') {
      if (roots !== undefined) out[key] = [...roots];
    } else if (PLAIN_FIELDS.has(key) && (typeof value === 'string' || typeof value === 'number') && !hasUnsharedPath(String(value), request, roots, mapper)) {
      out[key] = value;
    }
  }
  return out;
}

/**
 * The message with every path in the agent's terms, or undefined when a path is left that is neither mapped nor
 * the agent's own (then nothing of the message is kept).
 */
function translateText(text: string, request: AnsweredRequest, roots: readonly string[] | undefined, mapper: PathMapper): string | undefined {
  let unexplained = false;
  const translated = text.replace(PATH_IN_TEXT, (whole: string, doubleQuoted?: string, singleQuoted?: string, bare?: string) => {
    const quote = doubleQuoted !== undefined ? '"' : singleQuoted !== undefined ? "'" : '';
    const found = doubleQuoted ?? singleQuoted ?? bare ?? '';
    // A bare path at the end of a sentence carries its punctuation.
    const [candidate, trailing] = quote === '' ? splitTrailing(found) : [found, ''];
    const remote = agentForm(candidate, request, roots, mapper);
    if (remote === undefined) {
      unexplained = true;
      return whole;
    }
    return `${quote}${remote}${quote}${trailing}`;
  });
  return unexplained ? undefined : translated;
}

/** A path of the message as the agent may read it, or undefined when it names something only this machine has. */
function agentForm(candidate: string, request: AnsweredRequest, roots: readonly string[] | undefined, mapper: PathMapper): string | undefined {
  const local = mapper.toRemote(candidate);
  if (local !== undefined) return local;
  // Already the agent's: its own path, or inside one of the session's folders as the agent sees them.
  if (request.agentPath !== undefined && (candidate === request.agentPath || isInside(candidate, request.agentPath))) return candidate;
  if (roots?.some((root) => candidate === root || isInside(candidate, root))) return candidate;
  return undefined;
}

function hasUnsharedPath(text: string, request: AnsweredRequest, roots: readonly string[] | undefined, mapper: PathMapper): boolean {
  return translateText(text, request, roots, mapper) !== text;
}

/** Words built only from what the agent knows: its path, the reason, the session's folders. */
function fallbackText(error: WireError, request: AnsweredRequest, roots: readonly string[] | undefined, data: Record<string, unknown> | undefined): string {
  const reason = typeof data?.['reason'] === 'string' ? data['reason'] : undefined;
  const what = request.agentPath ?? (request.method === 'terminal/create' ? l10n.t("the session's folder") : request.method);
  const folders = roots === undefined || roots.length === 0 ? l10n.t('none') : roots.join(', ');
  if (reason === 'outside-roots' || reason === 'not-shared') return l10n.t("Refused: {0} is outside this session's folders ({1}).", what, folders);
  if (reason !== undefined && REFUSALS.has(reason)) return l10n.t("Refused: {0} cannot be used ({1}). This session's folders: {2}.", what, reason, folders);
  return l10n.t('{0} failed for {1} (error {2}).', request.method, what, error.code);
}

function splitTrailing(text: string): [string, string] {
  const match = /[.:!?]+$/.exec(text);
  return match && match.index > 1 ? [text.slice(0, match.index), match[0]] : [text, ''];
}

/** Whether `child` lies inside `parent` (POSIX, the agent's side). */
function isInside(child: string, parent: string): boolean {
  return child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
