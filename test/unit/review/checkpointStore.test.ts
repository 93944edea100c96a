import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitCheckpointStore, type CheckpointStoreOptions } from '../../../src/review/checkpointStore';
import { GitUnavailableError } from '../../../src/review/git';
import type { Checkpoint, CheckpointRoot } from '../../../src/review/types';
import type { Logger } from '../../../src/common/logger';

/** A user's git, for building fixture repositories (their own config kept out). */
function userGit(cwd: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_AUTHOR_NAME: 'u',
    GIT_AUTHOR_EMAIL: 'u@x',
    GIT_COMMITTER_NAME: 'u',
    GIT_COMMITTER_EMAIL: 'u@x',
  };
  for (const name of Object.keys(env)) if (/^GIT_(DIR|WORK_TREE|INDEX_FILE)$/.test(name)) delete env[name];
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' });
}

describe('GitCheckpointStore', function () {
  this.timeout(30_000);
  let base: string;
  let storageDir: string;
  const stores: GitCheckpointStore[] = [];
  const problems: string[] = [];
  const logger: Logger = { trace: () => undefined, info: () => undefined, warn: (m) => problems.push(m), error: (m) => problems.push(m) };

  beforeEach(() => {
    base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-checkpoints-')));
    storageDir = path.join(base, 'storage');
    problems.length = 0;
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) {
      await store.flush();
      store.dispose();
    }
    fs.rmSync(base, { recursive: true, force: true });
  });

  function root(name: string, files: Record<string, string | Buffer> = {}): CheckpointRoot {
    const dir = path.join(base, name);
    fs.mkdirSync(dir, { recursive: true });
    for (const [file, content] of Object.entries(files)) write(dir, file, content);
    return { name, path: dir };
  }
  function write(dir: string, file: string, content: string | Buffer): void {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  async function open(roots: CheckpointRoot[], options: Partial<CheckpointStoreOptions> = {}): Promise<GitCheckpointStore> {
    const store = await GitCheckpointStore.open({ storageDir, sessionKey: GitCheckpointStore.sessionKey('agent', 's1'), roots, logger, ...options });
    stores.push(store);
    return store;
  }
  async function text(store: GitCheckpointStore, checkpoint: Checkpoint, r: CheckpointRoot, file: string): Promise<string | undefined> {
    const state = await store.read(checkpoint, r.path, file);
    return state && Buffer.from(state.bytes).toString('utf8');
  }

  it('captures modify, create, delete and rename, with line counts', async () => {
    const r = root('app', { 'a.txt': 'one\ntwo\n', 'gone.txt': 'bye\n', 'old name.txt': 'a\nb\nc\nd\ne\nf\n' });
    const store = await open([r]);
    const c1 = await store.take('Before turn 1');
    write(r.path, 'a.txt', 'one\ntwo\nthree\n');
    write(r.path, 'new\nline ü.txt', 'fresh\n');
    fs.rmSync(path.join(r.path, 'gone.txt'));
    fs.renameSync(path.join(r.path, 'old name.txt'), path.join(r.path, 'new name.txt'));
    const c2 = await store.take('Before turn 2');
    const changes = await store.changes(c1, c2);
    assert.deepEqual(
      changes.map((c) => [c.path, c.status, c.oldPath, c.added, c.removed, c.binary]),
      [
        ['a.txt', 'modified', undefined, 1, 0, false],
        ['gone.txt', 'deleted', undefined, 0, 1, false],
        ['new\nline ü.txt', 'added', undefined, 1, 0, false],
        ['new name.txt', 'renamed', 'old name.txt', 0, 0, false],
      ],
    );
    assert.ok(changes.every((c) => c.root === r.path));
    assert.equal(await text(store, c1, r, 'a.txt'), 'one\ntwo\n');
    assert.equal(await text(store, c2, r, 'a.txt'), 'one\ntwo\nthree\n');
    assert.equal(await text(store, c2, r, 'new\nline ü.txt'), 'fresh\n');
    assert.equal(await store.read(c2, r.path, 'gone.txt'), undefined);
    assert.equal(await store.read(c2, r.path, '../app/a.txt'), undefined);
    assert.deepEqual(
      store.list().map((c) => c.label),
      ['Before turn 1', 'Before turn 2'],
    );
    assert.equal(store.get(c2.id), c2);
  });

  it('numbers checkpoints taken at the same time one after another (a chat opening while its first turn starts)', async () => {
    const r = root('app', { 'a.txt': 'x' });
    const store = await open([r]);
    const taken = await Promise.all([store.take('Session opened'), store.take('Before turn 1'), store.take('Before turn 2')]);
    assert.deepEqual(
      taken.map((c) => c.label),
      ['Session opened', 'Before turn 1', 'Before turn 2'],
    );
    assert.equal(new Set(taken.map((c) => c.id)).size, 3, 'three different ids');
    assert.deepEqual(
      store.list().map((c) => c.id),
      taken.map((c) => c.id),
    );
  });

  it('reuses the tree when nothing changed, and captures an empty root', async () => {
    const r = root('app', { 'a.txt': 'x' });
    const empty = root('empty');
    const store = await open([r, empty]);
    const c1 = await store.take('one');
    const c2 = await store.take('two');
    assert.equal(c1.trees[r.path], c2.trees[r.path]);
    assert.ok(c2.trees[empty.path]);
    assert.deepEqual(await store.changes(c1, c2), []);
  });

  it('keeps binary files byte-exact, executables and symbolic links as links', async () => {
    const binary = Buffer.from([0, 1, 2, 255, 0, 10, 13, 10, 0]);
    const r = root('app', { 'a.txt': 'x\n' });
    const store = await open([r]);
    const c1 = await store.take('one');
    write(r.path, 'blob.bin', binary);
    write(r.path, 'run.sh', '#!/bin/sh\n');
    fs.chmodSync(path.join(r.path, 'run.sh'), 0o755);
    fs.symlinkSync('a.txt', path.join(r.path, 'link'));
    fs.symlinkSync('../../outside', path.join(r.path, 'link-out'));
    const c2 = await store.take('two');
    const changes = await store.changes(c1, c2);
    assert.deepEqual(changes.find((c) => c.path === 'blob.bin')?.binary, true);
    assert.deepEqual(Buffer.from((await store.read(c2, r.path, 'blob.bin'))!.bytes), binary);
    assert.equal((await store.read(c2, r.path, 'run.sh'))?.mode, 'executable');
    const link = await store.read(c2, r.path, 'link');
    assert.equal(link?.mode, 'symlink');
    assert.equal(Buffer.from(link!.bytes).toString(), 'a.txt');
    assert.equal(Buffer.from((await store.read(c2, r.path, 'link-out'))!.bytes).toString(), '../../outside');
  });

  it('skips files over the size cap (and drops a file that grew over it), reporting each once per change', async () => {
    const r = root('app', { 'small.txt': 'x', 'big.bin': Buffer.alloc(2000, 1) });
    const store = await open([r], { maxFileBytes: 1000 });
    const c1 = await store.take('one');
    assert.deepEqual(c1.skipped, [{ root: r.path, path: 'big.bin', reason: 'too-large' }]);
    assert.equal(await store.read(c1, r.path, 'big.bin'), undefined);
    const c2 = await store.take('two');
    assert.deepEqual(c2.skipped, []);
    write(r.path, 'small.txt', Buffer.alloc(3000, 2));
    const c3 = await store.take('three');
    assert.deepEqual(c3.skipped, [{ root: r.path, path: 'small.txt', reason: 'too-large' }]);
    assert.equal(await store.read(c3, r.path, 'small.txt'), undefined);
    // Over the cap it is in no tree, yet it was not deleted (nor is it added once it shrinks again).
    assert.deepEqual(c3.large, { [r.path]: ['big.bin', 'small.txt'] });
    assert.deepEqual(await store.changes(c2, c3), []);
    write(r.path, 'small.txt', 'y');
    const c4 = await store.take('four');
    assert.deepEqual(await store.changes(c3, c4), []);
    assert.equal(await text(store, c1, r, 'small.txt'), 'x');
  });

  it("honours the root's .gitignore and the default exclusions", async () => {
    const r = root('app', { '.gitignore': '*.log\nbuild/\n', 'a.txt': 'x', 'debug.log': 'no', 'build/out.js': 'no', 'node_modules/p/index.js': 'no' });
    const store = await open([r]);
    const c1 = await store.take('one');
    assert.equal(await store.read(c1, r.path, 'debug.log'), undefined);
    assert.equal(await store.read(c1, r.path, 'build/out.js'), undefined);
    assert.equal(await store.read(c1, r.path, 'node_modules/p/index.js'), undefined);
    assert.equal(await text(store, c1, r, 'a.txt'), 'x');
  });

  it('.gitattributes (eol=crlf, filters, ident) do not alter the stored bytes', async () => {
    const r = root('app', {
      '.gitattributes': '* text=auto eol=crlf\n*.id ident\n*.lfs filter=lfs diff=lfs merge=lfs -text\n*.enc working-tree-encoding=UTF-16\n',
      'lf.txt': 'a\nb\n',
      'crlf.txt': 'a\r\nb\r\n',
      'mixed.txt': 'a\r\nb\n',
      'x.id': '$Id: 1234 $\n',
      'y.lfs': 'not a pointer\n',
      'z.enc': 'plain',
    });
    const store = await open([r]);
    const c1 = await store.take('one');
    for (const file of ['lf.txt', 'crlf.txt', 'mixed.txt', 'x.id', 'y.lfs', 'z.enc']) {
      assert.equal(await text(store, c1, r, file), fs.readFileSync(path.join(r.path, file), 'utf8'), file);
    }
  });

  it('captures a nested git repository with paths relative to the root', async () => {
    const r = root('app', { 'top.txt': 'top\n', 'sub/repo/file.ts': 'one\n', 'sub/repo/.gitignore': 'ignored.txt\n', 'sub/repo/ignored.txt': 'no' });
    userGit(path.join(r.path, 'sub/repo'), 'init', '-q');
    userGit(path.join(r.path, 'sub/repo'), 'add', '-A');
    userGit(path.join(r.path, 'sub/repo'), 'commit', '-qm', 'x');
    const store = await open([r]);
    const c1 = await store.take('one');
    assert.equal(await text(store, c1, r, 'sub/repo/file.ts'), 'one\n');
    assert.equal(await store.read(c1, r.path, 'sub/repo/ignored.txt'), undefined);
    assert.equal(await store.read(c1, r.path, 'sub/repo/.git/HEAD'), undefined);
    write(r.path, 'sub/repo/file.ts', 'two\n');
    write(r.path, 'sub/repo/deep/new.ts', 'new\n');
    const c2 = await store.take('two');
    assert.deepEqual(
      (await store.changes(c1, c2)).map((c) => [c.path, c.status]),
      [
        ['sub/repo/deep/new.ts', 'added'],
        ['sub/repo/file.ts', 'modified'],
      ],
    );
    const c3 = await store.take('three');
    assert.equal(c3.trees[r.path], c2.trees[r.path]);
    assert.equal(userGit(path.join(r.path, 'sub/repo'), 'status', '--porcelain'), ' M file.ts\n?? deep/\n');
  });

  it('evicts the oldest checkpoints beyond maxCheckpoints and says so', async () => {
    const r = root('app', { 'a.txt': '0' });
    const store = await open([r], { maxCheckpoints: 2 });
    const evicted: string[][] = [];
    store.onDidEvict((ids) => evicted.push([...ids]));
    const taken: Checkpoint[] = [];
    for (let i = 1; i <= 4; i++) {
      write(r.path, 'a.txt', String(i));
      taken.push(await store.take(`t${i}`));
    }
    assert.deepEqual(evicted, [['c1'], ['c2']]);
    assert.deepEqual(
      store.list().map((c) => c.id),
      ['c3', 'c4'],
    );
    assert.equal(await text(store, taken[3]!, r, 'a.txt'), '4');
  });

  it('evicts across sessions to stay within maxStoreBytes, and collects the garbage', async () => {
    const r = root('app');
    const other = await open([r], { sessionKey: GitCheckpointStore.sessionKey('agent', 'old'), maxStoreBytes: 1024 ** 3 });
    for (let i = 0; i < 4; i++) {
      write(r.path, `f${i}.bin`, randomBytes(200_000));
      await other.take(`old ${i}`);
    }
    const evictedOld: string[] = [];
    other.onDidEvict((ids) => evictedOld.push(...ids));
    for (let i = 0; i < 4; i++) fs.rmSync(path.join(r.path, `f${i}.bin`));
    const store = await open([r], { maxStoreBytes: 200_000 });
    await store.take('new');
    await store.flush();
    assert.ok(evictedOld.length > 0, 'the other session lost checkpoints');
    assert.equal(store.list().length, 1);
  });

  it('reopens a session with the same key: the same checkpoints, readable', async () => {
    const r = root('app', { 'a.txt': 'v1' });
    const first = await open([r]);
    const c1 = await first.take('one');
    first.dispose();
    const again = await open([r]);
    assert.deepEqual(again.list(), [c1]);
    assert.equal(await text(again, again.get('c1')!, r, 'a.txt'), 'v1');
    write(r.path, 'a.txt', 'v2');
    const c2 = await again.take('two');
    assert.equal(c2.id, 'c2');
    assert.deepEqual(
      (await again.changes(c1, c2)).map((c) => c.path),
      ['a.txt'],
    );
  });

  it('reports a corrupt session record and starts empty', async () => {
    const r = root('app', { 'a.txt': 'x' });
    const key = GitCheckpointStore.sessionKey('agent', 's1');
    fs.mkdirSync(path.join(storageDir, 'sessions'), { recursive: true });
    fs.writeFileSync(path.join(storageDir, 'sessions', `${key}.json`), '{"version":1,"checkpoints":[{"id":');
    const store = await open([r]);
    assert.deepEqual(store.list(), []);
    assert.ok(problems.some((p) => p.includes('not valid JSON')));
    fs.writeFileSync(path.join(storageDir, 'sessions', `${key}.json`), '{"version":1,"nextId":"x"}');
    assert.deepEqual((await open([r])).list(), []);
    assert.ok(problems.some((p) => p.includes('not in the expected form')));
    await store.take('works');
  });

  it('captures two roots in one checkpoint and skips a root that is gone', async () => {
    const a = root('a', { 'x.txt': 'a' });
    const b = root('b', { 'x.txt': 'b' });
    const store = await open([a, b]);
    const c1 = await store.take('one');
    write(a.path, 'x.txt', 'a2');
    write(b.path, 'y.txt', 'b2');
    const gone = { name: 'gone', path: path.join(base, 'gone') };
    store.setRoots([a, b, gone]);
    const c2 = await store.take('two');
    assert.deepEqual(
      (await store.changes(c1, c2)).map((c) => [c.root, c.path, c.status]),
      [
        [a.path, 'x.txt', 'modified'],
        [b.path, 'y.txt', 'added'],
      ],
    );
    assert.deepEqual(c2.skipped, [{ root: gone.path, path: '', reason: 'root-unavailable' }]);
    store.setRoots([a]);
    const c3 = await store.take('three');
    assert.deepEqual(Object.keys(c3.trees), [a.path]);
    // b is not in c3: nothing is known about it there, so nothing is claimed (its files were not deleted).
    assert.deepEqual(await store.changes(c2, c3), []);
    assert.deepEqual(await store.changes(c3, c2), []);
  });

  it('does not capture a root over maxFiles, and claims no change between a checkpoint that did and one that did not', async () => {
    const r = root('app', { a: '1', b: '2', c: '3' });
    const other = root('lib', { x: '1' });
    const store = await open([r, other], { maxFiles: 2 });
    const c1 = await store.take('one');
    assert.deepEqual(c1.trees, { [other.path]: c1.trees[other.path] });
    assert.deepEqual(c1.skipped, [{ root: r.path, path: '', reason: 'too-many-files' }]);
    // Shrunk below the cap: captured now, but compared with c1 its files are neither added nor deleted.
    fs.rmSync(path.join(r.path, 'a'));
    fs.rmSync(path.join(r.path, 'b'));
    write(other.path, 'x', '2');
    const c2 = await store.take('two');
    assert.ok(c2.trees[r.path]);
    assert.deepEqual(
      (await store.changes(c1, c2)).map((c) => [c.root, c.path, c.status]),
      [[other.path, 'x', 'modified']],
    );
    assert.deepEqual(
      (await store.changes(c2, c1)).map((c) => [c.root, c.path, c.status]),
      [[other.path, 'x', 'modified']],
    );
  });

  it("leaves the user's own repository untouched", async () => {
    const r = root('repo', { 'a.txt': 'committed\n', 'b.txt': 'b\n' });
    userGit(r.path, 'init', '-q');
    userGit(r.path, 'add', '-A');
    userGit(r.path, 'commit', '-qm', 'first');
    write(r.path, 'a.txt', 'stashed\n');
    userGit(r.path, 'stash', '-q');
    write(r.path, 'b.txt', 'staged\n');
    userGit(r.path, 'add', 'b.txt');
    write(r.path, 'a.txt', 'unstaged\n');
    write(r.path, 'new.txt', 'untracked\n');
    const snapshot = () => ({
      status: userGit(r.path, 'status', '--porcelain'),
      stash: userGit(r.path, 'stash', 'list'),
      head: userGit(r.path, 'rev-parse', 'HEAD'),
      index: fs.readFileSync(path.join(r.path, '.git/index')).toString('base64'),
      config: fs.readFileSync(path.join(r.path, '.git/config')).toString('base64'),
      refs: userGit(r.path, 'for-each-ref'),
    });
    const before = snapshot();
    const store = await open([r]);
    const c1 = await store.take('one');
    write(r.path, 'c.txt', 'agent\n');
    await store.take('two');
    fs.rmSync(path.join(r.path, 'c.txt'));
    assert.deepEqual(snapshot(), before);
    assert.equal(await text(store, c1, r, 'a.txt'), 'unstaged\n');
    assert.equal(await store.read(c1, r.path, '.git/config'), undefined);
  });

  it('merges text three ways, clean and with conflicts', async () => {
    const store = await open([]);
    const enc = (s: string) => Buffer.from(s);
    const clean = await store.merge(enc('a\nb\nc\n'), enc('A\nb\nc\n'), enc('a\nb\nC\n'));
    assert.deepEqual({ clean: clean.clean, text: Buffer.from(clean.bytes).toString() }, { clean: true, text: 'A\nb\nC\n' });
    const conflict = await store.merge(enc('a\n'), enc('ours\n'), enc('theirs\n'));
    assert.equal(conflict.clean, false);
    assert.match(Buffer.from(conflict.bytes).toString(), /^<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\n$/);
    assert.deepEqual(fs.readdirSync(path.join(storageDir, 'tmp')), []);
  });

  it('keeps contents no checkpoint has, across a reopen', async () => {
    const store = await open([]);
    const id = await store.keep({ bytes: Buffer.from('kept\r\n'), mode: 'executable' });
    const link = await store.keep({ bytes: Buffer.from('target'), mode: 'symlink' });
    assert.deepEqual(await store.readKept(id), { bytes: new Uint8Array(Buffer.from('kept\r\n')), mode: 'executable' });
    store.dispose();
    const again = await open([]);
    assert.equal((await again.readKept(link))?.mode, 'symlink');
    assert.equal(await again.readKept('file:0000000000000000000000000000000000000000'), undefined);
    assert.equal(await again.readKept('nonsense'), undefined);
  });

  it('says clearly when git is missing', async () => {
    await assert.rejects(
      GitCheckpointStore.open({ storageDir, sessionKey: 'k', roots: [], git: path.join(base, 'no-such-git') }),
      (error: unknown) => error instanceof GitUnavailableError && /Git 2\.32 or later/.test(error.message) && /Install Git/.test(error.message),
    );
  });
});
