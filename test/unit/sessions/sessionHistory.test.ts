import * as assert from 'node:assert/strict';
import { AgentRegistry } from '../../../src/agents/agentRegistry';
import { silentLogger } from '../../../src/common/logger';
import { LocalSessionIndex } from '../../../src/history/localIndex';
import { rootSetFromPaths } from '../../../src/roots/rootSet';
import { candidateRoots } from '../../../src/roots/workspaceRoots';
import { ActiveSessions } from '../../../src/sessions/activeSessions';
import type { WorkspacePort } from '../../../src/sessions/ports';
import { SessionHistory, type KeyValueStore } from '../../../src/sessions/sessionHistory';
import { startSession } from '../../../src/sessions/sessionLifecycle';
import { Thread } from '../../../src/thread/thread';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent } from '../../helpers/memoryPeer';
import { tempDir } from '../../helpers/referenceAgent';
import { TRANSCRIPT_WORKER } from '../history/fulltext/workerFile';

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
    const memory: KeyValueStore = { get: (key) => (key === CAPS_KEY ? stored : undefined), update: () => Promise.resolve() };
    const agents = new AgentRegistry({ isTrusted: () => true, createProcess: () => assert.fail('no agent starts here') });
    history = new SessionHistory({ storageDir: storage.dir, memory, agents, sessions: new ActiveSessions(), workspace, logger: silentLogger, transcriptWorker: TRANSCRIPT_WORKER });
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
    history = new SessionHistory({ storageDir: storage.dir, memory: { get: () => undefined, update: () => Promise.resolve() }, agents, sessions: new ActiveSessions(), workspace, logger: silentLogger, transcriptWorker: TRANSCRIPT_WORKER });
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
