/**
 * A folder over the checkpoints' file cap when a turn starts, shrunk below it by claude-agent-acp's own shell
 * during the turn (issue 24, item 15; the cap lowered to 500 as in the report): the turn must not list the
 * user's files of that folder as added, and an undo must never remove them. Claude Code runs offline against
 * the scripted model server; the client wires a real {@link Checkpoints} into its chat as the extension does.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ViewEntry, ViewEntryOf } from '../../src/shared/chatModel';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import { Checkpoints } from '../../src/sessions/review/checkpoints';
import type { SessionController } from '../../src/sessions/turns/sessionController';
import { startSession } from '../../src/sessions/routing/sessionLifecycle';
import { recordingLogger } from '../helpers/memoryPeer';
import { claudeAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { InteropClient, within } from './harness';
import { ModelServer } from './modelServer';

const MiB = 1024 * 1024;
const USER_FILES = 600;

describe('interop: claude-agent-acp shrinks a folder that was over the checkpoints’ file cap', function () {
  this.timeout(120_000);
  let scratch: Scratch;
  let server: ModelServer;
  let agent: InteropAgent;
  let client: InteropClient;
  let checkpoints: Checkpoints;
  let chat: SessionController;
  const userDir = () => path.join(scratch.lib, 'user');
  const name = (i: number) => `${String(i).padStart(3, '0')}.txt`;

  before(async () => {
    scratch = makeScratch('acp-interop-filecap-');
    fs.mkdirSync(userDir());
    for (let i = 0; i < USER_FILES; i++) fs.writeFileSync(path.join(userDir(), name(i)), `the user's file ${i}\n`);
    server = await ModelServer.start();
    agent = claudeAgentAcp(scratch.home, server.url);
    checkpoints = new Checkpoints({
      storageDir: path.join(scratch.dir, 'checkpoints'),
      settings: () => ({ enabled: true, maxFileBytes: 5 * MiB, maxStoreBytes: 1024 * MiB, git: undefined, maxFiles: 500 }),
      isDirty: () => false,
      logger: recordingLogger(),
    });
    client = new InteropClient({ agent, cwd: scratch.app, turns: checkpoints });
  });
  after(async () => {
    await client?.dispose();
    checkpoints?.dispose();
    await server?.close();
    scratch?.cleanup();
  });

  it('lists nothing of the folder as added or deleted, says it was not covered, and Undo leaves every file of the user’s', async () => {
    const connection = await within(60_000, 'initialize', client.start());
    const session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [scratch.lib])));
    chat = client.open(session);
    checkpoints.warmUp(chat);
    const opened = await checkpoints.review(session);
    assert.ok(!('unavailable' in opened));
    client.permissionKind = () => 'allow_once';

    // The agent deletes 150 of the user's files (lib drops below the cap), writes one, and edits a file in app.
    const main = path.join(scratch.app, 'src', 'main.ts');
    const command = `rm -f ${userDir()}/0*.txt ${userDir()}/1[0-4]*.txt; echo agent > ${path.join(scratch.lib, 'agent.txt')}; echo '// the agent' >> ${main}`;
    const before = chat.thread.length;
    await within(90_000, 'the turn', chat.prompt([{ type: 'text', text: `bash ${command}` }], [{ type: 'text', text: `bash ${command}` }]));
    const entries: ViewEntry[] = chat.thread.snapshot().entries.slice(before);
    assert.equal(fs.readdirSync(userDir()).length, USER_FILES - 150, 'Claude Code’s shell ran the command');

    const changes = entries.filter((e): e is ViewEntryOf<'changes'> => e.kind === 'changes');
    assert.deepEqual(
      changes.map((e) => e.files.map((f) => `${f.root}/${f.path} ${f.status}`)),
      [['app/src/main.ts modified']],
      'nothing claimed for lib',
    );
    const notes = entries.filter((e): e is ViewEntryOf<'info'> => e.kind === 'info').map((e) => e.text);
    assert.ok(
      notes.some((t) => t.includes(scratch.lib) && /more files than checkpoints keep \(500\)/.test(t)),
      `the chat says lib was not covered: ${notes.join(' | ')}`,
    );

    const plan = await opened.review.planUndo(1);
    assert.deepEqual(
      plan.files.map((f) => [path.basename(f.root), f.path, f.change]),
      [['app', 'src/main.ts', 'restore']],
    );
    assert.deepEqual(
      plan.cannotRestore.map((p) => [path.basename(p.root), p.path, p.skipped]),
      [['lib', '', 'too-many-files']],
    );
    const undone = await opened.review.undo(plan);
    assert.ok(undone.ok, undone.ok ? '' : undone.message);
    assert.equal(fs.readdirSync(userDir()).length, USER_FILES - 150, 'every file of the user’s left is still there');
    assert.doesNotMatch(fs.readFileSync(main, 'utf8'), /the agent/);
  });
});
