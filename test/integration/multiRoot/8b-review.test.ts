import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { RestoreQuestion } from '../../../src/sessions/ports';
import type { ViewEntry, ViewEntryOf } from '../../../src/shared/chatModel';
import type { ReviewState } from '../../../src/shared/reviewProtocol';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import type { ReviewPanel } from '../../../src/vscode/review/reviewPanels';
import { activate, addRecordingAgent, keepFolders, restoreTab, waitFor, type RecordingAgent } from '../shared/extension';

const NAME = 'Review Agent';

describe('reviewing and undoing what an agent changed, in every folder (real extension host)', function () {
  this.timeout(90_000);
  let api: TestApi;
  let agent: RecordingAgent;
  let chat: Chat;
  let app: string;
  let lib: string;
  let docs: string;
  let userRepo: string;
  const questions: RestoreQuestion[] = [];
  let confirm = true;

  const entries = (): ViewEntry[] => chat.controller.thread.snapshot().entries;
  const changesEntries = () => entries().filter((e): e is ViewEntryOf<'changes'> => e.kind === 'changes');
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', app, ...args], {
      encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' },
    });
  /** What the user's own repository looks like: status, stashes, HEAD, refs, index and config bytes. */
  const repoState = () => ({
    status: git('status', '--porcelain=v1', '--untracked-files=all'),
    stashes: git('stash', 'list'),
    head: git('rev-parse', 'HEAD'),
    refs: git('for-each-ref'),
    index: fs.readFileSync(path.join(userRepo, 'index')).toString('base64'),
    config: fs.readFileSync(path.join(userRepo, 'config'), 'utf8'),
  });

  async function prompt(text: string): Promise<void> {
    const ends = entries().filter((e) => e.kind === 'turnEnd').length;
    await api.chats.dispatch(chat, { type: 'prompt', text, attachments: [] });
    await waitFor(() => entries().filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn for "${text}"`, 30_000);
  }

  async function review(): Promise<{ panel: ReviewPanel; state: ReviewState }> {
    const panel = api.reviewPanels.show({ agentName: NAME, sessionId: chat.controller.session.sessionId, title: 'Review' });
    await panel.refresh();
    return { panel, state: panel.state! };
  }

  let repoBefore: ReturnType<typeof repoState>;
  let putBack: () => void;

  before(async () => {
    api = await activate();
    [app, lib, docs] = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath)) as [string, string, string];
    putBack = keepFolders([app, lib, docs]);
    // The user's own repository in app: a commit, a stash, a staged change and an unstaged one.
    git('init', '-q');
    userRepo = path.join(app, '.git');
    git('add', '-A');
    git('commit', '-qm', 'user commit');
    fs.appendFileSync(path.join(app, 'package.json'), '\n');
    git('stash', '-q');
    fs.writeFileSync(path.join(app, 'staged.txt'), 'staged by the user\n');
    git('add', 'staged.txt');
    fs.appendFileSync(path.join(app, 'src', 'main.ts'), '// the user was here\n');
    repoBefore = repoState();

    await api.grants.set(NAME, [app, lib, docs]);
    agent = await addRecordingAgent(NAME);
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent setting');
    api.setReviewUi({
      confirmRestore: async (question) => {
        questions.push(question);
        return confirm;
      },
    });
    const [started] = await api.starter.newSession({ agentName: NAME });
    chat = api.chats.open(started!.session);
  });

  after(async () => {
    api.setReviewUi(undefined);
    for (const tab of api.chats.all()) if (tab.controller.session.agentName === NAME) tab.panel.dispose();
    await api.agents.stop(NAME);
    await agent.dispose();
    fs.rmSync(userRepo, { recursive: true, force: true });
    putBack();
  });

  it('ends a turn that changed files in three folders (through the client and with the agent’s own tools) with a summary of them', async () => {
    const mainBefore = read(path.join(app, 'src', 'main.ts'));
    await prompt(
      [
        `write ${path.join(app, 'src', 'main.ts')} export const main = 'agent';`,
        `write-direct ${path.join(lib, 'src', 'added.ts')} export const added = 1;`,
        `delete-direct ${path.join(docs, 'guide.md')}`,
      ].join('\n'),
    );
    const [changes] = changesEntries();
    assert.ok(changes, 'the turn shows what it changed');
    assert.deepEqual(
      changes.files.map((f) => [f.root, f.path, f.status]),
      [
        ['app', 'src/main.ts', 'modified'],
        ['lib', 'src/added.ts', 'added'],
        ['docs', 'guide.md', 'deleted'],
      ],
    );
    assert.equal(changes.state, 'done');
    // The summary comes before the turn's end.
    const kinds = entries().map((e) => e.kind);
    assert.equal(kinds.indexOf('changes'), kinds.lastIndexOf('turnEnd') - 1);
    assert.notEqual(read(path.join(app, 'src', 'main.ts')), mainBefore);
  });

  it('lists the session’s changes by folder in the review, with hunks', async () => {
    const { state } = await review();
    assert.deepEqual(
      state.files.map((f) => [f.root, f.path, f.status]),
      [
        ['app', 'src/main.ts', 'modified'],
        ['lib', 'src/added.ts', 'added'],
        ['docs', 'guide.md', 'deleted'],
      ],
    );
    assert.ok(state.files[0]!.hunks && state.files[0]!.hunks.length > 0, 'the modified file has hunks');
    assert.deepEqual(
      state.turns.map((t) => [t.n, t.state, t.files]),
      [[1, 'done', 3]],
    );
    // Open Diff: VS Code's diff editor, the file before the agent ↔ now.
    const { panel } = await review();
    await panel.handle({ type: 'openDiff', key: state.files[0]!.key });
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, 'the diff editor');
    const diff = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
    assert.equal(diff.modified.fsPath, path.join(app, 'src', 'main.ts'));
    assert.match((await vscode.workspace.openTextDocument(diff.original)).getText(), /the user was here/, 'the left side is the file before the agent');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('rejects a file: its content before the agent comes back, and it leaves the review', async () => {
    const { panel, state } = await review();
    const guide = state.files.find((f) => f.path === 'guide.md')!;
    // The review refreshes on its own (a checkpoint written, the tab shown again) between the state the user saw and
    // the click: the same file as they saw it, so their action is done.
    await panel.refresh();
    assert.notEqual(panel.state!.version, state.version);
    await panel.handle({ type: 'reject', version: state.version, key: guide.key });
    assert.match(read(path.join(docs, 'guide.md')) ?? '', /\S/, 'the deleted file is back');
    assert.deepEqual(
      panel.state!.files.map((f) => f.path),
      ['src/main.ts', 'src/added.ts'],
    );
    const said = (): string | undefined => panel.state?.message?.text;
    assert.equal(said(), undefined);
    // An action on a file that changed (here: left the review) since the state it was chosen on is not done, and said.
    await panel.handle({ type: 'accept', version: state.version, key: guide.key });
    assert.match(said() ?? '', /^The review changed before your action reached it: nothing was done\./);
  });

  it('undoes the turn after a confirmation listing its files: every folder is as before, and redoes it', async () => {
    const mainAfter = read(path.join(app, 'src', 'main.ts'));
    const entry = changesEntries()[0]!;
    await api.chats.dispatch(chat, { type: 'changes', entryId: entry.id, action: 'undo' });
    const asked = questions.at(-1)!;
    assert.match(asked.title, /^Undo turn 1\? 2 files will change\.$/);
    assert.deepEqual([...asked.files].sort(), ['remove lib/src/added.ts', 'restore app/src/main.ts']);
    assert.match(read(path.join(app, 'src', 'main.ts'))!, /the user was here/);
    assert.equal(fs.existsSync(path.join(lib, 'src', 'added.ts')), false);
    await waitFor(() => changesEntries()[0]!.state === 'undone', 'the entry to say undone');

    await api.chats.dispatch(chat, { type: 'changes', entryId: entry.id, action: 'redo' });
    assert.equal(read(path.join(app, 'src', 'main.ts')), mainAfter);
    assert.equal(read(path.join(lib, 'src', 'added.ts')), 'export const added = 1;');
    await waitFor(() => changesEntries()[0]!.state === 'done', 'the entry to say done again');

    // A redo of a turn that is not undone is refused, in a sentence that starts like one.
    const infos = entries().filter((e) => e.kind === 'info').length;
    await api.chats.dispatch(chat, { type: 'changes', entryId: entry.id, action: 'redo' });
    const said = entries()
      .filter((e): e is ViewEntryOf<'info'> => e.kind === 'info')
      .slice(infos)
      .map((e) => e.text);
    assert.deepEqual(said, ['Cannot redo turn 1: Turn 1 is not undone.']);
  });

  it('writes nothing when the confirmation is declined', async () => {
    const entry = changesEntries()[0]!;
    const main = read(path.join(app, 'src', 'main.ts'));
    const asked = questions.length;
    confirm = false;
    try {
      await api.chats.dispatch(chat, { type: 'changes', entryId: entry.id, action: 'undo' });
    } finally {
      confirm = true;
    }
    assert.equal(questions.length, asked + 1, 'it asked');
    assert.equal(read(path.join(app, 'src', 'main.ts')), main);
    assert.equal(read(path.join(lib, 'src', 'added.ts')), 'export const added = 1;');
    assert.equal(changesEntries()[0]!.state, 'done');
  });

  it('never overwrites an edit the user made since: a conflicting file is named and nothing is written', async () => {
    const greet = path.join(lib, 'src', 'greet.ts');
    await prompt(`write-direct ${greet} export const greet = 'agent';`);
    fs.writeFileSync(greet, "export const greet = 'user';\n");
    const entry = changesEntries().at(-1)!;
    const infos = entries().filter((e) => e.kind === 'info').length;
    await api.chats.dispatch(chat, { type: 'changes', entryId: entry.id, action: 'undo' });
    const said = entries()
      .filter((e): e is ViewEntryOf<'info'> => e.kind === 'info')
      .slice(infos);
    assert.match(
      said.map((e) => e.text).join('\n'),
      /Nothing was undone: 1 file changed since the agent wrote it in a way that cannot be merged: src\/greet\.ts/,
    );
    assert.equal(read(greet), "export const greet = 'user';\n");
    assert.equal(entry.state, 'done');
  });

  it('ends a third turn; the user then edits a line of the file and creates one next to it', async () => {
    const guide = path.join(docs, 'guide.md');
    await prompt(`append-direct ${guide} The agent's note.`);
    assert.deepEqual(
      changesEntries()
        .at(-1)!
        .files.map((f) => [f.root, f.path, f.status]),
      [['docs', 'guide.md', 'modified']],
    );
    fs.writeFileSync(guide, read(guide)!.replace('# Guide', '# Guide, retitled by the user'));
    fs.writeFileSync(path.join(docs, 'user-notes.md'), 'mine\n');
  });

  it('keeps the checkpoints when the chat comes back after a window reload', async () => {
    const sessionId = chat.controller.session.sessionId;
    const { state: shown } = await review();
    chat.panel.dispose();
    await waitFor(() => !api.chats.all().includes(chat), 'the chat to close');
    // Its review is let go once no chat shows the session: what follows is read back from disk.
    await waitFor(() => api.checkpoints.find(NAME, sessionId) === undefined, 'the review to be let go');
    const tab = restoreTab(api, { agentName: NAME, sessionId, roots: [app, lib, docs] });
    await api.chatRestorer.settled();
    const restored = api.chats.find(NAME, sessionId);
    assert.ok(restored && restored.panel === tab.restored, 'the session reopened in the restored tab');
    chat = restored;
    const { state } = await review();
    assert.deepEqual(
      state.files.map((f) => f.path),
      shown.files.map((f) => f.path),
    );
    assert.deepEqual(
      state.turns.map((t) => [t.n, t.state]),
      [
        [1, 'done'],
        [2, 'done'],
        [3, 'done'],
      ],
    );
    // The replay brought back the agent's record; each turn's changes entry is back after its turn.
    await waitFor(() => changesEntries().length === 3, 'the changes entries in the restored chat');
    assert.deepEqual(
      changesEntries().map((e) => e.files.map((f) => `${f.root}/${f.path}`)),
      [['app/src/main.ts', 'lib/src/added.ts', 'docs/guide.md'], ['lib/src/greet.ts'], ['docs/guide.md']],
    );
    const kinds = entries().map((e) => e.kind);
    assert.equal(kinds.indexOf('changes') > kinds.indexOf('user'), true, 'after its turn');
    // The review lists only the agent's change to guide.md: not the user's title, not their new file.
    const guide = state.files.find((f) => f.rootPath === docs && f.path === 'guide.md')!;
    assert.deepEqual(
      guide.hunks?.flatMap((h) => h.lines.filter((l) => l.startsWith('+') || l.startsWith('-'))),
      ["+The agent's note."],
    );
    assert.equal(
      state.files.some((f) => f.path === 'user-notes.md'),
      false,
    );
  });

  it('after the reload, Undo from the restored entry keeps the user’s line and file, and the confirmation does not name them', async () => {
    const guide = path.join(docs, 'guide.md');
    const entry = changesEntries().at(-1)!;
    await api.chats.dispatch(chat, { type: 'changes', entryId: entry.id, action: 'undo' });
    const asked = questions.at(-1)!;
    assert.match(asked.title, /^Undo turn 3\? 1 file will change\.$/);
    assert.deepEqual([...asked.files], ['restore docs/guide.md (merged with your edits)']);
    assert.equal(read(guide), '# Guide, retitled by the user\n\nThe docs folder of the multi-root fixture.\n');
    assert.equal(read(path.join(docs, 'user-notes.md')), 'mine\n');
    await waitFor(() => changesEntries().at(-1)!.state === 'undone', 'the entry to say undone');
  });

  it('leaves the user’s own git repository exactly as it was', () => {
    const after = repoState();
    // The agent's and the user's edits are in the work tree; the repository itself is untouched.
    assert.equal(after.stashes, repoBefore.stashes);
    assert.equal(after.head, repoBefore.head);
    assert.equal(after.refs, repoBefore.refs);
    assert.equal(after.index, repoBefore.index);
    assert.equal(after.config, repoBefore.config);
    assert.match(after.status, /^A {2}staged\.txt$/m, 'the user’s staged file is still staged');
    assert.doesNotMatch(after.status, /\.acp|checkpoint/i);
  });
});
