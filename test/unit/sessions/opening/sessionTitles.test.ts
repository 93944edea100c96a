import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../../src/acp/connection';
import { AgentRegistry } from '../../../../src/agents/agentRegistry';
import { silentLogger } from '../../../../src/common/logger';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { candidateRoots } from '../../../../src/roots/workspaceRoots';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import { Chats } from '../../../../src/sessions/chats/chats';
import type { AgentPool, WorkspacePort } from '../../../../src/sessions/ports';
import { Reopener } from '../../../../src/sessions/opening/reopener';
import { SessionHistory } from '../../../../src/sessions/opening/sessionHistory';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { SessionRouter } from '../../../../src/sessions/routing/sessionRouter';
import { SessionTitles } from '../../../../src/sessions/opening/sessionTitles';
import { chatTitle } from '../../../../src/shared/chatModel';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent, type MemoryAgent } from '../../../helpers/memoryPeer';
import { tempDir } from '../../../helpers/referenceAgent';
import { TRANSCRIPT_WORKER } from '../../history/fulltext/workerFile';

const AGENT = 'Memory Agent';
const three = rootSetFromPaths('/w/app', ['/w/lib', '/w/docs']);

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

/** The application layer as extension.ts wires it, around one memory agent. */
interface World {
  client: AcpConnection;
  agent: MemoryAgent;
  sessions: ActiveSessions;
  chats: Chats;
  history: SessionHistory;
  titles: SessionTitles;
  reopener: Reopener;
  dispose(): Promise<void>;
}

function world(storageDir: string): World {
  const { client, agent } = connectToMemoryAgent();
  const sessions = new ActiveSessions();
  const router = new SessionRouter({ sessions, logger: silentLogger });
  router.connect(client);
  agent.acceptInitialize({ agentCapabilities: FULL_AGENT_CAPABILITIES });
  let created = 0;
  agent.rpc.onRequest('session/new', () => ({ sessionId: `s${++created}` }));
  agent.rpc.onRequest('session/fork', () => ({ sessionId: 'forked' }));
  agent.rpc.onRequest('session/close', () => ({}));
  const chats = new Chats({ router, sessions, logger: silentLogger });
  const agents = new AgentRegistry({ isTrusted: () => true, createProcess: () => assert.fail('no agent process here') });
  const history = new SessionHistory({
    storageDir,
    memory: { get: () => undefined, update: () => Promise.resolve() },
    agents,
    sessions,
    workspace,
    logger: silentLogger,
    transcriptWorker: TRANSCRIPT_WORKER,
  });
  const titles = new SessionTitles(history, chats, sessions);
  const changed = chats.onDidChange((chat) => history.threadChanged(chat.session, chat.thread));
  const pool: AgentPool = { start: () => Promise.resolve(client), restart: () => Promise.resolve(client), running: () => client, isRunning: () => true };
  const reopener = new Reopener({
    agents: pool,
    chats,
    router,
    sessions,
    mcp: { forAgent: () => ({ servers: [], notPassed: [] }) },
    logger: silentLogger,
    record: (session, title, forkOf) => history.recordSession(session, title, forkOf),
  });
  return {
    client,
    agent,
    sessions,
    chats,
    history,
    titles,
    reopener,
    dispose: async () => {
      changed.dispose();
      chats.dispose();
      titles.dispose();
      client.dispose('test over');
      await history.dispose();
    },
  };
}

/** Resolves once `check` holds, looked at after each title change (never on a timer). */
function untilTitles(w: World, check: () => boolean): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve) => {
    const subscription = w.titles.onDidChange(() => {
      if (!check()) return;
      subscription.dispose();
      resolve();
    });
  });
}

/** What the chat tab, its header and the status bar show: the thread's session title, once announced. */
async function shown(w: World, sessionId: string): Promise<string | undefined> {
  const chat = w.chats.find(AGENT, sessionId)!;
  await new Promise<void>((resolve) => queueMicrotask(resolve));
  return chat.thread.session.title;
}

describe('SessionTitles: one title per session in every view, and the same after a reload', () => {
  let storage: { dir: string; cleanup: () => void };
  let w: World | undefined;
  beforeEach(() => (storage = tempDir()));
  afterEach(async () => {
    await w?.dispose();
    w = undefined;
    storage.cleanup();
  });

  it('a new chat is dated, then named by its first prompt, then by the agent, then by the user’s rename; each change is announced once and reaches the chat', async () => {
    w = world(storage.dir);
    await w.client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    const chat = w.chats.open(await startSession(w.client, three));
    const id = chat.session.sessionId;
    assert.match(chat.thread.session.title ?? '', /^Session in app from /, 'nothing else known yet: where and when it started');
    assert.match(chatTitle(chat.thread.session), /^Session in app from .* · Memory Agent$/);

    chat.thread.addUserPrompt([{ type: 'text', text: '  Refactor the parser\nso that it streams' }]);
    await untilTitles(w, () => w!.titles.titleOf(AGENT, id) === 'Refactor the parser');
    assert.equal(await shown(w, id), 'Refactor the parser');

    await w.agent.rpc.sendNotification('session/update', { sessionId: id, update: { sessionUpdate: 'session_info_update', title: 'Parser streaming' } });
    await untilTitles(w, () => w!.titles.titleOf(AGENT, id) === 'Parser streaming');
    assert.equal(await shown(w, id), 'Parser streaming');
    assert.equal(w.history.view(AGENT, id)?.title, 'Parser streaming', 'the Sessions row says the same');

    let announced = 0;
    const counting = w.titles.onDidChange(() => announced++);
    w.history.index.setLocal(AGENT, id, { localTitle: '  My\nparser  ' });
    counting.dispose();
    assert.equal(announced, 1);
    assert.equal(w.titles.titleOf(AGENT, id), 'My parser');
    assert.equal(await shown(w, id), 'My parser', 'the chat follows the rename at once');
    assert.equal(w.history.view(AGENT, id)?.title, 'My parser');

    // The agent renaming it later does not undo the user's rename.
    await w.agent.rpc.sendNotification('session/update', { sessionId: id, update: { sessionUpdate: 'session_info_update', title: 'Agent again' } });
    await new Promise<void>((resolve) => {
      const subscription = w!.history.onDidChange(() => w!.history.index.get(AGENT, id)?.title === 'Agent again' && (subscription.dispose(), resolve()));
    });
    assert.equal(await shown(w, id), 'My parser');
  });

  it('a fork is “<parent’s title> (fork)” from the moment its chat opens, even when the agent copied the parent’s title into it, and after a reload', async () => {
    w = world(storage.dir);
    await w.client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    const parent = w.chats.open(await startSession(w.client, three));
    const parentId = parent.session.sessionId;
    await w.agent.rpc.sendNotification('session/update', { sessionId: parentId, update: { sessionUpdate: 'session_info_update', title: 'Agent’s name' } });
    await untilTitles(w, () => w!.titles.titleOf(AGENT, parentId) === 'Agent’s name');
    w.history.index.setLocal(AGENT, parentId, { localTitle: 'Greeting work' });
    const view = w.history.view(AGENT, parentId)!;
    assert.equal(view.title, 'Greeting work');

    let titleWhenOpened: string | undefined;
    const opened = w.chats.onDidOpen(({ chat }) => (titleWhenOpened = chat.thread.session.title));
    const fork = await w.reopener.reopen({
      verb: 'fork',
      agentName: AGENT,
      sessionId: parentId,
      roots: () => Promise.resolve(three),
      title: view.title,
      parentAgentTitle: view.agentTitle,
    });
    opened.dispose();
    assert.equal(fork?.session.sessionId, 'forked');
    assert.equal(titleWhenOpened, 'Greeting work (fork)', 'the tab never shows another name first');
    assert.equal(w.titles.titleOf(AGENT, 'forked'), 'Greeting work (fork)');
    assert.equal(w.history.view(AGENT, 'forked')?.title, 'Greeting work (fork)');

    // An agent that copies the parent's title into the fork has not named it.
    await w.agent.rpc.sendNotification('session/update', { sessionId: 'forked', update: { sessionUpdate: 'session_info_update', title: 'Agent’s name' } });
    await new Promise<void>((resolve) => {
      const subscription = w!.history.onDidChange(() => w!.history.index.get(AGENT, 'forked')?.title === 'Agent’s name' && (subscription.dispose(), resolve()));
    });
    assert.equal(await shown(w, 'forked'), 'Greeting work (fork)');

    // A window reload: a new history on the same storage gives the same titles.
    await w.history.index.flush();
    await w.dispose();
    w = world(storage.dir);
    assert.equal(w.titles.titleOf(AGENT, 'forked'), 'Greeting work (fork)');
    assert.equal(w.titles.titleOf(AGENT, parentId), 'Greeting work');
    assert.equal(w.history.view(AGENT, 'forked')?.title, 'Greeting work (fork)');

    // Until the agent names the fork itself, or the user does.
    w.history.index.record({ agentName: AGENT, sessionId: 'forked', title: 'Its own name' });
    assert.equal(w.titles.titleOf(AGENT, 'forked'), 'Its own name');
  });
  it('an agent that names its sessions only in session/list (opencode): its title wins over the first prompt, also after a reload', async () => {
    w = world(storage.dir);
    const listed: Array<{ sessionId: string; title: string }> = [];
    w.agent.rpc.onRequest('session/list', () => ({
      sessions: listed.map((s) => ({ ...s, cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs'], updatedAt: '2026-01-02T03:04:05Z' })),
    }));
    await w.client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    const chat = w.chats.open(await startSession(w.client, three));
    const id = chat.session.sessionId;
    chat.thread.addUserPrompt([{ type: 'text', text: 'please look at the parser' }]);
    await untilTitles(w, () => w!.titles.titleOf(AGENT, id) === 'please look at the parser');

    // opencode names the session in its own store and says so only when the Sessions view lists it.
    listed.push({ sessionId: id, title: 'Fix the parser bug' });
    await w.history.catalogFor(w.client).loadMore([undefined]);
    assert.equal(w.titles.titleOf(AGENT, id), 'Fix the parser bug');
    assert.equal(await shown(w, id), 'Fix the parser bug', 'the chat tab follows');

    // A window reload: nothing is listed yet (the Sessions view is closed), the agent's title still wins.
    await w.history.index.flush();
    await w.dispose();
    w = world(storage.dir);
    assert.equal(w.titles.titleOf(AGENT, id), 'Fix the parser bug', 'the agent’s title, not the first prompt');
    assert.equal(w.history.view(AGENT, id)?.title, 'Fix the parser bug');
  });
});
