/**
 * The full-text index on disk, in its own folder beside the history's text files:
 *
 * - `segment-<n>.bin` per segment, written once (segments never change; a merge writes a new one), little-endian:
 *   a 32-byte header (magic, format, term count, lengths), the term and posting offsets (u32), the term
 *   characters (u16) and the postings (varint bytes);
 * - `index.bin`, the manifest, written last and atomically (temp file + rename): magic, format, a CRC-32 of its
 *   body, then the next document id, each segment's file number, length and CRC-32, and the documents (id,
 *   the text file's stamp, the record key).
 *
 * Reading validates everything (magic, format, lengths, checksums, offsets that only grow and end where their
 * data ends); anything else throws {@link IndexFileError} and the caller rebuilds from the text files. A segment
 * file the manifest does not name (a save interrupted before its manifest) is deleted. Which version of which
 * text each document holds is in the manifest, so the caller can compare with the text files after a crash.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { Segment } from './segment';
import { TextIndex, type IndexedDocument } from './textIndex';

/** Bumped whenever the files' layout or the tokenizer's rules change: an older index is rebuilt. */
export const INDEX_FORMAT = 1;
const MANIFEST_MAGIC = 0x49544341; // "ACTI"
const SEGMENT_MAGIC = 0x53544341; // "ACTS"
const MANIFEST = 'index.bin';
const SEGMENT_HEADER = 32;
const MAX_KEY_UNITS = 4096;

/** The saved index cannot be used (missing, corrupt, another format); the message says why. */
export class IndexFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IndexFileError';
  }
}

/** Which file each saved segment is in (segments are immutable, so a saved one is never written again). */
interface SavedSegment {
  readonly file: number;
  readonly length: number;
  readonly crc: number;
}

/** Saves and loads one index folder. */
export class IndexFiles {
  private readonly saved = new WeakMap<Segment, SavedSegment>();
  private nextFile = 1;

  constructor(readonly dir: string) {}

  /** Whether this machine can use the format (little-endian typed arrays). */
  static get supported(): boolean {
    return os.endianness() === 'LE';
  }

  /** Writes the segments not saved yet, then the manifest; then deletes segment files no longer named. */
  async save(index: TextIndex): Promise<void> {
    await fs.promises.mkdir(this.dir, { recursive: true });
    const entries: SavedSegment[] = [];
    for (const segment of index.parts()) {
      let saved = this.saved.get(segment);
      if (!saved) {
        const bytes = segmentBytes(segment);
        saved = { file: this.nextFile++, length: bytes.length, crc: crc32(bytes) };
        await writeAtomically(this.segmentFile(saved.file), bytes);
        this.saved.set(segment, saved);
      }
      entries.push(saved);
    }
    await writeAtomically(path.join(this.dir, MANIFEST), manifestBytes(index, entries));
    await this.deleteUnnamed(new Set(entries.map((e) => e.file)));
  }

  /** Reads the saved index, validated; throws {@link IndexFileError} when there is none or it cannot be used. */
  async load(): Promise<TextIndex> {
    let manifest: Buffer;
    try {
      manifest = await fs.promises.readFile(path.join(this.dir, MANIFEST));
    } catch (error) {
      throw new IndexFileError((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no saved index' : `the saved index could not be read: ${(error as Error).message}`);
    }
    const { nextId, segments, documents } = readManifest(manifest);
    const loaded: Segment[] = [];
    for (const entry of segments) {
      let bytes: Buffer;
      try {
        bytes = await fs.promises.readFile(this.segmentFile(entry.file));
      } catch (error) {
        throw new IndexFileError(`segment ${entry.file} could not be read: ${(error as Error).message}`);
      }
      if (bytes.length !== entry.length || crc32(bytes) !== entry.crc) throw new IndexFileError(`segment ${entry.file} is damaged`);
      const segment = readSegment(bytes, entry.file);
      this.saved.set(segment, entry);
      loaded.push(segment);
    }
    this.nextFile = Math.max(0, ...segments.map((e) => e.file)) + 1;
    await this.deleteUnnamed(new Set(segments.map((e) => e.file)));
    for (const doc of documents) if (doc.id >= nextId) throw new IndexFileError('a document id is out of range');
    return TextIndex.restore(documents, loaded, nextId);
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

function align4(n: number): number {
  return (n + 3) & ~3;
}

function segmentBytes(segment: Segment): Buffer {
  const n = segment.termCount;
  const offsets = 4 * (n + 1);
  const charsAt = SEGMENT_HEADER + 2 * offsets;
  const postingsAt = charsAt + align4(segment.termChars.byteLength);
  const bytes = Buffer.alloc(postingsAt + segment.postings.byteLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(0, SEGMENT_MAGIC, true);
  view.setUint32(4, INDEX_FORMAT, true);
  view.setUint32(8, n, true);
  view.setUint32(12, segment.termChars.length, true);
  view.setUint32(16, segment.postings.length, true);
  bytes.set(new Uint8Array(segment.termStarts.buffer, segment.termStarts.byteOffset, offsets), SEGMENT_HEADER);
  bytes.set(new Uint8Array(segment.postingStarts.buffer, segment.postingStarts.byteOffset, offsets), SEGMENT_HEADER + offsets);
  bytes.set(new Uint8Array(segment.termChars.buffer, segment.termChars.byteOffset, segment.termChars.byteLength), charsAt);
  bytes.set(segment.postings, postingsAt);
  return bytes;
}

function monotonic(starts: Uint32Array, end: number): boolean {
  if (starts[0] !== 0 || starts[starts.length - 1] !== end) return false;
  for (let i = 1; i < starts.length; i++) if (starts[i]! < starts[i - 1]!) return false;
  return true;
}

function readSegment(bytes: Buffer, file: number): Segment {
  const fail = (why: string) => new IndexFileError(`segment ${file} ${why}`);
  if (bytes.length < SEGMENT_HEADER) throw fail('is too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== SEGMENT_MAGIC) throw fail('is not an index segment');
  if (view.getUint32(4, true) !== INDEX_FORMAT) throw fail('has another format');
  const n = view.getUint32(8, true);
  const chars = view.getUint32(12, true);
  const postings = view.getUint32(16, true);
  const offsets = 4 * (n + 1);
  const charsAt = SEGMENT_HEADER + 2 * offsets;
  const postingsAt = charsAt + align4(2 * chars);
  if (postingsAt + postings !== bytes.length) throw fail('has the wrong length');
  // A small Buffer may share a pool and start anywhere: copied then, so the typed arrays are aligned.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const buffer = own ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const termStarts = new Uint32Array(buffer, SEGMENT_HEADER, n + 1);
  const postingStarts = new Uint32Array(buffer, SEGMENT_HEADER + offsets, n + 1);
  const termChars = new Uint16Array(buffer, charsAt, chars);
  const postingBytes = new Uint8Array(buffer, postingsAt, postings);
  if (!monotonic(termStarts, chars) || !monotonic(postingStarts, postings)) throw fail('has offsets out of order');
  return new Segment(termChars, termStarts, postingBytes, postingStarts);
}

function manifestBytes(index: TextIndex, segments: readonly SavedSegment[]): Buffer {
  const documents = index.documents();
  const size = 20 + 8 + 16 * segments.length + 4 + documents.reduce((sum, d) => sum + 24 + 2 * d.key.length, 0);
  const bytes = Buffer.alloc(size);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 20;
  view.setUint32(at, index.idLimit, true);
  view.setUint32(at + 4, segments.length, true);
  at += 8;
  for (const s of segments) {
    view.setUint32(at, s.file, true);
    view.setUint32(at + 4, s.length, true);
    view.setUint32(at + 8, s.crc, true);
    at += 16;
  }
  view.setUint32(at, documents.length, true);
  at += 4;
  for (const d of documents) {
    view.setUint32(at, d.id, true);
    view.setUint32(at + 4, d.key.length, true);
    view.setFloat64(at + 8, d.stamp.mtimeMs, true);
    view.setFloat64(at + 16, d.stamp.size, true);
    at += 24;
    for (let k = 0; k < d.key.length; k++, at += 2) view.setUint16(at, d.key.charCodeAt(k), true);
  }
  view.setUint32(0, MANIFEST_MAGIC, true);
  view.setUint32(4, INDEX_FORMAT, true);
  view.setUint32(8, size - 20, true);
  view.setUint32(12, crc32(bytes.subarray(20)), true);
  return bytes;
}

function readManifest(bytes: Buffer): { nextId: number; segments: SavedSegment[]; documents: IndexedDocument[] } {
  const fail = (why: string) => new IndexFileError(`the saved index ${why}`);
  if (bytes.length < 32) throw fail('is too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MANIFEST_MAGIC) throw fail('is not an index');
  if (view.getUint32(4, true) !== INDEX_FORMAT) throw fail(`has another format (${view.getUint32(4, true)}, not ${INDEX_FORMAT})`);
  if (view.getUint32(8, true) !== bytes.length - 20) throw fail('has the wrong length');
  if (view.getUint32(12, true) !== crc32(bytes.subarray(20))) throw fail('is damaged');
  const need = (at: number, n: number) => {
    if (at + n > bytes.length) throw fail('is truncated');
  };
  let at = 20;
  const nextId = view.getUint32(at, true);
  const count = view.getUint32(at + 4, true);
  at += 8;
  need(at, 16 * count);
  const segments: SavedSegment[] = [];
  for (let i = 0; i < count; i++, at += 16) segments.push({ file: view.getUint32(at, true), length: view.getUint32(at + 4, true), crc: view.getUint32(at + 8, true) });
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
    if (units === 0 || units > MAX_KEY_UNITS) throw fail('has a bad key');
    need(at, 2 * units);
    let key = '';
    for (let k = 0; k < units; k++, at += 2) key += String.fromCharCode(view.getUint16(at, true));
    if (seenIds.has(id) || seenKeys.has(key)) throw fail('names a document twice');
    seenIds.add(id);
    seenKeys.add(key);
    documents.push({ id, key, stamp: { mtimeMs, size } });
  }
  if (at !== bytes.length) throw fail('has trailing bytes');
  return { nextId, segments, documents };
}

async function writeAtomically(file: string, data: Uint8Array): Promise<void> {
  const temp = `${file}.${process.pid}.${Math.random().toString(16).slice(2)}.tmp`;
  await fs.promises.writeFile(temp, data);
  try {
    await fs.promises.rename(temp, file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}
