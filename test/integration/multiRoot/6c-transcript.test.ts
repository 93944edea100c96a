import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { RestoreQuestion } from '../../../src/sessions/ports';
import type { ViewEntry, ViewEntryOf } from '../../../src/shared/chatModel';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { TRANSCRIPT_SCHEME } from '../../../src/vscode/contributionIds';
import { vscodeExportUi } from '../../../src/vscode/chat/transcriptExport';
import { activate, addRecordingAgent, waitFor, type RecordingAgent } from '../shared/extension';

describe('a session exported as Markdown and read as text', function () {
  this.timeout(90_000);
  let api: TestApi;
  let agent: RecordingAgent;
  let chat: Chat;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-export-'));

  const entries = (): ViewEntry[] => chat.controller.thread.snapshot().entries;

  /** Closes the tabs showing `uri` (whatever editor is active). */
  async function closeTab(uri: vscode.Uri): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString());
    assert.ok(tabs.length > 0, `a tab shows ${uri.toString()}`);
    await vscode.window.tabGroups.close(tabs);
  }

  async function prompt(text: string): Promise<void> {
    const ends = entries().filter((e) => e.kind === 'turnEnd').length;
    await api.chats.dispatch(chat, { type: 'prompt', text, attachments: [] });
    await waitFor(() => entries().filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn for "${text}"`, 30_000);
  }

  before(async () => {
    api = await activate();
    const folders = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath));
    await api.grants.set('Export Agent', folders);
    agent = await addRecordingAgent('Export Agent');
    await waitFor(() => api.agents.find('Export Agent') !== undefined, 'the agent setting');
    const [started] = await api.starter.newSession({ agentName: 'Export Agent' });
    chat = api.chats.open(started!.session);
    await prompt('diff');
    await prompt('terminal echo exported-output');
  });

  after(async () => {
    api.transcripts.ui = vscodeExportUi;
    api.setReviewUi(undefined);
    chat?.panel.dispose();
    await api.agents.stop('Export Agent');
    await agent.dispose();
  });

  it('saves the session to a file through the command, with its tool calls, diff and terminal output', async () => {
    const target = vscode.Uri.file(path.join(dir, 'exported.md'));
    let offered: vscode.Uri | undefined;
    api.transcripts.ui = {
      destination: () => Promise.resolve('file'),
      saveTo: (defaultUri) => {
        offered = defaultUri;
        return Promise.resolve(target);
      },
    };
    chat.panel.reveal();
    await waitFor(() => chat.panel.active, 'the chat tab to be active');
    const result = await vscode.commands.executeCommand<vscode.Uri | undefined>('acpWorkspace.exportSession');
    assert.equal(result?.toString(), target.toString());
    assert.match(offered!.path, /\.md$/, 'the Save dialog offers a Markdown file named after the session');
    const inProject = vscode.workspace.getWorkspaceFolder(offered!);
    assert.equal(inProject, undefined, `the Save dialog offers a place outside the user's project, not ${offered!.fsPath}`);
    const downloads = path.join(os.homedir(), 'Downloads');
    assert.equal(path.dirname(offered!.fsPath), fs.existsSync(downloads) ? downloads : os.homedir(), 'the first time: the Downloads folder (else home)');
    const text = fs.readFileSync(target.fsPath, 'utf8');
    assert.match(text, /^# .+\n/);
    assert.match(text, /- \*\*Agent:\*\* Export Agent/);
    assert.match(text, /## User\n\ndiff\n/);
    assert.match(text, /### Tool: /);
    assert.match(text, /```diff\n--- .+\n\+\+\+ .+\n@@ [^\n]+ @@\n-Hello, world!\n\+Hello, ACP!\n```/);
    assert.match(text, /```text\n[^`]*exported-output[^`]*\n```/);
    assert.match(text, /\*Turn ended: done/);
  });

  it('offers the folder of the last export the next time', async () => {
    let offered: vscode.Uri | undefined;
    api.transcripts.ui = {
      destination: () => Promise.resolve('file'),
      saveTo: (defaultUri) => {
        offered = defaultUri;
        return Promise.resolve(undefined);
      },
    };
    const result = await vscode.commands.executeCommand('acpWorkspace.exportSession', {
      agentName: chat.controller.session.agentName,
      sessionId: chat.controller.session.sessionId,
    });
    assert.equal(result, undefined, 'cancelled');
    assert.equal(path.dirname(offered!.fsPath), dir);
  });

  it('copies the session to the clipboard', async () => {
    await vscode.env.clipboard.writeText('');
    api.transcripts.ui = { destination: () => Promise.resolve('clipboard'), saveTo: () => Promise.reject(new Error('not asked')) };
    const result = await vscode.commands.executeCommand('acpWorkspace.exportSession', {
      agentName: chat.controller.session.agentName,
      sessionId: chat.controller.session.sessionId,
    });
    assert.equal(result, 'clipboard');
    const copied = await vscode.env.clipboard.readText();
    assert.match(copied, /- \*\*Agent:\*\* Export Agent/);
    assert.match(copied, /```diff\n/);
  });

  it('opens the transcript as Markdown text that follows the chat', async () => {
    const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('acpWorkspace.openTranscriptText', {
      agentName: chat.controller.session.agentName,
      sessionId: chat.controller.session.sessionId,
    });
    assert.ok(editor);
    const document = editor.document;
    assert.equal(document.uri.scheme, TRANSCRIPT_SCHEME);
    assert.equal(document.languageId, 'markdown');
    assert.match(document.getText(), /```diff\n/);
    assert.ok(!document.getText().includes('after the text view opened'));
    await prompt('stream after the text view opened');
    await waitFor(() => document.getText().includes('after the text view opened'), 'the text view to show the new turn', 10_000);
    // Its own tab: the active editor may be the chat by now (its webview takes the keyboard once it has loaded),
    // and closing the chat would close its session.
    await closeTab(document.uri);
  });

  it('undoes the last turn’s file changes before a retry only once the user confirmed, then sends the same prompt again', async () => {
    const docs = fs.realpathSync.native(vscode.workspace.workspaceFolders![2]!.uri.fsPath);
    const file = path.join(docs, 'retried.md');
    const text = `write-direct ${file} retried`;
    try {
      await prompt(text);
      assert.equal(fs.readFileSync(file, 'utf8'), 'retried');
      const changes = entries()
        .filter((e): e is ViewEntryOf<'changes'> => e.kind === 'changes')
        .at(-1)!;
      assert.ok(changes.files.some((f) => f.path === 'retried.md'));
      const questions: RestoreQuestion[] = [];
      let confirm = false;
      api.setReviewUi({ confirmRestore: (question) => (questions.push(question), Promise.resolve(confirm)) });
      const prompts = () => entries().filter((e) => e.kind === 'user').length;
      const before = prompts();

      await api.chats.dispatch(chat, { type: 'retry', undoFirst: true });
      assert.equal(questions.length, 1, 'the undo asked first');
      assert.equal(prompts(), before, 'declined: nothing was retried');
      assert.equal(fs.readFileSync(file, 'utf8'), 'retried');

      confirm = true;
      const ends = entries().filter((e) => e.kind === 'turnEnd').length;
      const retried = api.chats.dispatch(chat, { type: 'retry', undoFirst: true });
      await waitFor(() => prompts() === before + 1, 'the retried prompt');
      assert.equal(questions.length, 2);
      assert.equal((chat.controller.thread.entry(changes.id) as ViewEntryOf<'changes'>).state, 'undone');
      await retried;
      await waitFor(() => entries().filter((e) => e.kind === 'turnEnd').length > ends, 'the retried turn');
      const last = entries()
        .filter((e): e is ViewEntryOf<'user'> => e.kind === 'user')
        .at(-1)!;
      assert.deepEqual(last.blocks, [{ type: 'text', text }], 'the same prompt again');
      assert.equal(fs.readFileSync(file, 'utf8'), 'retried', 'the retried turn wrote the file again');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('keeps the text view readable once the chat is closed', async () => {
    const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('acpWorkspace.openTranscriptText', {
      agentName: chat.controller.session.agentName,
      sessionId: chat.controller.session.sessionId,
    });
    const document = editor!.document;
    assert.match(document.getText(), /## User\n\ndiff\n/);
    chat.panel.panel.dispose();
    await waitFor(() => !api.chats.all().includes(chat), 'the chat to close');
    // What the provider answers whenever VS Code asks again (the chat's text as of its close).
    assert.match(api.transcripts.provideTextDocumentContent(document.uri), /## User\n\ndiff\n/);
    await closeTab(document.uri);
  });
});
