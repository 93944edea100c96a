import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GuardedReviewFs, ReviewFsRefusedError } from '../../../src/review/reviewFs';
import { UnsafePathError } from '../../../src/review/relativePath';
import { RootGuard } from '../../../src/roots/rootGuard';

const bytes = (s: string) => new Uint8Array(Buffer.from(s));
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString());

describe('GuardedReviewFs', () => {
  let base: string;
  let app: string;
  let lib: string;
  let rfs: GuardedReviewFs;
  const dirty = new Set<string>();

  beforeEach(() => {
    base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-reviewfs-')));
    app = path.join(base, 'app');
    lib = path.join(base, 'lib');
    fs.mkdirSync(app);
    fs.mkdirSync(lib);
    fs.mkdirSync(path.join(base, 'outside'));
    fs.writeFileSync(path.join(base, 'outside', 'secret.txt'), 'secret\n');
    rfs = new GuardedReviewFs(new RootGuard([app, lib]), (root, p) => dirty.has(`${root}:${p}`));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('writes bytes exactly, creating folders inside the root, and reads them back', async () => {
    const crlf = 'a\r\nb\r\nno newline';
    await rfs.write(app, 'deep/er/file.txt', { bytes: bytes(crlf), mode: 'file' });
    assert.equal(fs.readFileSync(path.join(app, 'deep/er/file.txt'), 'utf8'), crlf);
    assert.deepEqual(await rfs.read(app, 'deep/er/file.txt'), { bytes: bytes(crlf), mode: 'file' });
    assert.equal(await rfs.read(app, 'missing.txt'), undefined);
    assert.equal(await rfs.read(app, 'deep'), undefined, 'a folder is not a file');
  });

  it('keeps and sets the executable bit per mode', async () => {
    await rfs.write(app, 'run.sh', { bytes: bytes('#!/bin/sh\n'), mode: 'executable' });
    assert.notEqual(fs.statSync(path.join(app, 'run.sh')).mode & 0o100, 0);
    assert.equal((await rfs.read(app, 'run.sh'))?.mode, 'executable');
    await rfs.write(app, 'run.sh', { bytes: bytes('plain\n'), mode: 'file' });
    assert.equal(fs.statSync(path.join(app, 'run.sh')).mode & 0o111, 0);
    assert.equal(text((await rfs.read(app, 'run.sh'))?.bytes), 'plain\n');
  });

  it('reads a link as its target and recreates it; writing a file over a link replaces the link', async () => {
    fs.writeFileSync(path.join(app, 'target.txt'), 'target\n');
    fs.symlinkSync('target.txt', path.join(app, 'link'));
    assert.deepEqual(await rfs.read(app, 'link'), { bytes: bytes('target.txt'), mode: 'symlink' });
    await rfs.write(app, 'link2', { bytes: bytes('target.txt'), mode: 'symlink' });
    assert.equal(fs.readlinkSync(path.join(app, 'link2')), 'target.txt');
    await rfs.write(app, 'link', { bytes: bytes('own\n'), mode: 'file' });
    assert.equal(fs.lstatSync(path.join(app, 'link')).isFile(), true);
    assert.equal(fs.readFileSync(path.join(app, 'target.txt'), 'utf8'), 'target\n', 'not written through the link');
  });

  it('removes a file or link with undefined, never a folder', async () => {
    fs.writeFileSync(path.join(app, 'gone.txt'), 'x');
    await rfs.write(app, 'gone.txt', undefined);
    assert.equal(fs.existsSync(path.join(app, 'gone.txt')), false);
    await rfs.write(app, 'never-there.txt', undefined);
    fs.mkdirSync(path.join(app, 'folder'));
    await assert.rejects(rfs.write(app, 'folder', undefined), ReviewFsRefusedError);
  });

  it('refuses writing through a link that leads outside the roots', async () => {
    fs.symlinkSync(path.join(base, 'outside', 'secret.txt'), path.join(app, 'escape.txt'));
    fs.symlinkSync(path.join(base, 'outside'), path.join(app, 'escape-dir'));
    await assert.rejects(rfs.write(app, 'escape.txt', { bytes: bytes('pwned'), mode: 'file' }), ReviewFsRefusedError);
    await assert.rejects(rfs.write(app, 'escape-dir/secret.txt', { bytes: bytes('pwned'), mode: 'file' }), ReviewFsRefusedError);
    await assert.rejects(rfs.write(app, 'escape-dir/new/x.txt', { bytes: bytes('pwned'), mode: 'file' }), ReviewFsRefusedError);
    await assert.rejects(rfs.read(app, 'escape-dir/secret.txt'), ReviewFsRefusedError);
    assert.equal(fs.readFileSync(path.join(base, 'outside', 'secret.txt'), 'utf8'), 'secret\n');
    assert.equal(fs.existsSync(path.join(base, 'outside', 'new')), false);
  });

  it('refuses a path that lands in another root than the one named, and unsafe relative paths', async () => {
    fs.symlinkSync(lib, path.join(app, 'to-lib'));
    await assert.rejects(rfs.write(app, 'to-lib/x.txt', { bytes: bytes('x'), mode: 'file' }), ReviewFsRefusedError);
    for (const bad of ['../outside/secret.txt', '/etc/passwd', 'a/../../x', './x', 'a//b', '']) {
      await assert.rejects(rfs.write(app, bad, { bytes: bytes('x'), mode: 'file' }), UnsafePathError, bad);
    }
    assert.equal(fs.existsSync(path.join(lib, 'x.txt')), false);
  });

  it('asks the callback whether an editor is dirty', () => {
    dirty.add(`${app}:a.txt`);
    assert.equal(rfs.isDirty(app, 'a.txt'), true);
    assert.equal(rfs.isDirty(app, 'b.txt'), false);
  });
});
