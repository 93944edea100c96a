/**
 * The folder an archive is unpacked into, written entry by entry under rules that keep everything inside it,
 * whatever the archive claims: names through {@link entrySegments} (no `..`, nothing absolute), never a write
 * through a link (parents are checked against what was extracted, files are created with O_EXCL|O_NOFOLLOW),
 * symbolic links only to targets that stay inside when every link is followed (checked when made and again
 * once the whole tree exists, because a later link can change where an earlier one leads), hard links only to
 * files already extracted here, no devices or FIFOs, bounded entry count, sizes and ratios (bytes written per
 * byte of the archive, per zip entry and in all) counted on the bytes actually written. Modes: executable or not (0755/0644); never setuid, setgid or sticky.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { entrySegments, resolveInside, type ExtractedNode, type PathProblem } from './entryPaths';
import { errorMessage } from '../../../common/errors';

export interface ExtractLimits {
  /** Entries of any kind (default 100,000). */
  readonly maxEntries: number;
  /** Bytes written in all (default 4 GiB). */
  readonly maxTotalBytes: number;
  /** Bytes written to one file (default 2 GiB). */
  readonly maxEntryBytes: number;
  /**
   * Most bytes written per byte of the archive (default 1000, node-tar's `maxDecompressionRatio`, which stops a
   * tar.gz the same way): for a zip entry against its compressed size, and for the whole archive against the
   * archive file's size (entries that share one compressed body, the overlapping-entries bomb, pass the first
   * check one by one and fail the second).
   */
  readonly maxRatio: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxEntries: 100_000,
  maxTotalBytes: 4 * 1024 * 1024 * 1024,
  maxEntryBytes: 2 * 1024 * 1024 * 1024,
  maxRatio: 1000,
};

/** An entry that made the extraction fail; the message names it. */
export class ArchiveEntryError extends Error {
  constructor(
    readonly entry: string,
    message: string,
  ) {
    super(message);
    this.name = 'ArchiveEntryError';
  }
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const CREATE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW;

export class ExtractedTree {
  private readonly nodes = new Map<string, ExtractedNode>();
  private entries = 0;
  private totalBytes = 0;
  /** The archive file's size, when the ratio of the whole is checked. */
  private archiveBytes: number | undefined;
  /** Set when the extraction failed: nothing more is written (an entry being read may still be in flight). */
  private closed = false;

  private constructor(
    /** The target folder (absolute). */
    readonly root: string,
    private readonly limits: ExtractLimits,
    private readonly platform: NodeJS.Platform,
  ) {}

  /**
   * Creates the target folder, which must not exist yet (its parent must).
   * @param archiveBytes the archive file's size: all that is written may be at most `maxRatio` times as much.
   */
  static async create(
    root: string,
    limits: Partial<ExtractLimits> = {},
    platform: NodeJS.Platform = process.platform,
    archiveBytes?: number,
  ): Promise<ExtractedTree> {
    const absolute = path.resolve(root);
    await fs.promises.mkdir(absolute, { mode: 0o755 });
    const tree = new ExtractedTree(absolute, { ...DEFAULT_EXTRACT_LIMITS, ...limits }, platform);
    tree.archiveBytes = archiveBytes;
    return tree;
  }

  /**
   * Stops all writing: a write in flight ends at its next chunk, and no entry starts. Called before the target
   * is removed, so nothing is created in it afterwards (every write is non-recursive: none can recreate it).
   */
  close(): void {
    this.closed = true;
  }

  /** The node recorded at `segments`, if any. */
  node(segments: readonly string[]): ExtractedNode | undefined {
    return this.nodes.get(segments.join('/'));
  }

  async directory(name: string): Promise<void> {
    const segments = this.admit(name);
    if (segments.length === 0) return; // the root itself ("./")
    await this.parents(name, segments);
    const existing = this.node(segments);
    if (existing?.kind === 'dir') return;
    if (existing) throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a folder where another entry already is.', name));
    await this.mkdir(name, segments);
  }

  /**
   * Writes a regular file from `data`, counting the bytes as they are written.
   * @param packedBytes the entry's compressed size in the archive (a zip entry): what it writes may be at most
   *   `maxRatio` times as much.
   */
  async file(name: string, mode: number | undefined, data: AsyncIterable<Buffer | Uint8Array>, packedBytes?: number): Promise<void> {
    const segments = this.admit(name);
    if (segments.length === 0) throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a file without a name.', name));
    await this.parents(name, segments);
    const existing = this.node(segments);
    if (existing?.kind === 'symlink') throw this.throughLink(name, segments.join('/'));
    if (existing?.kind === 'dir') throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a file where a folder already is.', name));
    const absolute = this.absolute(segments);
    // A repeated file replaces the earlier one (tar's rule); unlinked first, so a hard link to it keeps its bytes.
    if (existing?.kind === 'file') await fs.promises.unlink(absolute);
    const handle = await this.open(name, absolute);
    let written = 0;
    try {
      for await (const chunk of data) {
        this.checkOpen(name);
        written += chunk.byteLength;
        this.totalBytes += chunk.byteLength;
        if (written > this.limits.maxEntryBytes)
          throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is larger than the limit of {1} MB.', name, mb(this.limits.maxEntryBytes)));
        if (this.totalBytes > this.limits.maxTotalBytes)
          throw new ArchiveEntryError(name, l10n.t('The archive unpacks to more than the limit of {0} MB (at "{1}").', mb(this.limits.maxTotalBytes), name));
        this.checkRatio(name, written, packedBytes);
        await handle.write(chunk);
      }
      this.checkOpen(name);
      await handle.chmod(fileMode(mode));
    } finally {
      await handle.close();
    }
    this.nodes.set(segments.join('/'), { kind: 'file' });
  }

  async symlink(name: string, target: string): Promise<void> {
    const segments = this.admit(name);
    if (segments.length === 0) throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a link without a name.', name));
    await this.parents(name, segments);
    if (this.node(segments)) throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a link where another entry already is.', name));
    const candidate = new Map(this.nodes).set(segments.join('/'), { kind: 'symlink', target });
    if (resolveInside(segments, candidate) === 'escape') {
      throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a link to "{1}", outside the folder it is unpacked into.', name, target));
    }
    try {
      await fs.promises.symlink(target.replace(/\\/g, '/'), this.absolute(segments));
    } catch (error) {
      throw this.writeFailed(name, error);
    }
    this.nodes.set(segments.join('/'), { kind: 'symlink', target });
  }

  /** A hard link (tar): `target` is relative to the archive's root and must be a file extracted before. */
  async hardLink(name: string, target: string): Promise<void> {
    const segments = this.admit(name);
    if (segments.length === 0) throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a link without a name.', name));
    const targetSegments = entrySegments(target, this.platform);
    const outside = () =>
      new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a hard link to "{1}", which is not a file unpacked before it.', name, target));
    if (typeof targetSegments === 'string' || targetSegments.length === 0) throw outside();
    // The exact path of an extracted file, reached through no link: what `link()` would hard-link.
    for (let i = 1; i < targetSegments.length; i++) if (this.node(targetSegments.slice(0, i))?.kind !== 'dir') throw outside();
    if (this.node(targetSegments)?.kind !== 'file') throw outside();
    await this.parents(name, segments);
    if (this.node(segments)) throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a link where another entry already is.', name));
    try {
      await fs.promises.link(this.absolute(targetSegments), this.absolute(segments));
    } catch (error) {
      throw this.writeFailed(name, error);
    }
    this.nodes.set(segments.join('/'), { kind: 'file' });
  }

  /** Devices, FIFOs, sockets and anything else that is not a file, folder or link. */
  refuse(name: string, kind: string): never {
    this.admit(name);
    throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a {1}, which an agent archive may not contain.', name, kind));
  }

  /**
   * Checks the finished tree: every link, followed through the links that exist now, stays inside (a link
   * made later can change where an earlier one leads), and so does the real path of each one that resolves.
   */
  async finish(): Promise<void> {
    const realRoot = await fs.promises.realpath(this.root);
    for (const [key, node] of this.nodes) {
      if (node.kind !== 'symlink') continue;
      const segments = key.split('/');
      const escape = () =>
        new ArchiveEntryError(key, l10n.t('The archive entry "{0}" is a link to "{1}", outside the folder it is unpacked into.', key, node.target));
      if (resolveInside(segments, this.nodes) === 'escape') throw escape();
      let real: string;
      try {
        real = await fs.promises.realpath(this.absolute(segments));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // dangling, and inside: harmless
        throw escape();
      }
      const relative = path.relative(realRoot, real);
      if (relative.startsWith('..') || path.isAbsolute(relative)) throw escape();
    }
  }

  /** Refuses an entry, or the archive, that unpacks to more than `maxRatio` times its compressed size (a bomb). */
  private checkRatio(name: string, written: number, packedBytes: number | undefined): void {
    const { maxRatio } = this.limits;
    const times = maxRatio.toLocaleString('en-US');
    if (packedBytes !== undefined && written > Math.max(packedBytes, 1) * maxRatio) {
      throw new ArchiveEntryError(
        name,
        l10n.t('The archive entry "{0}" unpacks to more than {1} times its compressed size: refused as a decompression bomb.', name, times),
      );
    }
    if (this.archiveBytes !== undefined && this.totalBytes > Math.max(this.archiveBytes, 1) * maxRatio) {
      throw new ArchiveEntryError(
        name,
        l10n.t('The archive unpacks to more than {0} times its own size (at "{1}"): refused as a decompression bomb.', times, name),
      );
    }
  }

  /** Counts the entry and checks its name. */
  private admit(name: string): string[] {
    this.checkOpen(name);
    if (++this.entries > this.limits.maxEntries) {
      throw new ArchiveEntryError(name, l10n.t('The archive has more than {0} entries (at "{1}").', this.limits.maxEntries, name));
    }
    const segments = entrySegments(name, this.platform);
    if (typeof segments === 'string') throw new ArchiveEntryError(name, problemText(name, segments));
    return segments;
  }

  private checkOpen(name: string): void {
    if (this.closed) throw new ArchiveEntryError(name, l10n.t('Unpacking stopped at "{0}".', name));
  }

  /** Makes the missing parent folders of an entry; refuses a parent that is a link or a file. */
  private async parents(name: string, segments: readonly string[]): Promise<void> {
    for (let i = 1; i < segments.length; i++) {
      const prefix = segments.slice(0, i);
      const node = this.node(prefix);
      if (node?.kind === 'dir') continue;
      if (node?.kind === 'symlink') throw this.throughLink(name, prefix.join('/'));
      if (node?.kind === 'file') throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is inside "{1}", which is a file.', name, prefix.join('/')));
      await this.mkdir(name, prefix);
    }
  }

  private async mkdir(name: string, segments: readonly string[]): Promise<void> {
    try {
      // Not recursive: EEXIST means something is there that was not recorded (a name that differs only in case
      // on a case-insensitive disk), and it is refused rather than followed.
      await fs.promises.mkdir(this.absolute(segments), { mode: 0o755 });
    } catch (error) {
      throw this.writeFailed(name, error);
    }
    this.nodes.set(segments.join('/'), { kind: 'dir' });
  }

  private async open(name: string, absolute: string): Promise<fs.promises.FileHandle> {
    try {
      return await fs.promises.open(absolute, CREATE_FLAGS, 0o600);
    } catch (error) {
      throw this.writeFailed(name, error);
    }
  }

  private absolute(segments: readonly string[]): string {
    return path.join(this.root, ...segments);
  }

  private throughLink(name: string, link: string): ArchiveEntryError {
    return new ArchiveEntryError(name, l10n.t('The archive entry "{0}" would be written through the link "{1}".', name, link));
  }

  private writeFailed(name: string, error: unknown): ArchiveEntryError {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      return new ArchiveEntryError(name, l10n.t('The archive entry "{0}" collides with another entry (names that differ only in case or form).', name));
    return new ArchiveEntryError(name, l10n.t('The archive entry "{0}" could not be written: {1}', name, errorMessage(error)));
  }
}

function problemText(name: string, problem: PathProblem): string {
  switch (problem) {
    case 'absolute':
      return l10n.t('The archive entry "{0}" has an absolute path.', name);
    case 'parent':
      return l10n.t('The archive entry "{0}" climbs out of its folder with "..".', name);
    case 'invalid':
      return l10n.t('The archive entry "{0}" has a name that cannot be used here.', name);
  }
}

/** 0755 when any execute bit is set, else 0644: no setuid, setgid, sticky, or write for others. */
export function fileMode(mode: number | undefined): number {
  return mode !== undefined && (mode & 0o111) !== 0 ? 0o755 : 0o644;
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 0);
}
