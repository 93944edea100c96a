import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnEnd } from '../../../src/acp/port/turn';
import type { TestApi } from '../../../src/extension';
import type { AgentSession } from '../../../src/sessions/routing/agentSession';
import { activate, addRecordingAgent, assertConforms, restoreTab, waitFor, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const real = (p: string) => fs.realpathSync.native(p);
/** A turn that did not end with the agent's stop reason fails the test with its error (as `session/prompt` rejected). */
const stopped = (end: TurnEnd): void => {
  if (end.reason !== 'stopped') throw end.error;
};

describe('multi-root: the root set, consent and enforcement', function () {
  this.timeout(60_000);
  let api: TestApi;
  let ui: ScriptedRootsUi;
  let agent: RecordingAgent;
  let other: RecordingAgent;
  let single: RecordingAgent;
  let app: string;
  let lib: string;
  let docs: string;

  const paramsOf = (recording: RecordingAgent, method: string) =>
    recording
      .received()
      .filter((m) => m.method === method)
      .map((m) => m.params);
  const lastNew = (recording: RecordingAgent) => paramsOf(recording, 'session/new').at(-1);
  before(async () => {
    api = await activate();
    ui = new ScriptedRootsUi();
    api.setRootsUi(ui);
    agent = await addRecordingAgent('Roots Agent');
    single = await addRecordingAgent('Single-Root Agent', ['--disable', 'additionalDirectories']);
    other = await addRecordingAgent('Other Roots Agent');
    await waitFor(() => ['Roots Agent', 'Single-Root Agent', 'Other Roots Agent'].every((name) => api.agents.find(name) !== undefined), 'the agents');
    [app, lib, docs] = vscode.workspace.workspaceFolders!.map((f) => real(f.uri.fsPath)) as [string, string, string];
    for (const name of ['Roots Agent', 'Other Roots Agent', 'Single-Root Agent']) await api.grants.set(name, []);
  });

  after(async () => {
    api.setRootsUi(undefined);
    for (const name of ['Roots Agent', 'Other Roots Agent', 'Single-Root Agent']) await api.grants.set(name, []);
    await api.agents.stop('Roots Agent');
    await api.agents.stop('Single-Root Agent');
    await api.agents.stop('Other Roots Agent');
    await agent.dispose();
    await single.dispose();
    await other.dispose();
  });

  it('asks before sharing other folders, then sends cwd plus every granted folder, in workspace order', async () => {
    const [started] = await api.starter.newSession({ agentName: 'Roots Agent' });
    assert.ok(started);
    const { session } = started;
    assert.deepEqual(ui.asked.splice(0), ['consent Roots Agent app: lib,docs']);
    assert.deepEqual(lastNew(agent), { cwd: app, additionalDirectories: [lib, docs], mcpServers: [] });
    assert.deepEqual(api.grants.granted('Roots Agent'), [lib, docs]);
    assert.ok(api.sessions.find('Roots Agent', session.sessionId));
  });

  it('remembers the grant for this workspace: the next session does not ask', async () => {
    await api.starter.newSession({ agentName: 'Roots Agent' });
    assert.deepEqual(ui.asked.splice(0), []);
    assert.deepEqual(lastNew(agent), { cwd: app, additionalDirectories: [lib, docs], mcpServers: [] });
  });

  it('never lets one agent’s grant serve another: the other agent is asked', async () => {
    ui.asked.splice(0);
    await api.starter.newSession({ agentName: 'Other Roots Agent' });
    assert.deepEqual(ui.asked.splice(0), ['consent Other Roots Agent app: lib,docs']);
    assert.deepEqual(api.grants.granted('Other Roots Agent'), [lib, docs]);
    assert.deepEqual(api.grants.granted('Roots Agent'), [lib, docs]);
  });

  it('after a folder is revoked, asks again; a refusal leaves it out of the list', async () => {
    ui.stale = 'keep';
    await api.grants.revoke('Roots Agent', [lib]);
    // Asked once the sessions let the folder go (and a confined agent restarted without it).
    await waitFor(() => ui.asked.some((line) => line.startsWith('stale:')), 'the question to the open sessions');
    assert.match(
      ui.asked.splice(0).join('\n'),
      /^stale: “lib” is no longer shared with Roots Agent; 2 open sessions can no longer reach it/,
      'the open sessions are told',
    );
    ui.consent = () => [];
    await api.starter.newSession({ agentName: 'Roots Agent' });
    assert.deepEqual(ui.asked.splice(0), ['consent Roots Agent app: lib']);
    assert.deepEqual(lastNew(agent), { cwd: app, additionalDirectories: [docs], mcpServers: [] });
    assert.deepEqual(api.grants.granted('Roots Agent'), [docs]);
  });

  it('starts nothing when the consent prompt is dismissed', async () => {
    ui.consent = () => undefined;
    const before = paramsOf(agent, 'session/new').length;
    assert.deepEqual(await api.starter.newSession({ agentName: 'Roots Agent' }), []);
    assert.equal(paramsOf(agent, 'session/new').length, before);
    ui.asked.splice(0);
    ui.consent = (folders) => folders;
  });

  it('uses another primary folder when asked, and sends the complete list from it', async () => {
    await api.grants.set('Roots Agent', [app, lib, docs]);
    await api.starter.newSession({ agentName: 'Roots Agent', primaryIndex: 2 });
    assert.deepEqual(lastNew(agent), { cwd: docs, additionalDirectories: [app, lib], mcpServers: [] });
  });

  it('never sends additionalDirectories to an agent that does not advertise it, and says what is left out', async () => {
    ui.singleRoot = 'continue';
    const [started] = await api.starter.newSession({ agentName: 'Single-Root Agent' });
    assert.deepEqual(
      started!.notes.filter((n) => /lib|docs/.test(n)),
      [
        'Not shared with this session: “lib” (this agent can only see one folder).',
        'Not shared with this session: “docs” (this agent can only see one folder).',
      ],
      'left out because the agent takes one folder, not because it was not allowed',
    );
    assert.deepEqual(ui.asked.splice(0), ['single-root Single-Root Agent app: lib,docs']);
    assert.deepEqual(lastNew(single), { cwd: app, mcpServers: [] });
    assert.ok(paramsOf(single, 'session/new').every((p) => p && !('additionalDirectories' in p)));
  });

  it('can start one session per folder for such an agent, each in a tab named after its folder', async () => {
    ui.singleRoot = 'one-per-folder';
    const sessions = await vscode.commands.executeCommand<AgentSession[]>('acpWorkspace.newSession', 'Single-Root Agent');
    assert.equal(sessions.length, 3);
    assert.deepEqual(paramsOf(single, 'session/new').slice(-3), [
      { cwd: app, mcpServers: [] },
      { cwd: lib, mcpServers: [] },
      { cwd: docs, mcpServers: [] },
    ]);
    const titles = sessions.map((session) => api.chats.find(session.agentName, session.sessionId)?.panel.panel.title);
    assert.deepEqual(
      titles.map((title) => title?.replace(/ from .+ · /, ' from … · ')),
      ['app', 'lib', 'docs'].map((folder) => `Session in ${folder} from … · Single-Root Agent`),
      'three tabs a user can tell apart',
    );
    ui.asked.splice(0);
  });

  it('restores such a session in a folder other than the first after a window reload without asking which folders', async () => {
    const session = api.sessions.forAgent('Single-Root Agent').find((s) => s.rootSet.cwd.path === lib);
    assert.ok(session, 'the session in lib from the test above');
    api.chats.find('Single-Root Agent', session.sessionId)?.panel.dispose();
    ui.asked.splice(0);
    const reopened = () =>
      single.received().filter((m) => (m.method === 'session/resume' || m.method === 'session/load') && m.params?.['sessionId'] === session.sessionId);
    const tab = restoreTab(api, { agentName: 'Single-Root Agent', sessionId: session.sessionId, roots: [lib] });
    await api.chatRestorer.settled();
    assert.deepEqual(ui.asked, [], 'no folder question: the session keeps its own folder');
    const chat = api.chats.find('Single-Root Agent', session.sessionId);
    assert.ok(chat && chat.panel === tab.restored, 'reopened in the restored tab');
    assert.deepEqual(
      reopened().map((m) => ({ cwd: m.params?.['cwd'], additionalDirectories: m.params?.['additionalDirectories'] })),
      [{ cwd: lib, additionalDirectories: undefined }],
    );
    for (const other of api.sessions.forAgent('Single-Root Agent')) api.chats.find(other.agentName, other.sessionId)?.panel.dispose();
  });

  describe('fs access through the session roots', () => {
    let session: AgentSession;

    before(async () => {
      await api.grants.set('Roots Agent', [lib, docs]);
      session = (await api.starter.newSession({ agentName: 'Roots Agent' }))[0]!.session;
    });

    it('refuses a read through the symlink that leads outside every folder, naming the path and the roots', async () => {
      const link = path.join(lib, 'outside-link');
      await session.connection.startTurn({ sessionId: session.sessionId, prompt: [{ type: 'text', text: `read ${link}` }] }).ended.then(stopped);
      const refusal = session.refusals.at(-1);
      assert.ok(refusal, 'the refusal is recorded on the session');
      assert.equal(refusal.operation, 'read');
      assert.equal(refusal.path, link);
      assert.match(refusal.message, /is outside this session.s folders/);
      for (const root of [app, lib, docs]) assert.ok(refusal.message.includes(root), `the message names ${root}`);
    });

    it('writes an agent’s path with a NUL byte into the log escaped, never raw', async () => {
      const marker = `nul-marker-${Date.now()}`;
      await session.connection
        .startTurn({ sessionId: session.sessionId, prompt: [{ type: 'text', text: `read ${lib}/a\u0000${marker}` }] })
        .ended.then(stopped);
      assert.equal(session.refusals.at(-1)?.path, `${lib}/a\u0000${marker}`, 'refused (a NUL never names a file)');
      const logs = path.dirname(api.logUri.fsPath);
      const find = (): string | undefined => {
        const files = fs.readdirSync(logs, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.log'));
        for (const file of files) {
          const text = fs.readFileSync(path.join(file.parentPath, file.name), 'latin1');
          if (text.includes(marker)) return text;
        }
        return undefined;
      };
      await waitFor(() => find() !== undefined, 'the refusal in the log file', 20_000);
      const text = find()!;
      const line = text.split('\n').find((l) => l.includes(marker))!;
      assert.ok(line.includes(`a\\u0000${marker}`), line);
      assert.ok(!text.includes('\u0000'), 'no raw NUL in the log');
    });

    it('lets the agent create a new file inside an additional folder', async () => {
      const target = path.join(docs, 'notes', 'from-agent.md');
      await session.connection
        .startTurn({ sessionId: session.sessionId, prompt: [{ type: 'text', text: `write ${target} Hello from the agent` }] })
        .ended.then(stopped);
      assert.equal(fs.readFileSync(target, 'utf8'), 'Hello from the agent');
    });

    it('gives the agent the unsaved text of an open editor', async () => {
      const file = path.join(lib, 'src', 'greet.ts');
      const document = await vscode.workspace.openTextDocument(file);
      const editor = await vscode.window.showTextDocument(document);
      await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), '// unsaved line\n'));
      assert.ok(document.isDirty);
      const readsBefore = agent.received().length;
      await session.connection.startTurn({ sessionId: session.sessionId, prompt: [{ type: 'text', text: `read ${file}` }] }).ended.then(stopped);
      assert.ok(agent.received().length > readsBefore);
      const answer = agent
        .received()
        .filter((m) => m.result !== undefined && typeof (m.result as { content?: unknown }).content === 'string')
        .at(-1);
      assert.match(String((answer?.result as { content: string }).content), /^\/\/ unsaved line\n/);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    });

    it('refuses a write outside the roots and creates nothing there', async () => {
      const outside = path.join(path.dirname(lib), 'outside', 'planted.txt');
      await session.connection.startTurn({ sessionId: session.sessionId, prompt: [{ type: 'text', text: `write ${outside} nope` }] }).ended.then(stopped);
      assert.equal(fs.existsSync(outside), false);
      assert.equal(session.refusals.at(-1)?.operation, 'write');
    });
  });

  describe('taking a folder back binds open sessions at once', () => {
    let session: AgentSession;
    const greet = () => path.join(lib, 'src', 'greet.ts');
    const prompt = (text: string) => session.connection.startTurn({ sessionId: session.sessionId, prompt: [{ type: 'text', text }] }).ended.then(stopped);

    before(async () => {
      await api.grants.set('Roots Agent', [lib, docs]);
      session = (await api.starter.newSession({ agentName: 'Roots Agent' }))[0]!.session;
      fs.symlinkSync('../lib', path.join(docs, 'link-lib'));
    });
    after(() => fs.rmSync(path.join(docs, 'link-lib'), { force: true }));

    it('refuses a revoked folder’s files at once, also through a symlink in another folder, and says the folders changed', async () => {
      const before = session.refusals.length;
      await prompt(`read ${greet()}`);
      assert.equal(session.refusals.length, before, 'readable while shared');
      ui.stale = 'keep';
      ui.asked.splice(0);
      await api.grants.revoke('Roots Agent', [lib]);
      await waitFor(() => ui.asked.some((q) => q.startsWith('stale:')), 'the question about the open session');
      assert.match(
        ui.asked.find((q) => q.startsWith('stale:'))!,
        /“lib” is no longer shared with Roots Agent; (its open session|\d+ open sessions) can no longer reach it/,
      );
      assert.deepEqual(session.withdrawn, [lib]);
      assert.deepEqual(session.guard.roots, [app, docs]);

      await prompt(`read ${greet()}`);
      assert.equal(session.refusals.at(-1)?.path, greet());
      await prompt(`read ${path.join(docs, 'link-lib', 'src', 'greet.ts')}`);
      assert.equal(session.refusals.at(-1)?.path, path.join(docs, 'link-lib', 'src', 'greet.ts'));
      await prompt(`write ${path.join(lib, 'pwned.txt')} gotcha`);
      assert.equal(session.refusals.at(-1)?.operation, 'write');
      assert.equal(fs.existsSync(path.join(lib, 'pwned.txt')), false);
      await prompt(`read ${path.join(docs, 'guide.md')}`);
      assert.notEqual(session.refusals.at(-1)?.path, path.join(docs, 'guide.md'), 'the folders still shared stay readable');
    });

    it('reopens with the folders shared now when the user asks', async () => {
      await api.grants.grant('Roots Agent', [lib]);
      ui.stale = 'reopen';
      ui.consent = () => [];
      ui.asked.splice(0);
      await api.grants.revoke('Roots Agent', [docs]);
      const resumes = () => paramsOf(agent, 'session/resume').filter((p) => p?.['sessionId'] === session.sessionId);
      await waitFor(
        () => resumes().some((p) => JSON.stringify(p?.['additionalDirectories']) === JSON.stringify([lib])),
        'session/resume with what is shared now',
      );
      await waitFor(() => api.sessions.find('Roots Agent', session.sessionId) !== session, 'the reopened session');
      const reopened = api.sessions.find('Roots Agent', session.sessionId)!;
      assert.deepEqual(reopened.guard.roots, [app, lib]);
      assert.deepEqual(reopened.withdrawn, []);
      ui.consent = (folders) => folders;
    });
  });

  describe('workspace folders changing mid-session', () => {
    const folderChange = () =>
      new Promise<void>((resolve) => {
        const subscription = vscode.workspace.onDidChangeWorkspaceFolders(() => {
          subscription.dispose();
          resolve();
        });
      });

    it('marks open sessions stale and reopens them with the complete new list, or keeps their roots', async () => {
      const extra = path.join(path.dirname(lib), 'outside');
      await api.grants.set('Roots Agent', [lib, docs]);
      const session = (await api.starter.newSession({ agentName: 'Roots Agent' }))[0]!.session;
      ui.stale = 'reopen';
      ui.consent = (folders) => folders;
      const added = folderChange();
      assert.ok(vscode.workspace.updateWorkspaceFolders(3, 0, { uri: vscode.Uri.file(extra), name: 'outside' }));
      await added;
      await waitFor(() => ui.asked.some((q) => q.startsWith('stale:')), 'the stale question');
      const resumes = () => paramsOf(agent, 'session/resume').filter((p) => p?.['sessionId'] === session.sessionId);
      await waitFor(() => resumes().length > 0, 'session/resume');
      const resume = resumes().at(-1);
      assert.deepEqual(resume, { sessionId: session.sessionId, cwd: app, additionalDirectories: [lib, docs, real(extra)], mcpServers: [] });
      assert.ok(ui.asked.includes('consent Roots Agent app: outside'));
      // The reopened session replaces the stale one once session/resume has answered.
      await waitFor(() => api.sessions.find('Roots Agent', session.sessionId) !== session, 'the reopened session');
      const reopened = api.sessions.find('Roots Agent', session.sessionId)!;
      assert.equal(reopened.stale, undefined);
      assert.deepEqual(reopened.guard.roots, [app, lib, docs, real(extra)]);

      // Back to three folders: the session is stale again; keep its roots this time.
      ui.stale = 'keep';
      ui.asked.splice(0);
      const removed = folderChange();
      assert.ok(vscode.workspace.updateWorkspaceFolders(3, 1));
      await removed;
      await waitFor(() => ui.asked.some((q) => q.startsWith('stale:')), 'the stale question');
      await waitFor(() => api.sessions.find('Roots Agent', session.sessionId)?.stale === undefined, 'kept');
      assert.equal(resumes().length, 1, 'keeping does not reopen');
      // The folder left the workspace: the kept session can no longer reach it.
      const kept = api.sessions.find('Roots Agent', session.sessionId)!;
      assert.deepEqual(kept.withdrawn, [real(extra)]);
      await kept.connection
        .startTurn({ sessionId: kept.sessionId, prompt: [{ type: 'text', text: `read ${path.join(real(extra), 'README.md')}` }] })
        .ended.then(stopped);
      assert.equal(kept.refusals.at(-1)?.path, path.join(real(extra), 'README.md'));
      assert.match(
        ui.asked.find((q) => q.startsWith('stale:'))!,
        /Workspace folders changed \(outside was removed\)/,
      );
    });

    it('remembers "Keep Current Folders": the chat restored after a window reload reopens with the kept folders without asking again (issue 25, item 8)', async () => {
      const extra = path.join(path.dirname(lib), 'outside');
      await api.grants.set('Roots Agent', [lib, docs, real(extra)]);
      const session = (await api.starter.newSession({ agentName: 'Roots Agent' }))[0]!.session;
      assert.deepEqual(session.guard.roots, [app, lib, docs]);
      ui.stale = 'keep';
      ui.asked.splice(0);
      const added = folderChange();
      assert.ok(vscode.workspace.updateWorkspaceFolders(3, 0, { uri: vscode.Uri.file(extra), name: 'outside' }));
      try {
        await added;
        await waitFor(() => ui.asked.some((q) => q.startsWith('stale:')), 'the stale question');
        await waitFor(() => api.sessions.find('Roots Agent', session.sessionId)?.stale === undefined, 'kept');
        // The window reloads: the chat's tab goes, and VS Code hands it back with the state it saved.
        api.chats.find('Roots Agent', session.sessionId)?.panel.dispose();
        ui.asked.splice(0);
        const reopened = () =>
          paramsOf(agent, 'session/load')
            .concat(paramsOf(agent, 'session/resume'))
            .filter((p) => p?.['sessionId'] === session.sessionId);
        const tab = restoreTab(api, { agentName: 'Roots Agent', sessionId: session.sessionId, roots: [app, lib, docs] });
        await api.chatRestorer.settled();
        assert.deepEqual(ui.asked, [], 'the user chose to keep the session’s folders: no "which folders?" question again');
        const chat = api.chats.find('Roots Agent', session.sessionId);
        assert.ok(chat && chat.panel === tab.restored, 'reopened in the restored tab');
        assert.deepEqual(reopened().at(-1)?.['additionalDirectories'], [lib, docs], 'with the folders the user kept');
        chat.panel.dispose();
      } finally {
        const removed = folderChange();
        ui.stale = undefined;
        assert.ok(vscode.workspace.updateWorkspaceFolders(3, 1));
        await removed;
        ui.stale = 'reopen';
      }
    });
  });

  it('sent only messages that conform to the ACP JSON Schema', () => {
    assertConforms(agent.received());
    assertConforms(single.received());
  });
});
