import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../../../src/acp/connection';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import { AgentSession } from '../../../../src/sessions/routing/agentSession';
import { Chats } from '../../../../src/sessions/chats/chats';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { SessionRouter, type RefusalEvent, type RemoteCommandConfinement, type SessionSink } from '../../../../src/sessions/routing/sessionRouter';
import { ConfinementUnavailableError, type ConfinementPolicy, type Confiner } from '../../../../src/process/confinement/types';
import { Thread } from '../../../../src/thread/thread';
import { SessionUpdate } from '../../../../src/acp/schema/index';
import { connectToMemoryAgent, flush, type MemoryAgent, type RecordingLogger } from '../../../helpers/memoryPeer';
import { tempDir, waitFor } from '../../../helpers/referenceAgent';
import { transcriptEvent } from '../../../../src/acp/v1/transcriptEvents';

/** One text chunk for a session. */
const chunk = (sessionId: string, text: string) => ({ sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });

describe('SessionRouter: the agent → client surface, routed to each session’s chat', () => {
  let client: AcpConnection;
  let agent: MemoryAgent;
  let logger: RecordingLogger;
  let sessions: ActiveSessions;
  let router: SessionRouter;
  let chats: Chats;

  beforeEach(async () => {
    ({ client, agent, logger } = connectToMemoryAgent());
    sessions = new ActiveSessions();
    router = new SessionRouter({ sessions, logger });
    router.connect(client);
    agent.acceptInitialize();
    let next = 1;
    agent.rpc.onRequest('session/new', () => ({ sessionId: `s${next++}` }));
    await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    chats = new Chats({ router, sessions, logger });
  });
  afterEach(() => {
    chats.dispose();
    router.dispose();
    client.dispose();
    agent.dispose();
  });

  const agentText = (thread: { snapshot(): { entries: ReadonlyArray<{ kind: string; blocks?: ReadonlyArray<{ type: string; text?: string }> }> } }) =>
    thread
      .snapshot()
      .entries.flatMap((e) => (e.kind === 'agent' ? (e.blocks ?? []).map((b) => b.text ?? '') : []))
      .join('');

  it('registers every handler an agent may call, in one place', () => {
    const advertised = agent.sent('initialize')[0]!.params as { clientCapabilities: { fs: unknown; terminal: unknown } };
    assert.deepEqual(advertised.clientCapabilities.fs, { readTextFile: true, writeTextFile: true });
    assert.equal(advertised.clientCapabilities.terminal, true);
  });

  it('keeps updates that arrive before their chat and hands them over in order; routes later ones directly', async () => {
    const session = await startSession(client, rootSetFromPaths('/w/app'));
    await agent.rpc.sendNotification('session/update', chunk(session.sessionId, 'early '));
    await flush();
    const chat = chats.open(session);
    await agent.rpc.sendNotification('session/update', chunk(session.sessionId, 'late'));
    await flush();
    assert.equal(agentText(chat.thread), 'early late');
  });

  it('bounds what waits for a chat: 2,000 updates (one warning, however many are dropped), or a whole expected replay', async () => {
    for (let i = 0; i < 2100; i++) void agent.rpc.sendNotification('session/update', chunk('stray', 'x'));
    router.expectReplay(client, 'replayed');
    for (let i = 0; i < 2100; i++) void agent.rpc.sendNotification('session/update', chunk('replayed', 'y'));
    await flush(10);
    const warnings = logger.lines.filter((l) => l.level === 'warn' && /too many updates/.test(l.message));
    assert.equal(warnings.length, 1, 'one warning for the stray session, none for the expected replay');
    assert.match(warnings[0]!.message, /session stray/);
    const replayed = chats.open(new AgentSession(client.agentName, 'replayed', client, rootSetFromPaths('/w/app')));
    await chats.caughtUp(replayed);
    assert.equal(agentText(replayed.thread).length, 2100, 'the whole replay');
    const stray = chats.open(new AgentSession(client.agentName, 'stray', client, rootSetFromPaths('/w/app')));
    await chats.caughtUp(stray);
    assert.equal(agentText(stray.thread).length, 2000, 'the first 2,000');
  });

  it('keeps a whole history that an agent replays while it forks, before its answer names the new session; drops it when the fork fails', async () => {
    const fork = router.expectFork(client);
    for (let i = 0; i < 2100; i++) void agent.rpc.sendNotification('session/update', chunk('forked', 'f'));
    await flush(10);
    fork.done('forked');
    const forked = chats.open(new AgentSession(client.agentName, 'forked', client, rootSetFromPaths('/w/app')));
    await chats.caughtUp(forked);
    assert.equal(agentText(forked.thread).length, 2100, 'the whole replay');
    assert.equal(logger.lines.filter((l) => /too many updates/.test(l.message)).length, 0);

    const failed = router.expectFork(client);
    void agent.rpc.sendNotification('session/update', chunk('never-answered', 'x'));
    await flush();
    failed.done(undefined);
    const nobody = chats.open(new AgentSession(client.agentName, 'never-answered', client, rootSetFromPaths('/w/app')));
    assert.equal(agentText(nobody.thread), '', 'what a failed fork replayed was dropped');
  });

  it('answers a permission request for a session without a chat with "cancelled", and says so', async () => {
    const answer = await agent.rpc.sendRequest('session/request_permission', {
      sessionId: 'nobody',
      toolCall: { toolCallId: 't1', title: 'Edit' },
      options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }],
    });
    assert.deepEqual(answer, { outcome: { outcome: 'cancelled' } });
    assert.ok(logger.lines.some((l) => /which has no open chat; answered cancelled/.test(l.message)));
  });

  it('a refused write the agent carried out with its own tools anyway (as opencode does) says so once the turn ends', async () => {
    const dir = tempDir();
    try {
      const root = fs.realpathSync.native(fs.mkdtempSync(path.join(dir.dir, 'app-')));
      const written = path.join(dir.dir, 'written-anyway.txt');
      const left = path.join(dir.dir, 'left-alone.txt');
      const session = await startSession(client, rootSetFromPaths(root));
      const chat = chats.open(session);
      agent.rpc.onRequest('session/prompt', async () => {
        for (const file of [written, left]) {
          await assert.rejects(agent.rpc.sendRequest('fs/write_text_file', { sessionId: session.sessionId, path: file, content: 'hello\n' }), /outside/);
        }
        // Its own write tool, after the client refused: the file is there all the same.
        fs.writeFileSync(written, 'hello\n');
        return { stopReason: 'end_turn' };
      });
      await chat.prompt([{ type: 'text', text: 'write them' }], []);
      const refusals = chat.thread.snapshot().entries.filter((e) => e.kind === 'refusal');
      assert.deepEqual(
        refusals.map((e) => e.kind === 'refusal' && [e.path, e.writtenAnyway]),
        [
          [written, true],
          [left, undefined],
        ],
      );
    } finally {
      dir.cleanup();
    }
  });

  it('shows a refused file access in the session’s chat and tells whoever listens', async () => {
    const session = await startSession(client, rootSetFromPaths('/w/app'));
    const chat = chats.open(session);
    const refused: RefusalEvent[] = [];
    router.onDidRefuse((event) => refused.push(event));
    await assert.rejects(agent.rpc.sendRequest('fs/read_text_file', { sessionId: session.sessionId, path: '/etc/hostname' }), /outside|not inside|roots/);
    await flush();
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!.session, session);
    assert.ok(chat.thread.snapshot().entries.some((e) => e.kind === 'refusal' && e.path === '/etc/hostname'));
  });

  it('says in the chat that a message over the size limit was discarded: the session’s chat when its start names it, else every chat of that agent', async () => {
    const first = chats.open(await startSession(client, rootSetFromPaths('/w/app')));
    const second = chats.open(await startSession(client, rootSetFromPaths('/w/app')));
    const errors = (chat: typeof first) => chat.thread.snapshot().entries.flatMap((e) => (e.kind === 'error' ? [e] : []));
    const big = 'x'.repeat(32 * 1024 * 1024 + 10);
    const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: big } };
    agent.writeRaw(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: second.session.sessionId, update } }) + '\n');
    await waitFor(() => errors(second).length === 1, 10_000, 'the note in the second chat');
    assert.equal(errors(first).length, 0, 'only the chat it was for');
    const [note] = errors(second);
    assert.match(
      note!.message,
      /^Memory Agent sent a message \(session\/update\) of 32\.0 MiB, over the limit of 32\.0 MiB \(setting acpWorkspace\.maxMessageSizeMiB/,
    );
    assert.match(note!.message, /for this session\. ACP Workspace discarded it/);
    assert.deepEqual(note!.actions, ['messageSizeSetting', 'showLog']);

    agent.writeRaw(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { update, sessionId: first.session.sessionId } }) + '\n');
    await waitFor(() => errors(first).length === 1 && errors(second).length === 2, 10_000, 'the note in both chats');
    assert.match(errors(first)[0]!.message, /without being able to tell which of Memory Agent's sessions it was for/);
    assert.equal(errors(first)[0]!.message, errors(second)[1]!.message);
    await agent.rpc.sendNotification('session/update', chunk(first.session.sessionId, 'still connected'));
    await flush();
    assert.equal(agentText(first.thread), 'still connected', 'the connection goes on');
  });

  describe('terminals', () => {
    let folder: { dir: string; cleanup: () => void };
    beforeEach(() => (folder = tempDir()));
    afterEach(() => folder.cleanup());

    it('shows every terminal the agent starts in its chat, without a tool call: command, folder, output, exit', async () => {
      const root = fs.realpathSync.native(folder.dir);
      const session = await startSession(client, rootSetFromPaths(root));
      const chat = chats.open(session);
      const { terminalId } = await agent.rpc.sendRequest<{ terminalId: string }>('terminal/create', {
        sessionId: session.sessionId,
        command: process.execPath,
        args: ['-e', 'console.log("from the agent")'],
        cwd: root,
      });
      await agent.rpc.sendRequest('terminal/wait_for_exit', { sessionId: session.sessionId, terminalId });
      const shown = () => chat.thread.snapshot().entries.find((e) => e.kind === 'terminal');
      await waitFor(
        () => {
          const e = shown();
          return e?.kind === 'terminal' && e.exitStatus !== undefined;
        },
        10_000,
        'the exit in the chat',
      );
      const entry = shown();
      assert.ok(entry?.kind === 'terminal');
      assert.equal(entry.terminalId, terminalId);
      assert.match(entry.command, /-e "console\.log\(\\"from the agent\\"\)"$/);
      assert.equal(entry.cwd, root);
      assert.equal(entry.output, 'from the agent\n');
      assert.equal(entry.exitStatus?.exitCode, 0);
      assert.equal(entry.inToolCall, false);
    });

    it('shows a refused terminal folder like a refused file access, and tells whoever listens', async () => {
      const root = fs.realpathSync.native(folder.dir);
      const session = await startSession(client, rootSetFromPaths(root));
      const chat = chats.open(session);
      const refused: RefusalEvent[] = [];
      router.onDidRefuse((event) => refused.push(event));
      const outside = path.dirname(root);
      await assert.rejects(
        agent.rpc.sendRequest('terminal/create', { sessionId: session.sessionId, command: 'ls', args: ['-la'], cwd: outside }),
        /Refused terminal cwd/,
      );
      await flush();
      assert.equal(refused.length, 1);
      assert.deepEqual([refused[0]!.refusal.operation, refused[0]!.refusal.path, refused[0]!.refusal.command], ['terminal', outside, 'ls -la']);
      const entry = chat.thread.snapshot().entries.find((e) => e.kind === 'refusal');
      assert.ok(entry?.kind === 'refusal');
      assert.deepEqual([entry.operation, entry.path, entry.command], ['terminal', outside, 'ls -la']);
      assert.match(entry.message, /is outside this session’s folder/);
      assert.doesNotMatch(entry.message, /^Refused terminal cwd/, 'the reason, not the error the agent got');
      assert.deepEqual(
        session.refusals.map((r) => r.operation),
        ['terminal'],
      );
      assert.equal(chat.thread.snapshot().entries.filter((e) => e.kind === 'terminal').length, 0, 'nothing ran');
    });

    it('shows a command that could not start, with the reason', async () => {
      const root = fs.realpathSync.native(folder.dir);
      const session = await startSession(client, rootSetFromPaths(root));
      const chat = chats.open(session);
      await assert.rejects(
        agent.rpc.sendRequest('terminal/create', { sessionId: session.sessionId, command: 'acp-ws-no-such-command', args: ['--x'], cwd: root }),
      );
      await flush();
      const entry = chat.thread.snapshot().entries.find((e) => e.kind === 'terminal');
      assert.ok(entry?.kind === 'terminal');
      assert.deepEqual([entry.command, entry.cwd, entry.terminalId], ['acp-ws-no-such-command --x', root, undefined]);
      assert.match(entry.error ?? '', /acp-ws-no-such-command/);
    });
  });

  describe('the terminal of a remote agent (issue 24, item 10)', () => {
    let folder: { dir: string; cleanup: () => void };
    let remote: ReturnType<typeof connectToMemoryAgent>;
    let remoteRouter: SessionRouter;
    let remoteChats: Chats;
    let root: string;
    /** What the confinement was asked for and wrapped. */
    let wrapped: { file: string; args: readonly string[]; policy: ConfinementPolicy }[];
    let confinement: RemoteCommandConfinement;
    const marker = () => path.join(root, 'the-command-ran');
    /** A command that leaves a mark when it runs. */
    const marking = () => ({ command: process.execPath, args: ['-e', `require("fs").writeFileSync(${JSON.stringify(marker())}, "ran")`] });
    const recordingConfiner: Confiner = {
      mechanism: 'bubblewrap',
      description: 'bubblewrap (test)',
      wrap: (file, args, env, _cwd, policy) => {
        wrapped.push({ file, args, policy });
        return { file, args, env: { ...env, ACP_TEST_CONFINED: '1' }, dispose: () => undefined };
      },
    };

    async function connectRemote(localTerminal: boolean) {
      remote = connectToMemoryAgent();
      remoteRouter = new SessionRouter({ sessions, logger, remoteCommands: confinement });
      remoteRouter.connect(remote.client, undefined, { localTerminal });
      remote.agent.acceptInitialize();
      remote.agent.rpc.onRequest('session/new', () => ({ sessionId: 'remote-1' }));
      await remote.client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
      remoteChats = new Chats({ router: remoteRouter, sessions, logger });
      const session = await startSession(remote.client, rootSetFromPaths(root));
      return { session, chat: remoteChats.open(session) };
    }
    const entries = (chat: { thread: Thread }) => chat.thread.snapshot().entries;

    beforeEach(() => {
      folder = tempDir();
      root = fs.realpathSync.native(folder.dir);
      wrapped = [];
      confinement = {
        forCommand: (folders) => Promise.resolve({ confiner: recordingConfiner, policy: { mode: 'writes', writable: [...folders], readable: [] } }),
      };
    });
    afterEach(() => {
      remoteChats?.dispose();
      remoteRouter?.dispose();
      remote?.client.dispose();
      remote?.agent.dispose();
      folder.cleanup();
    });

    it('is not offered: terminal is not advertised (fs is), and a terminal/create is refused in words shown in the chat; nothing runs', async () => {
      const { session, chat } = await connectRemote(false);
      const advertised = remote.agent.sent('initialize')[0]!.params as { clientCapabilities: { fs: unknown; terminal?: unknown } };
      assert.deepEqual(advertised.clientCapabilities.fs, { readTextFile: true, writeTextFile: true });
      assert.equal(advertised.clientCapabilities.terminal ?? false, false);
      const refused: RefusalEvent[] = [];
      remoteRouter.onDidRefuse((event) => refused.push(event));
      await assert.rejects(
        remote.agent.rpc.sendRequest('terminal/create', { sessionId: session.sessionId, ...marking(), cwd: root }),
        /Memory Agent runs on another machine: ACP Workspace does not run its commands on this one/,
      );
      await flush();
      const entry = entries(chat).find((e) => e.kind === 'refusal');
      assert.ok(entry?.kind === 'refusal', 'the chat shows the refusal');
      assert.equal(entry.operation, 'terminal');
      assert.match(entry.command ?? '', /the-command-ran/);
      assert.match(entry.message, /"localTerminal": true/);
      assert.equal(refused.length, 1);
      assert.equal(entries(chat).filter((e) => e.kind === 'terminal' || e.kind === 'permission').length, 0, 'nothing ran, nothing was asked');
      assert.equal(fs.existsSync(marker()), false, 'nothing ran on this machine');
      assert.deepEqual(wrapped, []);
    });

    it("with its entry's opt-in, asks first, naming the agent, the command and the folder: refused, nothing runs", async () => {
      const { session, chat } = await connectRemote(true);
      const advertised = remote.agent.sent('initialize')[0]!.params as { clientCapabilities: { terminal?: unknown } };
      assert.equal(advertised.clientCapabilities.terminal, true);
      const creating = remote.agent.rpc.sendRequest('terminal/create', { sessionId: session.sessionId, ...marking(), cwd: root });
      await waitFor(() => entries(chat).some((e) => e.kind === 'permission'), 5000, 'the question in the chat');
      const question = entries(chat).find((e) => e.kind === 'permission');
      assert.ok(question?.kind === 'permission');
      assert.match(question.title, /^Memory Agent, a remote agent, wants to run .*the-command-ran.* in .* on this machine/);
      assert.ok(question.title.includes(root), question.title);
      assert.ok(chat.choosePermissionKind(question.id, 'reject_once'));
      await assert.rejects(creating, /The user did not allow the command to run on this machine/);
      await flush();
      assert.equal(fs.existsSync(marker()), false, 'nothing ran');
      assert.deepEqual(wrapped, []);
      assert.ok(entries(chat).some((e) => e.kind === 'refusal' && e.operation === 'terminal'));
    });

    it("with its entry's opt-in, a command the user allows runs confined to the session's folders", async () => {
      const { session, chat } = await connectRemote(true);
      const creating = remote.agent.rpc.sendRequest<{ terminalId: string }>('terminal/create', { sessionId: session.sessionId, ...marking(), cwd: root });
      await waitFor(() => entries(chat).some((e) => e.kind === 'permission'), 5000, 'the question in the chat');
      const question = entries(chat).find((e) => e.kind === 'permission')!;
      assert.ok(chat.choosePermissionKind(question.id, 'allow_once'));
      const { terminalId } = await creating;
      await remote.agent.rpc.sendRequest('terminal/wait_for_exit', { sessionId: session.sessionId, terminalId });
      assert.equal(fs.readFileSync(marker(), 'utf8'), 'ran');
      assert.equal(wrapped.length, 1, 'wrapped by the confinement');
      assert.deepEqual(wrapped[0]!.policy.writable, [root]);
      assert.equal(wrapped[0]!.file, process.execPath);
    });

    it('fails closed: when confinement cannot be set up, the command is refused with why, without asking; nothing runs', async () => {
      confinement = {
        forCommand: () => Promise.reject(new ConfinementUnavailableError('bwrap is not installed.', 'Install bubblewrap (apt install bubblewrap).')),
      };
      const { session, chat } = await connectRemote(true);
      await assert.rejects(
        remote.agent.rpc.sendRequest('terminal/create', { sessionId: session.sessionId, ...marking(), cwd: root }),
        /cannot be confined here: bwrap is not installed/,
      );
      await flush();
      assert.equal(entries(chat).filter((e) => e.kind === 'permission').length, 0, 'not asked');
      const entry = entries(chat).find((e) => e.kind === 'refusal');
      assert.ok(entry?.kind === 'refusal');
      assert.match(entry.message, /bwrap is not installed\. Install bubblewrap/);
      assert.equal(fs.existsSync(marker()), false);
    });

    it("with its entry's opt-in but no chat to ask in, refuses", async () => {
      const { session, chat } = await connectRemote(true);
      remoteChats.close(chat);
      sessions.add(session);
      await assert.rejects(remote.agent.rpc.sendRequest('terminal/create', { sessionId: session.sessionId, ...marking(), cwd: root }), /no open chat/);
      assert.equal(fs.existsSync(marker()), false);
    });
  });

  describe('a replay handed over in time-boxed slices', () => {
    /** A router that hands over one update per slice (time slices are machine-dependent; this is the extreme). */
    let sliced: SessionRouter;
    let slicedChats: Chats;
    beforeEach(() => {
      sliced = new SessionRouter({ sessions, logger, sliceMs: 0 });
      slicedChats = new Chats({ router: sliced, sessions, logger });
    });
    afterEach(() => {
      slicedChats.dispose();
      sliced.dispose();
    });

    /** A client of its own on the sliced router, and a session replaying `count` chunks b0, b1, … before its chat opens. */
    async function replayed(count: number, sessionId = 'long') {
      const own = connectToMemoryAgent();
      sliced.connect(own.client);
      own.agent.acceptInitialize();
      await own.client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
      sliced.expectReplay(own.client, sessionId);
      for (let i = 0; i < count; i++) await own.agent.rpc.sendNotification('session/update', chunk(sessionId, `b${i} `));
      await flush(5);
      return own;
    }

    function recordingSink() {
      const received: string[] = [];
      const progress: Array<[number, number]> = [];
      const sink: SessionSink = {
        onEvent: (event) =>
          received.push(event.type === 'message' && event.role === 'agent' && event.content.type === 'text' ? event.content.text : event.type),
        replayProgress: (done, total) => progress.push([done, total]),
        requestPermission: () => Promise.resolve({ outcome: 'cancelled' }),
        noteRefusal: () => undefined,
        updateTerminal: () => undefined,
        noteTerminalFailure: () => undefined,
        noteDiscarded: () => undefined,
        confirmCommand: () => Promise.resolve(false),
      };
      return { sink, received, progress };
    }

    it('hands over the buffer in slices, in order, with what arrives meanwhile behind it, and says how far it is', async () => {
      const own = await replayed(300);
      try {
        const { sink, received, progress } = recordingSink();
        const done = sliced.route(own.client, 'long', sink);
        assert.ok(received.length < 300, `not all in one go: ${received.length}`);
        for (const text of ['late1 ', 'late2 ']) await own.agent.rpc.sendNotification('session/update', chunk('long', text));
        await done;
        assert.deepEqual(received, [...Array.from({ length: 300 }, (_, i) => `b${i} `), 'late1 ', 'late2 ']);
        assert.ok(progress.length > 10, 'progress is said along the way');
        assert.ok(
          progress.every(([d, t], i) => d < t && (i === 0 || d > progress[i - 1]![0])),
          `progress only grows: ${JSON.stringify(progress.slice(0, 5))}`,
        );
        // Once handed over, updates go straight to the chat.
        await own.agent.rpc.sendNotification('session/update', chunk('long', 'after'));
        await flush();
        assert.equal(received[received.length - 1], 'after');
      } finally {
        own.client.dispose();
        own.agent.dispose();
      }
    });

    it('stops handing over when the chat closes (unrouted): nothing more reaches it, and whoever waits is released', async () => {
      const own = await replayed(300);
      try {
        const { sink, received } = recordingSink();
        const done = sliced.route(own.client, 'long', sink);
        await flush(3);
        const before = received.length;
        assert.ok(before < 300);
        sliced.unroute(own.client, 'long', sink);
        await done;
        await flush(10);
        assert.equal(received.length, before, 'nothing after the chat closed');
        await sliced.delivered(own.client, 'long');
      } finally {
        own.client.dispose();
        own.agent.dispose();
      }
    });

    it('folds into the chat exactly what one synchronous loop folds (recorded updates of real agents, 20 times over)', async () => {
      const dir = path.resolve(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'updates');
      const recorded = fs
        .readdirSync(dir)
        .filter((name) => name.endsWith('.jsonl'))
        .flatMap((name) =>
          fs
            .readFileSync(path.join(dir, name), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        )
        // A recording ends with the turn's stop reason, which is no update.
        .filter((raw) => !('$stopReason' in raw));
      const updates = Array.from({ length: 20 }, () => recorded).flat();
      const own = connectToMemoryAgent();
      sliced.connect(own.client);
      own.agent.acceptInitialize();
      await own.client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
      try {
        sliced.expectReplay(own.client, 'recorded');
        for (const update of updates) await own.agent.rpc.sendNotification('session/update', { sessionId: 'recorded', update });
        await flush(5);
        const chat = slicedChats.open(new AgentSession(own.client.agentName, 'recorded', own.client, rootSetFromPaths('/w/app')), { replay: true });
        assert.equal(chat.thread.snapshot().entries.length, 0, 'built aside: the chat shows nothing of it yet');
        await slicedChats.caughtUp(chat);
        chat.thread.endReplay();

        const direct = new Thread({ agentName: own.client.agentName, roots: [], prompt: own.client.caps.prompt });
        direct.beginReplay();
        for (const update of updates) direct.apply(transcriptEvent(SessionUpdate.parse(update)));
        direct.endReplay();
        assert.ok(direct.length > 500);
        assert.deepEqual(chat.thread.snapshot().entries, direct.snapshot().entries);
      } finally {
        own.client.dispose();
        own.agent.dispose();
      }
    });
  });

  it('stops routing to a chat once it is closed (what comes later waits, bounded, for a chat)', async () => {
    const session = await startSession(client, rootSetFromPaths('/w/app'));
    const chat = chats.open(session);
    chats.close(chat);
    await agent.rpc.sendNotification('session/update', chunk(session.sessionId, 'after close'));
    await flush();
    assert.equal(agentText(chat.thread), '');
    assert.equal(sessions.find(session.agentName, session.sessionId), undefined);
  });
});
