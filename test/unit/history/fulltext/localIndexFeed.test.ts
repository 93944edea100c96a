import * as assert from 'node:assert/strict';
import { AgentRegistry } from '../../../../src/agents/agentRegistry';
import { silentLogger } from '../../../../src/common/logger';
import { MAX_RECORDS } from '../../../../src/history/localIndex';
import { candidateRoots } from '../../../../src/roots/workspaceRoots';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import type { WorkspacePort } from '../../../../src/sessions/ports';
import { SessionHistory } from '../../../../src/sessions/opening/sessionHistory';
import { tempDir } from '../../../helpers/referenceAgent';
import { TRANSCRIPT_WORKER } from './workerFile';

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

describe('SessionHistory feeds the transcript index from the local index', () => {
  let storage: { dir: string; cleanup: () => void };
  let history: SessionHistory;
  beforeEach(() => {
    storage = tempDir();
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
  });
  afterEach(async () => {
    await history.dispose();
    storage.cleanup();
  });

  async function found(query: string): Promise<string[]> {
    return [...(await history.transcripts.search(query)).keys].sort();
  }

  it('setText → found once written; setText again → the new text; remove → gone', async () => {
    history.index.record({ agentName: 'A', sessionId: 's1', cwd: '/w' });
    history.index.setText('A', 's1', 'User: refactor the greeting');
    await history.index.flush();
    assert.deepEqual(await found('greet'), ['A\u0000s1']);
    history.index.setText('A', 's1', 'User: something else');
    await history.index.flush();
    assert.deepEqual(await found('greet'), []);
    assert.deepEqual(await found('something'), ['A\u0000s1']);
    history.index.remove('A', 's1');
    assert.deepEqual(await found('something'), [], 'gone at once, before the file is deleted');
  });

  it('a session trimmed from the history (over its limit) is gone from the index', async function () {
    this.timeout(60_000);
    history.index.record({ agentName: 'A', sessionId: 'oldest', cwd: '/w', at: 1 });
    history.index.setText('A', 'oldest', 'User: the oldest transcript');
    await history.index.flush();
    assert.deepEqual(await found('oldest'), ['A\u0000oldest']);
    for (let i = 0; i < MAX_RECORDS; i++) history.index.record({ agentName: 'A', sessionId: `s${i}`, cwd: '/w', at: 2 + i });
    assert.equal(history.index.get('A', 'oldest'), undefined, 'trimmed');
    assert.deepEqual(await found('oldest'), []);
  });
});
