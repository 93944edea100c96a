/**
 * claude-agent-acp (Claude Code over ACP), pinned in package.json, run offline against the scripted model
 * server, driven by the extension's own client code. The tests run in order and share one agent process
 * and its sessions, like a person using the extension would.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../src/acp/connection';
import { AgentRequestError } from '../../src/acp/errors';
import { rootSetFromPaths, type RootSet } from '../../src/roots/rootSet';
import type { AgentSession } from '../../src/sessions/routing/agentSession';
import type { SessionController } from '../../src/sessions/turns/sessionController';
import { forkSession, reopenSession, startSession } from '../../src/sessions/routing/sessionLifecycle';
import { claudeAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { capabilityTable, printCapabilities } from './capabilityTable';
import { InteropClient, agentText, groupExists, within, type WireMessage } from './harness';
import { waitFor } from '../helpers/referenceAgent';
import { plainAnswer } from './modelScript';
import { ModelServer, type RecordedRequest } from './modelServer';
import { checkRecording, rawUpdates, type RecordedTurn } from './recording';

const TURN_MS = 60_000;

describe('interop: claude-agent-acp', function () {
  this.timeout(90_000);
  let scratch: Scratch;
  let server: ModelServer;
  let agent: InteropAgent;
  let client: InteropClient;
  let connection: AcpConnection;
  let threeRoots: RootSet;
  /** The session with app, lib and docs, and its chat; reopened and forked later. */
  let main: { session: AgentSession; controller: SessionController };
  let single: { session: AgentSession; controller: SessionController };
  let forkedId: string;
  const liveTurns: RecordedTurn[] = [];

  before(async () => {
    scratch = makeScratch('acp-interop-claude-');
    server = await ModelServer.start();
    agent = claudeAgentAcp(scratch.home, server.url);
    client = new InteropClient({ agent, cwd: scratch.app });
    threeRoots = rootSetFromPaths(scratch.app, [scratch.lib, scratch.docs]);
  });
  after(async () => {
    await client?.dispose();
    await server?.close();
    scratch?.cleanup();
  });
  afterEach(function () {
    // Anything the scripted model could not answer explains a failure better than a timeout does.
    const problems = server.problems;
    if (problems.length > 0 && this.currentTest?.state === 'failed') console.log(`      model server problems:\n        ${problems.join('\n        ')}`);
  });

  /** Runs one prompt turn through the controller; returns the updates of that turn (raw, as sent). */
  async function turn(chat: { session: AgentSession; controller: SessionController }, text: string): Promise<RecordedTurn> {
    const from = client.mark();
    const before = chat.controller.thread.length;
    await within(TURN_MS, `the turn "${text}"`, chat.controller.prompt([{ type: 'text', text }], [{ type: 'text', text }]));
    const entries = chat.controller.thread.snapshot().entries.slice(before);
    const errors = entries.filter((e) => e.kind === 'error');
    assert.deepEqual(errors, [], `the turn "${text}" ended with an error`);
    const end = entries.at(-1);
    assert.ok(end?.kind === 'turnEnd', `the turn "${text}" ended (last entry: ${end?.kind})`);
    return { updates: rawUpdates(client, chat.session.sessionId, from), stopReason: end.stopReason };
  }

  /** The model requests made for one session (Claude Code puts its session id in `metadata.user_id`). */
  function modelRequests(sessionId: string): RecordedRequest[] {
    return server.conversation().filter((r) => {
      const userId = (r.body as { metadata?: { user_id?: string } }).metadata?.user_id;
      try {
        return (JSON.parse(userId ?? '{}') as { session_id?: string }).session_id === sessionId;
      } catch {
        return false;
      }
    });
  }

  /** Polls session/list (bounded) until `sessionId` is listed. */
  async function listedEventually(sessionId: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const listed = await within(30_000, 'session/list', connection.listSessions({ cwd: scratch.app }));
      if (listed.sessions.some((s) => s.sessionId === sessionId)) return;
      assert.ok(Date.now() < deadline, `session ${sessionId} was not listed within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const params = (message: WireMessage['message']) => message.params as Record<string, unknown>;

  it('initializes and advertises what the client uses', async () => {
    connection = await within(60_000, 'initialize', client.start());
    printCapabilities(agent, connection.caps);
    assert.equal(connection.caps.agentInfo?.name, '@agentclientprotocol/claude-agent-acp');
    assert.equal(connection.caps.agentInfo?.version, agent.version);
    assert.deepEqual(capabilityTable(connection.caps), {
      loadSession: true,
      list: true,
      resume: true,
      fork: true,
      close: true,
      delete: true,
      additionalDirectories: true,
      setTitle: false,
      logout: false,
      image: true,
      audio: false,
      embeddedContext: true,
      mcpHttp: true,
      mcpSse: true,
    });
    const initialize = client.sentSince(0, 'initialize')[0]!;
    assert.deepEqual((params(initialize)['clientCapabilities'] as { fs: unknown }).fs, { readTextFile: true, writeTextFile: true });
  });

  it('starts a session with three roots; a file in an additional root is read without a permission prompt', async () => {
    const mark = client.mark();
    const session = await within(60_000, 'session/new', startSession(connection, threeRoots));
    assert.deepEqual(params(client.sentSince(mark, 'session/new')[0]!), {
      cwd: scratch.app,
      additionalDirectories: [scratch.lib, scratch.docs],
      mcpServers: [],
    });
    main = { session, controller: client.open(session) };

    const file = path.join(scratch.lib, 'src', 'greet.ts');
    liveTurns.push(await turn(main, `read ${file}`));
    assert.deepEqual(client.permissions, [], 'no permission was asked');
    const tool = main.controller.thread.snapshot().entries.find((e) => e.kind === 'tool');
    assert.ok(tool?.kind === 'tool');
    assert.equal(tool.toolKind, 'read');
    assert.equal(tool.status, 'completed');
    assert.deepEqual(
      tool.locations.map((l) => l.path),
      [file],
    );
    assert.match(agentText(main.controller.thread), /It says:[\s\S]*Hello from lib/);
    const afterTool = modelRequests(session.sessionId).filter((r) => r.scenario === 'read:result');
    assert.equal(afterTool.length, 1, 'the model got the tool result once');
    assert.match(JSON.stringify(afterTool[0]!.body), /Hello from lib/);
  });

  it('asks for permission for the same read in a session without that root (rejected by kind: not read)', async () => {
    const mark = client.mark();
    const session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app)));
    assert.deepEqual(params(client.sentSince(mark, 'session/new')[0]!), { cwd: scratch.app, additionalDirectories: [], mcpServers: [] });
    single = { session, controller: client.open(session) };

    client.permissionKind = () => 'reject_once';
    const file = path.join(scratch.lib, 'src', 'greet.ts');
    await turn(single, `read ${file}`);
    assert.equal(client.permissions.length, 1, 'one permission request');
    const asked = client.permissions[0]!;
    assert.equal(asked.sessionId, session.sessionId);
    assert.equal(asked.chosen, 'reject_once');
    assert.ok(asked.options.some((o) => o.kind === 'allow_once'));
    const answer = client.wire.find(
      (w) => w.direction === 'send' && w.message.method === undefined && JSON.stringify(w.message.result ?? '').includes('selected'),
    );
    const rejectId = asked.options.find((o) => o.kind === 'reject_once')!.optionId;
    assert.deepEqual(answer?.message.result, { outcome: { outcome: 'selected', optionId: rejectId } }, 'answered with the option id of the kind');
    const tool = single.controller.thread.snapshot().entries.find((e) => e.kind === 'tool');
    assert.equal(tool?.kind === 'tool' && tool.status, 'failed');
    assert.match(agentText(single.controller.thread), /did not happen/);
    const sent = JSON.stringify(modelRequests(session.sessionId).map((r) => r.body));
    assert.doesNotMatch(sent, /Hello from lib/, 'the file never reached the model');
  });

  it('streams a plain answer in several chunks into the thread', async () => {
    const prompt = 'Tell me how streaming works';
    const recorded = await turn(main, prompt);
    liveTurns.push(recorded);
    const chunks = recorded.updates.filter((u) => {
      const update = u as { sessionUpdate?: string; content?: { text?: string } };
      return update.sessionUpdate === 'agent_message_chunk' && (update.content?.text ?? '') !== '';
    });
    assert.ok(chunks.length >= 5, `${chunks.length} non-empty agent_message_chunk updates`);
    const entries = main.controller.thread.snapshot().entries;
    const last = entries.filter((e) => e.kind === 'agent').at(-1);
    assert.equal(last?.kind === 'agent' && last.blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''), plainAnswer(prompt));
  });

  it('asks before writing outside the roots: allowed by kind, the file is written; rejected, it is not', async () => {
    const allowed = path.join(scratch.outside, 'allowed.txt');
    const rejected = path.join(scratch.outside, 'rejected.txt');
    const asked = client.permissions.length;

    client.permissionKind = () => 'allow_once';
    liveTurns.push(await turn(main, `write ${allowed} written by Claude Code`));
    assert.equal(fs.readFileSync(allowed, 'utf8'), 'written by Claude Code\n');
    assert.equal(client.permissions.length, asked + 1);
    assert.equal(client.permissions.at(-1)!.chosen, 'allow_once');

    client.permissionKind = () => 'reject_once';
    liveTurns.push(await turn(main, `write ${rejected} must not exist`));
    assert.equal(fs.existsSync(rejected), false, 'a rejected write leaves no file');
    assert.equal(client.permissions.length, asked + 2);
    assert.equal(client.permissions.at(-1)!.chosen, 'reject_once');
    const tools = main.controller.thread.snapshot().entries.filter((e) => e.kind === 'tool');
    assert.deepEqual(
      tools.slice(-2).map((t) => t.kind === 'tool' && [t.toolKind, t.status]),
      [
        ['edit', 'completed'],
        ['edit', 'failed'],
      ],
    );
  });

  it('asks before following a symlink out of the roots; runs a read-only command inside them without asking', async () => {
    // Claude Code reads with its own tools, not the client's fs/* (RootGuard never sees these reads).
    const chat = await within(60_000, 'session/new', startSession(connection, threeRoots)).then((session) => ({ session, controller: client.open(session) }));
    const asked = client.permissions.length;
    client.permissionKind = () => 'reject_once';
    const link = path.join(scratch.lib, 'outside-link');
    await turn(chat, `read ${link}`);
    assert.equal(client.permissions.length, asked + 1, 'the link points outside every root: it asks');
    assert.equal(client.permissions.at(-1)!.title, `Read ${link}`);
    assert.doesNotMatch(
      JSON.stringify(modelRequests(chat.session.sessionId).map((r) => r.body)),
      /must not be able to read it/,
      'the target never reached the model',
    );

    await turn(chat, `bash cat ${path.join(scratch.docs, 'guide.md')}`);
    assert.equal(client.permissions.length, asked + 1, 'no permission for a read-only command inside the roots');
    assert.match(agentText(chat.controller.thread), /The command printed:[\s\S]*The docs folder of the multi-root fixture/);
    const tool = chat.controller.thread
      .snapshot()
      .entries.filter((e) => e.kind === 'tool')
      .at(-1);
    assert.deepEqual(tool?.kind === 'tool' && [tool.toolKind, tool.status], ['execute', 'completed']);
  });

  it('streams what the recording of this agent holds', () => {
    const count = checkRecording(`${agent.id}.jsonl`, liveTurns, [[scratch.dir, '/tmp/acp-interop']]);
    assert.ok(count > 10);
  });

  it('after a restart, session/list shows the sessions with their cwd', async () => {
    const oldPid = client.process.pid;
    connection = await within(60_000, 'restart', client.restart());
    assert.notEqual(client.process.pid, oldPid);
    assert.equal(main.controller.thread.session.status, 'disconnected', 'the chat saw the agent go');
    const mark = client.mark();
    const listed = await within(30_000, 'session/list', connection.listSessions({ cwd: scratch.app }));
    assert.deepEqual(params(client.sentSince(mark, 'session/list')[0]!), { cwd: scratch.app });
    const mine = listed.sessions.find((s) => s.sessionId === main.session.sessionId);
    assert.ok(mine, 'the three-root session is listed');
    assert.equal(mine.cwd, scratch.app);
    assert.ok(
      listed.sessions.some((s) => s.sessionId === single.session.sessionId),
      'the single-root session is listed',
    );
    // Deviation (docs/interop.md): the agent advertises additionalDirectories but does not report them in
    // SessionInfo, so the client reopens with the roots it remembers.
    assert.equal(mine.additionalDirectories, undefined);
    const elsewhere = await within(30_000, 'session/list', connection.listSessions({ cwd: scratch.lib }));
    assert.equal(
      elsewhere.sessions.some((s) => s.sessionId === main.session.sessionId),
      false,
      'cwd filters by exact match',
    );
  });

  it('session/load with the complete root list replays the history into a fresh thread', async () => {
    const id = main.session.sessionId;
    const thread = client.freshThread(id);
    const mark = client.mark();
    const session = await within(60_000, 'session/load', reopenSession(connection, id, main.session.rootSet, { mode: 'load' }));
    assert.deepEqual(params(client.sentSince(mark, 'session/load')[0]!), {
      sessionId: id,
      cwd: scratch.app,
      additionalDirectories: [scratch.lib, scratch.docs],
      mcpServers: [],
    });
    const entries = thread.snapshot().entries;
    const users = entries.flatMap((e) => (e.kind === 'user' ? [e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')] : []));
    assert.deepEqual(users, [
      `read ${path.join(scratch.lib, 'src', 'greet.ts')}`,
      'Tell me how streaming works',
      `write ${path.join(scratch.outside, 'allowed.txt')} written by Claude Code`,
      `write ${path.join(scratch.outside, 'rejected.txt')} must not exist`,
    ]);
    assert.ok(entries.filter((e) => e.kind === 'tool').length >= 3, 'tool calls are replayed');
    assert.match(agentText(thread), /It says:[\s\S]*Hello from lib[\s\S]*This \*\*scripted\*\* answer/);
    checkRecording(`${agent.id}-load.jsonl`, [{ updates: rawUpdates(client, id, mark) }], [[scratch.dir, '/tmp/acp-interop']]);
    main = { session, controller: client.open(session) };
  });

  it('session/resume after another restart continues the conversation with all three roots', async () => {
    connection = await within(60_000, 'restart', client.restart());
    const id = main.session.sessionId;
    const mark = client.mark();
    const session = await within(60_000, 'session/resume', reopenSession(connection, id, main.session.rootSet, { mode: 'resume' }));
    assert.deepEqual(params(client.sentSince(mark, 'session/resume')[0]!), {
      sessionId: id,
      cwd: scratch.app,
      additionalDirectories: [scratch.lib, scratch.docs],
      mcpServers: [],
    });
    assert.equal(
      rawUpdates(client, id, mark).filter((u) => (u as { sessionUpdate: string }).sessionUpdate === 'user_message_chunk').length,
      0,
      'resume does not replay',
    );
    main = { session, controller: client.open(session) };
    assert.equal(main.controller.thread.session.status, 'idle');

    await turn(main, 'history');
    assert.match(agentText(main.controller.thread), /Earlier prompts: "read [^"]+greet\.ts", "Tell me how streaming works"/);
    const asked = client.permissions.length;
    await turn(main, `read ${path.join(scratch.docs, 'guide.md')}`);
    assert.equal(client.permissions.length, asked, 'the resumed session still has the additional roots');
    assert.match(agentText(main.controller.thread), /The docs folder of the multi-root fixture/);
  });

  it('session/fork creates a new session with the history and the complete root list', async () => {
    const source = main.session.sessionId;
    const mark = client.mark();
    const fork = await within(60_000, 'session/fork', forkSession(connection, source, main.session.rootSet));
    assert.deepEqual(params(client.sentSince(mark, 'session/fork')[0]!), {
      sessionId: source,
      cwd: scratch.app,
      additionalDirectories: [scratch.lib, scratch.docs],
      mcpServers: [],
    });
    assert.notEqual(fork.sessionId, source);
    forkedId = fork.sessionId;
    const chat = { session: fork, controller: client.open(fork) };
    await turn(chat, 'history');
    assert.match(agentText(chat.controller.thread), /Earlier prompts: "read [^"]+greet\.ts".*"history"/);
    const asked = client.permissions.length;
    await turn(chat, `read ${path.join(scratch.lib, 'src', 'greet.ts')}`);
    assert.equal(client.permissions.length, asked, 'the fork reads the additional root without asking');
    // Claude Code writes a session's transcript a moment after the turn ends; the list reads those files.
    await listedEventually(forkedId);
  });

  it('session/close ends the fork: a prompt to it fails, its history stays listed', async () => {
    const mark = client.mark();
    await within(30_000, 'session/close', connection.closeSession(forkedId));
    assert.deepEqual(params(client.sentSince(mark, 'session/close')[0]!), { sessionId: forkedId });
    // Deviation (docs/interop.md): an unknown session is -32603 with the reason in data.details, not -32002.
    await assert.rejects(connection.prompt({ sessionId: forkedId, prompt: [{ type: 'text', text: 'still there?' }] }), (error: Error) => {
      assert.ok(error instanceof AgentRequestError);
      assert.equal(error.code, -32603);
      assert.equal(error.message, 'claude-agent-acp rejected session/prompt: Internal error: Session not found (error -32603)');
      return true;
    });
    const listed = await within(30_000, 'session/list', connection.listSessions({ cwd: scratch.app }));
    assert.ok(
      listed.sessions.some((s) => s.sessionId === forkedId),
      'close keeps the history',
    );
  });

  it('session/delete removes a session from the list', async () => {
    const mark = client.mark();
    await within(30_000, 'session/delete', connection.deleteSession(single.session.sessionId));
    assert.deepEqual(params(client.sentSince(mark, 'session/delete')[0]!), { sessionId: single.session.sessionId });
    const listed = await within(30_000, 'session/list', connection.listSessions({ cwd: scratch.app }));
    assert.equal(
      listed.sessions.some((s) => s.sessionId === single.session.sessionId),
      false,
    );
    assert.ok(
      listed.sessions.some((s) => s.sessionId === main.session.sessionId),
      'the other sessions stay',
    );
    // Deviation (docs/interop.md): deleting it again is an error, not the idempotent success the spec asks for.
    await assert.rejects(connection.deleteSession(single.session.sessionId), /Internal error: Session \S+ not found in any project directory \(error -32603\)/);
  });

  it('got nothing from the agent it could not read, and the model server answered everything', () => {
    assert.deepEqual(client.protocolErrors, []);
    assert.deepEqual(server.problems, []);
    const counts = new Map<string, number>();
    for (const r of server.requests) counts.set(r.scenario ?? r.kind, (counts.get(r.scenario ?? r.kind) ?? 0) + 1);
    console.log(`      model server: ${[...counts].map(([what, n]) => `${what} ${n}`).join(', ')}`);
    assert.ok((counts.get('probe') ?? 0) >= 1, 'Claude Code probes the server before a session');
    counts.delete('probe');
    // One request per tool call and one per answer: no retries, no requests the scenarios did not cause.
    assert.deepEqual(Object.fromEntries(counts), { read: 5, 'read:result': 5, text: 1, write: 2, 'write:result': 2, bash: 1, 'bash:result': 1, history: 2 });
  });

  it('stops: the agent and every process it started are gone', async () => {
    const pid = client.process.pid!;
    await client.dispose();
    // Killed members of the group may linger a moment as zombies until they are reaped.
    await waitFor(() => !groupExists(pid), 5000, `process group ${pid} to be gone`);
  });
});
