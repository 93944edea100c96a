/**
 * {@link ReviewFs} on the local disk, confined by a session's {@link RootGuard}: every path is resolved by
 * the guard at the moment of the call (real paths), must lie inside the root it is named with, and is never
 * written through a symbolic link (files are opened with `O_NOFOLLOW`; an existing link is replaced, and
 * one that leads outside the roots is refused).
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { codeOf, type RootGuard } from '../roots/rootGuard';
import { assertRelativePath } from './relativePath';
import type { FileState, ReviewFs } from './types';

/** A write or read the guard refused (outside the root, through a link leading out, a folder in the way…). */
export class ReviewFsRefusedError extends Error {
  override name = 'ReviewFsRefusedError';
}

const C = fs.constants;
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;

/** The local file system as the review sees it; `isDirty` asks the editors (the VS Code layer answers). */
export class GuardedReviewFs implements ReviewFs {
  constructor(
    private readonly guard: RootGuard,
    private readonly dirty: (root: string, path: string) => boolean = () => false,
  ) {}

  isDirty(root: string, relative: string): boolean {
    return this.dirty(root, relative);
  }

  /**
   * The file now: bytes and mode (a symbolic link is read, not followed: its target as bytes); `undefined`
   * when nothing or a folder is there.
   * @throws ReviewFsRefusedError when its folder is not inside `root`.
   */
  async read(root: string, relative: string): Promise<FileState | undefined> {
    const at = await this.locate(root, relative);
    let stats: fs.Stats;
    try {
      stats = await fs.promises.lstat(at);
    } catch (error) {
      if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return undefined;
      throw error;
    }
    if (stats.isSymbolicLink()) return { bytes: new Uint8Array(await fs.promises.readlink(at, { encoding: 'buffer' })), mode: 'symlink' };
    if (!stats.isFile()) return undefined;
    const handle = await fs.promises.open(at, C.O_RDONLY | O_NOFOLLOW);
    try {
      const bytes = new Uint8Array(await handle.readFile());
      return { bytes, mode: (stats.mode & 0o111) !== 0 ? 'executable' : 'file' };
    } finally {
      await handle.close();
    }
  }

  /**
   * Writes the file exactly (bytes; executable bit per mode; a link recreated with its target), creating
   * missing folders inside `root`; `undefined` removes it (a file or link, never a folder).
   * @throws ReviewFsRefusedError when the path is not inside `root`, leads outside through a link, or is a folder.
   */
  async write(root: string, relative: string, state: FileState | undefined): Promise<void> {
    const at = await this.locate(root, relative, state !== undefined);
    let existing: fs.Stats | undefined;
    try {
      existing = await fs.promises.lstat(at);
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
    }
    if (existing?.isDirectory()) throw new ReviewFsRefusedError(l10n.t('{0} was not written: it is a folder now.', relative));
    if (existing?.isSymbolicLink() && state !== undefined && state.mode !== 'symlink') {
      // Writing a file where a link is: the link is replaced, never written through, and one that leads
      // outside the folders is refused altogether.
      await this.inside(root, path.join(root, ...relative.split('/')), relative);
    }
    if (state === undefined) {
      if (existing !== undefined) await fs.promises.unlink(at);
      return;
    }
    if (state.mode === 'symlink') {
      if (existing !== undefined) await fs.promises.unlink(at);
      await fs.promises.symlink(Buffer.from(state.bytes).toString('utf8'), at);
      return;
    }
    if (existing !== undefined && !existing.isFile()) await fs.promises.unlink(at);
    const reuse = existing?.isFile() === true;
    const handle = await fs.promises.open(at, reuse ? C.O_WRONLY | C.O_TRUNC | O_NOFOLLOW : C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, 0o666);
    try {
      await handle.writeFile(state.bytes);
      const mode = (await handle.stat()).mode & 0o7777;
      const wanted = state.mode === 'executable' ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
      if (wanted !== mode) await handle.chmod(wanted);
    } finally {
      await handle.close();
    }
  }

  /**
   * Where `relative` is on disk: its folder resolved by the guard (inside `root`), created when missing
   * and asked for, plus its own name (not resolved: a link there is read or replaced, never followed).
   */
  private async locate(root: string, relative: string, create = false): Promise<string> {
    assertRelativePath(relative);
    const segments = relative.split('/');
    const name = segments.pop()!;
    const folder = await this.inside(root, path.join(root, ...segments), relative);
    if (create && !folder.exists) await this.makeFolders(root, folder.realPath, relative);
    return path.join(folder.realPath, name);
  }

  /** The guard's decision on `absolute`, required to lie inside `root`. */
  private async inside(root: string, absolute: string, relative: string): Promise<{ realPath: string; exists: boolean }> {
    const decision = await this.guard.check(absolute);
    if (!decision.allowed) throw new ReviewFsRefusedError(l10n.t('{0} was not touched: {1}', relative, decision.message));
    const within = decision.realPath === root || decision.realPath.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
    if (!within) throw new ReviewFsRefusedError(l10n.t('{0} was not touched: it resolves to {1}, outside {2}.', relative, decision.realPath, root));
    return decision;
  }

  /** Creates the missing folders from `root` down to `folder`, each checked to be a real folder, not a link. */
  private async makeFolders(root: string, folder: string, relative: string): Promise<void> {
    let dir = root;
    for (const name of path
      .relative(root, folder)
      .split(path.sep)
      .filter((s) => s !== '')) {
      dir = path.join(dir, name);
      try {
        await fs.promises.mkdir(dir);
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
      }
      if (!(await fs.promises.lstat(dir)).isDirectory()) throw new ReviewFsRefusedError(l10n.t('{0} was not written: {1} is not a folder.', relative, dir));
    }
    await this.inside(root, folder, relative);
  }
}
