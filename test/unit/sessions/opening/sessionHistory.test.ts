import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../../../src/acp/connection';
import { AgentRegistry } from '../../../../src/agents/agentRegistry';
import { silentLogger } from '../../../../src/common/logger';
import { inScope, type AgentEntry, type SessionView } from '../../../../src/history/sessionView';
import { FolderGrants } from '../../../../src/roots/folderGrants';
import { LocalSessionIndex } from '../../../../src/history/localIndex';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { candidateRoots } from '../../../../src/roots/workspaceRoots';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import type { RootsUi, WorkspacePort } from '../../../../src/sessions/ports';
import { chooseReopenRoots } from '../../../../src/sessions/opening/reopenRoots';
import { SessionHistory, type GlobalStateStore } from '../../../../src/sessions/opening/sessionHistory';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { Thread } from '../../../../src/thread/thread';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent } from '../../../helpers/memoryPeer';
import { tempDir } from '../../../helpers/referenceAgent';
import { TRANSCRIPT_WORKER } from '../../history/fulltext/workerFile';

const CAPS_KEY = 'acpWorkspace.lastAgentCaps';
const sessions = { list: true, resume: false, close: true, delete: true, additionalDirectories: true, fork: false, setTitle: false };

const workspace: WorkspacePort = {
  isTrusted: () => true,
  candidates: () => candidateRoots([], () => undefined),
  activeEditorFolderIndex: () => undefined,
  defaultAgent: () => '',
  primaryFolder: () => 'first',
  shareAllFolders: () => false,
  addFolder: () => false,
  openFolderInNewWindow: () => Promise.resolve(),
};

describe('SessionHistory: what agents supported when they last ran', () => {
  let storage: { dir: string; cleanup: () => void };
  let history: SessionHistory | undefined;
  beforeEach(() => (storage = tempDir()));
  afterEach(async () => {
    await history?.dispose();
    storage.cleanup();
  });

  function historyWith(stored: unknown): SessionHistory {
    const memory: GlobalStateStore = { get: (key) => (key === CAPS_KEY ? stored : undefined), update: () => Promise.resolve() };
    const agents = new AgentRegistry({ isTrusted: () => true, createProcess: () => assert.fail('no agent starts here') });
    history = new SessionHistory({
      storageDir: storage.dir,
      memory,
      agents,
      sessions: new ActiveSessions(),
      workspace,
      logger: silentLogger,
      transcriptWorker: TRANSCRIPT_WORKER,
    });
    return history;
  }

  it('reads back what was stored, validated: a damaged entry counts as unknown and the others still count', () => {
    const h = historyWith({
      Good: { loadSession: true, sessions },
      Damaged: { loadSession: 'yes', sessions },
      Partial: { loadSession: true },
      Odd: 42,
    });
    assert.deepEqual(h.knownCaps('Good'), { loadSession: true, sessions });
    assert.equal(h.knownCaps('Damaged'), undefined);
    assert.equal(h.knownCaps('Partial'), undefined);
    assert.equal(h.knownCaps('Odd'), undefined);
    assert.equal(h.knownCaps('Never ran'), undefined);
  });

  it('survives stored state of the wrong shape altogether', async () => {
    for (const stored of [null, 'text', [1, 2], 7]) {
      assert.equal(historyWith(stored).knownCaps('Good'), undefined);
      await history?.dispose();
      history = undefined;
    }
  });
});

describe('SessionHistory: the workspace a remote agent with path mappings is seen against', () => {
  let storage: { dir: string; cleanup: () => void };
  let history: SessionHistory | undefined;
  let folders: { app: string; lib: string; docs: string };
  beforeEach(() => {
    storage = tempDir();
    const at = (name: string) => {
      const folder = path.join(storage.dir, name);
      fs.mkdirSync(folder);
      return fs.realpathSync.native(folder);
    };
    folders = { app: at('app'), lib: at('lib'), docs: at('docs') };
  });
  afterEach(async () => {
    await history?.dispose();
    history = undefined;
    storage.cleanup();
  });

  /** A workspace of app, lib and docs; the remote agent "Box" maps app and docs, lib has no mapping. */
  function historyOf(): { history: SessionHistory; workspace: WorkspacePort } {
    const three: WorkspacePort = {
      ...workspace,
      candidates: () =>
        candidateRoots(
          [folders.app, folders.lib, folders.docs].map((fsPath) => ({ name: path.basename(fsPath), uri: `file://${fsPath}`, scheme: 'file', fsPath })),
          (p) => p,
        ),
    };
    const agents = new AgentRegistry({ isTrusted: () => true, createProcess: () => assert.fail('no agent starts here') });
    const memory: GlobalStateStore = { get: () => undefined, update: () => Promise.resolve() };
    history = new SessionHistory({
      storageDir: path.join(storage.dir, 'history'),
      memory,
      agents,
      sessions: new ActiveSessions(),
      workspace: three,
      logger: silentLogger,
      transcriptWorker: TRANSCRIPT_WORKER,
      mappedFolders: (name) => (name === 'Box' ? (folder) => folder !== folders.lib : undefined),
    });
    return { history, workspace: three };
  }
  const agent = (name: string): AgentEntry => ({ name, running: false, caps: { loadSession: true, sessions }, catalog: undefined });

  it('takes only its mapped folders as "this workspace", so its sessions there are in that scope', () => {
    const { history: h } = historyOf();
    const shape = h.workspace();
    assert.deepEqual(shape.rootSetFor(agent('Box')), [folders.app, folders.docs], 'lib can never be shared with Box');
    assert.deepEqual(shape.rootSetFor(agent('Local')), [folders.app, folders.lib, folders.docs], 'a local agent is seen against every folder');
    const session = { cwd: folders.app, additionalDirectories: [folders.docs] };
    assert.equal(inScope(session, 'workspace', shape, agent('Box')), true, 'the remote session of this workspace is in its scope');
    assert.equal(inScope(session, 'workspace', shape, agent('Local')), false);
  });

  it('reopens such a session with its folders without asking which list (the workspace offers none it could take)', async () => {
    const { history: h, workspace: three } = historyOf();
    const asked: string[][] = [];
    const ui = {
      chooseReopenRoots: (question: { lines: readonly string[] }) => (asked.push([...question.lines]), Promise.resolve(undefined)),
      outsideFolder: () => assert.fail('the folder is in the workspace'),
    } as unknown as RootsUi;
    const kept = new Map<string, unknown>();
    const grants = new FolderGrants({
      get: <T>(key: string) => kept.get(key) as T | undefined,
      update: (key, value) => (kept.set(key, value), Promise.resolve()),
    });
    await grants.grant('Box', [folders.docs]);
    const view = {
      agentName: 'Box',
      sessionId: 's1',
      cwd: folders.app,
      additionalDirectories: [folders.docs],
      rootsKnown: true,
      title: 'Remote work',
    } as unknown as SessionView;
    const connection = { caps: { loadSession: true, sessions } } as unknown as AcpConnection;
    const roots = await chooseReopenRoots(view, connection, 'Open', { workspace: three, shape: h.workspace(), grants, ui });
    assert.deepEqual(asked, [], 'no "which folders?" question');
    assert.deepEqual(roots && [roots.cwd.path, ...roots.additionalDirectories.map((r) => r.path)], [folders.app, folders.docs]);
  });
});

describe('SessionHistory: what is pending reaches the disk on flush (a window reload deactivates the extension)', () => {
  let storage: { dir: string; cleanup: () => void };
  let history: SessionHistory | undefined;
  beforeEach(() => (storage = tempDir()));
  afterEach(async () => {
    await history?.dispose();
    storage.cleanup();
  });

  it('writes a rename made a moment ago and a chat’s transcript text still waiting for its pause, before it resolves', async () => {
    const { client, agent } = connectToMemoryAgent();
    agent.acceptInitialize({ agentCapabilities: FULL_AGENT_CAPABILITIES });
    agent.rpc.onRequest('session/new', () => ({ sessionId: 'renamed' }));
    await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    const agents = new AgentRegistry({ isTrusted: () => true, createProcess: () => assert.fail('no agent starts here') });
    history = new SessionHistory({
      storageDir: storage.dir,
      memory: { get: () => undefined, update: () => Promise.resolve() },
      agents,
      sessions: new ActiveSessions(),
      workspace,
      logger: silentLogger,
      transcriptWorker: TRANSCRIPT_WORKER,
    });
    const session = await startSession(client, rootSetFromPaths('/w/app', ['/w/lib']));
    history.recordSession(session);
    const thread = new Thread({ agentName: session.agentName, sessionId: session.sessionId, roots: [], prompt: client.caps.prompt });
    thread.addUserPrompt([{ type: 'text', text: 'Where is the greeting written?' }]);
    history.threadChanged(session, thread);
    history.index.setLocal(session.agentName, session.sessionId, { localTitle: 'Greeting work' });

    await history.flush();
    // What the next window reads.
    const stored = new LocalSessionIndex(history.index['dir'] as string);
    assert.equal(stored.get(session.agentName, session.sessionId)?.localTitle, 'Greeting work', 'the rename is on disk');
    assert.match(stored.text(session.agentName, session.sessionId) ?? '(no text on disk)', /Where is the greeting written\?/, 'the transcript text is on disk');
    client.dispose('test over');
  });
});
