import * as assert from 'node:assert/strict';
import { AgentRegistry } from '../../../src/agents/agentRegistry';
import { silentLogger } from '../../../src/common/logger';
import { candidateRoots } from '../../../src/roots/workspaceRoots';
import { ActiveSessions } from '../../../src/sessions/activeSessions';
import type { WorkspacePort } from '../../../src/sessions/ports';
import { SessionHistory, type KeyValueStore } from '../../../src/sessions/sessionHistory';
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
