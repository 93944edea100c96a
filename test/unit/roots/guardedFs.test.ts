import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { AccessDeniedError, FileOperationError, type OpenDocuments, readTextFile, sliceLines, writeTextFile } from '../../../src/roots/guardedFs';
import { type GuardDecision, RootGuard } from '../../../src/roots/rootGuard';
import { type Fixture, listTree, makeFixture } from './fixture';

/** A fake of the editor's open documents, keyed by real path, recording calls. */
class FakeDocuments implements OpenDocuments {
  readonly texts = new Map<string, string>();
  readonly calls: string[] = [];
  textOf(requestedPath: string, realPath: string): Promise<string | undefined> {
    this.calls.push(`textOf ${requestedPath} ${realPath}`);
    return Promise.resolve(this.texts.get(realPath));
  }
  replace(requestedPath: string, realPath: string, content: string): Promise<boolean> {
    this.calls.push(`replace ${requestedPath} ${realPath}`);
    if (!this.texts.has(realPath)) return Promise.resolve(false);
    this.texts.set(realPath, content);
    return Promise.resolve(true);
  }
}

/** A guard that lets a test change the file system right after the first check (a race, made certain). */
class RacingGuard extends RootGuard {
  private raced = false;
  constructor(
    roots: readonly string[],
    private readonly race: (decision: GuardDecision) => void,
  ) {
    super(roots);
  }
  override async check(candidate: unknown): Promise<GuardDecision> {
    const decision = await super.check(candidate);
    if (!this.raced) {
      this.raced = true;
      this.race(decision);
    }
    return decision;
  }
}

async function rejectsWith<T extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => T, check?: (e: T) => void): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    check?.(error);
    return true;
  });
}

describe('guarded file access', () => {
  let f: Fixture;
  let guard: RootGuard;
  beforeEach(() => {
    f = makeFixture();
    guard = new RootGuard(f.roots);
  });
  afterEach(() => f.cleanup());

  describe('sliceLines', () => {
    it('returns lines line..line+limit-1 with their original endings', () => {
      const text = 'l1\r\nl2\nl3\r\nl4';
      assert.equal(sliceLines(text), text);
      assert.equal(sliceLines(text, 2, 2), 'l2\nl3\r\n');
      assert.equal(sliceLines(text, 1, 1), 'l1\r\n');
      assert.equal(sliceLines(text, 3), 'l3\r\nl4');
      assert.equal(sliceLines(text, 4, 10), 'l4');
      assert.equal(sliceLines(text, null, 2), 'l1\r\nl2\n');
    });

    it('treats line < 1 as 1, a line past the end as empty, and limit 0 as nothing', () => {
      assert.equal(sliceLines('a\nb\n', 0, 1), 'a\n');
      assert.equal(sliceLines('a\nb\n', -5), 'a\nb\n');
      assert.equal(sliceLines('a\nb\n', 3), '');
      assert.equal(sliceLines('a\nb', 3), '');
      assert.equal(sliceLines('a\nb\n', 99, 5), '');
      assert.equal(sliceLines('a\nb\n', 1, 0), '');
      assert.equal(sliceLines('', 1, 1), '');
    });
  });

  describe('readTextFile', () => {
    it('reads a file inside the roots, sliced, CRLF preserved', async () => {
      assert.equal(await readTextFile(guard, { path: f.p('app/crlf.txt') }), 'l1\r\nl2\r\nl3\r\nl4');
      assert.equal(await readTextFile(guard, { path: f.p('app/crlf.txt'), line: 2, limit: 2 }), 'l2\r\nl3\r\n');
      assert.equal(await readTextFile(guard, { path: f.p('app/file.txt'), line: 9 }), '');
      assert.equal(await readTextFile(guard, { path: f.p('app/link-in'), line: null, limit: null }), 'inner\n');
    });

    it('reads only the lines asked for, also from a 700 MB file (a whole read of it could not even be a string)', async () => {
      const big = f.p('app/big.log');
      fs.writeFileSync(big, 'alpha\nbeta\r\ngamma\n');
      fs.truncateSync(big, 700 * 1024 * 1024); // sparse: costs no disk; the rest is one long line of NULs
      assert.equal(await readTextFile(guard, { path: big, line: 2, limit: 1 }), 'beta\r\n');
      assert.equal(await readTextFile(guard, { path: big, line: 1, limit: 3 }), 'alpha\nbeta\r\ngamma\n');
    });

    it('refuses, with a clear reason, a read whose answer would be too large; asking for less works', async () => {
      const big = f.p('app/big.txt');
      fs.writeFileSync(big, `${'é'.repeat(10)}\nsecond line\n`);
      fs.truncateSync(big, 20 * 1024 * 1024);
      await rejectsWith(readTextFile(guard, { path: big }), FileOperationError, (e) => {
        assert.equal(e.problem, 'too-large');
        assert.match(e.message, /is 20 MiB; ACP Workspace answers at most 8 MiB at a time\. Read it in parts with line and limit\./);
      });
      assert.equal(await readTextFile(guard, { path: big, limit: 1 }), `${'é'.repeat(10)}\n`, 'multi-byte characters decode whole');
      const endless = f.p('app/one-line.bin');
      fs.writeFileSync(endless, 'x');
      fs.truncateSync(endless, 700 * 1024 * 1024);
      await rejectsWith(readTextFile(guard, { path: endless, limit: 1 }), FileOperationError, (e) => {
        assert.equal(e.problem, 'too-large');
        assert.match(e.message, /the lines asked for are longer than 8 MiB/);
      });
      assert.equal(await readTextFile(guard, { path: big, line: 1_000_000 }), '', 'a line past the end is empty');
    });

    it('prefers the open editor’s text (unsaved content) over the disk', async () => {
      const documents = new FakeDocuments();
      documents.texts.set(f.p('app/sub/inner.txt'), 'edited 1\nedited 2\n');
      assert.equal(await readTextFile(guard, { path: f.p('app/link-in'), line: 2 }, documents), 'edited 2\n');
      assert.deepEqual(documents.calls, [`textOf ${f.p('app/link-in')} ${f.p('app/sub/inner.txt')}`]);
      // An unsaved editor for a file not on disk yet is read too.
      documents.texts.set(f.p('app/untitled.txt'), 'draft');
      assert.equal(await readTextFile(guard, { path: f.p('app/untitled.txt') }, documents), 'draft');
      // No editor open: the disk.
      assert.equal(await readTextFile(guard, { path: f.p('app/file.txt'), limit: 1 }, documents), 'one\n');
    });

    it('refuses paths outside the roots without asking the editor', async () => {
      const documents = new FakeDocuments();
      documents.texts.set(f.p('outside/secret.txt'), 'SECRET IN EDITOR');
      await rejectsWith(readTextFile(guard, { path: f.p('app/link-out-file') }, documents), AccessDeniedError, (e) => {
        assert.equal(e.reason, 'outside-roots');
        assert.equal(e.path, f.p('app/link-out-file'));
        assert.deepEqual(e.roots, f.roots);
        assert.match(e.message, /is outside this session’s folders .*: it resolves to .*outside\/secret\.txt/);
      });
      await rejectsWith(readTextFile(guard, { path: f.p('app/link-out-dir/../secret.txt') }), AccessDeniedError);
      await rejectsWith(readTextFile(guard, { path: 'app/file.txt' }), AccessDeniedError, (e) => assert.equal(e.reason, 'not-absolute'));
      assert.deepEqual(documents.calls, []);
    });

    it('gives clear errors, not access errors, for missing files and folders', async () => {
      await rejectsWith(readTextFile(guard, { path: f.p('app/nope.txt') }), FileOperationError, (e) => {
        assert.equal(e.problem, 'not-found');
        assert.equal(e.message, `"${f.p('app/nope.txt')}" does not exist`);
      });
      await rejectsWith(readTextFile(guard, { path: f.p('app/dangling-in') }), FileOperationError, (e) => assert.equal(e.problem, 'not-found'));
      await rejectsWith(readTextFile(guard, { path: f.p('app/sub') }), FileOperationError, (e) => {
        assert.equal(e.problem, 'is-a-directory');
        assert.match(e.message, /is a folder, not a file/);
      });
    });

    it('does not follow a symlink planted at the file after the check', async () => {
      const racing = new RacingGuard(f.roots, (decision) => {
        assert.ok(decision.allowed);
        fs.unlinkSync(decision.realPath);
        fs.symlinkSync(f.p('outside/secret.txt'), decision.realPath);
      });
      await rejectsWith(readTextFile(racing, { path: f.p('app/file.txt') }), AccessDeniedError, (e) => assert.equal(e.reason, 'changed'));
    });

    it('notices a parent folder swapped for a symlink after the check', async () => {
      fs.writeFileSync(f.p('outside/dir/sub/inner.txt'), 'OUTSIDE INNER\n');
      const racing = new RacingGuard(f.roots, () => {
        fs.renameSync(f.p('app/sub'), f.p('app/sub-moved'));
        fs.symlinkSync(f.p('outside/dir/sub'), f.p('app/sub'));
      });
      await rejectsWith(readTextFile(racing, { path: f.p('app/sub/inner.txt') }), AccessDeniedError, (e) => assert.equal(e.reason, 'changed'));
    });
  });

  describe('writeTextFile', () => {
    it('writes a file inside the roots, creating missing folders', async () => {
      await writeTextFile(guard, { path: f.p('app/new/deeper/file.txt'), content: 'made\r\n' });
      assert.equal(fs.readFileSync(f.p('app/new/deeper/file.txt'), 'utf8'), 'made\r\n');
      await writeTextFile(guard, { path: f.p('lib/nested/fresh.txt'), content: '' });
      assert.equal(fs.readFileSync(f.p('lib/nested/fresh.txt'), 'utf8'), '');
    });

    it('replaces the whole content of an existing file', async () => {
      await writeTextFile(guard, { path: f.p('app/file.txt'), content: 'short' });
      assert.equal(fs.readFileSync(f.p('app/file.txt'), 'utf8'), 'short');
    });

    it('writes the real file behind an inside symlink, keeping the link', async () => {
      await writeTextFile(guard, { path: f.p('app/link-in'), content: 'via link\n' });
      assert.equal(fs.readFileSync(f.p('app/sub/inner.txt'), 'utf8'), 'via link\n');
      assert.ok(fs.lstatSync(f.p('app/link-in')).isSymbolicLink());
      await writeTextFile(guard, { path: f.p('app/dangling-in'), content: 'target created\n' });
      assert.equal(fs.readFileSync(f.p('app/sub/not-yet.txt'), 'utf8'), 'target created\n');
      assert.ok(fs.lstatSync(f.p('app/dangling-in')).isSymbolicLink());
    });

    it('refuses a write through a symlinked parent leading outside and creates nothing outside', async () => {
      const before = listTree(f.p('outside'));
      for (const target of [
        'app/link-out-dir/new.txt',
        'app/link-out-dir/newdir/new.txt',
        'app/dangling-dir-out/new.txt',
        'app/dangling-out',
        'app/link-out-file',
        'app/link-out-dir/../evil.txt',
        'app2/new.txt',
      ]) {
        await rejectsWith(writeTextFile(guard, { path: f.p(target), content: 'EVIL' }), AccessDeniedError, (e) =>
          assert.equal(e.reason, 'outside-roots', target),
        );
      }
      assert.deepEqual(listTree(f.p('outside')), before);
      assert.equal(fs.readFileSync(f.p('outside/secret.txt'), 'utf8'), 'SECRET\n');
    });

    it('does not follow a symlink planted at the final component of a new file', async () => {
      for (const outsideTarget of ['outside/secret.txt', 'outside/planted.txt']) {
        const before = listTree(f.p('outside'));
        const racing = new RacingGuard(f.roots, (decision) => {
          assert.ok(decision.allowed && !decision.exists);
          fs.symlinkSync(f.p(outsideTarget), decision.realPath);
        });
        const name = `app/new-${outsideTarget.replace(/\W/g, '-')}.txt`;
        await rejectsWith(writeTextFile(racing, { path: f.p(name), content: 'EVIL' }), AccessDeniedError, (e) => {
          assert.equal(e.reason, 'changed');
          assert.match(e.message, /symbolic link appeared/);
        });
        assert.deepEqual(listTree(f.p('outside')), before);
        assert.equal(fs.readFileSync(f.p('outside/secret.txt'), 'utf8'), 'SECRET\n');
      }
    });

    it('does not create folders through a parent swapped for a symlink after the check', async () => {
      const before = listTree(f.p('outside'));
      const racing = new RacingGuard(f.roots, () => fs.symlinkSync(f.p('outside/dir'), f.p('app/newdir')));
      await rejectsWith(writeTextFile(racing, { path: f.p('app/newdir/deeper/file.txt'), content: 'EVIL' }), AccessDeniedError, (e) =>
        assert.equal(e.reason, 'changed'),
      );
      assert.deepEqual(listTree(f.p('outside')), before);
    });

    it('updates an open editor instead of the file on disk', async () => {
      const documents = new FakeDocuments();
      documents.texts.set(f.p('app/sub/inner.txt'), 'old editor text');
      await writeTextFile(guard, { path: f.p('app/link-in'), content: 'new text' }, documents);
      assert.equal(documents.texts.get(f.p('app/sub/inner.txt')), 'new text');
      assert.equal(fs.readFileSync(f.p('app/sub/inner.txt'), 'utf8'), 'inner\n');
      assert.deepEqual(documents.calls, [`replace ${f.p('app/link-in')} ${f.p('app/sub/inner.txt')}`]);
      // No editor open: the disk.
      await writeTextFile(guard, { path: f.p('app/file.txt'), content: 'disk' }, documents);
      assert.equal(fs.readFileSync(f.p('app/file.txt'), 'utf8'), 'disk');
    });

    it('never asks the editor about a refused path', async () => {
      const documents = new FakeDocuments();
      documents.texts.set(f.p('outside/secret.txt'), 'SECRET');
      await rejectsWith(writeTextFile(guard, { path: f.p('app/link-out-file'), content: 'x' }, documents), AccessDeniedError);
      assert.deepEqual(documents.calls, []);
      assert.equal(documents.texts.get(f.p('outside/secret.txt')), 'SECRET');
    });

    it('gives clear errors for folders', async () => {
      await rejectsWith(writeTextFile(guard, { path: f.p('app/sub'), content: 'x' }), FileOperationError, (e) => assert.equal(e.problem, 'is-a-directory'));
      await rejectsWith(writeTextFile(guard, { path: f.p('app/newdir/'), content: 'x' }), FileOperationError, (e) => assert.equal(e.problem, 'is-a-directory'));
      assert.equal(fs.existsSync(f.p('app/newdir')), false);
    });
  });
});
