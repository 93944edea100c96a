/**
 * Archives crafted byte by byte for the extraction tests: tar headers written by hand (so names, types, link
 * targets and sizes can be anything an attacker would write) and zips made with yazl, then patched where yazl
 * refuses a name or tells the truth about a size.
 */
import * as zlib from 'node:zlib';
import * as yazl from 'yazl';

export interface TarEntry {
  readonly name: string;
  /** '0' file (default), '1' hard link, '2' symlink, '3' char device, '4' block device, '5' directory, '6' FIFO. */
  readonly type?: '0' | '1' | '2' | '3' | '4' | '5' | '6';
  readonly data?: Buffer | string;
  readonly linkname?: string;
  readonly mode?: number;
  /** The size the header claims (default: the data's length). */
  readonly claimedSize?: number;
}

function field(buffer: Buffer, offset: number, length: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > length) throw new Error(`tar field too long: ${text}`);
  bytes.copy(buffer, offset);
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, '0')}\0`;
}

/** One ustar header plus its data, padded to 512-byte blocks. */
export function tarEntry(entry: TarEntry): Buffer {
  const data = entry.data === undefined ? Buffer.alloc(0) : Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data);
  const header = Buffer.alloc(512);
  field(header, 0, 100, entry.name);
  field(header, 100, 8, octal(entry.mode ?? (entry.type === '5' ? 0o755 : 0o644), 8));
  field(header, 108, 8, octal(0, 8));
  field(header, 116, 8, octal(0, 8));
  field(header, 124, 12, octal(entry.claimedSize ?? data.length, 12));
  field(header, 136, 12, octal(1_700_000_000, 12));
  header.fill(' ', 148, 156);
  field(header, 156, 1, entry.type ?? '0');
  field(header, 157, 100, entry.linkname ?? '');
  field(header, 257, 6, 'ustar\0');
  field(header, 263, 2, '00');
  let sum = 0;
  for (const byte of header) sum += byte;
  field(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  const padding = (512 - (data.length % 512)) % 512;
  return Buffer.concat([header, data, Buffer.alloc(padding)]);
}

/** A gzipped tar of `entries` (two zero blocks at the end). */
export function tarGz(entries: readonly TarEntry[]): Buffer {
  return zlib.gzipSync(Buffer.concat([...entries.map(tarEntry), Buffer.alloc(1024)]));
}

export interface ZipEntry {
  readonly name: string;
  readonly data?: Buffer | string;
  /** Unix mode including the file type bits (0o100644, 0o120777 for a link, 0o020644 for a device). */
  readonly mode?: number;
  readonly directory?: boolean;
  readonly compress?: boolean;
}

/** A zip made by yazl (made by Unix, so modes are read). */
export async function zip(entries: readonly ZipEntry[]): Promise<Buffer> {
  const file = new yazl.ZipFile();
  for (const entry of entries) {
    if (entry.directory) file.addEmptyDirectory(entry.name, { ...(entry.mode !== undefined ? { mode: entry.mode } : {}) });
    else {
      const data = entry.data === undefined ? Buffer.alloc(0) : Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data);
      file.addBuffer(data, entry.name, { ...(entry.mode !== undefined ? { mode: entry.mode } : {}), compress: entry.compress ?? true });
    }
  }
  file.end();
  const chunks: Buffer[] = [];
  for await (const chunk of file.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every occurrence of `from` replaced by `to` (same length: a name in both the local and the central header). */
export function replaceBytes(buffer: Buffer, from: string, to: string): Buffer {
  const a = Buffer.from(from);
  const b = Buffer.from(to);
  if (a.length !== b.length) throw new Error('replacement must keep the length');
  const out = Buffer.from(buffer);
  let at = out.indexOf(a);
  if (at === -1) throw new Error(`"${from}" not found`);
  while (at !== -1) {
    b.copy(out, at);
    at = out.indexOf(a, at + b.length);
  }
  return out;
}

/**
 * Sets the general purpose flag's encryption bit on every entry (local and central headers), with the 12-byte
 * encryption header counted in the compressed size as an encrypting zipper would.
 */
export function markEncrypted(buffer: Buffer): Buffer {
  const out = Buffer.from(buffer);
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04])); at !== -1; at = out.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]), at + 4)) {
    out.writeUInt16LE(out.readUInt16LE(at + 6) | 1, at + 6);
    out.writeUInt32LE(out.readUInt32LE(at + 18) + 12, at + 18);
  }
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at !== -1; at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) {
    out.writeUInt16LE(out.readUInt16LE(at + 8) | 1, at + 8);
    out.writeUInt32LE(out.readUInt32LE(at + 20) + 12, at + 20);
  }
  return out;
}

/** Makes every header claim `size` uncompressed bytes (a lie when the data inflates to more). */
export function claimUncompressedSize(buffer: Buffer, size: number): Buffer {
  const out = Buffer.from(buffer);
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04])); at !== -1; at = out.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]), at + 4)) {
    out.writeUInt32LE(size, at + 22);
  }
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at !== -1; at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) {
    out.writeUInt32LE(size, at + 24);
  }
  return out;
}

/**
 * A zip whose entries all share one deflated body (every central directory record points at the same local
 * header): the overlapping-entries bomb of "A better zip bomb" (Fifield, 2019). Each entry alone has an ordinary
 * ratio; the archive as a whole unpacks to `names.length` times as much.
 */
export function overlappingZip(names: readonly string[], data: Buffer): Buffer {
  const body = zlib.deflateRawSync(data);
  const crc = zlib.crc32(data);
  const first = Buffer.from(names[0]!);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(body.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(first.length, 26);
  const central = names.map((name) => {
    const encoded = Buffer.from(name);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE((3 << 8) | 20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(8, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(body.length, 20);
    record.writeUInt32LE(data.length, 24);
    record.writeUInt16LE(encoded.length, 28);
    record.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    record.writeUInt32LE(0, 42);
    return Buffer.concat([record, encoded]);
  });
  const directory = Buffer.concat(central);
  const start = local.length + first.length + body.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(names.length, 8);
  end.writeUInt16LE(names.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(start, 16);
  return Buffer.concat([local, first, body, directory, end]);
}
