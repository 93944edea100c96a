import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { entrySegments, resolveInside, type ExtractedNode } from '../../../../../src/agents/registry/install/entryPaths';
import { archiveKind, extractArchive, type ArchiveKind } from '../../../../../src/agents/registry/install/extract';
import type { ExtractLimits } from '../../../../../src/agents/registry/install/extractedTree';
import { claimUncompressedSize, markEncrypted, overlappingZip, replaceBytes, tarGz, zip, type TarEntry } from './archives';

describe('registry install: archive extraction', () => {
  let scratch: string;
  /** The folder the target lives in: nothing may appear here but the target. */
  let parent: string;
  let target: string;

  beforeEach(() => {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-extract-')));
    parent = path.join(scratch, 'staging');
    fs.mkdirSync(parent);
    target = path.join(parent, 'x');
  });
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

  function archiveFile(bytes: Buffer, name: string): string {
    const file = path.join(scratch, name);
    fs.writeFileSync(file, bytes);
    return file;
  }

  /** The files under `dir` this process holds open (Linux: /proc/self/fd). */
  function openUnder(dir: string): string[] {
    return fs.readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        const file = fs.readlinkSync(path.join('/proc/self/fd', fd));
        return file.startsWith(dir + path.sep) ? [file] : [];
      } catch {
        return []; // closed meanwhile (the one readdir used)
      }
    });
  }

  /** Asserts the extraction failed naming `entry`, left nothing beside the target, and removed the target. */
  async function assertRefused(bytes: Buffer, kind: ArchiveKind, entry: string | RegExp, limits?: Partial<ExtractLimits>): Promise<void> {
    const file = archiveFile(bytes, kind === 'zip' ? 'a.zip' : 'a.tar.gz');
    const before = fs.readdirSync(scratch).sort();
    await assert.rejects(extractArchive(file, kind, target, { ...(limits ? { limits } : {}) }), (error: Error) => {
      if (typeof entry === 'string') assert.ok(error.message.includes(entry), `the error names ${entry}: ${error.message}`);
      else assert.match(error.message, entry);
      return true;
    });
    assert.equal(fs.existsSync(target), false, 'the target folder is gone');
    assert.deepEqual(openUnder(parent), [], 'no file of the extraction is left open');
    assert.deepEqual(fs.readdirSync(parent), [], 'nothing beside the target');
    assert.deepEqual(fs.readdirSync(scratch).sort(), before, 'nothing new next to the staging folder');
  }

  describe('entry names', () => {
    it('splits names into segments below the target, backslashes included', () => {
      assert.deepEqual(entrySegments('a/b/c'), ['a', 'b', 'c']);
      assert.deepEqual(entrySegments('./x/'), ['x']);
      assert.deepEqual(entrySegments('dir\\file.txt'), ['dir', 'file.txt']);
      assert.deepEqual(entrySegments('./'), []);
    });

    it('refuses absolute names, parent segments and NUL', () => {
      assert.equal(entrySegments('/etc/passwd'), 'absolute');
      assert.equal(entrySegments('C:\\Windows\\x'), 'absolute');
      assert.equal(entrySegments('C:x'), 'absolute');
      assert.equal(entrySegments('\\\\server\\share\\x'), 'absolute');
      assert.equal(entrySegments('../evil'), 'parent');
      assert.equal(entrySegments('a/../../evil'), 'parent');
      assert.equal(entrySegments('..\\evil'), 'parent');
      assert.equal(entrySegments('a\0b'), 'invalid');
      assert.equal(entrySegments('file.txt:stream', 'win32'), 'invalid');
      assert.deepEqual(entrySegments('file.txt:stream', 'linux'), ['file.txt:stream']);
    });

    it('follows extracted links as the file system would', () => {
      const nodes = new Map<string, ExtractedNode>([
        ['a', { kind: 'dir' }],
        ['a/up', { kind: 'symlink', target: '..' }],
        ['loop', { kind: 'symlink', target: 'loop' }],
        ['abs', { kind: 'symlink', target: '/etc' }],
      ]);
      assert.deepEqual(resolveInside(['a', 'up', 'a'], nodes), ['a']);
      assert.equal(resolveInside(['a', 'up', '..'], nodes), 'escape');
      assert.equal(resolveInside(['loop', 'x'], nodes), 'escape');
      assert.equal(resolveInside(['abs', 'passwd'], nodes), 'escape');
      assert.equal(resolveInside(['..'], nodes), 'escape');
    });
  });

  describe('archive kinds', () => {
    it('tells archives from raw programs by the URL path, and refuses what it cannot unpack', () => {
      assert.equal(archiveKind('https://x.test/a/agent-1.2.3.tar.gz'), 'tar.gz');
      assert.equal(archiveKind('https://x.test/a/agent.TGZ?token=1'), 'tar.gz');
      assert.equal(archiveKind('https://x.test/a/agent.zip#x'), 'zip');
      assert.equal(archiveKind('https://x.test/a/agent-linux-x64'), 'raw');
      assert.equal(archiveKind('https://x.test/a/agent.exe'), 'raw');
      assert.match((archiveKind('https://x.test/a/agent.tar.bz2') as { unsupported: string }).unsupported, /\.tar\.bz2/);
      assert.match((archiveKind('https://x.test/a/agent.tbz2') as { unsupported: string }).unsupported, /\.tar\.bz2/);
      assert.match((archiveKind('https://x.test/a/agent.dmg') as { unsupported: string }).unsupported, /\.dmg/);
    });
  });

  describe('good archives', () => {
    it('unpacks a tar.gz with nested folders, the executable bit, inside links, and no setuid', async () => {
      const file = archiveFile(
        tarGz([
          { name: 'pkg/', type: '5' },
          { name: 'pkg/bin/agent', data: '#!/bin/sh\necho hi\n', mode: 0o4755 },
          { name: 'pkg/lib/deep/data.txt', data: 'data', mode: 0o666 },
          { name: 'pkg/current', type: '2', linkname: 'lib/deep' },
          { name: 'pkg/bin/agent-again', type: '1', linkname: 'pkg/bin/agent' },
          { name: 'pkg/lib/deep/data.txt', data: 'newer data' },
        ]),
        'good.tar.gz',
      );
      await extractArchive(file, 'tar.gz', target);
      const agent = path.join(target, 'pkg', 'bin', 'agent');
      assert.equal(fs.readFileSync(agent, 'utf8'), '#!/bin/sh\necho hi\n');
      assert.equal(fs.statSync(agent).mode & 0o7777, 0o755, 'executable, setuid dropped');
      assert.equal(fs.statSync(path.join(target, 'pkg', 'lib', 'deep', 'data.txt')).mode & 0o7777, 0o644, 'not writable by others');
      assert.equal(fs.readFileSync(path.join(target, 'pkg', 'current', 'data.txt'), 'utf8'), 'newer data', 'a repeated file replaces the earlier one');
      assert.equal(fs.readlinkSync(path.join(target, 'pkg', 'current')), 'lib/deep');
      assert.equal(fs.statSync(path.join(target, 'pkg', 'bin', 'agent-again')).ino, fs.statSync(agent).ino, 'hard link to a file inside');
    });

    it('unpacks a zip with nested folders, the executable bit and Windows separators', async () => {
      const bytes = replaceBytes(
        await zip([
          { name: 'app/', directory: true },
          { name: 'app/bin/agent', data: 'binary', mode: 0o100755 },
          { name: 'app/readme.txt', data: 'x'.repeat(10_000), mode: 0o100644 },
          { name: 'win/sub/file.txt', data: 'windows', compress: false },
        ]),
        'win/sub/file.txt',
        'win\\sub\\file.txt',
      );
      await extractArchive(archiveFile(bytes, 'good.zip'), 'zip', target);
      assert.equal(fs.readFileSync(path.join(target, 'app', 'bin', 'agent'), 'utf8'), 'binary');
      assert.equal(fs.statSync(path.join(target, 'app', 'bin', 'agent')).mode & 0o777, 0o755);
      assert.equal(fs.statSync(path.join(target, 'app', 'readme.txt')).mode & 0o777, 0o644);
      assert.equal(fs.readFileSync(path.join(target, 'app', 'readme.txt'), 'utf8'), 'x'.repeat(10_000));
      assert.equal(fs.readFileSync(path.join(target, 'win', 'sub', 'file.txt'), 'utf8'), 'windows');
    });

    it('installs a raw download as an executable under its command name', async () => {
      const file = archiveFile(Buffer.from('\x7fELF fake'), 'download');
      await extractArchive(file, 'raw', target, { rawName: './agent' });
      assert.equal(fs.readFileSync(path.join(target, 'agent'), 'utf8'), '\x7fELF fake');
      assert.equal(fs.statSync(path.join(target, 'agent')).mode & 0o777, 0o755);
    });
  });

  describe('cancel', () => {
    it('stops unpacking when the signal aborts and removes the target', async () => {
      for (const [kind, bytes] of [
        ['tar.gz', tarGz(Array.from({ length: 50 }, (_, n) => ({ name: `d/f${n}`, data: randomBytes(4096) })))],
        ['zip', await zip(Array.from({ length: 50 }, (_, n) => ({ name: `d/f${n}`, data: randomBytes(4096) })))],
      ] as const) {
        const controller = new AbortController();
        controller.abort();
        await assert.rejects(extractArchive(archiveFile(bytes, `cancel.${kind}`), kind, target, { signal: controller.signal }), /cancelled/);
        assert.equal(fs.existsSync(target), false, `${kind}: the target folder is gone`);
      }
    });
  });

  describe('malicious tar.gz', () => {
    it('refuses a traversal', async () => {
      await assertRefused(
        tarGz([
          { name: 'ok.txt', data: 'ok' },
          { name: '../evil', data: 'pwned' },
        ]),
        'tar.gz',
        '../evil',
      );
    });

    it('refuses a traversal in the middle of a name', async () => {
      await assertRefused(tarGz([{ name: 'a/../../staging-evil', data: 'pwned' }]), 'tar.gz', 'a/../../staging-evil');
    });

    it('refuses an absolute name', async () => {
      const outside = path.join(scratch, 'abs-evil');
      await assertRefused(tarGz([{ name: outside, data: 'pwned' }]), 'tar.gz', outside);
      assert.equal(fs.existsSync(outside), false);
    });

    it('refuses a link to an absolute folder, before anything is written through it', async () => {
      await assertRefused(
        tarGz([
          { name: 'link', type: '2', linkname: scratch },
          { name: 'link/passwd', data: 'pwned' },
        ]),
        'tar.gz',
        '"link"',
      );
      assert.equal(fs.existsSync(path.join(scratch, 'passwd')), false);
    });

    it('refuses a link that climbs out with ..', async () => {
      await assertRefused(tarGz([{ name: 'link', type: '2', linkname: '..' }]), 'tar.gz', '"link"');
      await assertRefused(tarGz([{ name: 'a/b/link', type: '2', linkname: '../../../x' }]), 'tar.gz', 'a/b/link');
    });

    it('refuses a link that escapes through an earlier link (chain)', async () => {
      await assertRefused(
        tarGz([
          { name: 'a/', type: '5' },
          { name: 'a/up', type: '2', linkname: '..' },
          { name: 'esc', type: '2', linkname: 'a/up/..' },
        ]),
        'tar.gz',
        '"esc"',
      );
    });

    it('refuses a link that a later link turns into an escape', async () => {
      // When "esc" is made, a/up does not exist and a/up/.. is "a"; once a/up -> .. exists, esc leads outside.
      await assertRefused(
        tarGz([
          { name: 'a/', type: '5' },
          { name: 'esc', type: '2', linkname: 'a/up/..' },
          { name: 'a/up', type: '2', linkname: '..' },
        ]),
        'tar.gz',
        '"esc"',
      );
    });

    it('refuses writing through an earlier link, even one that points inside', async () => {
      await assertRefused(
        tarGz([
          { name: 'real/', type: '5' },
          { name: 'alias', type: '2', linkname: 'real' },
          { name: 'alias/file', data: 'x' },
        ]),
        'tar.gz',
        /alias\/file.*through the link "alias"/,
      );
    });

    it('refuses a file entry over an extracted link', async () => {
      await assertRefused(
        tarGz([
          { name: 'f', type: '2', linkname: 'nowhere' },
          { name: 'f', data: 'x' },
        ]),
        'tar.gz',
        '"f"',
      );
    });

    it('refuses hard links outside, above, or to what was not extracted', async () => {
      await assertRefused(tarGz([{ name: 'hard', type: '1', linkname: '/etc/passwd' }]), 'tar.gz', '"hard"');
      await assertRefused(tarGz([{ name: 'hard', type: '1', linkname: '../x' }]), 'tar.gz', '"hard"');
      await assertRefused(
        tarGz([
          { name: 'hard', type: '1', linkname: 'later' },
          { name: 'later', data: 'x' },
        ]),
        'tar.gz',
        '"hard"',
      );
      await assertRefused(
        tarGz([
          { name: 'dir/', type: '5' },
          { name: 'in/f', data: 'x' },
          { name: 'via', type: '2', linkname: 'in' },
          { name: 'hard', type: '1', linkname: 'via/f' },
        ]),
        'tar.gz',
        '"hard"',
      );
    });

    it('refuses devices and FIFOs', async () => {
      await assertRefused(tarGz([{ name: 'dev/null', type: '3' }]), 'tar.gz', 'dev/null');
      await assertRefused(tarGz([{ name: 'disk', type: '4' }]), 'tar.gz', '"disk"');
      await assertRefused(tarGz([{ name: 'pipe', type: '6' }]), 'tar.gz', '"pipe"');
    });

    it('refuses an entry larger than the limit, counting what is written', async () => {
      await assertRefused(
        tarGz([
          { name: 'small', data: 'x' },
          { name: 'huge.bin', data: randomBytes(64 * 1024) },
        ]),
        'tar.gz',
        'huge.bin',
        { maxEntryBytes: 16 * 1024 },
      );
    });

    it('refuses an archive larger than the total limit', async () => {
      await assertRefused(tarGz([1, 2, 3, 4].map((n) => ({ name: `part${n}`, data: randomBytes(10 * 1024) }))), 'tar.gz', 'part3', {
        maxTotalBytes: 25 * 1024,
      });
    });

    it('refuses more entries than the limit', async () => {
      await assertRefused(tarGz(Array.from({ length: 30 }, (_, n) => ({ name: `f${n}`, data: 'x' }))), 'tar.gz', '"f20"', { maxEntries: 20 });
    });

    it('refuses a header whose size lies', async () => {
      const entries: TarEntry[] = [
        { name: 'liar', data: randomBytes(2048), claimedSize: 100 },
        { name: 'after', data: 'x' },
      ];
      await assertRefused(tarGz(entries), 'tar.gz', /could not be unpacked/);
    });

    it('refuses a corrupt archive', async () => {
      await assertRefused(randomBytes(4096), 'tar.gz', /could not be unpacked/);
      const good = tarGz([{ name: 'a', data: randomBytes(4096) }]);
      await assertRefused(good.subarray(0, good.length - 200), 'tar.gz', /could not be unpacked/);
    });
  });

  describe('malicious zip', () => {
    it('refuses ..\\evil (Windows separators)', async () => {
      const bytes = replaceBytes(await zip([{ name: 'xx/evil', data: 'pwned' }]), 'xx/evil', '..\\evil');
      await assertRefused(bytes, 'zip', '../evil');
    });

    it('refuses an absolute name', async () => {
      const bytes = replaceBytes(await zip([{ name: 'xtmp/evil', data: 'pwned' }]), 'xtmp/evil', '/tmp/evil');
      await assertRefused(bytes, 'zip', '/tmp/evil');
    });

    it('refuses a link out of the folder and writing through a link', async () => {
      await assertRefused(
        await zip([
          { name: 'link', data: '/etc', mode: 0o120777 },
          { name: 'link/passwd', data: 'x' },
        ]),
        'zip',
        '"link"',
      );
      await assertRefused(await zip([{ name: 'up', data: '..', mode: 0o120777 }]), 'zip', '"up"');
      await assertRefused(
        await zip([
          { name: 'in/', directory: true },
          { name: 'alias', data: 'in', mode: 0o120777 },
          { name: 'alias/f', data: 'x' },
        ]),
        'zip',
        'alias/f',
      );
    });

    it('refuses devices and encrypted entries', async () => {
      await assertRefused(await zip([{ name: 'dev', data: '', mode: 0o020644 }]), 'zip', '"dev"');
      await assertRefused(markEncrypted(await zip([{ name: 'secret.txt', data: 'x', compress: false }])), 'zip', 'secret.txt');
    });

    it('refuses an entry larger than the limit even when its header claims less', async () => {
      const bytes = claimUncompressedSize(await zip([{ name: 'bomb.bin', data: Buffer.alloc(512 * 1024) }]), 100);
      await assertRefused(bytes, 'zip', /bomb\.bin|could not be unpacked/, { maxEntryBytes: 1000 });
    });

    it("never lets yauzl's late size error escape once our own cap stopped the reader", async () => {
      // Which check fires first (our cap or yauzl's size check) depends on how the chunks arrive; run it often
      // enough that both orders happen. An uncaught error here would be one in the extension host.
      const bytes = claimUncompressedSize(await zip([{ name: 'bomb.bin', data: Buffer.alloc(512 * 1024) }]), 100);
      for (let i = 0; i < 100; i++) {
        fs.rmSync(target, { recursive: true, force: true });
        await assertRefused(bytes, 'zip', /bomb\.bin|could not be unpacked/, { maxEntryBytes: 1000 });
        await new Promise((resolve) => setImmediate(resolve));
      }
    });

    it('refuses an entry that unpacks to more than 1000 times its compressed size (as node-tar stops a tar.gz), counted on the bytes written', async () => {
      // 4 MiB of zeros deflate to about 4 KiB: 1,028 times (the 2 MB zip that unpacked to 2 GiB, scaled down).
      await assertRefused(
        await zip([
          { name: 'ok.txt', data: 'fine' },
          { name: 'bomb.bin', data: Buffer.alloc(4 * 1024 * 1024) },
        ]),
        'zip',
        /"bomb\.bin" unpacks to more than 1,000 times its compressed size/,
      );
      // The same check with the limit lowered: 64 KiB of zeros are 840 times their deflated size.
      await assertRefused(await zip([{ name: 'zeros', data: Buffer.alloc(64 * 1024) }]), 'zip', /"zeros" unpacks to more than 100 times/, { maxRatio: 100 });
    });

    it('refuses a zip whose entries share one body (overlapping entries): the whole archive unpacks to more than 1000 times its size', async () => {
      // Each entry alone is 999 times its deflated size, under the per-entry limit; twenty of them are not.
      const names = Array.from({ length: 20 }, (_, n) => `part${String(n).padStart(2, '0')}`);
      await assertRefused(overlappingZip(names, Buffer.alloc(512 * 1024)), 'zip', /The archive unpacks to more than 1,000 times its own size \(at "part0\d"\)/);
    });

    it('refuses a corrupt zip', async () => {
      await assertRefused(randomBytes(2048), 'zip', /could not be unpacked/);
    });
  });
});
