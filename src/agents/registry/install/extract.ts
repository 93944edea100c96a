/**
 * Unpacking a downloaded agent: `.tar.gz`/`.tgz` read with node-tar's parser, `.zip` with yauzl, or the
 * download itself as the executable ("raw"). The libraries only read the archive; every entry is written by
 * {@link ExtractedTree}, which keeps it inside the target folder. On any failure the target folder is removed
 * whole.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import * as l10n from '@vscode/l10n';
import { Parser, type ReadEntry } from 'tar';
import * as yauzl from 'yauzl';
import { entrySegments } from './entryPaths';
import { ArchiveEntryError, ExtractedTree, type ExtractLimits } from './extractedTree';
import { errorMessage } from '../../../common/errors';

/** What a download is, from the name at the end of its URL's path. */
export type ArchiveKind = 'tar.gz' | 'zip' | 'raw';

/** The kind of archive at `url`, or why it cannot be installed here (bzip2 needs an unpacker we do not ship). */
export function archiveKind(url: string): ArchiveKind | { readonly unsupported: string } {
  let name: string;
  try {
    name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '').toLowerCase();
  } catch {
    name = url.toLowerCase();
  }
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) return 'tar.gz';
  if (name.endsWith('.zip')) return 'zip';
  if (name.endsWith('.tar.bz2') || name.endsWith('.tbz2') || name.endsWith('.tbz')) {
    return { unsupported: l10n.t('its download is a .tar.bz2 archive, which this extension cannot unpack yet') };
  }
  const installer = /\.(dmg|pkg|deb|rpm|msi|appimage|tar\.xz|txz|tar\.zst|7z|rar)$/.exec(name);
  if (installer) return { unsupported: l10n.t('its download is a .{0} file, which this extension cannot install', installer[1]!) };
  return 'raw';
}

export interface ExtractOptions {
  readonly limits?: Partial<ExtractLimits>;
  /** For raw downloads: the executable's name inside the target (the registry's `cmd`). */
  readonly rawName?: string;
  readonly signal?: AbortSignal;
  readonly platform?: NodeJS.Platform;
}

/**
 * Unpacks `file` into `target` (created; it must not exist). Rejects with an Error naming the entry at fault
 * (an {@link ArchiveEntryError}) or saying what is wrong with the archive; `target` is gone then.
 */
export async function extractArchive(file: string, kind: ArchiveKind, target: string, options: ExtractOptions = {}): Promise<void> {
  // Raw downloads are copied, never inflated: only archives are held to the ratio.
  const archiveBytes = kind === 'raw' ? undefined : (await fs.promises.stat(file)).size;
  const tree = await ExtractedTree.create(target, options.limits, options.platform, archiveBytes);
  try {
    switch (kind) {
      case 'tar.gz':
        await extractTar(file, tree, options.signal);
        break;
      case 'zip':
        await extractZip(file, tree, options.signal);
        break;
      case 'raw':
        await extractRaw(file, tree, options.rawName ?? path.basename(file), options.platform);
        break;
    }
    await tree.finish();
  } catch (error) {
    tree.close();
    await fs.promises.rm(tree.root, { recursive: true, force: true, maxRetries: 3 });
    if (options.signal?.aborted) throw new Error(l10n.t('Unpacking was cancelled.'));
    if (error instanceof ArchiveEntryError) throw error;
    throw new Error(l10n.t('The archive could not be unpacked: {0}', errorMessage(error)));
  }
}

/** The download is the program: copied in under its command's name, executable. */
async function extractRaw(file: string, tree: ExtractedTree, name: string, platform: NodeJS.Platform | undefined): Promise<void> {
  const segments = entrySegments(name, platform);
  if (typeof segments === 'string' || segments.length === 0)
    throw new ArchiveEntryError(name, l10n.t('The command "{0}" is not a name inside the install folder.', name));
  const data = fs.createReadStream(file);
  data.on('error', () => undefined); // reported to the reader; never uncaught after it stopped
  await tree.file(segments.join('/'), 0o755, data);
}

async function extractTar(file: string, tree: ExtractedTree, signal: AbortSignal | undefined): Promise<void> {
  // strict: a bad header checksum or an unknown format fails the archive instead of being skipped with a warning.
  const parser = new Parser({ strict: true });
  const source = fs.createReadStream(file);
  let chain: Promise<void> = Promise.resolve();
  /** The entry being written: destroyed on a failure. */
  let current: ReadEntry | undefined;
  // Ends the entry being written with the failure, so its writer does not wait for data that never comes (and
  // closes its file): an entry destroyed before its writer began to read it never settles its reader.
  let stop: (error: Error) => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      const reason = error instanceof Error ? error : new Error(String(error));
      source.destroy();
      stop(reason);
      current?.destroy();
      parser.abort(reason);
      reject(reason);
    };
    const onAbort = () => fail(new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    parser.on('entry', (entry: ReadEntry) => {
      // Held until its turn: entries are written one after another, each body read as it is written.
      entry.pause();
      chain = chain
        .then(async () => {
          if (failed) return void entry.resume();
          current = entry;
          await writeTarEntry(entry, tree, stopped);
          current = undefined;
        })
        .catch((error: unknown) => fail(error));
    });
    parser.on('error', (error: Error) => fail(error));
    parser.on('warn', (_code: string, message: string | Error) => fail(message instanceof Error ? message : new Error(message)));
    parser.on('end', () => {
      chain.then(() => {
        signal?.removeEventListener('abort', onAbort);
        if (!failed) resolve();
      }, fail);
    });
    source.on('error', fail);
    source.on('data', (chunk: string | Buffer) => {
      if (!parser.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
        source.pause();
        parser.once('drain', () => source.resume());
      }
    });
    source.on('end', () => parser.end());
  });
}

async function writeTarEntry(entry: ReadEntry, tree: ExtractedTree, stopped: Promise<never>): Promise<void> {
  const name = entry.path;
  // Any type a tar header holds, not only those the parser's types list.
  const type: string = entry.type;
  switch (type) {
    case 'File':
    case 'OldFile':
    case 'ContiguousFile':
      return tree.file(name, entry.mode, until(entry, stopped));
    case 'Directory':
      entry.resume();
      return tree.directory(name);
    case 'SymbolicLink':
      entry.resume();
      return tree.symlink(name, entry.linkpath ?? '');
    case 'Link':
      entry.resume();
      return tree.hardLink(name, entry.linkpath ?? '');
    case 'CharacterDevice':
    case 'BlockDevice':
      return tree.refuse(name, l10n.t('device'));
    case 'FIFO':
      return tree.refuse(name, l10n.t('named pipe (FIFO)'));
    default:
      return tree.refuse(name, type);
  }
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
/** A link's target, read from the entry's data: never longer than a path can be. */
const MAX_LINK_TARGET_BYTES = 4096;

async function extractZip(file: string, tree: ExtractedTree, signal: AbortSignal | undefined): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    // strictFileNames off: backslashes become separators; yauzl then refuses absolute names and `..` itself.
    yauzl.open(file, { lazyEntries: true, autoClose: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (error, opened) =>
      error ? reject(error) : resolve(opened),
    ),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const onAbort = () => fail(new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
      zip.on('entry', (entry: yauzl.Entry) => {
        writeZipEntry(zip, entry, tree).then(
          () => (failed ? undefined : zip.readEntry()),
          (error: unknown) => fail(error),
        );
      });
      zip.on('error', (error: Error) => fail(new Error(l10n.t('the archive has an entry that cannot be used ({0})', error.message))));
      zip.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        if (!failed) resolve();
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

async function writeZipEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, tree: ExtractedTree): Promise<void> {
  const name = entry.fileName;
  if (entry.isEncrypted()) throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is encrypted.', name));
  // Unix permissions and file type live in the high half of the external attributes (made by Unix: host 3).
  const unixMode = entry.versionMadeBy >> 8 === 3 ? (entry.externalFileAttributes >>> 16) & 0xffff : 0;
  const type = unixMode & S_IFMT;
  if (name.endsWith('/') || type === S_IFDIR) return tree.directory(name);
  if (type === S_IFLNK) {
    const target = await readAll(await openEntry(zip, entry), MAX_LINK_TARGET_BYTES, name);
    return tree.symlink(name, target.toString('utf8'));
  }
  if (type !== 0 && type !== S_IFREG) return tree.refuse(name, l10n.t('special file (device, pipe or socket)'));
  return tree.file(name, unixMode === 0 ? undefined : unixMode, await openEntry(zip, entry), entry.compressedSize);
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      // yauzl may still report an error (its size check) after the reader stopped at our own cap; whoever reads
      // sees errors while reading, and a late one must not become an uncaught exception in the extension host.
      stream.on('error', () => undefined);
      resolve(stream);
    }),
  );
}

async function readAll(stream: Readable, max: number, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) {
      stream.destroy();
      throw new ArchiveEntryError(name, l10n.t('The archive entry "{0}" is a link with a target longer than {1} bytes.', name, max));
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** `data` until `stopped` rejects: then the reader gets that error instead of waiting on (a destroyed) `data`. */
async function* until<T>(data: AsyncIterable<T>, stopped: Promise<never>): AsyncGenerator<T> {
  const reading = data[Symbol.asyncIterator]();
  for (;;) {
    const next = await Promise.race([reading.next(), stopped]);
    if (next.done) return;
    yield next.value;
  }
}
