import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describeRootChange, planReopen, type ReopenInput } from '../../../src/history/reopenPlan';

const base: ReopenInput = {
  cwd: '/w/app',
  additionalDirectories: ['/w/lib', '/w/docs'],
  workspaceRoots: ['/w/app', '/w/lib', '/w/docs'],
  workspaceFolders: ['/w/app', '/w/lib', '/w/docs'],
  supportsAdditional: true,
  exists: (p) => p.startsWith('/w/'),
  isGranted: () => true,
};

describe('reopening with the full root list (consent decisions)', () => {
  it('needs no question when the session’s roots are the workspace’s and all are allowed', () => {
    const plan = planReopen(base);
    assert.equal(plan.needsChoice, false);
    assert.deepEqual(plan.roots, ['/w/app', '/w/lib', '/w/docs']);
  });

  it('asks when the lists differ, and says what is added and left out', () => {
    const plan = planReopen({ ...base, additionalDirectories: ['/w/docs', '/w/old'], exists: (p) => p.startsWith('/w/') });
    assert.equal(plan.needsChoice, true);
    assert.equal(plan.roots, undefined);
    assert.deepEqual(plan.sessionRoots, ['/w/app', '/w/docs', '/w/old']);
    assert.deepEqual(plan.added, ['/w/lib']);
    assert.deepEqual(
      plan.removed,
      ['/w/docs', '/w/old'].filter((p) => !base.workspaceRoots.includes(p)),
    );
  });

  it('asks when the order differs (root lists match exactly and in order)', () => {
    assert.equal(planReopen({ ...base, additionalDirectories: ['/w/docs', '/w/lib'] }).needsChoice, true);
  });

  it('asks when the session has folders not allowed yet (its working folder needs no grant)', () => {
    const plan = planReopen({ ...base, isGranted: (p) => p !== '/w/docs' && p !== '/w/app' });
    assert.equal(plan.needsChoice, true);
    assert.deepEqual(plan.notGranted, ['/w/docs']);
  });

  it('names folders that no longer exist and never offers to send them', () => {
    const plan = planReopen({ ...base, additionalDirectories: ['/w/lib', '/gone/docs'] });
    assert.deepEqual(plan.missing, ['/gone/docs']);
    assert.deepEqual(plan.sessionRoots, ['/w/app', '/w/lib']);
    assert.equal(plan.needsChoice, true);
    const lines = describeRootChange(plan, (p) => path.basename(p));
    assert.ok(lines.includes('No longer on this machine (never sent): docs.'));
  });

  it('cannot keep the session’s roots when its working folder is gone', () => {
    const plan = planReopen({ ...base, cwd: '/gone/app' });
    assert.deepEqual(plan.sessionRoots, []);
    assert.equal(plan.needsChoice, true);
    assert.match(describeRootChange(plan, (p) => p).join(' '), /working folder no longer exists/);
  });

  it('says when the session’s other roots are unknown', () => {
    const plan = planReopen({ ...base, additionalDirectories: undefined });
    assert.equal(plan.unknownRoots, true);
    assert.deepEqual(plan.sessionRoots, ['/w/app']);
    assert.equal(plan.needsChoice, true);
  });

  it('for an agent that takes one folder, compares and sends the working folder only', () => {
    const plan = planReopen({ ...base, supportsAdditional: false });
    assert.equal(plan.needsChoice, false);
    assert.deepEqual(plan.roots, ['/w/app']);
  });

  it('for an agent that takes one folder, keeps a session in any workspace folder without asking (not only the first)', () => {
    const plan = planReopen({ ...base, cwd: '/w/lib', additionalDirectories: [], supportsAdditional: false });
    assert.equal(plan.needsChoice, false);
    assert.deepEqual(plan.roots, ['/w/lib']);
  });

  it('for an agent that takes one folder, asks when the session’s folder is no longer in the workspace', () => {
    const plan = planReopen({ ...base, cwd: '/w/old', additionalDirectories: [], supportsAdditional: false });
    assert.equal(plan.needsChoice, true);
    assert.deepEqual(plan.sessionRoots, ['/w/old']);
    assert.deepEqual(plan.workspaceRoots, ['/w/app']);
  });
});
