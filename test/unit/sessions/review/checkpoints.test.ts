/**
 * Checkpoints around a chat's turns (real git, real files, an in-memory agent that writes files itself): the
 * `changes` entries a reloaded chat shows again, and folders taken back while a turn runs.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AcpConnection } from '../../../../src/acp/connection';
import * as acp from '../../../../src/acp/schema/index';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import type { AgentSession } from '../../../../src/sessions/routing/agentSession';
import { Checkpoints } from '../../../../src/sessions/review/checkpoints';
import { SessionController } from '../../../../src/sessions/turns/sessionController';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import type { ViewEntry, ViewEntryOf } from '../../../../src/shared/chatModel';
import { Thread } from '../../../../src/thread/thread';
import { connectToMemoryAgent, type MemoryAgent, recordingLogger } from '../../../helpers/memoryPeer';
import { waitFor } from '../../../helpers/referenceAgent';
import { transcriptEvent } from '../../../../src/acp/v1/transcriptEvents';

const MiB = 1024 * 1024;

describe('Checkpoints around a chat’s turns (real git)', function () {
  this.timeout(30_000);
  let base: string;
  let app: string;
  let lib: string;
  let storageDir: string;
  let client: AcpConnection;
  let agent: MemoryAgent;
  let session: AgentSession;
  const opened: Checkpoints[] = [];
  /** What the agent does in its next turn (it writes files itself). */
  let work: () => Promise<void> = () => Promise.resolve();

  const checkpoints = () => {
    const made = new Checkpoints({
      storageDir,
      settings: () => ({ enabled: true, maxFileBytes: 5 * MiB, maxStoreBytes: 1024 * MiB, git: undefined }),
      isDirty: () => false,
      logger: recordingLogger(),
    });
    opened.push(made);
    return made;
  };
  const chatOf = (turns: Checkpoints) =>
    new SessionController(session, new Thread({ agentName: 'Memory Agent', roots: [], prompt: session.connection.caps.prompt }), { turns });
  const entries = (chat: SessionController): ViewEntry[] => chat.thread.snapshot().entries;
  const changesOf = (chat: SessionController) => entries(chat).filter((e): e is ViewEntryOf<'changes'> => e.kind === 'changes');
  const text = (t: string) => [{ type: 'text' as const, text: t }];

  beforeEach(async () => {
    base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-checkpoints-chat-')));
    app = path.join(base, 'app');
    lib = path.join(base, 'lib');
    storageDir = path.join(base, 'storage');
    fs.mkdirSync(app);
    fs.mkdirSync(lib);
    fs.writeFileSync(path.join(app, 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(lib, 'old.txt'), 'old\n');
    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize();
    agent.rpc.onRequest('session/new', () => ({ sessionId: 's1' }));
    agent.rpc.onRequest('session/prompt', async () => {
      await work();
      return { stopReason: 'end_turn' };
    });
    await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    session = await startSession(client, rootSetFromPaths(app, [lib]));
  });
  afterEach(() => {
    for (const c of opened.splice(0)) c.dispose();
    client.dispose();
    agent.dispose();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('a chat reopened after a reload shows each turn’s changes entry again, after its turn, and it still undoes', async () => {
    const live = checkpoints();
    const chat = chatOf(live);
    client.onNotification(acp.SessionUpdateNotification, (n) => chat.onEvent(transcriptEvent(n.update)));
    live.warmUp(chat);
    work = async () => {
      fs.writeFileSync(path.join(app, 'a.txt'), 'A\n');
      fs.writeFileSync(path.join(lib, 'new.txt'), 'new\n');
    };
    await chat.prompt(text('first change'), text('first change'));
    work = () => Promise.resolve();
    await chat.prompt(text('just talk'), text('just talk'));
    work = async () => fs.writeFileSync(path.join(app, 'b.txt'), 'b\n');
    await chat.prompt(text('second change'), text('second change'));
    const shown = changesOf(chat).map((e) => e.files.map((f) => `${f.root}/${f.path} ${f.status}`));
    assert.deepEqual(shown, [['app/a.txt modified', 'lib/new.txt added'], ['app/b.txt added']]);

    // Reload: a new extension host, an empty chat into which the agent replays its record (no changes entries in it).
    live.dispose();
    const reloaded = checkpoints();
    const restored = chatOf(reloaded);
    restored.thread.beginReplay();
    for (const [kind, words] of [
      ['user', 'first change'],
      ['agent', 'Changed a.txt.'],
      ['user', 'just talk'],
      ['agent', 'Talked.'],
      ['user', 'second change'],
      ['agent', 'Added b.txt.'],
    ] as const) {
      restored.onEvent(
        transcriptEvent({ sessionUpdate: kind === 'user' ? 'user_message_chunk' : 'agent_message_chunk', content: { type: 'text', text: words } }),
      );
    }
    reloaded.warmUp(restored);
    restored.thread.endReplay();
    await waitFor(() => changesOf(restored).length === 2, 10_000, 'the changes entries after the replay');
    assert.deepEqual(
      entries(restored).map((e) => (e.kind === 'changes' ? `changes: ${e.files.map((f) => f.path).join(', ')}` : e.kind)),
      ['user', 'agent', 'changes: a.txt, new.txt', 'user', 'agent', 'user', 'agent', 'changes: b.txt'],
    );
    assert.deepEqual(
      changesOf(restored).map((e) => e.state),
      ['done', 'done'],
    );
    const first = changesOf(restored)[0]!;
    assert.equal(reloaded.turnOf(restored, first.id), 1, 'its buttons act on turn 1');
    const review = await reloaded.review(session);
    assert.ok(!('unavailable' in review));
    assert.equal((await review.review.undo(await review.review.planUndo(1))).ok, true);
    await waitFor(() => changesOf(restored).every((e) => e.state === 'undone'), 5_000, 'both entries to say undone');
    assert.equal(fs.readFileSync(path.join(app, 'a.txt'), 'utf8'), 'a\n');
  });

  it('a changes entry’s counts follow the review: a rejected hunk is taken off, an accepted one stays counted', async () => {
    const live = checkpoints();
    const chat = chatOf(live);
    live.warmUp(chat);
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    fs.writeFileSync(path.join(app, 'long.txt'), `${lines.join('\n')}\n`);
    work = async () => {
      const changed = [...lines];
      changed[1] = 'LINE 2';
      changed[17] = 'LINE 18';
      fs.writeFileSync(path.join(app, 'long.txt'), `${changed.join('\n')}\n`);
    };
    await chat.prompt(text('change two lines'), text('change two lines'));
    const counts = () => changesOf(chat).map((e) => e.files.map((f) => `${f.path} +${f.added} −${f.removed}`));
    assert.deepEqual(counts(), [['long.txt +2 −2']]);
    const opened = await live.review(session);
    assert.ok(!('unavailable' in opened));
    const pending = await opened.review.pending();
    const file = pending.find((f) => f.path === 'long.txt');
    assert.equal(file?.hunks?.length, 2, 'two hunks');
    // Accepting a hunk keeps the agent's change: the turn still changed two lines.
    assert.equal((await opened.review.accept(file!.key, 0, file!.shown)).ok, true);
    assert.deepEqual(counts(), [['long.txt +2 −2']], 'an accepted hunk is still the turn’s change');
    // Rejecting the other takes its lines off.
    const left = (await opened.review.pending()).find((f) => f.path === 'long.txt');
    assert.equal(left?.hunks?.length, 1, 'one hunk left');
    assert.equal((await opened.review.reject(left!.key, 0, left!.shown)).ok, true);
    await waitFor(() => counts()[0]?.[0] === 'long.txt +1 −1', 5_000, `the entry to count what is left (it says ${JSON.stringify(counts())})`);
    assert.equal(fs.readFileSync(path.join(app, 'long.txt'), 'utf8').split('\n')[17], 'line 18', 'the rejected hunk is undone on disk');
  });

  it('puts the entries back once a replay ends that was still under way when the review opened; a chat without the turn’s prompt gets none', async () => {
    const live = checkpoints();
    const chat = chatOf(live);
    client.onNotification(acp.SessionUpdateNotification, (n) => chat.onEvent(transcriptEvent(n.update)));
    live.warmUp(chat);
    work = async () => fs.writeFileSync(path.join(app, 'a.txt'), 'A\n');
    await chat.prompt(text('change a'), text('change a'));
    live.dispose();

    const reloaded = checkpoints();
    const restored = chatOf(reloaded);
    restored.thread.beginReplay();
    reloaded.warmUp(restored);
    const opened = await reloaded.review(session);
    assert.ok(!('unavailable' in opened));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(changesOf(restored).length, 0, 'nothing while the replay is built');
    restored.onEvent(transcriptEvent({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'change a' } }));
    restored.onEvent(transcriptEvent({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Changed.' } }));
    restored.thread.endReplay();
    assert.deepEqual(
      entries(restored).map((e) => e.kind),
      ['user', 'agent', 'changes'],
    );

    // A session resumed without its history: no prompt to put the entry after, so none is made up.
    const resumed = chatOf(reloaded);
    reloaded.warmUp(resumed);
    await reloaded.review(session);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(changesOf(resumed), []);
  });

  it('a folder taken back while a turn runs stays in that turn’s capture: what the agent wrote there is listed, nothing claimed deleted', async () => {
    const live = checkpoints();
    const chat = chatOf(live);
    client.onNotification(acp.SessionUpdateNotification, (n) => chat.onEvent(transcriptEvent(n.update)));
    live.warmUp(chat);
    work = async () => {
      session.withdraw([lib], 'The user took lib back.');
      // Another chat of the session opens meanwhile (a restored tab): its checkpoints follow the session's folders now.
      const opening = await live.review(session);
      assert.ok(!('unavailable' in opening));
      const taken = opening.store.list().length;
      live.warmUp(chatOf(live));
      await waitFor(() => opening.store.list().length > taken, 10_000, 'the other chat’s checkpoint');
      fs.writeFileSync(path.join(lib, 'new.txt'), 'written after lib was taken back\n');
      fs.writeFileSync(path.join(app, 'a.txt'), 'A\n');
    };
    await chat.prompt(text('change things'), text('change things'));
    assert.deepEqual(
      changesOf(chat).map((e) => e.files.map((f) => `${f.root}/${f.path} ${f.status}`)),
      [['app/a.txt modified', 'lib/new.txt added']],
    );
  });
});
