/**
 * The one mapped-folder rule (sessions/opening/mappedFolders.ts): the candidates before consent and the root
 * list of a reopen are narrowed by the same `isMapped`, each saying what it left out.
 */
import * as assert from 'node:assert/strict';
import { createRootSet } from '../../../../src/roots/rootSet';
import type { Candidates } from '../../../../src/roots/workspaceRoots';
import { mappedCandidates, mappedRootSet, SessionStartError } from '../../../../src/sessions/opening/mappedFolders';

const app = { path: '/w/app', name: 'app' };
const lib = { path: '/w/lib', name: 'lib' };
const docs = { path: '/w/docs', name: 'docs' };
const isMapped = (folder: string) => folder !== '/w/lib';
const candidates: Candidates = { roots: [app, lib, docs].map((root, index) => ({ ...root, index })), notShared: [] };

describe('mapped folders: one rule for a remote agent with path mappings', () => {
  it('passes everything for an agent without mappings, candidates and roots alike', () => {
    assert.equal(mappedCandidates('local', candidates, undefined), candidates);
    const roots = createRootSet(app, [lib]);
    assert.deepEqual(mappedRootSet('local', roots, undefined), { roots, unmapped: [] });
  });

  it('narrows the candidates to the mapped folders, listing the others as not shared', () => {
    const mapped = mappedCandidates('remote', candidates, isMapped);
    assert.deepEqual(
      mapped.roots.map((root) => root.path),
      ['/w/app', '/w/docs'],
    );
    assert.deepEqual(mapped.notShared, [{ name: 'lib', location: '/w/lib', reason: 'not-mapped' }]);
  });

  it('refuses to start when no candidate is mapped, saying where to map one', () => {
    assert.throws(
      () => mappedCandidates('remote', candidates, () => false),
      (error: unknown) => error instanceof SessionStartError && /remote\.pathMappings/.test(error.message),
    );
  });

  it('leaves unmapped extra folders of a reopen out and names them', () => {
    const { roots, unmapped } = mappedRootSet('remote', createRootSet(app, [lib, docs]), isMapped);
    assert.deepEqual([roots.cwd.path, ...roots.additionalDirectories.map((root) => root.path)], ['/w/app', '/w/docs']);
    assert.deepEqual(
      unmapped.map((root) => root.path),
      ['/w/lib'],
    );
  });

  it('refuses a reopen whose working folder is not mapped', () => {
    assert.throws(() => mappedRootSet('remote', createRootSet(lib, [app]), isMapped), /“lib” \(\/w\/lib\): that folder has no path mapping/);
  });
});
