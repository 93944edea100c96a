import * as assert from 'node:assert/strict';
import { FolderGrants, type KeyValueStore } from '../../../src/roots/folderGrants';

function memento(): KeyValueStore & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: <T>(key: string) => data.get(key) as T | undefined, update: async (key, value) => void data.set(key, value) };
}

describe('FolderGrants (per-workspace consent)', () => {
  it('remembers grants, in order, without duplicates, and survives a reload', async () => {
    const store = memento();
    const grants = new FolderGrants(store);
    await grants.grant(['/w/lib', '/w/docs']);
    await grants.grant(['/w/lib', '/w/tools']);
    assert.deepEqual(grants.granted(), ['/w/lib', '/w/docs', '/w/tools']);
    assert.ok(new FolderGrants(store).isGranted('/w/docs'));
  });

  it('revokes, and replaces the whole list from the manager', async () => {
    const grants = new FolderGrants(memento());
    await grants.grant(['/w/lib', '/w/docs']);
    await grants.revoke(['/w/lib']);
    assert.deepEqual(grants.granted(), ['/w/docs']);
    await grants.set(['/w/tools']);
    assert.deepEqual(grants.granted(), ['/w/tools']);
  });

  it('tells listeners about changes, and only about real changes', async () => {
    const grants = new FolderGrants(memento());
    let changes = 0;
    grants.onDidChange(() => changes++);
    await grants.grant(['/w/lib']);
    await grants.grant(['/w/lib']);
    await grants.revoke(['/w/nothing']);
    await grants.set(['/w/lib']);
    assert.equal(changes, 1);
  });

  it('ignores a corrupted stored value instead of failing', () => {
    const store = memento();
    store.data.set('acpWorkspace.sharedFolders', ['/w/ok', 3, null]);
    assert.deepEqual(new FolderGrants(store).granted(), ['/w/ok']);
    store.data.set('acpWorkspace.sharedFolders', 'nonsense');
    assert.deepEqual(new FolderGrants(store).granted(), []);
  });
});
