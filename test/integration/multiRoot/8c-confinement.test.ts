import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { ViewEntry, ViewEntryOf } from '../../../src/shared/chatModel';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { activate, addRecordingAgent, waitFor, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const NAME = 'Confined Agent';
const HIDDEN = 'Confined Agent without bwrap';

/**
 * `acpWorkspace.sandbox: writes` in a real window. Needs the mechanisms (bubblewrap on Linux, Seatbelt on
 * macOS: `src/process/confinement/find.ts` and AgentProcess's `confinement` option); without them every
 * test here fails, which is the point: nothing is faked.
 */
describe('confining agents to their folders (acpWorkspace.sandbox, real extension host)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let agent: RecordingAgent;
  let chat: Chat;
  let app: string;
  let lib: string;
  let outside: string;
  const ui = new ScriptedRootsUi();

  const entries = (): ViewEntry[] => chat.controller.thread.snapshot().entries;
  const infos = () => entries().filter((e): e is ViewEntryOf<'info'> => e.kind === 'info').map((e) => e.text);
  const settings = () => vscode.workspace.getConfiguration('acpWorkspace');

  async function prompt(text: string): Promise<void> {
    const ends = entries().filter((e) => e.kind === 'turnEnd').length;
    await api.chats.dispatch(chat, { type: 'prompt', text, attachments: [] });
    await waitFor(() => entries().filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn for "${text}"`, 30_000);
  }

  before(async function () {
    if (process.platform === 'win32') this.skip();
    api = await activate();
    [app, lib] = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath)) as [string, string];
    outside = path.join(path.dirname(lib), 'outside');
    fs.mkdirSync(outside, { recursive: true });
    await settings().update('sandbox', 'writes', vscode.ConfigurationTarget.Global);
    await api.grants.set(NAME, []);
    // Only the primary folder at first: lib is not shared yet.
    ui.consent = () => [];
    api.setRootsUi(ui);
    agent = await addRecordingAgent(NAME);
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent setting');
    const [started] = await api.starter.newSession({ agentName: NAME, primaryIndex: 0 });
    chat = api.chats.open(started!.session);
  });

  after(async () => {
    api.setRootsUi(undefined);
    api.setConfinementUi(undefined);
    for (const tab of api.chats.all()) if (tab.controller.session.agentName === NAME) tab.panel.dispose();
    await api.agents.stop(NAME);
    await agent.dispose();
    await settings().update('sandbox', undefined, vscode.ConfigurationTarget.Global);
    for (const file of [path.join(app, 'confined.txt'), path.join(lib, 'not-yet.txt'), path.join(lib, 'now.txt'), path.join(outside, 'planted.txt')]) fs.rmSync(file, { force: true });
  });

  it('says it is confined, and to what: the Agents view row and the chat header', () => {
    const view = api.confinement.view(NAME);
    assert.ok(view?.confined, 'confined');
    assert.match(view.summary, new RegExp(`^confined: writes in ${path.basename(app)}`));
    const header = chat.controller.thread.session.confinement;
    assert.equal(header?.label, 'Confined (writes)');
    assert.match(header.detail, new RegExp(app.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    const row = api.agentsView.getTreeItem(api.agents.find(NAME)!);
    assert.match(String(row.description), /confined: writes in/);
  });

  it('lets the agent’s own tools write in its folder and nowhere else', async () => {
    await prompt(`write-direct ${path.join(app, 'confined.txt')} inside`);
    assert.equal(fs.readFileSync(path.join(app, 'confined.txt'), 'utf8'), 'inside');
    await prompt(`write-direct ${path.join(outside, 'planted.txt')} escaped`);
    assert.equal(fs.existsSync(path.join(outside, 'planted.txt')), false, 'nothing written outside');
    await prompt(`write-direct ${path.join(lib, 'not-yet.txt')} early`);
    assert.equal(fs.existsSync(path.join(lib, 'not-yet.txt')), false, 'lib is not granted yet');
  });

  it('restarts the agent when a grant widens its confinement, says why, and the session continues with the new folder', async () => {
    const sessionId = chat.controller.session.sessionId;
    const pid = api.agents.find(NAME)?.process?.pid;
    ui.consent = (folders) => folders;
    await api.grants.grant(NAME, [lib]);
    await waitFor(() => infos().some((t) => t === `Restarting ${NAME} so that its confinement includes ${path.basename(lib)}.`), 'the restart note');
    await waitFor(() => api.agents.find(NAME)?.state === 'running' && api.agents.find(NAME)?.process?.pid !== pid, 'the new process');
    await waitFor(() => chat.controller.session.sessionId === sessionId && chat.controller.thread.session.status === 'idle', 'the session back');
    assert.ok(api.confinement.view(NAME)?.summary.includes(path.basename(lib)));
    // The session gets lib too (reopened with the current folders), and the agent can write there now.
    await api.starter.reopenWithCurrentFolders(chat.controller.session);
    await prompt(`write-direct ${path.join(lib, 'now.txt')} granted`);
    assert.equal(fs.readFileSync(path.join(lib, 'now.txt'), 'utf8'), 'granted');
  });

  it('fails closed when bubblewrap cannot be found: a clear refusal, nothing spawned', async function () {
    if (process.platform !== 'linux') this.skip();
    const asked: string[] = [];
    api.setConfinementUi({
      confinementUnavailable: async (agentName, reason, fix) => {
        asked.push(`${agentName}: ${reason} ${fix}`);
        return undefined;
      },
    });
    const current = settings().get<unknown[]>('agents') ?? [];
    await settings().update(
      'agents',
      [...current, { name: HIDDEN, command: '${node}', args: ['${extensionPath}/dist/reference-agent.js'], env: { PATH: '/nonexistent' } }],
      vscode.ConfigurationTarget.Global,
    );
    try {
      await waitFor(() => api.agents.find(HIDDEN) !== undefined, 'the agent setting');
      await assert.rejects(api.starter.newSession({ agentName: HIDDEN, primaryIndex: 0 }), /not started/);
      assert.equal(asked.length, 1);
      assert.match(asked[0]!, /bwrap|bubblewrap/i);
      assert.equal(api.agents.find(HIDDEN)?.process?.pid, undefined, 'nothing spawned');
      assert.equal(api.agents.find(HIDDEN)?.state, 'failed');
    } finally {
      await settings().update('agents', current, vscode.ConfigurationTarget.Global);
    }
  });
});
