import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../../src/acp/connection';
import { silentLogger } from '../../../../src/common/logger';
import { chooseReopenMethod, REOPEN_POLICY, ReopenUnsupportedError, type ReopenVerb } from '../../../../src/history/reopenPolicy';
import type { ForkOrigin } from '../../../../src/history/sessionTitle';
import { rootPaths, rootSetFromPaths } from '../../../../src/roots/rootSet';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import type { AgentSession } from '../../../../src/sessions/routing/agentSession';
import { Chats } from '../../../../src/sessions/chats/chats';
import type { AgentPool } from '../../../../src/sessions/ports';
import { Reopener, type ReopenRequest } from '../../../../src/sessions/opening/reopener';
import { AgentLifecycle, type AgentLifecycleOptions } from '../../../../src/sessions/opening/agentLifecycle';
import type { SessionController } from '../../../../src/sessions/turns/sessionController';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { SessionRouter } from '../../../../src/sessions/routing/sessionRouter';
import { Thread } from '../../../../src/thread/thread';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent, type MemoryAgent } from '../../../helpers/memoryPeer';

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
  /** The agent's current connection (a new one after each restart). */
  client: AcpConnection;
  agent: MemoryAgent;
  sessions: ActiveSessions;
  router: SessionRouter;
  chats: Chats;
  /** Restarts (every chat reopened); owns the reopener. */
  lifecycle: AgentLifecycle;
  reopener: Reopener;
  recorded: Array<{ session: AgentSession; title: string | undefined; forkOf?: ForkOrigin }>;
  restarts: number;
  /** What `session/load` replays (default: a question and its answer). */
  history: Array<Record<string, unknown>>;
  /** What `session/fork` replays before it answers (default: nothing, like the reference agent). */
  forkReplay: Array<Record<string, unknown>>;
  /** Every connection and agent so far, to dispose. */
  readonly all: Array<{ client: AcpConnection; agent: MemoryAgent }>;
}

/** A memory agent with the given capabilities, connected to the router and initialized. */
async function connect(w: Pick<World, 'router' | 'history' | 'forkReplay' | 'all'>, caps: Caps): Promise<{ client: AcpConnection; agent: MemoryAgent }> {
  const { client, agent } = connectToMemoryAgent();
  w.all.push({ client, agent });
  w.router.connect(client);
  agent.acceptInitialize({ agentCapabilities: CAPABILITIES[caps] });
  let created = 0;
  agent.rpc.onRequest('session/new', () => ({ sessionId: created++ === 0 ? 'old' : `old-${created}` }));
  // A load replays the history before it answers.
  agent.rpc.onRequest('session/load', async (params: { sessionId: string }) => {
    for (const update of w.history) await agent.rpc.sendNotification('session/update', { sessionId: params.sessionId, update });
    return {};
  });
  agent.rpc.onRequest('session/resume', () => ({}));
  agent.rpc.onRequest('session/fork', async () => {
    for (const update of w.forkReplay) await agent.rpc.sendNotification('session/update', { sessionId: 'forked', update });
    return { sessionId: 'forked' };
  });
  agent.rpc.onRequest('session/close', () => ({}));
  await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
  return { client, agent };
}

async function world(caps: Caps, sliceMs?: number, extra: Partial<AgentLifecycleOptions> = {}): Promise<World> {
  const sessions = new ActiveSessions();
  const router = new SessionRouter({ sessions, logger: silentLogger, ...(sliceMs === undefined ? {} : { sliceMs }) });
  const w = {
    router,
    sessions,
    all: [],
    recorded: [],
    restarts: 0,
    history: [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'replayed question' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'replayed answer' } },
    ],
    forkReplay: [],
  } as unknown as World;
  ({ client: w.client, agent: w.agent } = await connect(w, caps));
  w.chats = new Chats({ router, sessions, logger: silentLogger });
  const reconnect = async () => {
    ({ client: w.client, agent: w.agent } = await connect(w, caps));
    return w.client;
  };
  const agents: AgentPool = {
    // An agent that exited is started again.
    start: () => (w.client.isClosed ? reconnect() : Promise.resolve(w.client)),
    restart: async () => {
      w.restarts++;
      w.client.dispose('Memory Agent is restarting.');
      return reconnect();
    },
    running: () => w.client,
    isRunning: () => !w.client.isClosed,
  };
  w.lifecycle = new AgentLifecycle({
    agents,
    chats: w.chats,
    router,
    sessions,
    mcp: { forAgent: () => ({ servers: [], notPassed: ['MCP server “x” was not passed: a test.'] }) },
    logger: silentLogger,
    record: (session, title, forkOf) => w.recorded.push({ session, title, ...(forkOf ? { forkOf } : {}) }),
    ...extra,
  });
  w.reopener = w.lifecycle.reopener;
  return w;
}

/** A chat that already shows a conversation (for the verbs that continue one). */
async function openChat(w: World): Promise<SessionController> {
  const chat = w.chats.open(await startSession(w.client, three));
  chat.thread.addUserPrompt([{ type: 'text', text: 'shown before' }]);
  return chat;
}

const texts = (thread: Thread) =>
  thread
    .snapshot()
    .entries.flatMap((e) =>
      e.kind === 'user' || e.kind === 'agent'
        ? [e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')]
        : e.kind === 'info'
          ? [`info: ${e.text}`]
          : [],
    );

describe('reopening a session: one policy table for every path', () => {
  let w: World | undefined;
  afterEach(() => {
    w?.chats.dispose();
    for (const { client, agent } of w?.all ?? []) {
      client.dispose();
      agent.dispose();
    }
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
          assert.deepEqual(
            LIFECYCLE.flatMap((m) => w!.agent.sent(m)),
            [],
            'nothing was sent',
          );
          return;
        }
        assert.deepEqual(choice, { method: expected.slice('session/'.length) });
        const reopened = await w.reopener.reopen(request);
        assert.ok(reopened);
        const sent = LIFECYCLE.flatMap((m) => w!.agent.sent(m).map((message) => ({ method: m, params: message.params as Record<string, unknown> })));
        assert.deepEqual(
          sent.map((s) => s.method),
          [expected],
          'exactly one request',
        );
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
          assert.deepEqual(
            shown.filter((t) => !t.startsWith('info:')),
            ['replayed question', 'replayed answer'],
            'the replay replaces what was shown, once',
          );
        } else if (continues) {
          assert.ok(shown.includes('shown before'), 'a resume keeps the transcript');
        }
        assert.ok(shown.includes('info: MCP server “x” was not passed: a test.'));
        if (expected === 'session/fork') {
          assert.equal(reopened.session.sessionId, 'forked');
          assert.ok(shown.includes('info: Forked from “Old title”: the new session continues from its history, which is not shown here.'));
          // Recorded with its origin: named after the parent until the agent or the user names it.
          assert.deepEqual(
            w.recorded.map((r) => [r.session.sessionId, r.title, r.forkOf]),
            [['forked', undefined, { sessionId: 'old', title: 'Old title' }]],
          );
        } else {
          assert.deepEqual(
            w.recorded.map((r) => [r.session.sessionId, r.title, r.forkOf]),
            [['old', 'Old title', undefined]],
          );
        }
      });
    }
  }

  it('a replay that arrives before the answer waits for the new chat and goes nowhere else', async () => {
    w = await world('all');
    const other = w.chats.open(await startSession(w.client, rootSetFromPaths('/w/app')));
    const reopened = await w.reopener.reopen({ verb: 'open', agentName: 'Memory Agent', sessionId: 'hist', roots: () => Promise.resolve(three) });
    assert.deepEqual(
      texts(reopened!.chat!.thread).filter((t) => !t.startsWith('info:')),
      ['replayed question', 'replayed answer'],
    );
    assert.deepEqual(texts(other.thread), []);
  });

  it('continues in a given transcript (a restored tab), and with the session only when asked to open no chat', async () => {
    w = await world('all');
    const thread = new Thread({ agentName: 'Memory Agent', roots: [], prompt: { image: false, audio: false, embeddedContext: false } });
    thread.addError('could not be reopened', ['reopen']);
    const restored = await w.reopener.reopen({ verb: 'restore', agentName: 'Memory Agent', sessionId: 'hist', thread, roots: () => Promise.resolve(three) });
    assert.equal(restored?.chat?.thread, thread);
    assert.equal(
      thread.snapshot().entries.some((e) => e.kind === 'error'),
      false,
      'the transcript starts over with the replay',
    );

    const session = await startSession(w.client, three);
    w.sessions.add(session);
    const refoldered = await w.reopener.reopen({
      verb: 'refolder',
      agentName: 'Memory Agent',
      sessionId: session.sessionId,
      withoutChat: true,
      roots: () => Promise.resolve(rootSetFromPaths('/w/app')),
    });
    assert.equal(refoldered?.chat, undefined);
    assert.equal(w.chats.find('Memory Agent', session.sessionId), undefined);
    assert.deepEqual(
      w.sessions.find('Memory Agent', session.sessionId)?.rootSet,
      rootSetFromPaths('/w/app'),
      'the registry has the session with its new roots',
    );
  });

  it('reveal policy: chats restored after a reload open in the background; an Open, Resume or Fork from the Sessions view takes the user there', async () => {
    w = await world('all');
    const world_ = w;
    const opened: Array<[string, boolean]> = [];
    w.chats.onDidOpen(({ chat, background }) => opened.push([chat.session.sessionId, background]));
    const restored = () => new Thread({ agentName: 'Memory Agent', roots: [], prompt: { image: false, audio: false, embeddedContext: false } });
    // Two tabs restored after a reload, each reopening its session: neither may take the editor when it is back.
    await Promise.all(
      ['one', 'two'].map((sessionId) =>
        world_.reopener.reopen({ verb: 'restore', agentName: 'Memory Agent', sessionId, thread: restored(), roots: () => Promise.resolve(three) }),
      ),
    );
    for (const verb of ['open', 'resume', 'fork'] as const)
      await w.reopener.reopen({ verb, agentName: 'Memory Agent', sessionId: `${verb}-me`, roots: () => Promise.resolve(three) });
    assert.deepEqual(
      opened,
      [
        ['one', true],
        ['two', true],
        ['open-me', false],
        ['resume-me', false],
        ['forked', false],
      ],
      'which chats opened in the background',
    );
  });

  it('a verb the agent could not serve when it last ran is refused without starting it; its live capabilities decide once it runs', async () => {
    w = await world('all');
    const world_ = w;
    let starts = 0;
    const reopener = new Reopener({
      agents: {
        start: () => (starts++, Promise.resolve(world_.client)),
        restart: () => Promise.resolve(world_.client),
        running: () => world_.client,
        isRunning: () => true,
      },
      chats: w.chats,
      router: w.router,
      sessions: w.sessions,
      mcp: { forAgent: () => ({ servers: [], notPassed: [] }) },
      logger: silentLogger,
    });
    const knownCaps = { ...w.client.caps, loadSession: false, sessions: { ...w.client.caps.sessions, resume: false } };
    const request: ReopenRequest = { verb: 'restore', agentName: 'Memory Agent', sessionId: 'hist', roots: () => Promise.resolve(three) };
    await assert.rejects(reopener.reopen({ ...request, knownCaps }), (error: Error) => error instanceof ReopenUnsupportedError && error.message === NEITHER);
    assert.equal(starts, 0, 'the agent was not started');
    assert.ok(await reopener.reopen({ ...request, knownCaps: w.client.caps }));
    assert.equal(starts, 1);
  });

  it('a reopen whose folders widen a confined agent’s confinement waits for the restart and goes to the restarted agent', async () => {
    w = await world('all');
    const world_ = w;
    const asked: string[][] = [];
    const agents: AgentPool = {
      start: () => Promise.resolve(world_.client),
      restart: async () => {
        world_.restarts++;
        world_.client.dispose('Memory Agent is restarting.');
        ({ client: world_.client, agent: world_.agent } = await connect(world_, 'all'));
        return world_.client;
      },
      running: () => world_.client,
      isRunning: () => true,
    };
    const before = w.agent;
    const reopener = new Reopener({
      agents,
      chats: w.chats,
      router: w.router,
      sessions: w.sessions,
      mcp: { forAgent: () => ({ servers: [], notPassed: [] }) },
      logger: silentLogger,
      // As AgentConfinement does when a folder is not covered: the agent is restarted first.
      confinement: {
        ensureCovers: async (_agent, folders) => {
          asked.push([...folders]);
          await agents.restart('Memory Agent');
        },
      },
    });
    const reopened = await reopener.reopen({ verb: 'open', agentName: 'Memory Agent', sessionId: 'hist', roots: () => Promise.resolve(three) });
    assert.deepEqual(asked, [rootPaths(three)], 'told the complete folder list');
    assert.equal(w.restarts, 1);
    assert.deepEqual(before.sent('session/load'), [], 'nothing went to the agent that was restarted');
    assert.equal(w.agent.sent('session/load').length, 1, 'the restarted agent loaded the session');
    assert.equal(reopened?.session.connection, w.client);
  });

  it('a restart reopens its chats without waiting on the confinement (which waits for that very restart)', async () => {
    const declared: string[][] = [];
    // A confined agent: covering folders waits for a restart under way before it decides.
    w = await world('all', undefined, {
      confinement: {
        declare: (_agent, folders) => void declared.push([...folders]),
        takeBack: () => undefined,
        widens: () => [],
        narrows: () => ({ gone: [], kept: [] }),
        agents: () => ['Memory Agent'],
      },
    });
    const chat = w.chats.open(await startSession(w.client, three));
    const restarting = w.lifecycle.restartAgent('Memory Agent');
    const outcome = await Promise.race([
      restarting.then(() => 'restarted'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000).unref()),
    ]);
    assert.equal(outcome, 'restarted');
    assert.equal(chat.session.connection, w.client, 'the chat continues on the restarted agent');
    assert.deepEqual(declared, [], 'a recovery declares no folders: the launch covered its chats');
  });

  it('sends nothing when the root choice is cancelled; closes what became moot', async () => {
    w = await world('all');
    assert.equal(await w.reopener.reopen({ verb: 'open', agentName: 'Memory Agent', sessionId: 'hist', roots: () => Promise.resolve(undefined) }), undefined);
    assert.deepEqual(
      LIFECYCLE.flatMap((m) => w!.agent.sent(m)),
      [],
    );

    const thread = new Thread({ agentName: 'Memory Agent', roots: [], prompt: { image: false, audio: false, embeddedContext: false } });
    const moot = await w.reopener.reopen({
      verb: 'restore',
      agentName: 'Memory Agent',
      sessionId: 'hist',
      thread,
      cancelled: () => true,
      roots: () => Promise.resolve(three),
    });
    assert.equal(moot, undefined);
    assert.equal(w.chats.find('Memory Agent', 'hist'), undefined);
    assert.deepEqual(
      w.agent.sent('session/close').map((m) => m.params),
      [{ sessionId: 'hist' }],
    );
  });

  it('restarting an agent reopens every open chat of it (resume, its complete roots) without an error or "shutting down", and leaves a closed chat alone', async () => {
    w = await world('all');
    const first = await openChat(w);
    const second = w.chats.open(await startSession(w.client, rootSetFromPaths('/w/lib', ['/w/app'])));
    const closed = w.chats.open(await startSession(w.client, three));
    w.chats.close(closed);
    const before = w.client;
    const connection = await w.lifecycle.restartAgent('Memory Agent');
    assert.equal(w.restarts, 1);
    assert.notEqual(connection, before);
    const resumed = w.agent.sent('session/resume').map((m) => m.params as { sessionId: string; cwd: string; additionalDirectories: string[] });
    assert.deepEqual(
      resumed.map((p) => [p.sessionId, p.cwd, p.additionalDirectories]).sort(),
      [
        ['old', '/w/app', ['/w/lib', '/w/docs']],
        ['old-2', '/w/lib', ['/w/app']],
      ],
      'each open chat, with its complete root list; not the closed one',
    );
    for (const chat of [first, second]) {
      assert.equal(chat.session.connection, connection);
      assert.equal(chat.thread.session.status, 'idle');
      const entries = chat.thread.snapshot().entries;
      assert.deepEqual(
        entries.filter((e) => e.kind === 'error'),
        [],
      );
      assert.doesNotMatch(JSON.stringify(entries), /shutting down/);
      assert.deepEqual(
        texts(chat.thread).filter((t) => t.startsWith('info:')),
        ['info: Restarting Memory Agent…', 'info: MCP server “x” was not passed: a test.', 'info: Session resumed.'],
      );
    }
    assert.ok(texts(first.thread).includes('shown before'), 'the transcript stays');
    assert.equal(w.chats.has(closed), false);
  });

  it('a restart (or recovery) never gives back a folder the user took back: the complete list less what was withdrawn', async () => {
    w = await world('all');
    const chat = await openChat(w);
    chat.session.withdraw(['/w/lib'], '“lib” is no longer shared with Memory Agent.');
    await w.lifecycle.restartAgent('Memory Agent');
    const [resume] = w.agent.sent('session/resume').map((m) => m.params as { cwd: string; additionalDirectories: string[] });
    assert.deepEqual(resume, { sessionId: 'old', cwd: '/w/app', additionalDirectories: ['/w/docs'], mcpServers: [] });
    assert.deepEqual(
      chat.session.rootSet.additionalDirectories.map((r) => r.path),
      ['/w/docs'],
      'the reopened session (and its guard) has no lib',
    );
  });

  it('a chat whose working folder was withdrawn is not reopened there, and says why', async () => {
    w = await world('all');
    const chat = await openChat(w);
    chat.session.withdraw(['/w/app'], 'app was removed from the workspace.');
    await w.lifecycle.restartAgent('Memory Agent');
    assert.deepEqual(w.agent.sent('session/resume'), []);
    const errors = chat.thread.snapshot().entries.filter((e) => e.kind === 'error');
    assert.match(JSON.stringify(errors), /“app” is no longer in the workspace/);
  });

  it('a remote agent with path mappings gets only the mapped folders back; the chat says which one is not shared', async () => {
    w = await world('all', undefined, { mappedFolders: () => (folder) => folder !== '/w/lib' });
    const chat = await openChat(w);
    await w.lifecycle.restartAgent('Memory Agent');
    const [resume] = w.agent.sent('session/resume').map((m) => m.params as { cwd: string; additionalDirectories: string[] });
    assert.deepEqual(resume, { sessionId: 'old', cwd: '/w/app', additionalDirectories: ['/w/docs'], mcpServers: [] });
    assert.ok(
      texts(chat.thread).some((t) => /Not shared with this session: “lib” \(this remote agent has no path mapping/.test(t)),
      texts(chat.thread).join('\n'),
    );
  });

  it('a remote agent whose mappings no longer include the working folder does not reopen there, and says how to fix it', async () => {
    w = await world('all', undefined, { mappedFolders: () => (folder) => folder !== '/w/app' });
    const chat = await openChat(w);
    await w.lifecycle.restartAgent('Memory Agent');
    assert.deepEqual(w.agent.sent('session/resume'), []);
    assert.match(JSON.stringify(chat.thread.snapshot().entries.filter((e) => e.kind === 'error')), /no path mapping for this remote agent/);
  });

  it('a restart stops a running turn, and says so without offering to restart again', async () => {
    w = await world('all');
    const chat = await openChat(w);
    w.agent.rpc.onRequest('session/prompt', async () => {
      await w!.agent.rpc.sendNotification('session/update', {
        sessionId: 'old',
        update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Long step', status: 'in_progress' },
      });
      return new Promise(() => undefined);
    });
    const turn = chat.prompt([{ type: 'text', text: 'go' }], [{ type: 'text', text: 'go' }]);
    await until(() => chat.thread.toolEntry('t1') !== undefined);
    await w.lifecycle.restartAgent('Memory Agent');
    await turn;
    assert.equal(chat.thread.toolEntry('t1')?.status, 'interrupted');
    assert.deepEqual(
      chat.thread.snapshot().entries.filter((e) => e.kind === 'error'),
      [],
    );
    assert.equal(chat.thread.session.status, 'idle');
  });

  it('recovering by load (an agent without resume) keeps the crash and the interrupted call, and shows each message once', async () => {
    w = await world('loadOnly');
    w.history = [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'crash' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'partial answer' } },
      { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Step', status: 'in_progress' },
    ];
    const chat = w.chats.open(await startSession(w.client, three));
    w.agent.rpc.onRequest('session/prompt', async () => {
      for (const update of w!.history.slice(1)) await w!.agent.rpc.sendNotification('session/update', { sessionId: 'old', update });
      return new Promise(() => undefined);
    });
    const turn = chat.prompt([{ type: 'text', text: 'crash' }], [{ type: 'text', text: 'crash' }]);
    await until(() => chat.thread.toolEntry('t1') !== undefined);
    w.client.dispose('Memory Agent exited (exit code 42).');
    await turn;
    await w.reopener.recover(chat);
    assert.equal(w.agent.sent('session/load').length, 1);
    const entries = chat.thread.snapshot().entries;
    assert.deepEqual(
      entries.map((e) => (e.kind === 'tool' ? `tool:${e.status}` : e.kind === 'error' ? `error:${e.message.slice(0, 34)}` : e.kind)),
      ['user', 'agent', 'tool:interrupted', 'error:Memory Agent exited (exit code 42)', 'info', 'info'],
    );
    assert.deepEqual(
      texts(chat.thread).filter((t) => !t.startsWith('info:')),
      ['crash', 'partial answer'],
      'each message once',
    );
    assert.equal(chat.thread.session.status, 'idle');
  });

  it('recovering with an agent that can neither load nor resume says so in one sentence, and offers no action', async () => {
    w = await world('none');
    const chat = w.chats.open(await startSession(w.client, three));
    w.client.dispose('Memory Agent exited (exit code 42).');
    await until(() => chat.thread.session.status === 'disconnected');
    await w.reopener.recover(chat);
    const errors = chat.thread.snapshot().entries.flatMap((e) => (e.kind === 'error' ? [e] : []));
    assert.equal(errors.at(-1)?.message, 'Memory Agent can neither load nor resume sessions, so this chat cannot continue: start a new session.');
    assert.deepEqual(errors.at(-1)?.actions ?? [], []);
  });

  it('a long load replay is folded in slices: the chat says how far it is, shows nothing of it until it is complete, then all of it', async () => {
    w = await world('all', 0);
    w.history = Array.from({ length: 400 }, (_, i) => ({
      sessionUpdate: i % 2 ? 'agent_message_chunk' : 'user_message_chunk',
      messageId: `m${i}`,
      content: { type: 'text', text: `message ${i}` },
    }));
    const seen: Array<{ status: string; detail: string | undefined; shown: number }> = [];
    const opened = w.chats.onDidOpen(({ chat }) => {
      chat.thread.onDidChange(() =>
        seen.push({ status: chat.thread.session.status, detail: chat.thread.session.statusDetail, shown: chat.thread.snapshot().entries.length }),
      );
    });
    const reopened = await w.reopener.reopen({ verb: 'open', agentName: 'Memory Agent', sessionId: 'hist', roots: () => Promise.resolve(three) });
    opened.dispose();
    const loading = seen.filter((s) => s.status === 'loading');
    assert.ok(loading.length > 5, `the chat said it was loading along the way: ${loading.length} times`);
    assert.ok(
      loading.every((s) => /^Loading history… \d+%$/.test(s.detail ?? '') && s.shown === 0),
      JSON.stringify(loading.slice(0, 3)),
    );
    const percents = loading.map((s) => Number(/(\d+)%/.exec(s.detail!)![1]));
    assert.deepEqual(
      percents,
      [...percents].sort((a, b) => a - b),
      'the percentage only grows',
    );
    const thread = reopened!.chat!.thread;
    assert.equal(texts(thread).filter((t) => !t.startsWith('info:')).length, 400, 'then the whole history');
    assert.equal(thread.session.status, 'idle');
    assert.equal(thread.session.statusDetail, undefined);
  });

  it('a chat closed while its replay is being folded: the folding stops, and the reopen settles', async () => {
    w = await world('all', 0);
    w.history = Array.from({ length: 400 }, (_, i) => ({
      sessionUpdate: 'agent_message_chunk',
      messageId: `m${i}`,
      content: { type: 'text', text: `message ${i}` },
    }));
    let folded = 0;
    const opened = w.chats.onDidOpen(({ chat }) => {
      // Closed as soon as the first slices arrived (a user closing the tab).
      chat.thread.onDidChange(() => {
        if (!w!.chats.has(chat)) return;
        folded = chat.thread.length;
        w!.chats.close(chat);
      });
    });
    const reopened = await w.reopener.reopen({ verb: 'open', agentName: 'Memory Agent', sessionId: 'hist', roots: () => Promise.resolve(three) });
    opened.dispose();
    assert.ok(reopened?.chat);
    assert.equal(w.chats.has(reopened.chat), false);
    const atClose = folded;
    await flushImmediates(20);
    assert.ok(atClose < 400, `it stopped: ${atClose} of 400`);
    assert.equal(reopened.chat.thread.length, atClose + 2, 'nothing folded after the close (only the notes of the reopen itself)');
  });

  it('says what a fork shows: the history the agent replayed while forking, or that it is not shown', async () => {
    w = await world('all');
    const silent = await w.reopener.reopen({
      verb: 'fork',
      agentName: 'Memory Agent',
      sessionId: 'old',
      roots: () => Promise.resolve(three),
      title: 'Old title',
    });
    assert.deepEqual(texts(silent!.chat!.thread).at(-1), 'info: Forked from “Old title”: the new session continues from its history, which is not shown here.');
    w.chats.close(silent!.chat!);
    w.forkReplay = [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'forked question' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'forked answer' } },
    ];
    const replayed = await w.reopener.reopen({
      verb: 'fork',
      agentName: 'Memory Agent',
      sessionId: 'old',
      roots: () => Promise.resolve(three),
      title: 'Old title',
    });
    assert.deepEqual(texts(replayed!.chat!.thread), [
      'forked question',
      'forked answer',
      'info: MCP server “x” was not passed: a test.',
      'info: Forked from “Old title”: the agent replayed its history, and the new session continues from it.',
    ]);
  });
});

async function flushImmediates(times: number): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !predicate(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(predicate(), 'the condition was met');
}
