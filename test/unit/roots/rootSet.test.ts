import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { RootSetError, createRootSet, describeRoots, rootPaths, rootSetFromPaths, sameRootPaths, validateRootPaths } from '../../../src/roots/rootSet';

const posix = (p: string) => path.posix.isAbsolute(p);

describe('RootSet validation (the additional-directories RFD rules)', () => {
  it('keeps a valid list as it is, in order, cwd first', () => {
    const set = rootSetFromPaths('/w/app', ['/w/lib', '/w/docs']);
    assert.deepEqual(rootPaths(set), ['/w/app', '/w/lib', '/w/docs']);
    assert.deepEqual(
      set.additionalDirectories.map((r) => r.name),
      ['lib', 'docs'],
    );
  });

  it('removes exact duplicates keeping the first occurrence', () => {
    const valid = validateRootPaths('/w/app', ['/w/lib', '/w/docs', '/w/lib', '/w/docs', '/w/x'], posix);
    assert.deepEqual(valid.additionalDirectories, ['/w/lib', '/w/docs', '/w/x']);
    assert.deepEqual(valid.removed, [
      { path: '/w/lib', why: 'duplicate' },
      { path: '/w/docs', why: 'duplicate' },
    ]);
  });

  it('removes entries equal to cwd', () => {
    const valid = validateRootPaths('/w/app', ['/w/app', '/w/lib'], posix);
    assert.deepEqual(valid.additionalDirectories, ['/w/lib']);
    assert.deepEqual(valid.removed, [{ path: '/w/app', why: 'equals-cwd' }]);
  });

  it('keeps nested folders (they can matter to discovery order)', () => {
    assert.deepEqual(validateRootPaths('/w', ['/w/app', '/w/app/sub'], posix).additionalDirectories, ['/w/app', '/w/app/sub']);
  });

  it('treats paths that differ only lexically as different entries (exact string matching)', () => {
    assert.deepEqual(validateRootPaths('/w/app', ['/w/app/', '/w//lib', '/w/lib'], posix).additionalDirectories, ['/w/app/', '/w//lib', '/w/lib']);
  });

  const bad: Array<[string, unknown, unknown, RegExp]> = [
    ['a relative cwd', 'app', [], /cwd "app" is not an absolute path/],
    ['an empty cwd', '', [], /cwd is empty/],
    ['a null cwd', null, [], /cwd is null/],
    ['a non-string cwd', 42, [], /cwd is not a string/],
    ['a relative entry', '/w/app', ['lib'], /additionalDirectories\[0\] "lib" is not an absolute path/],
    ['an empty entry', '/w/app', ['/w/lib', ''], /additionalDirectories\[1\] is empty/],
    ['a null entry', '/w/app', [null], /additionalDirectories\[0\] is null/],
    ['a number entry', '/w/app', [7], /additionalDirectories\[0\] is not a string/],
    ['a NUL character', '/w/app', ['/w/li\0b'], /NUL/],
    ['a list that is not a list', '/w/app', '/w/lib', /additionalDirectories is not a list/],
    ['a dot-relative entry', '/w/app', ['./lib'], /not an absolute path/],
  ];
  for (const [name, cwd, additional, message] of bad) {
    it(`rejects ${name}, naming the entry`, () => {
      assert.throws(
        () => validateRootPaths(cwd, additional, posix),
        (error: Error) => error instanceof RootSetError && message.test(error.message),
      );
    });
  }

  it('reports every problem at once', () => {
    assert.throws(
      () => validateRootPaths('rel', ['', null], posix),
      (error: RootSetError) => error.problems.length === 3,
    );
  });

  it('keeps display names next to paths, first occurrence wins', () => {
    const set = createRootSet(
      { path: '/w/app', name: 'App' },
      [
        { path: '/w/lib', name: 'Library' },
        { path: '/w/lib', name: 'Library again' },
      ],
      posix,
    );
    assert.deepEqual(set.additionalDirectories, [{ path: '/w/lib', name: 'Library' }]);
    assert.equal(describeRoots(set), 'App and Library');
  });
});

describe('comparing root sets', () => {
  const a = rootSetFromPaths('/w/app', ['/w/lib', '/w/docs']);

  it('matches root sets exactly and in order', () => {
    const same = (b: ReturnType<typeof rootSetFromPaths>) => sameRootPaths(rootPaths(a), rootPaths(b));
    assert.ok(same(rootSetFromPaths('/w/app', ['/w/lib', '/w/docs'])));
    assert.ok(!same(rootSetFromPaths('/w/app', ['/w/docs', '/w/lib'])), 'order matters');
    assert.ok(!same(rootSetFromPaths('/w/lib', ['/w/app', '/w/docs'])), 'the primary matters');
    assert.ok(!same(rootSetFromPaths('/w/app', ['/w/lib'])));
  });

  it('describes roots in words', () => {
    assert.equal(describeRoots(rootSetFromPaths('/w/app')), 'app');
    assert.equal(describeRoots(a), 'app, lib and docs');
  });
});
