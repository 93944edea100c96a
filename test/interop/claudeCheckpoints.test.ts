/**
 * Checkpoints around the turns of claude-agent-acp (Claude Code over ACP), run offline against the scripted
 * model server: the client wires a real {@link Checkpoints} into its chats the way the extension does
 * (src/sessions/chats/chats.ts), and Claude Code changes files with its own Write tool, on disk, never through
 * the client's `fs/write_text_file`. What the turns changed must still show up in the chat and the
 * session's review, in the right folder, and rejecting or undoing it must bring the folders back.
 *
 * Its own agent process, model server and scratch folder; the tests run in order on one session.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../src/acp/connection';
import { keyOf } from '../../src/review/fileStates';
import type { SessionReview } from '../../src/review/sessionReview';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import type { ViewEntry, ViewEntryOf } from '../../src/shared/chatModel';
import { Checkpoints } from '../../src/sessions/review/checkpoints';
import type { SessionController } from '../../src/sessions/turns/sessionController';
import { startSession } from '../../src/sessions/routing/sessionLifecycle';
import { recordingLogger, type RecordingLogger } from '../helpers/memoryPeer';
import { waitFor } from '../helpers/referenceAgent';
import { claudeAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { InteropClient, groupExists, within } from './harness';
import { ModelServer } from './modelServer';

const TURN_MS = 60_000;
const MiB = 1024 * 1024;

describe('interop: claude-agent-acp with checkpoints', function () {
  this.timeout(90_000);
  let scratch: Scratch;
  let server: ModelServer;
  let agent: InteropAgent;
  let client: InteropClient;
  let connection: AcpConnection;
  let checkpoints: Checkpoints;
  let checkpointLog: RecordingLogger;
  let chat: SessionController;
  let review: SessionReview;
  /** app/src/main.ts of the fixture, before any turn. */
  let mainBefore: Buffer;

  const mainFile = () => path.join(scratch.app, 'src', 'main.ts');
  const addedFile = () => path.join(scratch.lib, 'src', 'added.ts');
  const notesFile = () => path.join(scratch.docs, 'notes.md');

  before(async () => {
    scratch = makeScratch('acp-interop-checkpoints-');
    server = await ModelServer.start();
    agent = claudeAgentAcp(scratch.home, server.url);
    checkpointLog = recordingLogger();
    checkpoints = new Checkpoints({
      // Outside every root, like the extension's global storage.
      storageDir: path.join(scratch.dir, 'checkpoints'),
      settings: () => ({ enabled: true, maxFileBytes: 5 * MiB, maxStoreBytes: 1024 * MiB, git: undefined }),
      isDirty: () => false,
      logger: checkpointLog,
    });
    client = new InteropClient({ agent, cwd: scratch.app, turns: checkpoints });
    mainBefore = fs.readFileSync(path.join(scratch.app, 'src', 'main.ts'));
  });
  after(async () => {
    await client?.dispose();
    checkpoints?.dispose();
    await server?.close();
    scratch?.cleanup();
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    const problems = server.problems;
    if (problems.length > 0) console.log(`      model server problems:\n        ${problems.join('\n        ')}`);
    const warnings = checkpointLog.lines.filter((l) => l.level !== 'trace');
    if (warnings.length > 0) console.log(`      checkpoints said:\n        ${warnings.map((l) => `${l.level}: ${l.message}`).join('\n        ')}`);
  });

  /** Runs one prompt turn through the chat; returns the entries it added and where the wire log stood before it. */
  async function turn(text: string): Promise<{ entries: ViewEntry[]; mark: number }> {
    const mark = client.mark();
    const before = chat.thread.length;
    await within(TURN_MS, `the turn "${text}"`, chat.prompt([{ type: 'text', text }], [{ type: 'text', text }]));
    const entries = chat.thread.snapshot().entries.slice(before);
    assert.deepEqual(
      entries.filter((e) => e.kind === 'error' || e.kind === 'info'),
      [],
      `the turn "${text}" ended without errors or notes`,
    );
    const end = entries.at(-1);
    assert.ok(end?.kind === 'turnEnd', `the turn "${text}" ended (last entry: ${end?.kind})`);
    return { entries, mark };
  }

  /** A turn in which Claude Code writes one file: it used its own tool, on disk, never the client's fs/write_text_file. */
  async function writeTurn(file: string, text: string): Promise<ViewEntryOf<'changes'>> {
    const asked = client.permissions.length;
    const prompt = `write ${file} ${text}`;
    const { entries, mark } = await turn(prompt);
    // The tool the model called is Claude Code's built-in Write (not one the agent routes through the client).
    const result = server.requests.filter((r) => r.scenario === 'write:result' && r.prompt === prompt);
    assert.equal(result.length, 1, 'the model got the write result once');
    assert.deepEqual(toolUses(result[0]!.body), ['Write']);
    assert.equal(fs.readFileSync(file, 'utf8'), `${text}\n`, 'the file was written');
    assert.equal(client.permissions.length, asked + 1, 'Claude Code asked before writing');
    assert.equal(client.permissions.at(-1)!.chosen, 'allow_once');
    assert.deepEqual(client.receivedSince(mark, 'fs/write_text_file'), [], 'no fs/write_text_file on the wire: the agent wrote the file itself');
    const tools = entries.filter((e) => e.kind === 'tool');
    assert.deepEqual(
      tools.map((t) => t.kind === 'tool' && [t.toolKind, t.status]),
      [['edit', 'completed']],
    );
    const changes = entries.filter((e) => e.kind === 'changes');
    assert.equal(changes.length, 1, 'one changes entry');
    assert.equal(entries.at(-2)?.kind, 'changes', 'shown just before the end of the turn');
    return changes[0] as ViewEntryOf<'changes'>;
  }

  /** The names of the tools the model just called, as the request carrying their results shows them. */
  function toolUses(body: unknown): string[] {
    const messages = (body as { messages: Array<{ role: string; content: string | Array<{ type: string; name?: string }> }> }).messages;
    const last = messages.filter((m) => m.role === 'assistant').at(-1);
    return last && typeof last.content !== 'string' ? last.content.filter((b) => b.type === 'tool_use').map((b) => b.name ?? '') : [];
  }

  function changesEntries(): Array<ViewEntryOf<'changes'>> {
    return chat.thread.snapshot().entries.filter((e): e is ViewEntryOf<'changes'> => e.kind === 'changes');
  }

  it('initializes advertising fs/write_text_file, and starts a session with app, lib and docs', async () => {
    connection = await within(60_000, 'initialize', client.start());
    const initialize = client.sentSince(0, 'initialize')[0]!;
    const advertised = (initialize.params as { clientCapabilities: { fs: unknown } }).clientCapabilities.fs;
    // Advertised, yet Claude Code's Write tool writes on its own (asserted per turn below).
    assert.deepEqual(advertised, { readTextFile: true, writeTextFile: true });
    const session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [scratch.lib, scratch.docs])));
    chat = client.open(session);
    // As the extension does when a chat opens: the baseline is captured before the first turn.
    checkpoints.warmUp(chat);
    const opened = await checkpoints.review(session);
    assert.ok(!('unavailable' in opened), `checkpoints are available (${'unavailable' in opened ? opened.unavailable : ''})`);
    review = opened.review;
    client.permissionKind = () => 'allow_once';
  });

  it('a turn that only reads changes nothing: no changes entry, nothing pending', async () => {
    // Claude Code overwrites only a file it has read in the session.
    const { entries } = await turn(`read ${mainFile()}`);
    assert.equal(
      entries.some((e) => e.kind === 'changes'),
      false,
    );
    assert.deepEqual(await review.pending(), []);
    assert.deepEqual(
      review.turns().map((t) => [t.n, t.files.length, t.state]),
      [[1, 0, 'done']],
      'the turn is recorded, with no files',
    );
  });

  it('Claude Code overwrites a file in app with its Write tool: the chat lists it as modified in app', async () => {
    const entry = await writeTurn(mainFile(), 'console.log("rewritten by Claude Code");');
    assert.deepEqual(entry.files, [{ root: 'app', rootPath: scratch.app, path: 'src/main.ts', status: 'modified', added: 1, removed: 3, binary: false }]);
    assert.equal(entry.state, 'done');
    assert.equal(checkpoints.turnOf(chat, entry.id), 2);
  });

  it('Claude Code creates a file in lib: the chat lists it as added in lib', async () => {
    const entry = await writeTurn(addedFile(), 'export const added = true;');
    assert.deepEqual(entry.files, [{ root: 'lib', rootPath: scratch.lib, path: 'src/added.ts', status: 'added', added: 1, removed: 0, binary: false }]);
    assert.equal(checkpoints.turnOf(chat, entry.id), 3);
  });

  it('the review lists both files; rejecting restores the modified file exactly and removes the created one', async () => {
    const pending = await review.pending();
    assert.deepEqual(
      pending.map((p) => [p.root, p.path, p.status]),
      [
        [scratch.app, 'src/main.ts', 'modified'],
        [scratch.lib, 'src/added.ts', 'added'],
      ],
    );

    const main = keyOf(scratch.app, 'src/main.ts');
    assert.deepEqual(await review.reject(main), { ok: true, key: main });
    assert.ok(fs.readFileSync(mainFile()).equals(mainBefore), 'main.ts has exactly its content before the turn');

    const added = keyOf(scratch.lib, 'src/added.ts');
    assert.deepEqual(await review.reject(added), { ok: true, key: added });
    assert.equal(fs.existsSync(addedFile()), false, 'the created file is gone');
    assert.ok(fs.existsSync(path.join(scratch.lib, 'src', 'greet.ts')), 'the rest of lib is untouched');

    assert.deepEqual(await review.pending(), []);
    // Rejecting files leaves the turns as they were.
    assert.deepEqual(
      changesEntries().map((e) => e.state),
      ['done', 'done'],
    );
  });

  it('undo of a turn restores every folder to before it (later turns included); redo brings them back', async () => {
    // main.ts changed on disk since Claude Code read it (the reject): it must read it again before writing.
    await turn(`read ${mainFile()}`);
    const rewrite = await writeTurn(mainFile(), 'console.log("second version");');
    const notes = await writeTurn(notesFile(), '# Notes written by Claude Code');
    assert.deepEqual(
      notes.files.map((f) => [f.root, f.path, f.status]),
      [['docs', 'notes.md', 'added']],
    );
    const n = checkpoints.turnOf(chat, rewrite.id)!;
    assert.equal(n, 5);

    const plan = await review.planUndo(n);
    assert.equal(plan.blocked, undefined);
    assert.deepEqual(plan.turns, [5, 6]);
    assert.deepEqual(plan.conflicts, []);
    assert.deepEqual(
      plan.files.map((f) => [f.root, f.path, f.change, f.merged]),
      [
        [scratch.app, 'src/main.ts', 'restore', false],
        [scratch.docs, 'notes.md', 'remove', false],
      ],
    );
    const undone = await review.undo(plan);
    assert.ok(undone.ok, `undone (${undone.ok ? '' : undone.message})`);
    assert.deepEqual(undone.failed, []);
    assert.ok(fs.readFileSync(mainFile()).equals(mainBefore), 'main.ts is back to its content before turn 5');
    assert.equal(fs.existsSync(notesFile()), false, 'notes.md is gone');
    assert.deepEqual(
      changesEntries().map((e) => e.state),
      ['done', 'done', 'undone', 'undone'],
      'the chat shows the two turns undone',
    );
    assert.deepEqual(await review.pending(), []);

    const redoPlan = await review.planRedo(n);
    assert.equal(redoPlan.blocked, undefined);
    assert.deepEqual(redoPlan.conflicts, []);
    const redone = await review.redo(redoPlan);
    assert.ok(redone.ok, `redone (${redone.ok ? '' : redone.message})`);
    assert.equal(fs.readFileSync(mainFile(), 'utf8'), 'console.log("second version");\n');
    assert.equal(fs.readFileSync(notesFile(), 'utf8'), '# Notes written by Claude Code\n');
    assert.deepEqual(
      changesEntries().map((e) => e.state),
      ['done', 'done', 'done', 'done'],
    );
    assert.deepEqual(
      (await review.pending()).map((p) => [p.root, p.path, p.status]),
      [
        [scratch.app, 'src/main.ts', 'modified'],
        [scratch.docs, 'notes.md', 'added'],
      ],
    );
  });

  it('left the folders without a repository of their own, and nothing went wrong on the way', () => {
    for (const root of [scratch.app, scratch.lib, scratch.docs]) assert.equal(fs.existsSync(path.join(root, '.git')), false, `no .git in ${root}`);
    assert.ok(fs.readdirSync(path.join(scratch.dir, 'checkpoints')).length > 0, 'the checkpoints are under the storage folder');
    assert.deepEqual(
      checkpointLog.lines.filter((l) => l.level === 'warn' || l.level === 'error'),
      [],
    );
    assert.deepEqual(client.receivedSince(0, 'fs/write_text_file'), [], 'no fs/write_text_file in the whole run');
    assert.deepEqual(client.protocolErrors, []);
    assert.deepEqual(server.problems, []);
  });

  it('stops: the agent and every process it started are gone', async () => {
    const pid = client.process.pid!;
    await client.dispose();
    await waitFor(() => !groupExists(pid), 5000, `process group ${pid} to be gone`);
  });
});
