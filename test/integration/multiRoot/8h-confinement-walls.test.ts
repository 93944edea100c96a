import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { ViewEntry, ViewEntryOf } from '../../../src/shared/chatModel';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { activate, addRecordingAgent, waitFor, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';
import { git, withMarker } from '../../helpers/gitProcesses';

const NAME = 'Walled Agent';
const STRICT = 'Packaged Agent';
/** git outside the sandbox, as the user (and VS Code's git extension) runs it. */
/**
 * The walls of `acpWorkspace.sandbox` in a real window, attacked with the agent's own tools (the reference agent's
 * `*-direct` keywords: its own fs and its own shell, no `fs/*`, no `terminal/create`): the folders' own
 * configuration that other programs obey (a repository's `.git/config` and hooks, `git init` where there is no
 * repository, `.vscode/tasks.json`), a daemon that would outlive a Stop, root's capabilities and the host's
 * processes, and under `strict` an agent run as `node <package>/dist/index.js`. Linux (bubblewrap), as root on
 * this machine.
 */
describe('confinement walls (acpWorkspace.sandbox, real extension host)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let agent: RecordingAgent;
  let chat: Chat;
  let app: string;
  let lib: string;
  let docs: string;
  let outside: string;
  let victim: ChildProcess | undefined;
  let packageDir: string | undefined;
  const ui = new ScriptedRootsUi();

  const entries = (): ViewEntry[] => chat.controller.thread.snapshot().entries;
  const settings = () => vscode.workspace.getConfiguration('acpWorkspace');
  const planted = () => fs.readdirSync(outside).filter((name) => /-ran$|^via-/.test(name));

  /** Sends a prompt and waits for its turn to end; the tool calls of that turn. */
  async function prompt(text: string): Promise<ViewEntryOf<'tool'>[]> {
    const before = entries().length;
    const ends = entries().filter((e) => e.kind === 'turnEnd').length;
    await api.chats.dispatch(chat, { type: 'prompt', text, attachments: [] });
    await waitFor(() => entries().filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn for "${text}"`, 30_000);
    return entries()
      .slice(before)
      .filter((e): e is ViewEntryOf<'tool'> => e.kind === 'tool');
  }

  before(async function () {
    if (process.platform !== 'linux') this.skip(); // bubblewrap; Seatbelt's profile is checked by the unit tier
    api = await activate();
    [app, lib, docs] = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath)) as [string, string, string];
    outside = path.join(path.dirname(lib), 'outside-walls');
    fs.mkdirSync(outside, { recursive: true });
    // app is a repository (as VS Code's git extension sees it); lib and docs are not.
    assert.equal(git(app, 'init', '-q', '-b', 'main'), 0);
    assert.equal(git(app, 'add', '-A'), 0);
    assert.equal(git(app, 'commit', '-q', '-m', 'first'), 0);
    await settings().update('sandbox', 'writes', vscode.ConfigurationTarget.Global);
    ui.consent = (folders) => folders;
    api.setRootsUi(ui);
    agent = await addRecordingAgent(NAME);
    await api.grants.set(NAME, [lib, docs]);
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent setting');
    const [started] = await api.starter.newSession({ agentName: NAME, primaryIndex: 0 });
    chat = api.chats.open(started!.session);
    assert.ok(api.confinement.view(NAME)?.confined, 'confined');
  });

  after(async () => {
    victim?.kill('SIGKILL');
    api.setRootsUi(undefined);
    for (const tab of api.chats.all()) if ([NAME, STRICT].includes(tab.controller.session.agentName)) tab.panel.dispose();
    await api.agents.stop(NAME);
    await api.agents.stop(STRICT);
    await agent.dispose();
    await settings().update('sandbox', undefined, vscode.ConfigurationTarget.Global);
    await api.grants.set(NAME, []);
    fs.rmSync(path.join(app, '.git'), { recursive: true, force: true });
    for (const dir of [outside, ...(packageDir ? [packageDir] : [])]) fs.rmSync(dir, { recursive: true, force: true });
    for (const file of [path.join(docs, 'daemon.log')]) fs.rmSync(file, { force: true });
  });

  it('its own tools cannot set core.fsmonitor in .git/config, add a hook or make .vscode/tasks.json; git outside then runs nothing', async () => {
    const config = fs.readFileSync(path.join(app, '.git', 'config'), 'utf8');
    const tools = await prompt(
      [
        `append-direct ${path.join(app, '.git', 'config')} [core] fsmonitor = touch ${outside}/fsmonitor-ran`,
        `write-direct ${path.join(app, '.git', 'hooks', 'pre-commit')} #!/bin/sh touch ${outside}/hook-ran`,
        `write-direct ${path.join(lib, '.vscode', 'tasks.json')} {"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch ${outside}/task-ran","runOptions":{"runOn":"folderOpen"}}]}`,
      ].join('\n'),
    );
    assert.deepEqual(
      tools.map((t) => t.status),
      ['failed', 'failed', 'failed'],
      JSON.stringify(tools.map((t) => [t.title, t.status])),
    );
    git(app, 'status');
    git(app, 'commit', '-q', '--allow-empty', '-m', 'outside');
    assert.equal(fs.readFileSync(path.join(app, '.git', 'config'), 'utf8'), config);
    assert.ok(!fs.existsSync(path.join(app, '.git', 'hooks', 'pre-commit')) && !fs.existsSync(path.join(lib, '.vscode', 'tasks.json')));
    assert.deepEqual(planted(), [], 'nothing the agent planted ran outside');
  });

  it('its shell cannot git init a folder that is not a repository, nor, as root, reach a host process: /proc/<pid>/root, nsenter, remount, SIGSTOP', async () => {
    victim = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
    const pid = victim.pid!;
    await prompt(`shell-direct cd ${docs} && git init -q . && git config core.fsmonitor "touch ${outside}/init-ran"`);
    const [attack] = await prompt(
      `shell-direct grep CapEff /proc/self/status; echo x > /proc/${pid}/root${outside}/via-proc; nsenter -t ${pid} -m touch ${outside}/via-nsenter; mount -o remount,rw / ; touch ${outside}/via-remount; kill -STOP ${pid}; echo done`,
    );
    assert.ok(attack, 'the shell ran');
    git(docs, 'status');
    assert.deepEqual(planted(), [], 'nothing changed outside');
    assert.ok(!fs.existsSync(path.join(docs, '.git', 'config')), 'docs is still no repository');
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    assert.notEqual(stat[stat.lastIndexOf(')') + 2], 'T', 'the host process was not stopped');
  });

  it('a daemon its shell starts with setsid ends when the agent is stopped, and nothing is left in the folders', async () => {
    const log = path.join(docs, 'daemon.log');
    const marker = `acp-it-walls-daemon-${process.pid}`;
    // Spelled so that only the daemon's own command line holds the marker whole.
    await prompt(`shell-direct m=acp-it; setsid sh -c 'while :; do date >> ${log}; sleep 0.1; done' "$m-walls-daemon-${process.pid}" >/dev/null 2>&1 &`);
    await waitFor(() => withMarker(marker).length > 0 && fs.existsSync(log), 'the daemon to run', 20_000);
    await api.agents.stop(NAME);
    await waitFor(() => withMarker(marker).length === 0, 'the daemon to end with the agent', 10_000);
    // Let go of once its output has closed.
    await waitFor(() => !fs.existsSync(path.join(app, '.git', 'commondir')), 'the placeholders to go', 10_000);
    for (const folder of [app, lib, docs]) for (const name of ['.vscode', '.idea']) assert.ok(!fs.existsSync(path.join(folder, name)), `${name} in ${folder}`);
    for (const folder of [lib, docs]) assert.ok(!fs.existsSync(path.join(folder, '.git')), `.git in ${folder}`);
  });

  it('strict: an agent started as node <package>/dist/index.js (its code in the package’s node_modules) starts and works', async () => {
    packageDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-it-package-')));
    const dependency = path.join(packageDir, 'node_modules', 'reference-agent');
    fs.mkdirSync(dependency, { recursive: true });
    fs.mkdirSync(path.join(packageDir, 'dist'));
    fs.mkdirSync(path.join(packageDir, 'state'));
    fs.writeFileSync(path.join(packageDir, 'package.json'), JSON.stringify({ name: 'packaged-agent', version: '1.0.0' }));
    fs.writeFileSync(path.join(dependency, 'package.json'), JSON.stringify({ name: 'reference-agent', version: '1.0.0', main: 'index.js' }));
    const extensionPath = vscode.extensions.getExtension('acp-workspace.acp-workspace')!.extensionPath;
    fs.copyFileSync(path.join(extensionPath, 'dist', 'reference-agent.js'), path.join(dependency, 'index.js'));
    fs.writeFileSync(path.join(packageDir, 'dist', 'index.js'), "require('reference-agent');\n");
    await settings().update('sandbox', 'strict', vscode.ConfigurationTarget.Global);
    const current = settings().get<unknown[]>('agents') ?? [];
    await settings().update(
      'agents',
      [
        ...current,
        {
          name: STRICT,
          command: '${node}',
          args: [path.join(packageDir, 'dist', 'index.js'), '--store', path.join(packageDir, 'state')],
          writablePaths: [path.join(packageDir, 'state')],
        },
      ],
      vscode.ConfigurationTarget.Global,
    );
    try {
      await waitFor(() => api.agents.find(STRICT) !== undefined, 'the agent setting');
      const [started] = await api.starter.newSession({ agentName: STRICT, primaryIndex: 0 });
      chat = api.chats.open(started!.session);
      assert.equal(api.confinement.view(STRICT)?.label, 'Confined (strict)');
      await prompt(`write-direct ${path.join(app, 'packaged.txt')} from the package`);
      assert.equal(fs.readFileSync(path.join(app, 'packaged.txt'), 'utf8'), 'from the package');
    } finally {
      fs.rmSync(path.join(app, 'packaged.txt'), { force: true });
      await settings().update('agents', current, vscode.ConfigurationTarget.Global);
      await settings().update('sandbox', 'writes', vscode.ConfigurationTarget.Global);
    }
  });
});
