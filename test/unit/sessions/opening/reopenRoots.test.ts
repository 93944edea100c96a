import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../../../src/acp/connection';
import type { SessionView, WorkspaceShape } from '../../../../src/history/sessionView';
import { FolderGrants, type KeyValueStore } from '../../../../src/roots/folderGrants';
import { rootPaths, type Root } from '../../../../src/roots/rootSet';
import { candidateRoots } from '../../../../src/roots/workspaceRoots';
import type { ReopenRootsChoice, RootsUi, WorkspacePort } from '../../../../src/sessions/ports';
import { chooseReopenRoots } from '../../../../src/sessions/opening/reopenRoots';
import { tempDir } from '../../../helpers/referenceAgent';

function memento(): KeyValueStore {
  const data = new Map<string, unknown>();
  return { get: <T>(key: string) => data.get(key) as T | undefined, update: async (key, value) => void data.set(key, value) };
}

const AGENT = 'Memory Agent';

describe('the roots of a session reopened from the history (chooseReopenRoots)', () => {
  let scratch: { dir: string; cleanup: () => void };
  let app: string;
  let lib: string;
  let docs: string;
  let grants: FolderGrants;
  let asked: string[];
  let consent: (folders: readonly Root[]) => readonly Root[] | undefined;
  let choice: ReopenRootsChoice | undefined;

  const connection = { caps: { sessions: { additionalDirectories: true } } } as unknown as AcpConnection;
  const ui = {
    chooseReopenRoots: (question: { lines: readonly string[] }) => (asked.push(`reopen-roots: ${question.lines.join(' ')}`), Promise.resolve(choice)),
    askConsent: (_agent: string, primary: Root, folders: readonly Root[]) => (
      asked.push(`consent ${primary.name}: ${folders.map((f) => f.name).join(',')}`),
      Promise.resolve(consent(folders))
    ),
    outsideFolder: () => Promise.resolve('proceed' as const),
  } as unknown as RootsUi;

  function context() {
    const workspace = {
      candidates: () =>
        candidateRoots(
          [app, lib, docs].map((p) => ({ name: path.basename(p), uri: `file://${p}`, scheme: 'file', fsPath: p })),
          (p) => p,
        ),
      shareAllFolders: () => false,
    } as unknown as WorkspacePort;
    const shape: WorkspaceShape = {
      folders: [app, lib, docs],
      // A new session gets the primary folder and what is granted.
      rootSetFor: () => [app, ...[lib, docs].filter((f) => grants.isGranted(AGENT, f))],
      exists: (folder) => fs.existsSync(folder),
    };
    return { workspace, shape, grants, ui };
  }

  const view = (cwd: string, additionalDirectories: string[]) =>
    ({ agentName: AGENT, sessionId: 'hist', cwd, additionalDirectories, rootsKnown: true, title: 'A session' }) as unknown as SessionView;

  beforeEach(() => {
    scratch = tempDir();
    for (const name of ['app', 'lib', 'docs']) fs.mkdirSync(path.join(scratch.dir, name));
    [app, lib, docs] = ['app', 'lib', 'docs'].map((name) => fs.realpathSync.native(path.join(scratch.dir, name))) as [string, string, string];
    grants = new FolderGrants(memento());
    asked = [];
    consent = (folders) => folders;
    choice = 'session';
  });
  afterEach(() => scratch.cleanup());

  it('"Use the Session’s Folders" with a folder never shared here: the list chosen is the consent (as before)', async () => {
    const roots = await chooseReopenRoots(view(app, [lib]), connection, 'Open', context());
    assert.deepEqual(roots && rootPaths(roots), [app, lib]);
    assert.equal(asked.length, 1, asked.join('\n'));
    assert.ok(grants.isGranted(AGENT, lib));
  });

  it('"Use the Session’s Folders" never gives back a folder the user took back from the agent: it is asked for again', async () => {
    await grants.grant(AGENT, [lib, docs]);
    await grants.revoke(AGENT, [lib]);
    consent = () => [];
    const refused = await chooseReopenRoots(view(app, [lib, docs]), connection, 'Open', context());
    assert.deepEqual(asked.slice(1), ['consent app: lib'], `lib is asked for: ${asked.join('\n')}`);
    assert.deepEqual(refused && rootPaths(refused), [app, docs], 'refused: the session reopens without it');
    assert.equal(grants.isGranted(AGENT, lib), false, 'not granted back');

    asked = [];
    consent = (folders) => folders;
    const allowed = await chooseReopenRoots(view(app, [lib, docs]), connection, 'Open', context());
    assert.deepEqual(asked.slice(1), ['consent app: lib']);
    assert.deepEqual(allowed && rootPaths(allowed), [app, lib, docs]);
    assert.ok(grants.isGranted(AGENT, lib), 'granted once the user allowed it');

    asked = [];
    await grants.revoke(AGENT, [lib]);
    consent = () => undefined;
    assert.equal(
      await chooseReopenRoots(view(app, [lib, docs]), connection, 'Open', context()),
      undefined,
      'the consent question cancelled: nothing is reopened',
    );
    assert.equal(grants.isGranted(AGENT, lib), false);
  });
});
