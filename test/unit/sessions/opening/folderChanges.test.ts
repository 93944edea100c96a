import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../../../src/acp/connection';
import { FolderGrants, type KeyValueStore } from '../../../../src/roots/folderGrants';
import { candidateRoots } from '../../../../src/roots/workspaceRoots';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import { FolderChanges } from '../../../../src/sessions/opening/folderChanges';
import type { RootsUi, WorkspacePort } from '../../../../src/sessions/ports';
import type { SessionStarter } from '../../../../src/sessions/opening/sessionStarter';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { SessionRouter } from '../../../../src/sessions/routing/sessionRouter';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { connectToMemoryAgent, recordingLogger, type MemoryAgent } from '../../../helpers/memoryPeer';
import { tempDir, waitFor } from '../../../helpers/referenceAgent';

function memento(): KeyValueStore {
  const data = new Map<string, unknown>();
  return { get: <T>(key: string) => data.get(key) as T | undefined, update: async (key, value) => void data.set(key, value) };
}

describe('taking folders back binds open sessions (FolderChanges)', function () {
  this.timeout(20_000);
  let scratch: { dir: string; cleanup: () => void };
  let app: string;
  let lib: string;
  let client: AcpConnection;
  let agent: MemoryAgent;
  let router: SessionRouter;
  let grants: FolderGrants;
  let changes: FolderChanges;
  let sessions: ActiveSessions;
  let docs: string;
  const asked: string[] = [];

  beforeEach(async () => {
    scratch = tempDir();
    for (const name of ['app', 'lib', 'docs']) fs.mkdirSync(path.join(scratch.dir, name));
    app = fs.realpathSync.native(path.join(scratch.dir, 'app'));
    lib = fs.realpathSync.native(path.join(scratch.dir, 'lib'));
    docs = fs.realpathSync.native(path.join(scratch.dir, 'docs'));
    asked.length = 0;
    ({ client, agent } = connectToMemoryAgent());
    sessions = new ActiveSessions();
    const logger = recordingLogger();
    router = new SessionRouter({ sessions, logger });
    router.connect(client);
    agent.acceptInitialize();
    agent.rpc.onRequest('session/new', () => ({ sessionId: 's1' }));
    await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    grants = new FolderGrants(memento());
    await grants.grant('Memory Agent', [lib]);
    const session = await startSession(client, rootSetFromPaths(app, [lib]));
    sessions.add(session);
    const workspace: WorkspacePort = {
      isTrusted: () => true,
      candidates: () =>
        candidateRoots(
          [app, lib, docs].map((p) => ({ name: path.basename(p), uri: `file://${p}`, scheme: 'file', fsPath: p })),
          (p) => p,
        ),
      activeEditorFolderIndex: () => undefined,
      defaultAgent: () => '',
      primaryFolder: () => 'first',
      shareAllFolders: () => false,
      addFolder: () => false,
      openFolderInNewWindow: () => Promise.resolve(),
    };
    const ui = { staleChoice: (message: string) => (asked.push(message), Promise.resolve('keep' as const)) } as unknown as RootsUi;
    changes = new FolderChanges({
      sessions,
      starter: {} as SessionStarter,
      grants,
      router,
      workspace,
      ui: () => ui,
      notices: { error: () => undefined },
      logger,
    });
  });
  afterEach(async () => {
    changes.dispose();
    await router.terminals(client)?.dispose();
    client.dispose();
    agent.dispose();
    scratch.cleanup();
  });

  it('refuses a revoked folder as a terminal’s folder, and stops the agent’s commands running in it', async () => {
    const started = (await agent.rpc.sendRequest('terminal/create', { sessionId: 's1', command: 'sleep', args: ['60'], cwd: lib })) as { terminalId: string };
    const terminals = router.terminals(client)!;
    assert.equal(terminals.get(started.terminalId)?.exitStatus, undefined, 'running in lib');
    await grants.revoke('Memory Agent', [lib]);
    await waitFor(() => terminals.get(started.terminalId)?.exitStatus !== undefined, 15_000, 'the command in lib to be stopped');
    assert.match(asked.join('\n'), /“lib” is no longer shared with Memory Agent/);
    await assert.rejects(agent.rpc.sendRequest('terminal/create', { sessionId: 's1', command: 'true', args: [], cwd: lib }), /outside|not inside|folders/);
  });

  it('a folder shared with the agent mid-session: its open session says so and offers to reopen with it (no question pops up)', async () => {
    const stale = () => sessions.forAgent('Memory Agent')[0]!.stale;
    assert.equal(stale(), undefined);
    await grants.grant('Memory Agent', [docs]);
    assert.equal(stale()?.reason, `“docs” is now shared with Memory Agent: reopen the session to give it to the agent.`);
    assert.deepEqual(asked, [], 'said in the chat header and the Agents view, not asked');
  });
});
