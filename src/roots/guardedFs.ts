/**
 * File access on behalf of an agent (`fs/read_text_file`, `fs/write_text_file`), confined to a session's
 * roots by a {@link RootGuard}.
 *
 * Every access is checked by the guard first and then done on the guard's real path, opened without
 * following a symlink at the last component (`O_NOFOLLOW`), and the opened file is verified afterwards to
 * be the one now at that real path inside the roots (same device and inode), so a symlink or folder
 * swapped in between check and use is detected before anything is read or written. Open editors come
 * first, through {@link OpenDocuments}, so unsaved editor content wins; this module does not import
 * `vscode`.
 *
 * Residual race (no `openat`/`mkdirat` in Node): if a local process swaps a parent folder for a symlink
 * in the instant between the last check and `open`, an empty file or folder may be created at the link's
 * target; nothing is ever read from or written into it.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { codeOf, type GuardRefusal, type RootGuard, quotePath } from './rootGuard';

/** Access to the editor's open documents, supplied by the VS Code layer. */
export interface OpenDocuments {
  /** Text of an open editor for this real path (or the requested path), if any — unsaved content included. */
  textOf(requestedPath: string, realPath: string): string | undefined | Promise<string | undefined>;
  /** Replace an open editor's text and save it; false if no editor is open for the path. */
  replace(requestedPath: string, realPath: string, content: string): Promise<boolean>;
}

/** Why access was denied: the guard's refusal, or `changed` when the file system changed between check and use. */
export type AccessRefusal = GuardRefusal | 'changed';

/** The path is not one the agent may access. The ACP handler maps it to a JSON-RPC error. */
export class AccessDeniedError extends Error {
  override name = 'AccessDeniedError';
  constructor(
    readonly reason: AccessRefusal,
    /** The path as the agent asked for it. */
    readonly path: string,
    /** The session's roots. */
    readonly roots: readonly string[],
    message: string,
  ) {
    super(message);
  }
}

/** What went wrong with an allowed path. */
export type FileProblem = 'not-found' | 'is-a-directory' | 'not-a-file' | 'too-large';

/** An allowed path that cannot be read or written as a text file (missing, a folder…). Not an access problem. */
export class FileOperationError extends Error {
  override name = 'FileOperationError';
  constructor(
    readonly problem: FileProblem,
    /** The path as the agent asked for it. */
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** Parameters of `fs/read_text_file` that matter here. */
export interface TextFileRead {
  readonly path: string;
  /** First line to return, 1-based (values below 1 mean 1). */
  readonly line?: number | null;
  /** Most lines to return. */
  readonly limit?: number | null;
}

/** Parameters of `fs/write_text_file` that matter here. */
export interface TextFileWrite {
  readonly path: string;
  readonly content: string;
}

const C = fs.constants;
/** Not following a symlink at the last component; 0 where the platform has no such flag (Windows). */
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
/** So that opening a FIFO does not block; it is then refused as not a file. */
const O_NONBLOCK = C.O_NONBLOCK ?? 0;

/**
 * Reads a text file (UTF-8) inside the roots, or the text of its open editor, sliced to `line`/`limit`
 * with the original line endings kept.
 * @throws AccessDeniedError when the path is not inside the roots; FileOperationError when it is missing
 *   or not a file.
 */
export async function readTextFile(guard: RootGuard, request: TextFileRead, documents?: OpenDocuments): Promise<string> {
  const decision = await allow(guard, request.path);
  const fromEditor = documents ? await documents.textOf(request.path, decision.realPath) : undefined;
  if (typeof fromEditor === 'string') {
    const text = sliceLines(fromEditor, request.line, request.limit);
    if (Buffer.byteLength(text, 'utf8') > MAX_ANSWER_BYTES) throw tooLarge(request, `the lines asked for are longer than ${MIB(MAX_ANSWER_BYTES)}`);
    return text;
  }
  if (!decision.exists) throw notFound(request.path);

  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(decision.realPath, C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    throw openError(error, guard, request.path);
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (stats.isDirectory()) throw new FileOperationError('is-a-directory', request.path, l10n.t('{0} is a folder, not a file', quotePath(request.path)));
    if (!stats.isFile()) throw new FileOperationError('not-a-file', request.path, `${quotePath(request.path)} is not a regular file`);
    await verifyOpened(guard, request.path, decision.realPath, stats);
    return await readLines(handle, Number(stats.size), request);
  } finally {
    await handle.close();
  }
}

/**
 * Writes a text file (UTF-8) inside the roots: into its open editor (saved) when there is one, else on
 * disk, creating missing folders inside the roots and the file itself.
 * @throws AccessDeniedError when the path is not inside the roots (or stopped being so meanwhile);
 *   FileOperationError when it names a folder.
 */
export async function writeTextFile(guard: RootGuard, request: TextFileWrite, documents?: OpenDocuments): Promise<void> {
  if (typeof request.content !== 'string') throw new TypeError(l10n.t('The content to write must be a string'));
  const decision = await allow(guard, request.path);
  if (/[\\/]$/.test(request.path))
    throw new FileOperationError('is-a-directory', request.path, l10n.t('{0} names a folder, not a file', quotePath(request.path)));
  if (documents && (await documents.replace(request.path, decision.realPath, request.content))) return;

  if (!decision.exists) await makeParents(guard, request.path, decision.realPath, decision.root);
  const { handle, created } = await openForWrite(guard, request.path, decision.realPath);
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) throw new FileOperationError('not-a-file', request.path, `${quotePath(request.path)} is not a regular file`);
    try {
      await verifyOpened(guard, request.path, decision.realPath, stats);
    } catch (error) {
      if (created) await removeIfSame(decision.realPath, stats);
      throw error;
    }
    await handle.truncate(0);
    await handle.writeFile(request.content, 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The most text one `fs/read_text_file` answers: it travels in one JSON-RPC message, which the agent reads
 * whole (JSON escapes can make it several times larger), and the host holds it meanwhile.
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const READ_CHUNK = 256 * 1024;
const NEWLINE = 0x0a;

const MIB = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

function tooLarge(request: TextFileRead, why: string): FileOperationError {
  return new FileOperationError(
    'too-large',
    request.path,
    l10n.t(
      '{0} was not read: {1}; ACP Workspace answers at most {2} at a time. Read it in parts with line and limit.',
      quotePath(request.path),
      why,
      MIB(MAX_ANSWER_BYTES),
    ),
  );
}

/**
 * Lines `line` to `line + limit - 1` of an open file, reading only as far as they go: the lines before are
 * scanned for their newlines and not kept, and what is kept stops at {@link MAX_ANSWER_BYTES}. Works on bytes
 * (a newline byte never occurs inside a multi-byte UTF-8 character) and decodes the answer once.
 */
async function readLines(handle: fs.promises.FileHandle, size: number, request: TextFileRead): Promise<string> {
  const first = request.line !== null && request.line !== undefined && Number.isFinite(request.line) ? Math.max(1, Math.floor(request.line)) : 1;
  const count = request.limit !== null && request.limit !== undefined && !Number.isNaN(request.limit) ? Math.max(0, Math.floor(request.limit)) : Infinity;
  if (count === Infinity && first === 1 && size > MAX_ANSWER_BYTES) {
    throw new FileOperationError(
      'too-large',
      request.path,
      l10n.t(
        '{0} is {1}; ACP Workspace answers at most {2} at a time. Read it in parts with line and limit.',
        quotePath(request.path),
        MIB(size),
        MIB(MAX_ANSWER_BYTES),
      ),
    );
  }
  if (count === 0) return '';
  const buffer = Buffer.allocUnsafe(READ_CHUNK);
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let line = 1;
  let linesKept = 0;
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let start = 0;
    // Skip to the first line asked for.
    while (line < first && start < bytesRead) {
      const newline = buffer.indexOf(NEWLINE, start);
      if (newline === -1 || newline >= bytesRead) {
        start = bytesRead;
        break;
      }
      start = newline + 1;
      line++;
    }
    if (line < first) continue;
    // Keep lines until enough are kept.
    let end = start;
    while (linesKept < count && end < bytesRead) {
      const newline = buffer.indexOf(NEWLINE, end);
      if (newline === -1 || newline >= bytesRead) {
        end = bytesRead;
        break;
      }
      end = newline + 1;
      linesKept++;
    }
    if (end > start) {
      keptBytes += end - start;
      if (keptBytes > MAX_ANSWER_BYTES) throw tooLarge(request, `the lines asked for are longer than ${MIB(MAX_ANSWER_BYTES)}`);
      kept.push(Buffer.from(buffer.subarray(start, end)));
    }
    if (linesKept >= count) break;
  }
  return Buffer.concat(kept, keptBytes).toString('utf8');
}

/**
 * Lines `line` (1-based) to `line + limit - 1` of `text`, with their line endings (`\n` or `\r\n`).
 * A `line` past the end gives `''`.
 */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  const first = line !== null && line !== undefined && Number.isFinite(line) ? Math.max(1, Math.floor(line)) : 1;
  const count = limit !== null && limit !== undefined && !Number.isNaN(limit) ? Math.max(0, Math.floor(limit)) : Infinity;
  let start = 0;
  for (let n = 1; n < first; n++) {
    const newline = text.indexOf('\n', start);
    if (newline === -1) return '';
    start = newline + 1;
  }
  if (count === Infinity) return start === 0 ? text : text.slice(start);
  let end = start;
  for (let n = 0; n < count; n++) {
    const newline = text.indexOf('\n', end);
    if (newline === -1) return text.slice(start);
    end = newline + 1;
  }
  return text.slice(start, end);
}

// ---------------------------------------------------------------------------------------------------

async function allow(guard: RootGuard, requested: string): Promise<{ realPath: string; root: string; exists: boolean }> {
  const decision = await guard.check(requested);
  if (!decision.allowed) throw new AccessDeniedError(decision.reason, String(requested), guard.roots, decision.message);
  return decision;
}

function changed(guard: RootGuard, requested: string, detail: string): AccessDeniedError {
  return new AccessDeniedError('changed', requested, guard.roots, l10n.t('{0} was not accessed: {1}', quotePath(requested), detail));
}

function notFound(requested: string): FileOperationError {
  return new FileOperationError('not-found', requested, `${quotePath(requested)} does not exist`);
}

function openError(error: unknown, guard: RootGuard, requested: string): Error {
  switch (codeOf(error)) {
    case 'ENOENT':
      return notFound(requested);
    case 'EISDIR':
      return new FileOperationError('is-a-directory', requested, l10n.t('{0} is a folder, not a file', quotePath(requested)));
    case 'ELOOP':
    case 'EMLINK': // FreeBSD's O_NOFOLLOW error
      return changed(guard, requested, 'a symbolic link appeared at its location after it was checked');
    case undefined:
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * Creates the missing folders between `root` and the parent of `realPath`, one at a time, each checked
 * to be a real folder (not a symlink) before going deeper, then checks that the parent still resolves to
 * itself inside the roots.
 */
async function makeParents(guard: RootGuard, requested: string, realPath: string, root: string): Promise<void> {
  const parent = path.dirname(realPath);
  const relative = parent
    .slice(root.length)
    .split(path.sep)
    .filter((s) => s !== '');
  let dir = root;
  for (const name of relative) {
    dir = dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
    try {
      await fs.promises.mkdir(dir);
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') {
        if (codeOf(error) === 'ENOTDIR') throw changed(guard, requested, `${dir} is no longer inside a folder`);
        throw error;
      }
    }
    const stats = await fs.promises.lstat(dir);
    if (!stats.isDirectory()) throw changed(guard, requested, `${dir} is not a folder (a file or symbolic link appeared there)`);
  }
  let parentReal: string;
  try {
    parentReal = await fs.promises.realpath(parent); // realpath(3), like fs.realpath.native
  } catch (error) {
    throw changed(guard, requested, `its folder ${parent} cannot be resolved (${codeOf(error) ?? String(error)})`);
  }
  if (parentReal !== parent || guard.containing(parentReal) === undefined) {
    throw changed(guard, requested, `its folder ${parent} now resolves to ${parentReal}`);
  }
}

async function openForWrite(guard: RootGuard, requested: string, realPath: string): Promise<{ handle: fs.promises.FileHandle; created: boolean }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return { handle: await fs.promises.open(realPath, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o666), created: true };
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw openError(error, guard, requested);
    }
    try {
      return { handle: await fs.promises.open(realPath, C.O_WRONLY | O_NOFOLLOW | O_NONBLOCK), created: false };
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw openError(error, guard, requested);
      // Removed between the two opens: try again.
    }
  }
  throw changed(guard, requested, 'it kept appearing and disappearing while it was being opened');
}

/**
 * The file opened must be the one now at `realPath` (same device and inode, `realPath` not a symlink)
 * and `realPath` must still resolve to itself inside the roots.
 */
async function verifyOpened(guard: RootGuard, requested: string, realPath: string, opened: fs.BigIntStats): Promise<void> {
  const again = await guard.check(realPath);
  if (!again.allowed || again.realPath !== realPath) {
    throw changed(guard, requested, again.allowed ? `it now resolves to ${again.realPath}` : again.message);
  }
  let now: fs.BigIntStats;
  try {
    now = await fs.promises.lstat(realPath, { bigint: true });
  } catch (error) {
    throw changed(guard, requested, `it disappeared while being opened (${codeOf(error) ?? String(error)})`);
  }
  if (now.isSymbolicLink() || now.dev !== opened.dev || now.ino !== opened.ino) {
    throw changed(guard, requested, 'the file opened is not the one inside the session’s folders any more');
  }
}

/** Removes a file this module just created, if it is still the same file. */
async function removeIfSame(realPath: string, created: fs.BigIntStats): Promise<void> {
  try {
    const now = await fs.promises.lstat(realPath, { bigint: true });
    if (now.dev === created.dev && now.ino === created.ino) await fs.promises.unlink(realPath);
  } catch {
    // Best effort.
  }
}
