/**
 * The full-text index on disk, in its own folder beside the history's text files:
 *
 * - `segment-<n>.bin` per part of the index, written once (parts never change; a merge writes a new one),
 *   little-endian: a 32-byte header (magic, format, the two blocks' lengths), then the short-prefix block and the
 *   word block, each a segment (term count and lengths, the term and posting offsets (u32), the term characters
 *   (u16), the postings (varint bytes));
 * - `index.bin`, the manifest, written last and atomically (temp file + rename): magic, format, a CRC-32 of its
 *   body, then the next document id, each part's file number and its blocks' lengths and CRC-32s, and the
 *   documents (id, the text file's stamp, the record key).
 *
 * Loading reads the manifest and every part's short-prefix block first (enough for a one- to three-letter query,
 * about a ninth of the index), then the word blocks ({@link LoadedIndex.loadWords}).
 *
 * Reading validates everything (magic, format, lengths, checksums, offsets that only grow and end where their
 * data ends); anything else throws {@link IndexFileError} and the caller rebuilds from the text files. A segment
 * file the manifest does not name (a save interrupted before its manifest) is deleted. Which version of which
 * text each document holds is in the manifest, so the caller can compare with the text files after a crash.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { writeAtomically } from '../../common/atomicWrite';
import { Segment } from './segment';
import { Part, TextIndex, type IndexedDocument } from './textIndex';

/** Bumped whenever the files' layout or the tokenizer's rules change: an older index is rebuilt. */
export const INDEX_FORMAT = 2;
const MANIFEST_MAGIC = 0x49544341; // "ACTI"
const SEGMENT_MAGIC = 0x53544341; // "ACTS"
const MANIFEST = 'index.bin';
const SEGMENT_HEADER = 32;
const PART_ENTRY = 20;
const MAX_KEY_UNITS = 4096;

/** The saved index cannot be used (missing, corrupt, another format); the message says why. */
export class IndexFileError extends Error {
  constructor(
    message: string,
    /** There is no saved index at all (nothing to report). */
    readonly missing = false,
  ) {
    super(message);
    this.name = 'IndexFileError';
  }
}

/** Which file each saved part is in (parts are immutable, so a saved one is never written again). */
interface SavedPart {
  readonly file: number;
  readonly prefixLength: number;
  readonly prefixCrc: number;
  readonly wordsLength: number;
  readonly wordsCrc: number;
}

/** A saved index with its short-prefix blocks read; `loadWords` reads the word blocks into it. */
export interface LoadedIndex {
  readonly index: TextIndex;
  /** Reads every part's word block (validated); throws {@link IndexFileError} when one cannot be used. */
  loadWords(): Promise<void>;
}

/** Saves and loads one index folder. */
export class IndexFiles {
  private readonly saved = new WeakMap<Part, SavedPart>();
  private nextFile = 1;

  constructor(readonly dir: string) {}

  /** Whether this machine can use the format (little-endian typed arrays). */
  static get supported(): boolean {
    return os.endianness() === 'LE';
  }

  /** Writes the parts not saved yet, then the manifest; then deletes segment files no longer named. */
  async save(index: TextIndex): Promise<void> {
    // One moment's parts and documents (the index changes while files are written): a document added later
    // is not named, so a reload reads it again; one removed later is dropped when the reload compares.
    const parts = [...index.segments()];
    const documents = index.documents();
    const nextId = index.idLimit;
    await fs.promises.mkdir(this.dir, { recursive: true });
    const entries: SavedPart[] = [];
    for (const part of parts) {
      let saved = this.saved.get(part);
      if (!saved) {
        if (!part.words) throw new Error(l10n.t('A part of the transcript index is still loading.'));
        const prefixes = blockBytes(part.prefixes);
        const words = blockBytes(part.words);
        const header = Buffer.alloc(SEGMENT_HEADER);
        header.writeUInt32LE(SEGMENT_MAGIC, 0);
        header.writeUInt32LE(INDEX_FORMAT, 4);
        header.writeUInt32LE(prefixes.length, 8);
        header.writeUInt32LE(words.length, 12);
        saved = { file: this.nextFile++, prefixLength: prefixes.length, prefixCrc: crc32(prefixes), wordsLength: words.length, wordsCrc: crc32(words) };
        await writeAtomically(this.segmentFile(saved.file), Buffer.concat([header, prefixes, words]));
        this.saved.set(part, saved);
      }
      entries.push(saved);
    }
    await writeAtomically(path.join(this.dir, MANIFEST), manifestBytes(nextId, documents, entries));
    await this.deleteUnnamed(new Set(entries.map((e) => e.file)));
  }

  /**
   * Reads the saved index's manifest and short-prefix blocks, validated; throws {@link IndexFileError} when
   * there is none or it cannot be used. The word blocks follow with `loadWords`.
   */
  async load(): Promise<LoadedIndex> {
    let manifest: Buffer;
    try {
      manifest = await fs.promises.readFile(path.join(this.dir, MANIFEST));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new IndexFileError(l10n.t('there is no saved index'), true);
      throw new IndexFileError(l10n.t('the saved index could not be read: {0}', (error as Error).message));
    }
    const { nextId, parts: entries, documents } = readManifest(manifest);
    for (const doc of documents) if (doc.id >= nextId) throw new IndexFileError(l10n.t('the saved index has a document id out of range'));
    const parts: Part[] = [];
    for (const entry of entries) {
      const part = new Part(await this.readBlock(entry, 'prefixes'), undefined);
      this.saved.set(part, entry);
      parts.push(part);
    }
    this.nextFile = Math.max(0, ...entries.map((e) => e.file)) + 1;
    await this.deleteUnnamed(new Set(entries.map((e) => e.file)));
    const index = TextIndex.restore(documents, parts, nextId);
    return {
      index,
      loadWords: async () => {
        for (let i = 0; i < parts.length; i++) parts[i]!.words = await this.readBlock(entries[i]!, 'words');
      },
    };
  }

  private async readBlock(entry: SavedPart, which: 'prefixes' | 'words'): Promise<Segment> {
    const at = which === 'prefixes' ? SEGMENT_HEADER : SEGMENT_HEADER + entry.prefixLength;
    const length = which === 'prefixes' ? entry.prefixLength : entry.wordsLength;
    const crc = which === 'prefixes' ? entry.prefixCrc : entry.wordsCrc;
    // Its own buffer, so the typed arrays over it are aligned.
    const bytes = new Uint8Array(length);
    const header = new Uint8Array(SEGMENT_HEADER);
    let handle: fs.promises.FileHandle | undefined;
    try {
      handle = await fs.promises.open(this.segmentFile(entry.file), 'r');
      const size = (await handle.stat()).size;
      if (size !== SEGMENT_HEADER + entry.prefixLength + entry.wordsLength) throw new IndexFileError(l10n.t('segment {0} has the wrong length', entry.file));
      await handle.read(header, 0, SEGMENT_HEADER, 0);
      if ((await handle.read(bytes, 0, length, at)).bytesRead !== length) throw new IndexFileError(l10n.t('segment {0} is truncated', entry.file));
    } catch (error) {
      if (error instanceof IndexFileError) throw error;
      throw new IndexFileError(l10n.t('segment {0} could not be read: {1}', entry.file, (error as Error).message));
    } finally {
      await handle?.close();
    }
    const view = new DataView(header.buffer);
    if (view.getUint32(0, true) !== SEGMENT_MAGIC) throw new IndexFileError(l10n.t('segment {0} is not an index segment', entry.file));
    if (view.getUint32(4, true) !== INDEX_FORMAT) throw new IndexFileError(l10n.t('segment {0} has another format', entry.file));
    if ((await crcInSteps(bytes)) !== crc) throw new IndexFileError(l10n.t('segment {0} is damaged', entry.file));
    return readBlock(bytes, entry.file);
  }

  /** Deletes the whole saved index (before a rebuild from scratch). */
  async clear(): Promise<void> {
    await fs.promises.rm(this.dir, { recursive: true, force: true });
    this.nextFile = 1;
  }

  private segmentFile(file: number): string {
    return path.join(this.dir, `segment-${file}.bin`);
  }

  private async deleteUnnamed(named: ReadonlySet<number>): Promise<void> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const match = /^segment-(\d+)\.bin$/.exec(name);
      const stale = (match && !named.has(Number(match[1]))) || name.endsWith('.tmp');
      if (stale) await fs.promises.rm(path.join(this.dir, name), { force: true });
    }
  }
}

/** CRC-32 of a large block a few MiB at a time, letting the worker answer queries in between. */
async function crcInSteps(bytes: Uint8Array): Promise<number> {
  const step = 4 * 1024 * 1024;
  let crc = 0;
  for (let at = 0; at < bytes.length; at += step) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    crc = crc32(bytes.subarray(at, at + step), crc);
  }
  return crc;
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

const BLOCK_HEADER = 16;

/** A segment as bytes: term count and lengths, the offsets, the characters, the postings (4-byte aligned). */
function blockBytes(segment: Segment): Buffer {
  const n = segment.termCount;
  const offsets = 4 * (n + 1);
  const charsAt = BLOCK_HEADER + 2 * offsets;
  const postingsAt = charsAt + align4(segment.termChars.byteLength);
  const bytes = Buffer.alloc(align4(postingsAt + segment.postings.byteLength));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(0, n, true);
  view.setUint32(4, segment.termChars.length, true);
  view.setUint32(8, segment.postings.length, true);
  bytes.set(new Uint8Array(segment.termStarts.buffer, segment.termStarts.byteOffset, offsets), BLOCK_HEADER);
  bytes.set(new Uint8Array(segment.postingStarts.buffer, segment.postingStarts.byteOffset, offsets), BLOCK_HEADER + offsets);
  bytes.set(new Uint8Array(segment.termChars.buffer, segment.termChars.byteOffset, segment.termChars.byteLength), charsAt);
  bytes.set(segment.postings, postingsAt);
  return bytes;
}

function monotonic(starts: Uint32Array, end: number): boolean {
  if (starts[0] !== 0 || starts[starts.length - 1] !== end) return false;
  for (let i = 1; i < starts.length; i++) if (starts[i]! < starts[i - 1]!) return false;
  return true;
}

function readBlock(bytes: Uint8Array, file: number): Segment {
  if (bytes.length < BLOCK_HEADER) throw new IndexFileError(l10n.t('segment {0} is too short', file));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(0, true);
  const chars = view.getUint32(4, true);
  const postings = view.getUint32(8, true);
  const offsets = 4 * (n + 1);
  const charsAt = BLOCK_HEADER + 2 * offsets;
  const postingsAt = charsAt + align4(2 * chars);
  if (align4(postingsAt + postings) !== bytes.length) throw new IndexFileError(l10n.t('segment {0} has the wrong length', file));
  const termStarts = new Uint32Array(bytes.buffer, bytes.byteOffset + BLOCK_HEADER, n + 1);
  const postingStarts = new Uint32Array(bytes.buffer, bytes.byteOffset + BLOCK_HEADER + offsets, n + 1);
  const termChars = new Uint16Array(bytes.buffer, bytes.byteOffset + charsAt, chars);
  const postingBytes = new Uint8Array(bytes.buffer, bytes.byteOffset + postingsAt, postings);
  if (!monotonic(termStarts, chars) || !monotonic(postingStarts, postings)) throw new IndexFileError(l10n.t('segment {0} has offsets out of order', file));
  return new Segment(termChars, termStarts, postingBytes, postingStarts);
}

function manifestBytes(nextId: number, documents: readonly IndexedDocument[], segments: readonly SavedPart[]): Buffer {
  const size = 20 + 8 + PART_ENTRY * segments.length + 4 + documents.reduce((sum, d) => sum + 24 + 2 * d.key.length, 0);
  const bytes = Buffer.alloc(size);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 20;
  view.setUint32(at, nextId, true);
  view.setUint32(at + 4, segments.length, true);
  at += 8;
  for (const s of segments) {
    view.setUint32(at, s.file, true);
    view.setUint32(at + 4, s.prefixLength, true);
    view.setUint32(at + 8, s.prefixCrc, true);
    view.setUint32(at + 12, s.wordsLength, true);
    view.setUint32(at + 16, s.wordsCrc, true);
    at += PART_ENTRY;
  }
  view.setUint32(at, documents.length, true);
  at += 4;
  for (const d of documents) {
    view.setUint32(at, d.id, true);
    view.setUint32(at + 4, d.key.length, true);
    view.setFloat64(at + 8, d.stamp.mtimeMs, true);
    view.setFloat64(at + 16, d.stamp.size, true);
    at += 24;
    // UTF-16 code units as they are (a lone surrogate survives), decoded natively when read.
    at += bytes.write(d.key, at, 'utf16le');
  }
  view.setUint32(0, MANIFEST_MAGIC, true);
  view.setUint32(4, INDEX_FORMAT, true);
  view.setUint32(8, size - 20, true);
  view.setUint32(12, crc32(bytes.subarray(20)), true);
  return bytes;
}

function readManifest(bytes: Buffer): { nextId: number; parts: SavedPart[]; documents: IndexedDocument[] } {
  const fail = (message: string) => new IndexFileError(message);
  if (bytes.length < 32) throw fail(l10n.t('the saved index is too short'));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MANIFEST_MAGIC) throw fail(l10n.t('the saved index is not an index'));
  if (view.getUint32(4, true) !== INDEX_FORMAT) throw fail(l10n.t('the saved index has another format ({0}, not {1})', view.getUint32(4, true), INDEX_FORMAT));
  if (view.getUint32(8, true) !== bytes.length - 20) throw fail(l10n.t('the saved index has the wrong length'));
  if (view.getUint32(12, true) !== crc32(bytes.subarray(20))) throw fail(l10n.t('the saved index is damaged'));
  const need = (at: number, n: number) => {
    if (at + n > bytes.length) throw fail(l10n.t('the saved index is truncated'));
  };
  let at = 20;
  const nextId = view.getUint32(at, true);
  const count = view.getUint32(at + 4, true);
  at += 8;
  need(at, PART_ENTRY * count);
  const parts: SavedPart[] = [];
  for (let i = 0; i < count; i++, at += PART_ENTRY) {
    const part = {
      file: view.getUint32(at, true),
      prefixLength: view.getUint32(at + 4, true),
      prefixCrc: view.getUint32(at + 8, true),
      wordsLength: view.getUint32(at + 12, true),
      wordsCrc: view.getUint32(at + 16, true),
    };
    if (part.prefixLength % 4 !== 0 || part.wordsLength % 4 !== 0) throw fail(l10n.t('the saved index has a misaligned part'));
    parts.push(part);
  }
  need(at, 4);
  const docCount = view.getUint32(at, true);
  at += 4;
  const documents: IndexedDocument[] = [];
  const seenIds = new Set<number>();
  const seenKeys = new Set<string>();
  for (let i = 0; i < docCount; i++) {
    need(at, 24);
    const id = view.getUint32(at, true);
    const units = view.getUint32(at + 4, true);
    const mtimeMs = view.getFloat64(at + 8, true);
    const size = view.getFloat64(at + 16, true);
    at += 24;
    if (units === 0 || units > MAX_KEY_UNITS) throw fail(l10n.t('the saved index has a bad key'));
    need(at, 2 * units);
    const key = bytes.toString('utf16le', at, at + 2 * units);
    at += 2 * units;
    if (seenIds.has(id) || seenKeys.has(key)) throw fail(l10n.t('the saved index names a document twice'));
    seenIds.add(id);
    seenKeys.add(key);
    documents.push({ id, key, stamp: { mtimeMs, size } });
  }
  if (at !== bytes.length) throw fail(l10n.t('the saved index has trailing bytes'));
  return { nextId, parts, documents };
}
