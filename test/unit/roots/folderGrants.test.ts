import * as assert from 'node:assert/strict';
import { FolderGrants, type GrantsChange, type KeyValueStore } from '../../../src/roots/folderGrants';

function memento(): KeyValueStore & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: <T>(key: string) => data.get(key) as T | undefined, update: async (key, value) => void data.set(key, value) };
}

describe('FolderGrants (consent per agent and workspace)', () => {
  it('remembers each agent’s grants, in order, without duplicates, and survives a reload', async () => {
    const store = memento();
    const grants = new FolderGrants(store);
    await grants.grant('Claude Code', ['/w/lib', '/w/docs']);
    await grants.grant('Claude Code', ['/w/lib', '/w/tools']);
    assert.deepEqual(grants.granted('Claude Code'), ['/w/lib', '/w/docs', '/w/tools']);
    assert.ok(new FolderGrants(store).isGranted('Claude Code', '/w/docs'));
  });

  it('never lets a grant to one agent serve another', async () => {
    const grants = new FolderGrants(memento());
    await grants.grant('Hostile', ['/w/private']);
    assert.equal(grants.isGranted('Claude Code', '/w/private'), false);
    assert.deepEqual(grants.granted('Claude Code'), []);
    assert.deepEqual(grants.agents(), ['Hostile']);
  });

  it('revokes, and replaces an agent’s whole list from the manager, saying what was revoked', async () => {
    const grants = new FolderGrants(memento());
    const changes: GrantsChange[] = [];
    grants.onDidChange((change) => changes.push(change));
    await grants.grant('A', ['/w/lib', '/w/docs']);
    await grants.grant('B', ['/w/lib']);
    await grants.revoke('A', ['/w/lib']);
    assert.deepEqual(grants.granted('A'), ['/w/docs']);
    assert.deepEqual(grants.granted('B'), ['/w/lib'], 'B keeps its own');
    await grants.set('A', ['/w/tools']);
    assert.deepEqual(grants.granted('A'), ['/w/tools']);
    assert.deepEqual(changes, [
      { agent: 'A', revoked: [], granted: ['/w/lib', '/w/docs'] },
      { agent: 'B', revoked: [], granted: ['/w/lib'] },
      { agent: 'A', revoked: ['/w/lib'], granted: [] },
      { agent: 'A', revoked: ['/w/docs'], granted: ['/w/tools'] },
    ]);
  });

  it('remembers what the user took back from each agent (across a reload) until it is granted to it again', async () => {
    const store = memento();
    const grants = new FolderGrants(store);
    await grants.grant('A', ['/w/lib', '/w/docs']);
    await grants.grant('B', ['/w/lib']);
    assert.equal(grants.isTakenBack('A', '/w/lib'), false, 'never taken back yet');
    await grants.revoke('A', ['/w/lib']);
    await grants.set('A', []);
    const reloaded = new FolderGrants(store);
    assert.ok(reloaded.isTakenBack('A', '/w/lib'));
    assert.ok(reloaded.isTakenBack('A', '/w/docs'));
    assert.equal(reloaded.isTakenBack('B', '/w/lib'), false, 'only from the agent it was taken from');
    assert.equal(reloaded.isTakenBack('A', '/w/tools'), false, 'a folder never granted was not taken back');
    await reloaded.grant('A', ['/w/lib']);
    assert.equal(reloaded.isTakenBack('A', '/w/lib'), false, 'granted again');
    assert.ok(reloaded.isTakenBack('A', '/w/docs'));
    store.data.set('acpWorkspace.takenBackFoldersByAgent', [{ agent: 'A', folders: ['/w/x', 4] }, 'junk']);
    assert.ok(new FolderGrants(store).isTakenBack('A', '/w/x'), 'a damaged record reads as what it can');
  });

  it('tells listeners about changes, and only about real changes', async () => {
    const grants = new FolderGrants(memento());
    let changes = 0;
    grants.onDidChange(() => changes++);
    await grants.grant('A', ['/w/lib']);
    await grants.grant('A', ['/w/lib']);
    await grants.revoke('A', ['/w/nothing']);
    await grants.set('A', ['/w/lib']);
    assert.equal(changes, 1);
  });

  it('reads a damaged store as what it can, never fails; an agent named __proto__ is just a name', async () => {
    const store = memento();
    store.data.set('acpWorkspace.sharedFoldersByAgent', [
      { agent: 'A', folders: ['/w/ok', 3, null] },
      'junk',
      { agent: 7 },
      { agent: 'A', folders: ['/w/second'] },
    ]);
    assert.deepEqual(new FolderGrants(store).granted('A'), ['/w/ok']);
    store.data.set('acpWorkspace.sharedFoldersByAgent', 'nonsense');
    assert.deepEqual(new FolderGrants(store).granted('A'), []);
    const grants = new FolderGrants(memento());
    await grants.grant('__proto__', ['/w/lib']);
    assert.deepEqual(grants.granted('__proto__'), ['/w/lib']);
    assert.deepEqual(grants.granted('toString'), []);
  });

  it('does not carry over grants stored before they named their agent', () => {
    const store = memento();
    store.data.set('acpWorkspace.sharedFolders', ['/w/lib']);
    assert.equal(new FolderGrants(store).isGranted('Claude Code', '/w/lib'), false);
  });
});
