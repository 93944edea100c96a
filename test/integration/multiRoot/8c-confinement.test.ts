import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import { startFailureText, type StartFailure } from '../../../src/process/startFailure';
import type { ViewEntry, ViewEntryOf } from '../../../src/shared/chatModel';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { seedStore } from '../../fixtures/referenceAgent/store';
import { activate, addRecordingAgent, restoreTab, waitFor, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const NAME = 'Confined Agent';
const HIDDEN = 'Confined Agent without bwrap';
/** An agent this window has not started yet: its chat comes back as after a window reload. */
const RESTORED = 'Confined Agent after a reload';

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

  const entries = (target = chat): ViewEntry[] => target.controller.thread.snapshot().entries;
  const infos = (target = chat) =>
    entries(target)
      .filter((e): e is ViewEntryOf<'info'> => e.kind === 'info')
      .map((e) => e.text);
  const settings = () => vscode.workspace.getConfiguration('acpWorkspace');
  const received = (method: string, from = agent) =>
    from
      .received()
      .filter((m) => m.method === method)
      .map((m) => m.params ?? {});
  /** Created by the agent's own tools (Node's fs, its shell), never through the client. */
  const written: string[] = [];

  async function prompt(text: string, target = chat): Promise<void> {
    const ends = entries(target).filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length;
    await api.chats.dispatch(target, { type: 'prompt', text, attachments: [] });
    await waitFor(() => entries(target).filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn for "${text}"`, 30_000);
  }

  /** The agent writes `file` with its own file tool and `<file>.sh` with its own shell; says which exist. */
  async function writesItself(file: string, target = chat): Promise<{ tool: boolean; shell: boolean }> {
    written.push(file, `${file}.sh`);
    await prompt(`write-direct ${file} by the tool\nshell-direct echo by the shell > ${file}.sh`, target);
    return { tool: fs.existsSync(file), shell: fs.existsSync(`${file}.sh`) };
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
    for (const file of [
      path.join(app, 'confined.txt'),
      path.join(lib, 'not-yet.txt'),
      path.join(lib, 'now.txt'),
      path.join(outside, 'planted.txt'),
      ...written,
    ])
      fs.rmSync(file, { force: true });
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

  it('restarts the agent when a grant widens its confinement, says why, and the session continues with the new folder: the resume lists it, the header shows it', async () => {
    const sessionId = chat.controller.session.sessionId;
    const pid = api.agents.find(NAME)?.process?.pid;
    const resumes = received('session/resume').length;
    ui.consent = (folders) => folders;
    await api.grants.grant(NAME, [lib]);
    await waitFor(() => infos().some((t) => t === `Restarting ${NAME} so that its confinement includes ${path.basename(lib)}.`), 'the restart note');
    await waitFor(() => api.agents.find(NAME)?.state === 'running' && api.agents.find(NAME)?.process?.pid !== pid, 'the new process');
    await waitFor(
      () =>
        chat.controller.session.sessionId === sessionId &&
        chat.controller.session.connection === api.agents.find(NAME)?.process?.connection &&
        chat.controller.thread.session.status === 'idle',
      'the session back',
    );
    assert.ok(api.confinement.view(NAME)?.summary.includes(path.basename(lib)));
    // The session is given lib by the reopen itself: nothing else to do.
    const resumed = received('session/resume').slice(resumes);
    assert.deepEqual(
      resumed.map((p) => [p['sessionId'], p['cwd'], p['additionalDirectories']]),
      [[sessionId, app, [lib]]],
      'the resumed session is told it has lib',
    );
    assert.deepEqual(
      chat.controller.thread.session.roots.map((r) => r.path),
      [app, lib],
      'the header shows lib as shared',
    );
    assert.equal(chat.controller.session.stale, undefined, 'nothing left to reopen');
    assert.deepEqual(await writesItself(path.join(lib, 'now.txt')), { tool: true, shell: true });
  });

  it('narrows the confinement at once when the folder is taken back: the running turn is stopped, the agent restarts without it, and its own tools can no longer write there', async () => {
    const pid = api.agents.find(NAME)?.process?.pid;
    const resumes = received('session/resume').length;
    // A turn still running when the folder is taken back: it wrote in lib and goes on.
    const during = path.join(lib, 'during.txt');
    written.push(during);
    // The dispatch settles when the turn ends.
    const running = api.chats.dispatch(chat, { type: 'prompt', text: `write-direct ${during} before\nhang`, attachments: [] });
    await waitFor(() => fs.existsSync(during) && chat.controller.thread.session.status === 'running', 'the running turn');
    await api.grants.revoke(NAME, [lib]);
    await waitFor(
      () => infos().some((t) => t.startsWith(`Restarting ${NAME} so that it can no longer write in ${path.basename(lib)}`)),
      'the narrowing note',
      30_000,
    );
    await waitFor(() => api.agents.find(NAME)?.state === 'running' && api.agents.find(NAME)?.process?.pid !== pid, 'the new process');
    await waitFor(() => infos().includes(`The turn was stopped: ${NAME} restarted.`), 'the running turn stopped, and said so');
    await running;
    // What it wrote in lib before the folder was taken back is the stopped turn's change, for review and undo.
    await waitFor(
      () =>
        entries().some(
          (e) =>
            e.kind === 'changes' &&
            e.files.some((f) => f.path === 'during.txt' && f.status === 'added' && fs.realpathSync(f.rootPath) === fs.realpathSync(lib)),
        ),
      'the stopped turn’s changes entry listing lib/during.txt',
    );
    await waitFor(
      () => chat.controller.session.connection === api.agents.find(NAME)?.process?.connection && chat.controller.thread.session.status === 'idle',
      () =>
        `the session back (on the agent's connection: ${chat.controller.session.connection === api.agents.find(NAME)?.process?.connection}, ` +
        `agent ${api.agents.find(NAME)?.state}, status ${chat.controller.thread.session.status}; the chat's last lines: ${JSON.stringify(
          entries()
            .slice(-6)
            .map((e) => (e.kind === 'info' ? `info: ${e.text}` : e.kind === 'error' ? `error: ${e.message}` : e.kind)),
        )})`,
    );
    assert.equal(api.confinement.view(NAME)?.detail.includes(lib), false, `lib left the confinement: ${api.confinement.view(NAME)?.detail}`);
    assert.deepEqual(
      received('session/resume')
        .slice(resumes)
        .map((p) => [p['cwd'], p['additionalDirectories']]),
      [[app, []]],
      'the session is reopened without lib',
    );
    assert.deepEqual(
      chat.controller.thread.session.roots.map((r) => r.path),
      [app],
    );
    assert.deepEqual(await writesItself(path.join(lib, 'taken-back.txt')), { tool: false, shell: false }, 'nothing written in lib any more');
    assert.deepEqual(await writesItself(path.join(app, 'still-mine.txt')), { tool: true, shell: true }, 'app is still its folder');
  });

  it('says "restart to apply" when acpWorkspace.sandbox changes while the agent runs: the Agents view row and the chat header', async () => {
    const row = () => api.agentsView.getTreeItem(api.agents.find(NAME)!);
    assert.doesNotMatch(String(row().description), /restart to apply/);
    assert.equal(chat.controller.thread.session.confinement?.pending, undefined);
    await settings().update('sandbox', 'strict', vscode.ConfigurationTarget.Global);
    try {
      await waitFor(() => /restart to apply acpWorkspace\.sandbox: strict/.test(String(row().description)), 'the Agents view to say it');
      assert.equal(chat.controller.thread.session.confinement?.pending, 'restart to apply acpWorkspace.sandbox: strict');
      assert.match(String(row().contextValue), /^agent\.running/, 'with its Restart action');
    } finally {
      await settings().update('sandbox', 'writes', vscode.ConfigurationTarget.Global);
    }
    await waitFor(() => chat.controller.thread.session.confinement?.pending === undefined, 'the hint gone once the setting is back');
    assert.doesNotMatch(String(row().description), /restart to apply/);
  });

  it('after a window reload the agent of a restored chat can write its session’s folders, its primary one included, and again after a crash', async () => {
    const restored = await addRecordingAgent(RESTORED);
    try {
      await waitFor(() => api.agents.find(RESTORED) !== undefined, 'the agent setting');
      // Before the reload the session had app and lib, and lib was shared with the agent.
      seedStore(restored.storeDir, [{ sessionId: 'before_reload', cwd: app, additionalDirectories: [lib], title: 'Work from before the reload' }]);
      await api.grants.set(RESTORED, [lib]);
      assert.equal(api.agents.find(RESTORED)?.state, 'stopped', 'not started in this window yet');
      const tab = restoreTab(api, { agentName: RESTORED, sessionId: 'before_reload', title: 'Work from before the reload', roots: [app, lib] });
      assert.ok(tab.restored);
      await api.chatRestorer.settled();
      const back = api.chats.find(RESTORED, 'before_reload');
      assert.ok(back, 'the restored tab’s session is open');
      assert.deepEqual(
        received('session/load', restored).map((p) => [p['cwd'], p['additionalDirectories']]),
        [[app, [lib]]],
      );
      assert.deepEqual(await writesItself(path.join(app, 'after-reload.txt'), back), { tool: true, shell: true }, 'the primary folder');
      assert.deepEqual(await writesItself(path.join(lib, 'after-reload.txt'), back), { tool: true, shell: true }, 'the other folder');
      const view = api.confinement.view(RESTORED);
      assert.ok(view?.detail.includes(app) && view.detail.includes(lib), `confined to both folders: ${view?.detail}`);

      // It crashes, and the chat reopens it (Reopen Session): the new process writes there too.
      const pid = api.agents.find(RESTORED)?.process?.pid;
      await prompt('crash', back);
      await waitFor(() => back.controller.thread.session.status === 'disconnected', 'the crash');
      await api.chats.dispatch(back, { type: 'action', action: 'reopen' });
      await waitFor(
        () => back.controller.thread.session.status === 'idle' && api.agents.find(RESTORED)?.process?.pid !== pid,
        'the session reopened on a new process',
      );
      assert.deepEqual(await writesItself(path.join(app, 'after-crash.txt'), back), { tool: true, shell: true });
      back.panel.dispose();
    } finally {
      await api.agents.stop(RESTORED);
      await api.grants.set(RESTORED, []);
      await restored.dispose();
    }
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
      // What New Session then shows the user: the refusal and its fix, never that an agent that never ran
      // "wrote nothing to stderr" (issue 25, item 10).
      const shown: StartFailure[] = [];
      api.setStartFailureUi({
        show: (failure) => {
          shown.push(failure);
          return Promise.resolve(undefined);
        },
      });
      try {
        assert.deepEqual(await vscode.commands.executeCommand<unknown[]>('acpWorkspace.newSession', HIDDEN), []);
      } finally {
        api.setStartFailureUi(undefined);
      }
      assert.equal(shown.length, 1, 'one notification');
      const text = startFailureText(shown[0]!);
      assert.match(text, /was not started: .*(bwrap|bubblewrap)/, text);
      assert.doesNotMatch(text, /wrote nothing to stderr/, text);
      assert.equal(asked.length, 2, 'asked again for the second start');
      assert.equal(api.agents.find(HIDDEN)?.process?.pid, undefined, 'still nothing spawned');
    } finally {
      await settings().update('agents', current, vscode.ConfigurationTarget.Global);
    }
  });
});
