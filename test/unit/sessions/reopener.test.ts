import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../src/acp/connection';
import { silentLogger } from '../../../src/common/logger';
import { chooseReopenMethod, REOPEN_POLICY, ReopenUnsupportedError, type ReopenVerb } from '../../../src/history/reopenPolicy';
import { rootSetFromPaths } from '../../../src/roots/rootSet';
import { ActiveSessions } from '../../../src/sessions/activeSessions';
import type { AgentSession } from '../../../src/sessions/agentSession';
import { Chats } from '../../../src/sessions/chats';
import type { AgentPool } from '../../../src/sessions/ports';
import { Reopener, type ReopenRequest } from '../../../src/sessions/reopener';
import type { SessionController } from '../../../src/sessions/sessionController';
import { startSession } from '../../../src/sessions/sessionLifecycle';
import { SessionRouter } from '../../../src/sessions/sessionRouter';
import { Thread } from '../../../src/thread/thread';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent, type MemoryAgent } from '../../helpers/memoryPeer';

type Caps = 'all' | 'loadOnly' | 'resumeOnly' | 'none';

const CAPABILITIES: Record<Caps, Record<string, unknown>> = {
  all: FULL_AGENT_CAPABILITIES,
  loadOnly: { ...FULL_AGENT_CAPABILITIES, sessionCapabilities: { close: {}, additionalDirectories: {} } },
  resumeOnly: { ...FULL_AGENT_CAPABILITIES, loadSession: false, sessionCapabilities: { resume: {}, close: {}, additionalDirectories: {} } },
  none: { ...FULL_AGENT_CAPABILITIES, loadSession: false, sessionCapabilities: { close: {}, additionalDirectories: {} } },
};

const NEITHER = 'Memory Agent can neither load nor resume sessions.';
const NO_RESUME = 'Memory Agent does not support resuming sessions (session/resume).';
const NO_FORK = 'Memory Agent does not support forking sessions (session/fork).';

/** The policy as a table: for each verb and what the agent advertises, the request sent or why none is. */
const TABLE: ReadonlyArray<readonly [ReopenVerb, Record<Caps, string>]> = [
  ['open', { all: 'session/load', loadOnly: 'session/load', resumeOnly: 'session/resume', none: NEITHER }],
  ['restore', { all: 'session/load', loadOnly: 'session/load', resumeOnly: 'session/resume', none: NEITHER }],
  ['resume', { all: 'session/resume', loadOnly: NO_RESUME, resumeOnly: 'session/resume', none: NO_RESUME }],
  ['fork', { all: 'session/fork', loadOnly: NO_FORK, resumeOnly: NO_FORK, none: NO_FORK }],
  ['recover', { all: 'session/resume', loadOnly: 'session/load', resumeOnly: 'session/resume', none: NEITHER }],
  ['refolder', { all: 'session/resume', loadOnly: 'session/load', resumeOnly: 'session/resume', none: NEITHER }],
];

const three = rootSetFromPaths('/w/app', ['/w/lib', '/w/docs']);
const LIFECYCLE = ['session/load', 'session/resume', 'session/fork'];

interface World {
  client: AcpConnection;
  agent: MemoryAgent;
  sessions: ActiveSessions;
  router: SessionRouter;
  chats: Chats;
  reopener: Reopener;
  recorded: Array<{ session: AgentSession; title: string | undefined }>;
  restarts: number;
}

async function world(caps: Caps): Promise<World> {
  const { client, agent } = connectToMemoryAgent();
  const sessions = new ActiveSessions();
  const router = new SessionRouter({ sessions, logger: silentLogger });
  router.connect(client);
  agent.acceptInitialize({ agentCapabilities: CAPABILITIES[caps] });
  agent.rpc.onRequest('session/new', () => ({ sessionId: 'old' }));
  // A load replays the history before it answers.
  agent.rpc.onRequest('session/load', async (params: { sessionId: string }) => {
    await agent.rpc.sendNotification('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'replayed question' } } });
    await agent.rpc.sendNotification('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'replayed answer' } } });
    return {};
  });
  agent.rpc.onRequest('session/resume', () => ({}));
  agent.rpc.onRequest('session/fork', () => ({ sessionId: 'forked' }));
  agent.rpc.onRequest('session/close', () => ({}));
  await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
  const chats = new Chats({ router, sessions, logger: silentLogger });
  const w: World = { client, agent, sessions, router, chats, reopener: undefined as unknown as Reopener, recorded: [], restarts: 0 };
  const agents: AgentPool = {
    start: () => Promise.resolve(client),
    restart: () => {
      w.restarts++;
      return Promise.resolve(client);
    },
    running: () => client,
  };
  w.reopener = new Reopener({
    agents,
    chats,
    router,
    sessions,
    mcp: { forAgent: () => ({ servers: [], notPassed: ['MCP server “x” was not passed: a test.'] }) },
    logger: silentLogger,
    record: (session, title) => w.recorded.push({ session, title }),
  });
  return w;
}

/** A chat that already shows a conversation (for the verbs that continue one). */
async function openChat(w: World): Promise<SessionController> {
  const chat = w.chats.open(await startSession(w.client, three));
  chat.thread.addUserPrompt([{ type: 'text', text: 'shown before' }]);
  return chat;
}

const texts = (thread: Thread) =>
  thread.snapshot().entries.flatMap((e) => (e.kind === 'user' || e.kind === 'agent' ? [e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')] : e.kind === 'info' ? [`info: ${e.text}`] : []));

describe('reopening a session: one policy table for every path', () => {
  let w: World | undefined;
  afterEach(() => {
    w?.chats.dispose();
    w?.client.dispose();
    w?.agent.dispose();
    w = undefined;
  });

  it('the table covers every verb, and every verb has a request it prefers', () => {
    assert.deepEqual(
      TABLE.map(([verb]) => verb),
      Object.keys(REOPEN_POLICY),
    );
    for (const methods of Object.values(REOPEN_POLICY)) assert.ok(methods.length > 0);
  });

  for (const [verb, row] of TABLE) {
    for (const caps of Object.keys(row) as Caps[]) {
      const expected = row[caps];
      it(`${verb}, agent with ${caps}: ${expected.startsWith('session/') ? `sends ${expected}` : 'sends nothing and says why'}`, async () => {
        w = await world(caps);
        const choice = chooseReopenMethod(verb, w.client.caps, 'Memory Agent');
        const continues = verb === 'recover' || verb === 'refolder';
        const chat = continues ? await openChat(w) : undefined;
        const request: ReopenRequest = { verb, agentName: 'Memory Agent', sessionId: 'old', chat, roots: () => Promise.resolve(three), title: 'Old title' };
        if (!expected.startsWith('session/')) {
          assert.deepEqual(choice, { reason: expected });
          await assert.rejects(w.reopener.reopen(request), (error: Error) => error instanceof ReopenUnsupportedError && error.message === expected);
          assert.deepEqual(LIFECYCLE.flatMap((m) => w!.agent.sent(m)), [], 'nothing was sent');
          return;
        }
        assert.deepEqual(choice, { method: expected.slice('session/'.length) });
        const reopened = await w.reopener.reopen(request);
        assert.ok(reopened);
        const sent = LIFECYCLE.flatMap((m) => w!.agent.sent(m).map((message) => ({ method: m, params: message.params as Record<string, unknown> })));
        assert.deepEqual(sent.map((s) => s.method), [expected], 'exactly one request');
        assert.deepEqual(
          { cwd: sent[0]!.params['cwd'], additionalDirectories: sent[0]!.params['additionalDirectories'] },
          { cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs'] },
          'the complete root list',
        );
        assert.ok(reopened.chat);
        assert.equal(w.chats.find('Memory Agent', reopened.session.sessionId), reopened.chat, 'its chat is open and receives its traffic');
        assert.equal(w.sessions.find('Memory Agent', reopened.session.sessionId), reopened.session);
        if (continues) assert.equal(reopened.chat, chat, 'the chat continues with the session');
        const shown = texts(reopened.chat.thread);
        if (expected === 'session/load') {
          assert.deepEqual(shown.filter((t) => !t.startsWith('info:')), ['replayed question', 'replayed answer'], 'the replay replaces what was shown, once');
        } else if (continues) {
          assert.ok(shown.includes('shown before'), 'a resume keeps the transcript');
        }
        assert.ok(shown.includes('info: MCP server “x” was not passed: a test.'));
        if (expected === 'session/fork') {
          assert.equal(reopened.session.sessionId, 'forked');
          assert.ok(shown.includes('info: Forked from “Old title”: the new session continues from its history, which is not shown here.'));
          assert.deepEqual(w.recorded.map((r) => [r.session.sessionId, r.title]), [['forked', undefined]]);
        } else {
          assert.deepEqual(w.recorded.map((r) => [r.session.sessionId, r.title]), [['old', 'Old title']]);
          assert.equal(reopened.chat.thread.session.title, 'Old title');
        }
      });
    }
  }

  it('a replay that arrives before the answer waits for the new chat and goes nowhere else', async () => {
    w = await world('all');
    const other = w.chats.open(await startSession(w.client, rootSetFromPaths('/w/app')));
    const reopened = await w.reopener.reopen({ verb: 'open', agentName: 'Memory Agent', sessionId: 'hist', roots: () => Promise.resolve(three) });
    assert.deepEqual(texts(reopened!.chat!.thread).filter((t) => !t.startsWith('info:')), ['replayed question', 'replayed answer']);
    assert.deepEqual(texts(other.thread), []);
  });

  it('continues in a given transcript (a restored tab), and with the session only when asked to open no chat', async () => {
    w = await world('all');
    const thread = new Thread({ agentName: 'Memory Agent', roots: [], prompt: { image: false, audio: false, embeddedContext: false } });
    thread.addError('could not be reopened', ['reopen']);
    const restored = await w.reopener.reopen({ verb: 'restore', agentName: 'Memory Agent', sessionId: 'hist', thread, roots: () => Promise.resolve(three) });
    assert.equal(restored?.chat?.thread, thread);
    assert.equal(thread.snapshot().entries.some((e) => e.kind === 'error'), false, 'the transcript starts over with the replay');

    const session = await startSession(w.client, three);
    w.sessions.add(session);
    const refoldered = await w.reopener.reopen({ verb: 'refolder', agentName: 'Memory Agent', sessionId: session.sessionId, withoutChat: true, roots: () => Promise.resolve(rootSetFromPaths('/w/app')) });
    assert.equal(refoldered?.chat, undefined);
    assert.equal(w.chats.find('Memory Agent', session.sessionId), undefined);
    assert.deepEqual(w.sessions.find('Memory Agent', session.sessionId)?.rootSet, rootSetFromPaths('/w/app'), 'the registry has the session with its new roots');
  });

  it('sends nothing when the root choice is cancelled; closes what became moot; restarts the agent when asked', async () => {
    w = await world('all');
    assert.equal(await w.reopener.reopen({ verb: 'open', agentName: 'Memory Agent', sessionId: 'hist', roots: () => Promise.resolve(undefined) }), undefined);
    assert.deepEqual(LIFECYCLE.flatMap((m) => w!.agent.sent(m)), []);

    const thread = new Thread({ agentName: 'Memory Agent', roots: [], prompt: { image: false, audio: false, embeddedContext: false } });
    const moot = await w.reopener.reopen({ verb: 'restore', agentName: 'Memory Agent', sessionId: 'hist', thread, cancelled: () => true, roots: () => Promise.resolve(three) });
    assert.equal(moot, undefined);
    assert.equal(w.chats.find('Memory Agent', 'hist'), undefined);
    assert.deepEqual(w.agent.sent('session/close').map((m) => m.params), [{ sessionId: 'hist' }]);

    const chat = await openChat(w);
    await w.reopener.reopen({ verb: 'recover', agentName: 'Memory Agent', sessionId: 'old', chat, restart: true, roots: () => Promise.resolve(chat.session.rootSet) });
    assert.equal(w.restarts, 1);
  });
});
