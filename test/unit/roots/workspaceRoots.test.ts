import * as assert from 'node:assert/strict';
import { rootPaths } from '../../../src/roots/rootSet';
import {
  candidateRoots,
  choosePrimary,
  describeNotShared,
  foldersNeedingConsent,
  planRoots,
  restrictToMapped,
  type FolderInfo,
} from '../../../src/roots/workspaceRoots';

const folder = (name: string, fsPath: string | undefined, scheme = 'file'): FolderInfo => ({
  name,
  uri: fsPath ? `${scheme}://${fsPath}` : `${scheme}://host/${name}`,
  scheme,
  fsPath,
});

/** A fake file system: folder path → real path (undefined = missing). */
const realpaths: Record<string, string | undefined> = {
  '/w/app': '/real/w/app',
  '/w/lib': '/real/w/lib',
  '/w/docs': '/real/w/docs',
  '/w/lib-link': '/real/w/lib',
  '/w/gone': undefined,
};
const realpath = (p: string) => realpaths[p];

describe('workspace folders → roots', () => {
  const folders = [
    folder('app', '/w/app'),
    folder('remote', undefined, 'vscode-remote'),
    folder('lib', '/w/lib'),
    folder('gone', '/w/gone'),
    folder('docs', '/w/docs'),
    folder('lib again', '/w/lib-link'),
    folder('memfs', '/virtual', 'memfs'),
  ];
  const candidates = candidateRoots(folders, realpath);

  it('keeps local folders in workspace order, as real paths, once each', () => {
    assert.deepEqual(
      candidates.roots.map((r) => [r.name, r.path, r.index]),
      [
        ['app', '/real/w/app', 0],
        ['lib', '/real/w/lib', 2],
        ['docs', '/real/w/docs', 4],
      ],
    );
  });

  it('lists virtual, remote and missing folders as not shared, with the reason', () => {
    assert.deepEqual(candidates.notShared, [
      { name: 'remote', location: 'vscode-remote://host/remote', reason: 'not-local' },
      { name: 'gone', location: '/w/gone', reason: 'missing' },
      { name: 'memfs', location: 'memfs:///virtual', reason: 'not-local' },
    ]);
  });

  it('chooses the primary folder by setting: first, active editor (fallback first), ask', () => {
    assert.equal(choosePrimary(candidates.roots, 'first', 4)?.name, 'app');
    assert.equal(choosePrimary(candidates.roots, 'activeEditor', 4)?.name, 'docs');
    assert.equal(choosePrimary(candidates.roots, 'activeEditor', undefined)?.name, 'app');
    assert.equal(choosePrimary(candidates.roots, 'activeEditor', 3)?.name, 'app', 'the active editor is in a folder that cannot be shared');
    assert.equal(choosePrimary(candidates.roots, 'ask', 0), undefined);
    assert.equal(choosePrimary([], 'first', undefined), undefined);
  });

  it('asks consent only for the other folders not granted yet, unless all are trusted', () => {
    const primary = candidates.roots[1]!;
    const granted = (p: string) => p === '/real/w/docs';
    assert.deepEqual(
      foldersNeedingConsent(candidates, primary, granted, false).map((r) => r.name),
      ['app'],
    );
    assert.deepEqual(foldersNeedingConsent(candidates, primary, granted, true), []);
  });

  it('sends the primary plus the granted folders in workspace order, and says why the rest is not shared', () => {
    const plan = planRoots(candidates, candidates.roots[1]!, (p) => p === '/real/w/docs', false, true);
    assert.deepEqual(rootPaths(plan.rootSet), ['/real/w/lib', '/real/w/docs']);
    assert.deepEqual(
      plan.notShared.map((f) => [f.name, f.reason]),
      [
        ['remote', 'not-local'],
        ['gone', 'missing'],
        ['memfs', 'not-local'],
        ['app', 'not-granted'],
      ],
    );
  });

  it('sends only the primary folder to an agent without additionalDirectories, naming what is left out', () => {
    const plan = planRoots(candidates, candidates.roots[0]!, () => true, false, false);
    assert.deepEqual(rootPaths(plan.rootSet), ['/real/w/app']);
    assert.deepEqual(
      plan.notShared.filter((f) => f.reason === 'agent-unsupported').map((f) => f.name),
      ['lib', 'docs'],
    );
  });

  it('says a folder is left out because the agent takes one folder, also when it was never granted', () => {
    const plan = planRoots(candidates, candidates.roots[0]!, () => false, false, false);
    assert.deepEqual(
      plan.notShared.filter((f) => f.reason !== 'not-local' && f.reason !== 'missing').map((f) => [f.name, f.reason]),
      [
        ['lib', 'agent-unsupported'],
        ['docs', 'agent-unsupported'],
      ],
      'not "not allowed": the user was never asked, because this agent takes one folder',
    );
  });

  it('shares every local folder when all workspace folders are trusted', () => {
    const plan = planRoots(candidates, candidates.roots[0]!, () => false, true, true);
    assert.deepEqual(rootPaths(plan.rootSet), ['/real/w/app', '/real/w/lib', '/real/w/docs']);
  });
});

describe('folders of a remote agent with path mappings', () => {
  it('keeps the mapped candidates and lists the others as not mapped, in order', () => {
    const candidates = candidateRoots(
      [
        { name: 'app', uri: 'file:///w/app', scheme: 'file', fsPath: '/w/app' },
        { name: 'lib', uri: 'file:///w/lib', scheme: 'file', fsPath: '/w/lib' },
      ],
      (p) => p,
    );
    const mapped = restrictToMapped(candidates, (p) => p === '/w/app');
    assert.deepEqual(
      mapped.roots.map((r) => r.name),
      ['app'],
    );
    assert.deepEqual(mapped.notShared, [{ name: 'lib', location: '/w/lib', reason: 'not-mapped' }]);
    assert.match(describeNotShared('not-mapped'), /path mapping/);
    assert.equal(
      restrictToMapped(candidates, () => true),
      candidates,
      'all mapped: unchanged',
    );
  });
});
