/**
 * A remote agent in the real VS Code: the reference agent served over WebSocket by the SDK's server transport in
 * its own process (`dist/reference-agent-serve.js --listen --token …`), added as a `remote` entry whose path
 * mapping shares app and docs under /srv (lib is not mapped), its token in SecretStorage. A session gets the
 * agent's paths, a read of a mapped path comes back from the local folder, a path outside the mapping is refused
 * in the chat, the Sessions view lists the session with its local folders, and when the server is killed the chat
 * says the connection was lost, the agent reconnects once the server is back, and the chat continues.
 *
 * The served agent asks for a terminal even when it is not offered one (`--fault ignore-client-capabilities`, as a
 * hostile agent would): refused in the chat, nothing runs here. A second entry for the same server opts in
 * (`"localTerminal": true`): each command is asked first in the chat, and runs confined to the session's folders.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { ViewEntry } from '../../../src/shared/chatModel';
import type { SessionRow } from '../../../src/shared/historyProtocol';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { activate, restoreTab, waitFor } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const NAME = 'Remote Reference';
/** The same served agent, its entry letting it run commands here (each asked first, confined). */
const NAME_WITH_TERMINAL = 'Remote Reference (local terminal)';
const TOKEN = 'tok-8g-served';

interface Served {
  readonly wsUrl: string;
  readonly port: number;
  readonly child: ChildProcess;
}

/** Starts the served reference agent in its own process group and reads the URLs it prints. */
async function serve(extensionPath: string, store: string, port = 0): Promise<Served> {
  const script = path.join(extensionPath, 'dist', 'reference-agent-serve.js');
  const child = spawn(
    process.execPath,
    [script, '--listen', '--port', String(port), '--token', TOKEN, '--store', store, '--fault', 'ignore-client-capabilities'],
    {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  const lines = readline.createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the served agent exited (${code}) before it listened`)));
  });
  const { wsUrl } = JSON.parse(first) as { wsUrl: string };
  return { wsUrl, port: Number(new URL(wsUrl).port), child };
}

function kill(served: Served | undefined): Promise<void> {
  if (!served || served.child.exitCode !== null || served.child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => served.child.once('exit', () => resolve()));
  try {
    process.kill(-served.child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
  return exited;
}

describe('a remote agent over WebSocket with a path mapping, in the real extension host', function () {
  this.timeout(90_000);
  let api: TestApi;
  let served: Served | undefined;
  let store: string;
  let chat: Chat;
  let app: string;
  let lib: string;
  let docs: string;

  const entries = (of: Chat = chat): ViewEntry[] => of.controller.thread.snapshot().entries;
  const lastAgentText = (of: Chat = chat) => {
    const last = entries(of)
      .filter((e) => e.kind === 'agent')
      .at(-1);
    return last?.kind === 'agent' ? last.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
  };
  async function prompt(text: string, of: Chat = chat): Promise<void> {
    const ends = entries(of).filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length;
    await api.chats.dispatch(of, { type: 'prompt', text, attachments: [] });
    await waitFor(() => entries(of).filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn for "${text}"`, 30_000);
  }
  /** The agent's own record of a session (its store): the paths it was given. */
  function agentRecord(sessionId: string): { cwd: string; additionalDirectories?: string[] } {
    for (const file of fs.readdirSync(store)) {
      if (!file.endsWith('.json')) continue;
      const record = JSON.parse(fs.readFileSync(path.join(store, file), 'utf8')) as { sessionId?: string; cwd: string; additionalDirectories?: string[] };
      if (record.sessionId === sessionId) return record;
    }
    throw new Error(`no record of ${sessionId} in ${fs.readdirSync(store).join(', ')}`);
  }

  before(async () => {
    api = await activate();
    [app, lib, docs] = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath)) as [string, string, string];
    store = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-remote-'));
    const extensionPath = vscode.extensions.all.find((e) => e.packageJSON.name === 'acp-workspace')!.extensionPath;
    served = await serve(extensionPath, store);
    await api.remoteSecrets.set(served.wsUrl, { token: TOKEN });
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    const others = (config.get<unknown[]>('agents') ?? []).filter((a) => (a as { name?: string }).name !== NAME);
    await config.update(
      'agents',
      [
        ...others,
        {
          name: NAME,
          remote: {
            url: served.wsUrl,
            pathMappings: [
              { local: app, remote: '/srv/app' },
              { local: docs, remote: '/srv/docs' },
            ],
          },
        },
      ],
      vscode.ConfigurationTarget.Global,
    );
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the remote agent in the list');
    await api.grants.set(NAME, [app, lib, docs]);
    const [started] = await api.starter.newSession({ agentName: NAME, primaryIndex: 0 });
    chat = api.chats.open(started!.session);
    for (const note of started!.notes) chat.controller.thread.addInfo(note);
  });

  after(async () => {
    chat?.panel.dispose();
    await api.agents.stop(NAME);
    if (api.agents.find(NAME_WITH_TERMINAL)) await api.agents.stop(NAME_WITH_TERMINAL);
    await kill(served);
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    const others = (config.get<unknown[]>('agents') ?? []).filter((a) => ![NAME, NAME_WITH_TERMINAL].includes((a as { name?: string }).name ?? ''));
    await config.update('agents', others.length > 0 ? others : undefined, vscode.ConfigurationTarget.Global);
    if (served) await api.remoteSecrets.clear(served.wsUrl);
    fs.rmSync(store, { recursive: true, force: true });
  });

  it('gives the session the agent’s paths for the mapped folders only, and says the other folder is not shared', () => {
    const session = chat.controller.session;
    assert.deepEqual([session.rootSet.cwd.path, ...session.rootSet.additionalDirectories.map((r) => r.path)], [app, docs], 'locally: the mapped folders');
    const record = agentRecord(session.sessionId);
    assert.equal(record.cwd, '/srv/app');
    assert.deepEqual(record.additionalDirectories, ['/srv/docs'], 'the agent saw its own paths');
    const info = entries()
      .filter((e): e is Extract<ViewEntry, { kind: 'info' }> => e.kind === 'info')
      .map((e) => e.text);
    assert.ok(
      info.some((t) => /“lib”.*path mapping/.test(t)),
      info.join('\n'),
    );
    assert.equal(api.agents.find(NAME)?.process?.remote?.kind, 'websocket');
  });

  it('streams an answer, reads a mapped path from the local folder, and refuses a path outside the mapping in the chat', async () => {
    await prompt('stream');
    assert.match(lastAgentText(), /item 1: `value_1`/);

    const guide = fs.readFileSync(path.join(docs, 'guide.md'), 'utf8');
    await prompt('read /srv/docs/guide.md');
    assert.equal(
      lastAgentText(),
      `Read /srv/docs/guide.md: ${guide.length} characters, ${guide.split('\n').length - (guide.endsWith('\n') ? 1 : 0)} lines. First line: "# Guide"`,
      'the local file reached the agent',
    );
    const location = entries()
      .filter((e) => e.kind === 'tool')
      .at(-1);
    assert.ok(
      location?.kind === 'tool' && JSON.stringify(location).includes(JSON.stringify(path.join(docs, 'guide.md'))),
      'the tool call shows the local file',
    );

    await prompt(`read ${path.join(lib, 'src', 'index.ts')}`);
    const refusal = entries()
      .filter((e) => e.kind === 'refusal')
      .at(-1);
    assert.ok(refusal && refusal.kind === 'refusal', 'a refusal in the chat');
    assert.match(refusal.message, /outside the folders shared with this remote agent/);
  });

  it('is not offered the terminal: a command it asks for anyway is refused in the chat, and nothing runs on this machine', async () => {
    const marker = path.join(app, 'remote-command-ran');
    await prompt('terminal touch remote-command-ran');
    const refusal = entries()
      .filter((e) => e.kind === 'refusal')
      .at(-1);
    assert.ok(refusal?.kind === 'refusal' && refusal.operation === 'terminal', 'the chat shows the refused command');
    assert.equal(refusal.command, 'touch remote-command-ran');
    assert.match(refusal.message, /Remote Reference runs on another machine and asked to run this command on yours\. It was not run: .*"localTerminal": true/);
    assert.match(
      lastAgentText(),
      /^Could not start "touch remote-command-ran": Remote Reference runs on another machine: ACP Workspace does not run its commands on this one/,
    );
    assert.equal(entries().filter((e) => e.kind === 'terminal' || e.kind === 'permission').length, 0, 'nothing ran, nothing was asked');
    assert.equal(fs.existsSync(marker), false, 'nothing ran on this machine');
  });

  it('with "localTerminal": true in its entry, asks before each command: one refused does not run, one allowed runs confined to the session\'s folders', async () => {
    const outside = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-remote-outside-')));
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    const entry = {
      name: NAME_WITH_TERMINAL,
      remote: {
        url: served!.wsUrl,
        pathMappings: [
          { local: app, remote: '/srv/app' },
          { local: docs, remote: '/srv/docs' },
        ],
        localTerminal: true,
      },
    };
    await config.update('agents', [...(config.get<unknown[]>('agents') ?? []), entry], vscode.ConfigurationTarget.Global);
    await waitFor(() => api.agents.find(NAME_WITH_TERMINAL) !== undefined, 'the second entry in the list');
    await api.grants.set(NAME_WITH_TERMINAL, [app, docs]);
    const [started] = await api.starter.newSession({ agentName: NAME_WITH_TERMINAL, primaryIndex: 0 });
    const opted = api.chats.open(started!.session);
    try {
      const question = async (): Promise<Extract<ViewEntry, { kind: 'permission' }>> => {
        await waitFor(() => entries(opted).some((e) => e.kind === 'permission' && e.state === 'pending'), 'the question in the chat', 30_000);
        return entries(opted).find((e): e is Extract<ViewEntry, { kind: 'permission' }> => e.kind === 'permission' && e.state === 'pending')!;
      };

      const refusedTurn = prompt('terminal touch refused-by-the-user', opted);
      const first = await question();
      assert.match(
        first.title,
        new RegExp(
          `^Remote Reference \\(local terminal\\), a remote agent, wants to run "touch refused-by-the-user" in ${app.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on this machine\\. If you allow it, it runs confined by (bubblewrap|Seatbelt)`,
        ),
      );
      assert.ok(opted.controller.choosePermissionKind(first.id, 'reject_once'));
      await refusedTurn;
      assert.match(lastAgentText(opted), /^Could not start "touch refused-by-the-user": The user did not allow the command to run on this machine/);
      assert.equal(fs.existsSync(path.join(app, 'refused-by-the-user')), false, 'the refused command did not run');

      const allowedTurn = prompt(`terminal touch allowed-inside ${path.join(outside, 'written-outside')}`, opted);
      const second = await question();
      assert.ok(opted.controller.choosePermissionKind(second.id, 'allow_once'));
      await allowedTurn;
      assert.ok(fs.existsSync(path.join(app, 'allowed-inside')), "it ran, in the session's folder");
      assert.equal(fs.existsSync(path.join(outside, 'written-outside')), false, "confined: nothing written outside the session's folders");
      assert.match(lastAgentText(opted), /finished with exit code 1/, 'touch failed for the file outside');
      const shown = entries(opted).find((e) => e.kind === 'terminal');
      assert.ok(shown?.kind === 'terminal' && shown.cwd === app, 'the command shows in the chat with its folder');
    } finally {
      opted.panel.dispose();
      // The tests after this one have one agent on the server: its own reconnects would race theirs.
      await api.agents.stop(NAME_WITH_TERMINAL);
      fs.rmSync(outside, { recursive: true, force: true });
      fs.rmSync(path.join(app, 'allowed-inside'), { force: true });
    }
  });

  it('lists the session in the history with its local folders', async () => {
    await waitFor(() => api.history.catalog(NAME) !== undefined, 'the history of the remote agent', 30_000);
    const catalog = api.history.catalog(NAME)!;
    // Only what the agent lists (the client's own record of the session is dropped): the mapping at work.
    catalog.reset();
    await catalog.loadMore([undefined]);
    const listed = catalog.get(chat.controller.session.sessionId);
    assert.ok(listed, 'listed');
    assert.equal(listed.cwd, app, 'the agent’s /srv/app came back as the local folder');
  });

  it('shows its session under "This workspace" (lib can never be shared with it), and reopens a tab restored after a reload without asking which folders', async () => {
    const model = api.sessionsView.model;
    await api.sessionsView.receive({ type: 'settings', seq: 1000, settings: { ...model.currentSettings, agent: NAME, scope: 'workspace', query: '' } });
    await api.sessionsView.loadMore(NAME);
    const sessionId = chat.controller.session.sessionId;
    const listed = () => model.rows(0, model.compute().count).some((r) => r.kind === 'session' && (r as SessionRow).sessionId === sessionId);
    await waitFor(listed, 'the session in the "This workspace" scope (its folders: app and docs, all the agent can have)', 20_000);

    // A second chat, closed as a window reload closes it, then restored from the tab's saved state.
    const [started] = await api.starter.newSession({ agentName: NAME, primaryIndex: 0 });
    const second = api.chats.open(started!.session);
    const restoredId = second.controller.session.sessionId;
    second.panel.dispose();
    await waitFor(() => api.chats.find(NAME, restoredId) === undefined, 'the second chat closed');
    const rootsUi = new ScriptedRootsUi();
    api.setRootsUi(rootsUi);
    try {
      const tab = restoreTab(api, { agentName: NAME, sessionId: restoredId, title: 'Restored remote chat', roots: [app, docs] });
      await api.chatRestorer.settled();
      assert.deepEqual(rootsUi.asked, [], 'no "which folders?" question for a folder the agent can never have');
      const reopened = api.chats.find(NAME, restoredId);
      assert.ok(reopened, 'the session is open again');
      assert.equal(reopened.panel, tab.restored, 'in the restored tab');
      const roots = reopened.controller.session.rootSet;
      assert.deepEqual([roots.cwd.path, ...roots.additionalDirectories.map((r) => r.path)], [app, docs]);
      reopened.panel.dispose();
    } finally {
      api.setRootsUi(undefined);
    }
  });

  it('says when the server goes away, reconnects once it is back, and the chat goes on, leaving no failure notice behind', async () => {
    const port = served!.port;
    // The chat out of view: a failure under it would be notified (and counted in the badge).
    const document = await vscode.workspace.openTextDocument({ content: 'in front of the chat' });
    await vscode.window.showTextDocument(document, { viewColumn: chat.panel.panel.viewColumn, preview: false });
    await waitFor(() => !chat.panel.visible, 'the chat hidden behind an editor');
    assert.equal(api.notifications.badge, undefined);
    await kill(served);
    await waitFor(() => /Lost the connection/.test(api.agents.find(NAME)?.message ?? ''), 'the lost connection said in the Agents view', 30_000);
    await waitFor(() => chat.controller.session.connection.isClosed, 'the chat’s connection closed');
    served = await serve(vscode.extensions.all.find((e) => e.packageJSON.name === 'acp-workspace')!.extensionPath, store, port);
    await waitFor(
      () => api.agents.find(NAME)?.state === 'running' && !chat.controller.session.connection.isClosed,
      'the agent to reconnect and the chat to be reopened',
      60_000,
    );
    assert.equal(api.notifications.badge, undefined, 'no "connection broke" notice for a drop the agent reconnected from');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    chat.panel.reveal();
    await prompt('stream');
    assert.match(lastAgentText(), /item 1: `value_1`/);
    const info = entries()
      .filter((e): e is Extract<ViewEntry, { kind: 'info' }> => e.kind === 'info')
      .map((e) => e.text);
    assert.ok(
      info.some((t) => /Session (resumed|reopened)/.test(t)),
      info.join('\n'),
    );
  });

  it('a token its server refuses: the chat says so with Set Token…, New Session offers Set Token… (not Sign In), and once it is set the agent connects and the chat goes on', async () => {
    const port = served!.port;
    await api.remoteSecrets.set(served!.wsUrl, { token: 'not-the-token' });
    await kill(served);
    await waitFor(() => chat.controller.session.connection.isClosed, 'the chat’s connection closed');
    served = await serve(vscode.extensions.all.find((e) => e.packageJSON.name === 'acp-workspace')!.extensionPath, store, port);
    await waitFor(() => api.agents.find(NAME)?.state === 'failed', 'the reconnect refused (HTTP 401)', 60_000);
    assert.match(api.agents.find(NAME)?.message ?? '', /refused the credentials for the WebSocket connection/);
    await waitFor(() => entries().some((e) => e.kind === 'error' && /refused the credentials/.test(e.message)), 'the refused token said in the chat');
    const said = entries()
      .filter((e): e is Extract<ViewEntry, { kind: 'error' }> => e.kind === 'error')
      .at(-1)!;
    assert.deepEqual(said.actions, ['setToken', 'reopen']);

    const failures: { actions: readonly string[]; advice: string | undefined }[] = [];
    api.setStartFailureUi({ show: async (failure) => (failures.push({ actions: failure.actions, advice: failure.advice }), 'setToken') });
    const tokenAsked: string[] = [];
    api.setRemoteTokenUi({
      pickAction: async () => 'token',
      askToken: async (where) => (tokenAsked.push(where), TOKEN),
      askHeaders: async () => undefined,
      done: async (message) => (tokenAsked.push(message), false),
    });
    try {
      const started = (await vscode.commands.executeCommand('acpWorkspace.newSession', NAME)) as unknown[];
      assert.equal(failures.length, 1, 'the refused start was explained once');
      assert.deepEqual(failures[0]!.actions, ['setToken', 'showLog'], 'Set Token…, not Sign In');
      assert.match(failures[0]!.advice ?? '', /refused the token: set it with Set Token…/);
      assert.equal(tokenAsked.length, 2, tokenAsked.join('\n'));
      assert.match(tokenAsked[1]!, /were saved\. Remote Reference connects again with them\.$/);
      assert.equal(started.length, 1, 'the session started once the token was set');
      for (const opened of api.chats.all()) if (opened !== chat && opened.controller.session.agentName === NAME) opened.panel.dispose();
    } finally {
      api.setStartFailureUi(undefined);
      api.setRemoteTokenUi(undefined);
    }
    await waitFor(() => api.agents.find(NAME)?.state === 'running' && !chat.controller.session.connection.isClosed, 'the chat reopened with the token', 30_000);
    await prompt('stream');
    assert.match(lastAgentText(), /item 1: `value_1`/);
  });

  it("traces what the agent actually received and sent: its own paths, not this machine's", async () => {
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    await config.update('trace', 'verbose', vscode.ConfigurationTarget.Global);
    try {
      await prompt('read /srv/docs/guide.md');
      const logs = path.dirname(api.logUri.fsPath);
      const files = fs.readdirSync(logs, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.log'));
      const lines = files.flatMap((file) => fs.readFileSync(path.join(file.parentPath, file.name), 'utf8').split('\n'));
      const read = lines.filter((line) => line.includes(`← ${NAME}: request fs/read_text_file`));
      assert.ok(read.length > 0, "the agent's read is in the trace");
      assert.ok(
        read.every((line) => line.includes('"/srv/docs/guide.md"') && !line.includes(docs)),
        read.join('\n'),
      );
      const answers = lines.filter((line) => line.includes(`→ ${NAME}: response`) && line.includes('# Guide'));
      assert.ok(answers.length > 0, 'the answer it got is in the trace');
    } finally {
      await config.update('trace', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
