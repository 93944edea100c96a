import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { ReopenRootsChoice, ReopenRootsQuestion } from '../../../src/sessions/ports';
import { seedStore } from '../../fixtures/referenceAgent/store';
import { CHAT_VIEW_TYPE } from '../../../src/vscode/contributionIds';
import { activate, addRecordingAgent, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

/**
 * A chat tab VS Code restores after a window reload reopens its session in the background: the user meanwhile
 * works elsewhere, and the tab must not take the editor (or the keyboard) when its reopening finishes.
 */
describe('a restored chat tab does not take the editor from the user', function () {
  this.timeout(60_000);
  const NAME = 'Restored Focus Agent';
  let api: TestApi;
  let agent: RecordingAgent;
  const folders = vscode.workspace.workspaceFolders!.map((f) => f.uri.fsPath);
  const [app, lib] = folders as [string, string, string];

  /** Holds the folder question (asked because the tab's folders differ from the workspace's) until released. */
  class HeldRootsUi extends ScriptedRootsUi {
    asking: Promise<void>;
    private askedNow!: () => void;
    private release!: (choice: ReopenRootsChoice) => void;
    constructor() {
      super();
      this.asking = new Promise((resolve) => (this.askedNow = resolve));
    }
    override async chooseReopenRoots(question: ReopenRootsQuestion): Promise<ReopenRootsChoice | undefined> {
      this.asked.push(`reopen-roots ${question.agentName}`);
      const answer = new Promise<ReopenRootsChoice>((resolve) => (this.release = resolve));
      this.askedNow();
      return answer;
    }
    answer(choice: ReopenRootsChoice): void {
      this.release(choice);
    }
  }

  before(async () => {
    api = await activate();
    agent = await addRecordingAgent(NAME);
    // A session of two of the three folders: reopening it asks which folders (a question the test holds).
    seedStore(agent.storeDir, [
      {
        sessionId: 'focus_1',
        cwd: app,
        additionalDirectories: [lib],
        title: 'Focus test',
        history: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Where is the greeting?' } }],
      },
    ]);
  });

  after(async () => {
    api.setRootsUi(undefined);
    for (const chat of api.chats.all().filter((c) => c.controller.session.agentName === NAME)) chat.panel.dispose();
    await api.agents.stop(NAME).catch(() => undefined);
    await agent.dispose();
  });

  it('reopens in its own tab and leaves the editor the user went to active', async () => {
    const sessionId = 'focus_1';
    const ui = new HeldRootsUi();
    api.setRootsUi(ui);
    // The tab comes back (VS Code made it the active editor) and starts reopening its session. What it asks of
    // the workbench is recorded: a reveal without preserveFocus brings the tab to the front and takes the keyboard.
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, 'Restored', vscode.ViewColumn.Active, { enableScripts: true });
    const asked: string[] = [];
    const reveal = panel.reveal.bind(panel);
    panel.reveal = (column?: vscode.ViewColumn, preserveFocus?: boolean) => {
      asked.push(`reveal(preserveFocus: ${String(preserveFocus)})`);
      reveal(column, preserveFocus);
    };
    const restored = api.chatRestorer.restore(panel, { agentName: NAME, sessionId, title: 'Focus test', roots: [app, lib] });
    assert.ok(restored);
    const focusInput = restored.focusInput.bind(restored);
    restored.focusInput = () => {
      asked.push('focusInput');
      focusInput();
    };
    await ui.asking;
    // Meanwhile the user opens a file, and is reading it when the session is back.
    const file = vscode.Uri.file(path.join(lib, 'src', 'greet.ts'));
    await vscode.window.showTextDocument(file);
    ui.answer('session');
    await api.chatRestorer.settled();

    const chat = api.chats.find(NAME, sessionId);
    assert.ok(chat && chat.panel === restored, 'the session is open again, in the restored tab');
    assert.deepEqual(asked, [], 'the restored tab neither came to the front nor took the keyboard');
    const active = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(active?.input instanceof vscode.TabInputText, `the active tab is the file the user opened, not “${active?.label ?? 'nothing'}”`);
    assert.equal(active.input.uri.fsPath, file.fsPath);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file.fsPath, 'the keyboard stays in the editor');
    assert.equal(chat.panel.active, false, 'the chat tab did not come to the front');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
