import * as l10n from '@vscode/l10n';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { type GuardRefusal, InvalidRootError, RootGuard } from '../../../src/roots/rootGuard';
import { type Fixture, makeFixture } from './fixture';

type Expectation = { readonly allow: string; readonly root?: string; readonly exists?: boolean } | { readonly refuse: GuardRefusal; readonly message?: RegExp };

interface AttackCase {
  readonly name: string;
  /** The candidate path, built from the fixture. */
  readonly path: (f: Fixture) => unknown;
  /** Expected decision; `allow` is the real path relative to the fixture's base. */
  readonly expect: Expectation;
}

const LONG_NAME = 'n'.repeat(256);

/** The attack matrix: each case builds a candidate in the scratch tree and says what the guard must decide. */
const CASES: readonly AttackCase[] = [
  // Plain access.
  { name: 'a file inside the first root', path: (f) => f.p('app/file.txt'), expect: { allow: 'app/file.txt', root: 'app', exists: true } },
  { name: 'a file in the second root', path: (f) => f.p('lib/src/greet.ts'), expect: { allow: 'lib/src/greet.ts', root: 'lib' } },
  {
    name: 'a file in a nested root (most specific root reported)',
    path: (f) => f.p('lib/nested/deep.txt'),
    expect: { allow: 'lib/nested/deep.txt', root: 'lib/nested' },
  },
  { name: 'the root itself', path: (f) => f.p('app'), expect: { allow: 'app', root: 'app', exists: true } },
  { name: 'the root with a trailing separator', path: (f) => f.p('app/'), expect: { allow: 'app', root: 'app' } },
  { name: 'a name containing ".." as a substring (a..b)', path: (f) => f.p('app/a..b'), expect: { allow: 'app/a..b', exists: true } },
  {
    name: 'a new file in a missing nested folder inside a root',
    path: (f) => f.p('app/new/deeper/file.txt'),
    expect: { allow: 'app/new/deeper/file.txt', exists: false },
  },
  {
    name: 'a new file with "." and empty segments in the missing tail',
    path: (f) => f.p('app/new/./deeper//file.txt'),
    expect: { allow: 'app/new/deeper/file.txt', exists: false },
  },

  // Symlinks.
  {
    name: 'symlink inside → outside (file)',
    path: (f) => f.p('app/link-out-file'),
    expect: { refuse: 'outside-roots', message: /it resolves to .*\/outside\/secret\.txt/ },
  },
  {
    name: 'symlink inside → outside (folder), a file through it',
    path: (f) => f.p('app/link-out-dir/x'),
    expect: { refuse: 'outside-roots', message: /resolves to .*\/outside\/dir\/x/ },
  },
  { name: 'symlink inside → outside (folder) itself', path: (f) => f.p('app/link-out-dir'), expect: { refuse: 'outside-roots' } },
  {
    name: 'a new file under a symlinked parent leading outside',
    path: (f) => f.p('app/link-out-dir/new.txt'),
    expect: { refuse: 'outside-roots', message: /outside\/dir\/new\.txt/ },
  },
  {
    name: 'a new file under a dangling folder symlink leading outside',
    path: (f) => f.p('app/dangling-dir-out/new.txt'),
    expect: { refuse: 'outside-roots', message: /outside\/missing-dir\/new\.txt/ },
  },
  { name: 'symlink inside → inside (allowed, real path is the target)', path: (f) => f.p('app/link-in'), expect: { allow: 'app/sub/inner.txt', exists: true } },
  { name: 'symlink into the other root (relative)', path: (f) => f.p('app/link-in-dir/greet.ts'), expect: { allow: 'lib/src/greet.ts', root: 'lib' } },
  {
    name: 'symlink into the other root (absolute target)',
    path: (f) => f.p('app/link-lib-abs/nested/deep.txt'),
    expect: { allow: 'lib/nested/deep.txt', root: 'lib/nested' },
  },
  { name: 'a chain of three symlinks staying inside', path: (f) => f.p('app/chain-1/inner.txt'), expect: { allow: 'app/sub/inner.txt' } },
  { name: 'symlink to "." used repeatedly', path: (f) => f.p('app/link-self-dir/link-self-dir/file.txt'), expect: { allow: 'app/file.txt' } },
  { name: 'symlink to the parent of the roots, then outside', path: (f) => f.p('app/link-up/outside/secret.txt'), expect: { refuse: 'outside-roots' } },
  { name: 'symlink to the parent of the roots, then back into a root', path: (f) => f.p('app/link-up/app/file.txt'), expect: { allow: 'app/file.txt' } },
  { name: 'symlink loop a → b → a', path: (f) => f.p('app/loop-a'), expect: { refuse: 'symlink-loop' } },
  { name: 'symlink self-loop', path: (f) => f.p('app/self'), expect: { refuse: 'symlink-loop' } },
  { name: 'a new file under a symlink loop', path: (f) => f.p('app/loop-b/new.txt'), expect: { refuse: 'symlink-loop' } },
  { name: 'dangling symlink to outside', path: (f) => f.p('app/dangling-out'), expect: { refuse: 'outside-roots', message: /outside\/nothing\.txt/ } },
  {
    name: 'dangling symlink inside (real path is its missing target)',
    path: (f) => f.p('app/dangling-in'),
    expect: { allow: 'app/sub/not-yet.txt', exists: false },
  },
  { name: 'a symlink to a file used as a folder', path: (f) => f.p('app/link-in/child'), expect: { refuse: 'not-a-directory' } },

  // "..".
  { name: '".." escape /app/../outside/secret.txt', path: (f) => f.p('app/../outside/secret.txt'), expect: { refuse: 'outside-roots' } },
  { name: '".." escape /app/sub/../../outside', path: (f) => f.p('app/sub/../../outside'), expect: { refuse: 'outside-roots' } },
  {
    name: '".." through a symlinked folder (/app/link-out-dir/../x is outside/x, not app/x)',
    path: (f) => f.p('app/link-out-dir/../secret.txt'),
    expect: { refuse: 'outside-roots', message: /outside\/secret\.txt/ },
  },
  {
    name: '".." through a symlinked folder where the lexical result exists inside (app/file.txt)',
    path: (f) => f.p('app/link-out-dir/../file.txt'),
    expect: { refuse: 'outside-roots', message: /it resolves to .*\/outside\/file\.txt/ },
  },
  { name: '".." staying inside', path: (f) => f.p('app/sub/../file.txt'), expect: { allow: 'app/file.txt' } },
  { name: '".." from one root into another', path: (f) => f.p('app/../lib/src/greet.ts'), expect: { allow: 'lib/src/greet.ts', root: 'lib' } },
  { name: '".." above the file-system root', path: (f) => `/../..${f.p('app/file.txt')}`, expect: { allow: 'app/file.txt' } },
  { name: '".." after a missing folder', path: (f) => f.p('app/missing/../file.txt'), expect: { refuse: 'dotdot-after-missing' } },
  { name: '".." after a missing folder, escaping', path: (f) => f.p('app/missing/../../outside/secret.txt'), expect: { refuse: 'dotdot-after-missing' } },
  {
    name: '".." after a dangling symlink (through its missing target)',
    path: (f) => f.p('app/dangling-dir-out/../secret.txt'),
    expect: { refuse: 'dotdot-after-missing' },
  },

  // Prefixes, separators, "." segments.
  { name: 'prefix sibling /app2/x.txt vs root /app', path: (f) => f.p('app2/x.txt'), expect: { refuse: 'outside-roots' } },
  { name: 'prefix sibling /app2 itself', path: (f) => f.p('app2'), expect: { refuse: 'outside-roots' } },
  { name: 'a new file in the prefix sibling', path: (f) => f.p('app2/new.txt'), expect: { refuse: 'outside-roots' } },
  { name: 'the parent of the roots', path: (f) => f.base, expect: { refuse: 'outside-roots' } },
  { name: 'trailing separator on a folder', path: (f) => f.p('app/sub/'), expect: { allow: 'app/sub' } },
  { name: 'trailing separator on a file (ENOTDIR)', path: (f) => f.p('app/file.txt/'), expect: { refuse: 'not-a-directory' } },
  { name: 'trailing separator on a missing name', path: (f) => f.p('app/newdir/'), expect: { allow: 'app/newdir', exists: false } },
  { name: 'double separators', path: (f) => f.p('app//sub///inner.txt'), expect: { allow: 'app/sub/inner.txt' } },
  { name: 'leading double separator', path: (f) => `/${f.p('app/file.txt')}`, expect: { allow: 'app/file.txt' } },
  { name: '"." segments', path: (f) => f.p('app/./sub/./inner.txt'), expect: { allow: 'app/sub/inner.txt' } },
  { name: '"." after a file (ENOTDIR)', path: (f) => f.p('app/file.txt/.'), expect: { refuse: 'not-a-directory' } },
  { name: 'a file used as a folder (ENOTDIR)', path: (f) => f.p('app/file.txt/child'), expect: { refuse: 'not-a-directory' } },
  {
    name: 'case variant /APP/file.txt (only /app exists; Linux compares case-sensitively)',
    path: (f) => f.p('APP/file.txt'),
    expect: { refuse: 'outside-roots' },
  },

  // Malformed.
  { name: 'NUL byte', path: (f) => f.p('app/file.txt\0.png'), expect: { refuse: 'nul-byte' } },
  { name: 'relative path', path: () => 'app/file.txt', expect: { refuse: 'not-absolute' } },
  { name: 'relative path starting with ..', path: () => '../outside/secret.txt', expect: { refuse: 'not-absolute' } },
  { name: 'empty string', path: () => '', expect: { refuse: 'empty' } },
  { name: 'not a string (number)', path: () => 42, expect: { refuse: 'not-a-string' } },
  { name: 'not a string (undefined)', path: () => undefined, expect: { refuse: 'not-a-string' } },
  { name: 'very long path (> PATH_MAX)', path: (f) => f.p(`app/${'d/'.repeat(2100)}file.txt`), expect: { refuse: 'too-long' } },
  { name: 'very long path made of existing "." segments (> PATH_MAX)', path: (f) => f.p(`app/${'./'.repeat(2100)}file.txt`), expect: { refuse: 'too-long' } },
  { name: 'a component longer than NAME_MAX', path: (f) => f.p(`app/${LONG_NAME}`), expect: { refuse: 'too-long' } },
  { name: 'a component longer than NAME_MAX in the middle', path: (f) => f.p(`app/${LONG_NAME}/x.txt`), expect: { refuse: 'too-long' } },
];

describe('RootGuard', () => {
  let f: Fixture;
  let guard: RootGuard;
  before(() => {
    f = makeFixture();
    guard = new RootGuard(f.roots);
  });
  after(() => f.cleanup());

  describe('attack matrix', () => {
    for (const c of CASES) {
      const verdict = 'allow' in c.expect ? 'allows' : `refuses (${c.expect.refuse})`;
      it(`${verdict}: ${c.name}`, async () => {
        const candidate = c.path(f);
        const decision = await guard.check(candidate);
        if ('allow' in c.expect) {
          assert.ok(decision.allowed, `expected ${JSON.stringify(candidate)} to be allowed: ${decision.allowed ? '' : decision.message}`);
          assert.equal(decision.realPath, f.p(c.expect.allow));
          if (c.expect.root !== undefined) assert.equal(decision.root, f.p(c.expect.root));
          if (c.expect.exists !== undefined) assert.equal(decision.exists, c.expect.exists);
        } else {
          assert.ok(!decision.allowed, `expected ${JSON.stringify(candidate)} to be refused, got ${decision.allowed ? decision.realPath : ''}`);
          assert.equal(decision.reason, c.expect.refuse, decision.message);
          if (c.expect.message) assert.match(decision.message, c.expect.message);
        }
      });
    }
  });

  it('names the path and the folders in words when refusing', async () => {
    const direct = await guard.check(f.p('outside/secret.txt'));
    assert.ok(!direct.allowed);
    assert.equal(direct.message, `"${f.p('outside/secret.txt')}" is outside this session’s folders (${f.roots.join(', ')})`);
    const viaLink = await guard.check(f.p('app/link-out-file'));
    assert.ok(!viaLink.allowed);
    assert.equal(
      viaLink.message,
      `"${f.p('app/link-out-file')}" is outside this session’s folders (${f.roots.join(', ')}): it resolves to ${f.p('outside/secret.txt')}`,
    );
    const single = await new RootGuard([f.p('app')]).check(f.p('lib'));
    assert.ok(!single.allowed);
    assert.match(single.message, /outside this session’s folder \(.*\/app\)$/);
    const nul = await guard.check(`${f.p('app')}/a\0b`);
    assert.ok(!nul.allowed);
    assert.match(nul.message, /a\\u0000b/);
  });

  it('refuses in whole translated sentences, the path inside them (no fragments glued)', async () => {
    const english = await guard.check(f.p('app/missing/../file.txt'));
    assert.ok(!english.allowed);
    assert.equal(english.message, `"${f.p('app/missing/../file.txt')}" uses ".." after a folder that does not exist (${f.p('app/missing')})`);
    l10n.config({ contents: { '{0} uses ".." after a folder that does not exist ({1})': '⟦{0} ⟨..⟩ {1}⟧' } });
    try {
      const pseudo = await guard.check(f.p('app/missing/../file.txt'));
      assert.ok(!pseudo.allowed);
      assert.equal(pseudo.message, `⟦"${f.p('app/missing/../file.txt')}" ⟨..⟩ ${f.p('app/missing')}⟧`, 'one message, translated whole');
    } finally {
      l10n.config({ contents: {} });
    }
  });

  it('says a path is outside the session’s folders in translated words, with where a link led', async () => {
    l10n.config({
      contents: {
        '{0} is outside this session’s folders ({1})': '⟦{0} ⟨∉⟩ {1}⟧',
        '{0} is outside this session’s folder ({1})': '⟦{0} ⟨∉1⟩ {1}⟧',
        '{0}: it resolves to {1}': '⟦{0} ⟨→⟩ {1}⟧',
      },
    });
    try {
      const direct = await guard.check(f.p('outside/secret.txt'));
      assert.ok(!direct.allowed);
      assert.equal(direct.message, `⟦"${f.p('outside/secret.txt')}" ⟨∉⟩ ${f.roots.join(', ')}⟧`);
      const viaLink = await guard.check(f.p('app/link-out-file'));
      assert.ok(!viaLink.allowed);
      assert.equal(viaLink.message, `⟦⟦"${f.p('app/link-out-file')}" ⟨∉⟩ ${f.roots.join(', ')}⟧ ⟨→⟩ ${f.p('outside/secret.txt')}⟧`);
      const single = await new RootGuard([f.p('app')]).check(f.p('lib'));
      assert.ok(!single.allowed);
      assert.equal(single.message, `⟦"${f.p('lib')}" ⟨∉1⟩ ${f.p('app')}⟧`);
    } finally {
      l10n.config({ contents: {} });
    }
  });

  it('resolves a root given through a symlink to its real path', async () => {
    const viaLink = new RootGuard([f.p('link-to-app')]);
    assert.deepEqual(viaLink.roots, [f.p('app')]);
    const decision = await viaLink.check(f.p('link-to-app/file.txt'));
    assert.deepEqual(decision, { allowed: true, realPath: f.p('app/file.txt'), root: f.p('app'), exists: true });
    assert.equal((await viaLink.check(f.p('app/file.txt'))).allowed, true);
  });

  it('keeps real roots as given, in order, without exact duplicates', () => {
    assert.deepEqual(guard.roots, f.roots);
    assert.deepEqual(new RootGuard([f.p('lib'), f.p('app'), f.p('lib'), f.p('lib/')]).roots, [f.p('lib'), f.p('app')]);
  });

  it('throws for roots that are not absolute paths', () => {
    assert.throws(() => new RootGuard(['relative/dir']), InvalidRootError);
    assert.throws(() => new RootGuard(['']), InvalidRootError);
    assert.throws(() => new RootGuard([`${f.p('app')}\0`]), InvalidRootError);
    assert.throws(() => new RootGuard([42 as unknown as string]), InvalidRootError);
  });

  it('lets roots that cannot be resolved or are not folders grant nothing, and says so', async () => {
    const partial = new RootGuard([f.p('app'), f.p('gone'), f.p('app/file.txt'), f.p('app/loop-a')]);
    assert.deepEqual(partial.roots, [f.p('app')]);
    assert.deepEqual(
      partial.unavailable.map((u) => u.root),
      [f.p('gone'), f.p('app/file.txt'), f.p('app/loop-a')],
    );
    assert.match(partial.unavailable[0]!.reason, /cannot be resolved: ENOENT/);
    assert.match(partial.unavailable[1]!.reason, /is not a folder/);
    assert.match(partial.unavailable[2]!.reason, /ELOOP/);
    // A missing root grants nothing, not even once it appears.
    const decision = await partial.check(f.p('gone/new.txt'));
    assert.ok(!decision.allowed);
    assert.equal(decision.reason, 'outside-roots');
    assert.match(decision.message, /\(.*\/app; not available: .*\/gone, /);
    fs.mkdirSync(f.p('gone'));
    try {
      assert.equal((await partial.check(f.p('gone/new.txt'))).allowed, false);
    } finally {
      fs.rmdirSync(f.p('gone'));
    }
  });

  it('refuses everything when the session has no roots', async () => {
    const none = new RootGuard([]);
    const decision = await none.check(f.p('app/file.txt'));
    assert.ok(!decision.allowed);
    assert.equal(decision.reason, 'outside-roots');
    assert.match(decision.message, /the session has none/);
  });

  it('handles a root that is the file-system root', async () => {
    const everything = new RootGuard(['/']);
    assert.deepEqual(await everything.check(f.p('outside/secret.txt')), { allowed: true, realPath: f.p('outside/secret.txt'), root: '/', exists: true });
    assert.deepEqual(await everything.check('/'), { allowed: true, realPath: '/', root: '/', exists: true });
    assert.equal((await everything.check(f.p('app/loop-a'))).allowed, false);
  });

  it('compares case-sensitively on Linux and ASCII-case-insensitively with the win32 rule', () => {
    const linux = new RootGuard(f.roots, { platform: 'linux' });
    const windows = new RootGuard(f.roots, { platform: 'win32' });
    const upper = f.p('APP/file.txt');
    assert.equal(linux.containing(upper), undefined);
    assert.equal(windows.containing(upper), f.p('app'));
    assert.equal(windows.containing(f.p('APP2/x.txt')), undefined);
    assert.equal(windows.containing(f.p('LIB/NESTED')), f.p('lib/nested'));
    assert.equal(linux.containing(f.p('app')), f.p('app'));
    assert.equal(linux.containing(f.p('app2')), undefined);
  });

  it('notices changes on disk between checks (no caching)', async () => {
    const target = f.p('app/sub/later');
    assert.deepEqual(await guard.check(target), { allowed: true, realPath: target, root: f.p('app'), exists: false });
    fs.symlinkSync('../../outside/dir', target);
    try {
      const decision = await guard.check(`${target}/x`);
      assert.ok(!decision.allowed);
      assert.equal(decision.reason, 'outside-roots');
    } finally {
      fs.unlinkSync(target);
    }
  });
});
