/**
 * A real `npx` agent from the ACP Registry in the real VS Code: claude-agent-acp from the npm registry, pinned,
 * listed by a registry served on 127.0.0.1 by the test and installed through the gallery's source (the verbs the
 * Add Agent tab calls). Its registry entry carries everything the agent needs to run offline against the scripted
 * model server of the interop tier (see docs/interop.md); nothing goes into `acpWorkspace.agents`. It appears in
 * the Agents view, starts with `npx`, opens a session with the workspace's folders, answers a prompt, and leaves
 * the list when it is uninstalled.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { ViewEntry } from '../../../src/shared/chatModel';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { claudeAgentAcp } from '../../interop/agents';
import { ModelServer } from '../../interop/modelServer';
import { activate, waitFor } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

/** Our devDependency's version: npm's cache has it after `npm ci`, so the install reads the cache first. */
const PACKAGE = '@agentclientprotocol/claude-agent-acp@0.49.0';
const ID = 'claude-agent-acp-offline';
const NAME = 'Claude Agent (registry, offline test)';

/** Serves `registry.json` (whatever {@link Served.document} is now) on 127.0.0.1. */
interface Served {
  readonly url: string;
  document: unknown;
  close(): Promise<void>;
}

function serve(): Promise<Served> {
  const served = { document: {} as unknown } as Served & { url: string };
  const server = http.createServer((request, response) => {
    if (request.url !== '/registry.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(served.document));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      served.close = () => new Promise<void>((done) => server.close(() => done()));
      resolve(served);
    });
  });
}

/** Whether any process of the group led by `pid` is still alive (signal 0 only checks). */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

describe('a real npx agent from the ACP Registry: claude-agent-acp installed, run and uninstalled in the real extension host', function () {
  this.timeout(180_000);
  let api: TestApi;
  let registry: Served;
  let model: ModelServer;
  let home: string;
  let folders: string[];
  let chat: Chat | undefined;
  /** The extension host's npm variables before the test set them. */
  let npmEnvironment: Record<string, string | undefined> = {};

  const gallery = () => api.registryAgents.state().agents.find((a) => a.agent.id === ID);
  const text = (entry: ViewEntry | undefined) =>
    entry && (entry.kind === 'agent' || entry.kind === 'user') ? entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
  const entriesOf = (c: Chat) => c.controller.thread.snapshot().entries;

  /** The log lines of this window that contain `needle` (the protocol trace writes one per message). */
  const logLines = (needle: string): string[] => {
    const logs = path.dirname(api.logUri.fsPath);
    const files = fs.readdirSync(logs, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.log'));
    return files.flatMap((file) =>
      fs
        .readFileSync(path.join(file.parentPath, file.name), 'utf8')
        .split('\n')
        .filter((line) => line.includes(needle)),
    );
  };

  before(async () => {
    api = await activate();
    api.setRootsUi(new ScriptedRootsUi());
    folders = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath));
    model = await ModelServer.start();
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-registry-npx-home-')));
    // The interop tier's environment for claude-agent-acp, less what a registry entry may not set (PATH: the
    // extension host's is inherited) and what the extension host gives every agent anyway (the run's marker).
    const { PATH: _path, ACP_WORKSPACE_INTEROP_RUN: _marker, ...needed } = claudeAgentAcp(home, model.url).env;
    const env: Record<string, string> = {
      ...(Object.fromEntries(Object.entries(needed).filter((e): e is [string, string] => e[1] !== undefined)) as Record<string, string>),
      // As root, Claude Code runs only when IS_SANDBOX is exactly 1 (docs/interop.md); this machine sets it to "yes".
      IS_SANDBOX: '1',
    };
    // npm reads the cache `npm ci` filled (HOME above is a scratch folder) and prefers it to the network. A registry
    // entry may not configure npm (npm_config_* is refused), so the extension host's environment, which every
    // agent and the warm-up inherit, carries it, as a user's own npm configuration would.
    npmEnvironment = {
      npm_config_cache: process.env['npm_config_cache'],
      npm_config_prefer_offline: process.env['npm_config_prefer_offline'],
      npm_config_update_notifier: process.env['npm_config_update_notifier'],
    };
    process.env['npm_config_cache'] = process.env['npm_config_cache'] ?? path.join(os.homedir(), '.npm');
    process.env['npm_config_prefer_offline'] = 'true';
    process.env['npm_config_update_notifier'] = 'false';
    registry = await serve();
    registry.document = {
      version: '1.0.0',
      agents: [
        {
          id: ID,
          name: NAME,
          version: '0.49.0',
          description: 'ACP wrapper for Claude Code, against a scripted model server',
          repository: 'https://github.com/agentclientprotocol/claude-agent-acp',
          authors: ['Anthropic'],
          license: 'proprietary',
          distribution: { npx: { package: PACKAGE, args: [], env } },
        },
      ],
      extensions: [],
    };
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    await config.update('registry.url', `${registry.url}/registry.json`, vscode.ConfigurationTarget.Global);
    // The protocol trace in the log shows what the agent was sent.
    await config.update('trace', 'messages', vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    chat?.panel.dispose();
    if (api.agents.find(NAME)) await api.agents.stop(NAME);
    if (api.registryAgents.listInput().installed.some((a) => a.id === ID)) await api.registryAgents.uninstall(ID);
    api.setRootsUi(undefined);
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    await config.update('trace', undefined, vscode.ConfigurationTarget.Global);
    await config.update('registry.url', undefined, vscode.ConfigurationTarget.Global);
    for (const [name, value] of Object.entries(npmEnvironment)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await registry?.close();
    await model?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('lists the npx agent from the registry on 127.0.0.1, available here', async () => {
    await api.registryAgents.refresh();
    // Whether npx is found here is decided after the catalog arrives.
    await waitFor(() => gallery()?.availability.length === 1, 'the test registry and the availability of its agent');
    assert.equal(api.registryAgents.state().catalog.error, undefined);
    assert.deepEqual(gallery()!.availability, [{ kind: 'npx', available: true }]);
    assert.equal(gallery()!.installed, undefined);
  });

  it('installs it with progress (npm fetches the pinned package); it appears in the Agents view, run by npx', async () => {
    let progress = 0;
    const listener = api.registryAgents.onDidChange(() => api.registryAgents.busy(ID) && progress++);
    const outcome = await api.registryAgents.perform(ID, 'install');
    listener.dispose();
    assert.deepEqual(outcome, { kind: 'done' });
    assert.ok(progress > 0, 'progress was announced while it installed');
    assert.equal(gallery()!.installed?.version, '0.49.0');
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent in the list');
    const definition = api.agents.find(NAME)!.definition;
    assert.equal(definition.source, 'registry');
    assert.deepEqual(definition.registry, { id: ID, version: '0.49.0', distribution: 'npx', installed: true });
    assert.deepEqual([definition.command, ...definition.args], ['npx', '--yes', PACKAGE]);
    const item = api.agentsView.getTreeItem(api.agents.find(NAME)!);
    assert.equal(item.contextValue, 'agent.stopped.registry');
    assert.match(String(item.description), /v0\.49\.0/);
  });

  it('starts it for a session with the workspace folders: cwd and additionalDirectories as sent to the agent', async () => {
    await api.grants.set(NAME, folders.slice(1));
    const [started] = await api.starter.newSession({ agentName: NAME });
    assert.ok(started, 'a session started');
    const status = api.agents.find(NAME)!;
    assert.equal(status.state, 'running');
    assert.equal(status.process?.connection?.caps.agentInfo?.version, '0.49.0', 'the pinned version runs');
    assert.equal(status.process?.connection?.caps.sessions.additionalDirectories, true);
    const roots = started.session.rootSet;
    assert.deepEqual([roots.cwd.path, ...roots.additionalDirectories.map((r) => r.path)], folders);
    const sent = `→ ${NAME}: request session/new`;
    await waitFor(() => logLines(sent).length > 0, 'session/new in the protocol trace', 20_000);
    const params = JSON.parse(
      logLines(sent)
        .at(-1)!
        .replace(/^.*?request session\/new #\d+ /, ''),
    ) as unknown;
    assert.deepEqual(params, { cwd: folders[0], additionalDirectories: folders.slice(1), mcpServers: [] });
    chat = api.chats.open(started.session);
  });

  it('answers a prompt through the scripted model server', async () => {
    const c = chat!;
    const ends = () => entriesOf(c).filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length;
    await api.chats.dispatch(c, { type: 'prompt', text: 'hello from the registry', attachments: [] });
    await waitFor(() => ends() > 0, 'the turn', 60_000);
    assert.equal(entriesOf(c).at(-1)?.kind, 'turnEnd', JSON.stringify(entriesOf(c).at(-1)));
    assert.match(
      text(
        entriesOf(c)
          .filter((e) => e.kind === 'agent')
          .at(-1),
      ),
      /You said: "hello from the registry"/,
    );
    assert.ok(
      model.requests.some((r) => r.kind === 'messages'),
      'the model server was asked',
    );
    assert.deepEqual(model.problems, []);
  });

  it('uninstalls it: stopped, gone from the list, nothing recorded', async () => {
    chat?.panel.dispose();
    chat = undefined;
    const pid = api.agents.find(NAME)?.process?.pid;
    assert.ok(pid && groupAlive(pid), 'the agent runs before it is uninstalled');
    assert.deepEqual(await api.registryAgents.perform(ID, 'uninstall'), { kind: 'done' });
    await waitFor(() => api.agents.find(NAME) === undefined, 'the agent to leave the list');
    // npx and the agent it started run in the process group the extension made for them: all of it ends.
    await waitFor(() => !groupAlive(pid), "the agent's processes (npx and its child) to end", 20_000);
    assert.equal(gallery()!.installed, undefined);
    assert.deepEqual(
      api.registryAgents.listInput().installed.filter((a) => a.id === ID),
      [],
    );
  });
});
