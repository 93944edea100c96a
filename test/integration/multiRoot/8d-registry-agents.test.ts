/**
 * Agents from the ACP Registry in the real VS Code: a registry served on 127.0.0.1 by the test, with a `binary`
 * agent whose archive the test builds (the bundled reference agent behind a launcher script, in a tar.gz), one
 * whose archive is corrupt and one whose checksum is wrong. Installed through the gallery's source (the verbs the
 * Add Agent tab calls), listed in the Agents view, started for a session with the workspace's folders, updated
 * while it runs (it keeps running, stale, until restarted) and uninstalled. An `npx` entry whose command is npx's
 * own `-c` (it would run a shell command) is refused with its reason, and nothing runs.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tar from 'tar';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import { galleryView } from '../../../src/sessions/agents/galleryView';
import { activate, waitFor } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const real = (p: string) => fs.realpathSync.native(p);

/** The registry's platform key of this machine (the tests run on Linux and macOS). */
function platformKey(): string {
  const os_ = process.platform === 'darwin' ? 'darwin' : process.platform === 'win32' ? 'windows' : 'linux';
  return `${os_}-${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}`;
}

interface Served {
  readonly url: string;
  /** The registry document served now. */
  document: unknown;
  readonly files: Map<string, Buffer>;
  close(): Promise<void>;
}

function serve(): Promise<Served> {
  const files = new Map<string, Buffer>();
  const served = { document: {} as unknown, files } as Served & { url: string };
  const server = http.createServer((request, response) => {
    const name = (request.url ?? '/').slice(1);
    if (name === 'registry.json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(served.document));
      return;
    }
    const file = files.get(name);
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.length) });
    response.end(file);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      served.close = () => new Promise<void>((done) => server.close(() => done()));
      resolve(served);
    });
  });
}

describe('agents from the ACP Registry: install, run, update and uninstall in the real extension host', function () {
  this.timeout(120_000);
  let api: TestApi;
  let registry: Served;
  let scratch: string;
  let recordFile: string;
  let archive: Buffer;
  let folders: string[];
  let installedDir: string | undefined;
  const ui = new ScriptedRootsUi();

  const entry = (id: string, name: string, version: string, file: string, sha256: string) => ({
    id,
    name,
    version,
    description: `${name}: the reference agent, installed from a test registry`,
    repository: 'https://example.com/reference-agent',
    authors: ['ACP Workspace tests'],
    license: 'Apache-2.0',
    distribution: { binary: { [platformKey()]: { archive: `${registry.url}/${file}`, cmd: './bin/launch.sh', sha256, env: { ACP_REF_RECORD: recordFile } } } },
  });
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const publish = (version: string) => {
    registry.document = {
      version: '1.0.0',
      agents: [
        entry('ref-binary', 'Registry Reference Agent', version, `ref-${version}.tar.gz`, sha(archive)),
        entry('ref-corrupt', 'Corrupt Agent', '1.0.0', 'corrupt.tar.gz', sha(registry.files.get('corrupt.tar.gz')!)),
        entry('ref-badsum', 'Wrong Checksum Agent', '1.0.0', 'badsum.tar.gz', 'a'.repeat(64)),
        {
          id: 'ref-shell',
          name: 'Shell Agent',
          version: '1.0.0',
          description: "An npx entry whose command is npx's own -c: `npx --yes --package <pkg> -c <command>` runs a shell command",
          authors: ['ACP Workspace tests'],
          distribution: { npx: { package: '@agentclientprotocol/claude-agent-acp@0.49.0', cmd: '-c', args: [`touch ${shellMarker()}`] } },
        },
      ],
      extensions: [],
    };
  };
  const received = () =>
    fs.existsSync(recordFile)
      ? fs
          .readFileSync(recordFile, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as { method?: string; params?: Record<string, unknown> })
      : [];
  const gallery = (id: string) => api.registryAgents.state().agents.find((a) => a.agent.id === id);
  /** What the refused npx entry's shell command would create. */
  const shellMarker = () => path.join(scratch, 'the-shell-command-ran');
  const agentsDir = () => path.dirname(path.dirname(installedDir!));
  /** What the installer holds besides ref-binary's versions: nothing once a failed install is cleaned up. */
  const leftovers = () =>
    fs
      .readdirSync(agentsDir())
      .filter(
        (name) => name !== 'ref-binary' && name !== 'installed.json' && !(name === '.staging' && fs.readdirSync(path.join(agentsDir(), name)).length === 0),
      );

  before(async () => {
    api = await activate();
    api.setRootsUi(ui);
    folders = vscode.workspace.workspaceFolders!.map((f) => real(f.uri.fsPath));
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-registry-'));
    recordFile = path.join(scratch, 'received.jsonl');
    // The agent: a launcher that runs the bundled reference agent with this host's Node.
    const extensionPath = vscode.extensions.getExtension('acp-workspace.acp-workspace')!.extensionPath;
    const tree = path.join(scratch, 'tree');
    fs.mkdirSync(path.join(tree, 'bin'), { recursive: true });
    fs.writeFileSync(
      path.join(tree, 'bin', 'launch.sh'),
      `#!/bin/sh\nexec "${process.execPath}" "${path.join(extensionPath, 'dist', 'reference-agent.js')}" --store "${path.join(scratch, 'store')}" "$@"\n`,
      { mode: 0o755 },
    );
    await tar.create({ gzip: true, cwd: tree, file: path.join(scratch, 'ref.tar.gz'), portable: true }, ['bin']);
    archive = fs.readFileSync(path.join(scratch, 'ref.tar.gz'));
    registry = await serve();
    registry.files.set('ref-1.0.0.tar.gz', archive);
    registry.files.set('ref-1.1.0.tar.gz', archive);
    registry.files.set('corrupt.tar.gz', Buffer.concat([archive.subarray(0, 40), Buffer.from('not the rest of a gzip stream')]));
    registry.files.set('badsum.tar.gz', archive);
    publish('1.0.0');
    await vscode.workspace.getConfiguration('acpWorkspace').update('registry.url', `${registry.url}/registry.json`, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    api.setRootsUi(undefined);
    if (api.registryAgents.listInput().installed.some((a) => a.id === 'ref-binary')) await api.registryAgents.uninstall('ref-binary');
    await vscode.workspace.getConfiguration('acpWorkspace').update('registry.url', undefined, vscode.ConfigurationTarget.Global);
    await registry.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('lists the registry served on 127.0.0.1 once the setting points at it, with what works here', async () => {
    await api.registryAgents.refresh();
    await waitFor(() => gallery('ref-binary')?.availability.length === 1, 'the test registry and the availability of its agent');
    const state = api.registryAgents.state();
    assert.equal(state.catalog.url, `${registry.url}/registry.json`);
    assert.equal(state.catalog.source, 'network');
    assert.equal(state.catalog.error, undefined);
    assert.equal(state.trusted, true);
    assert.deepEqual(gallery('ref-binary')!.availability, [{ kind: 'binary', available: true }]);
    assert.equal(gallery('ref-binary')!.installed, undefined);
  });

  it('refuses an npx entry whose command is "-c" (npx would run a shell command): the gallery says why, it cannot be installed or started, nothing runs', async () => {
    const reason =
      /^agents\[3\] \("ref-shell"\) was skipped: distribution\.npx\.cmd: "-c" starts with "-": npx would read it as one of its own options \("-c" runs a shell command\), not as the package's command$/;
    await api.registryAgents.refresh();
    await waitFor(() => gallery('ref-binary') !== undefined, 'the test registry');
    const state = api.registryAgents.state();
    assert.deepEqual(state.catalog.problems.filter((p) => reason.test(p)).length, 1, state.catalog.problems.join('\n'));
    // What the Add Agent tab shows: one entry skipped, with the reason under it.
    const view = galleryView(state);
    assert.equal(view.catalog.skipped, 1);
    assert.match(view.catalog.problems[0] ?? '', reason);
    assert.equal(gallery('ref-shell'), undefined, 'not offered for install');
    const outcome = await api.registryAgents.perform('ref-shell', 'install');
    assert.equal(outcome.kind, 'failed');
    assert.equal(api.agents.find('Shell Agent'), undefined, 'not in the Agents view');
    await assert.rejects(api.starter.newSession({ agentName: 'Shell Agent' }));
    assert.equal(fs.existsSync(shellMarker()), false, 'the shell command never ran');
  });

  it('installs the binary agent, which then appears in the Agents view under its registry name with its version', async () => {
    let progress = 0;
    const listener = api.registryAgents.onDidChange(() => api.registryAgents.busy('ref-binary') && progress++);
    const outcome = await api.registryAgents.perform('ref-binary', 'install');
    listener.dispose();
    assert.deepEqual(outcome, { kind: 'done' });
    assert.ok(progress > 0, 'progress was announced while it installed');
    const installed = gallery('ref-binary')!.installed!;
    assert.equal(installed.version, '1.0.0');
    installedDir = installed.dir;
    assert.ok(installedDir && fs.existsSync(installedDir), 'the archive was unpacked into the global storage');
    await waitFor(() => api.agents.find('Registry Reference Agent') !== undefined, 'the agent in the list');
    const status = api.agents.find('Registry Reference Agent')!;
    assert.equal(status.definition.source, 'registry');
    assert.deepEqual(status.definition.registry, { id: 'ref-binary', version: '1.0.0', distribution: 'binary', installed: true });
    assert.equal(status.definition.command, path.join(installedDir!, 'bin', 'launch.sh'));
    const item = api.agentsView.getTreeItem(status);
    assert.equal(item.contextValue, 'agent.stopped.registry');
    assert.match(String(item.description), /v1\.0\.0/);
  });

  it('starts it for a session that gets the workspace folders (cwd and additionalDirectories)', async () => {
    await api.grants.set('Registry Reference Agent', []);
    const [started] = await api.starter.newSession({ agentName: 'Registry Reference Agent' });
    assert.ok(started, 'a session started');
    const newSession = received()
      .filter((m) => m.method === 'session/new')
      .at(-1);
    assert.deepEqual(newSession?.params, { cwd: folders[0], additionalDirectories: folders.slice(1), mcpServers: [] });
    assert.equal(api.agents.find('Registry Reference Agent')?.state, 'running');
  });

  it('offers a newer version, updates it while it runs (the session keeps going, stale) and starts it on restart', async () => {
    publish('1.1.0');
    await api.registryAgents.refresh();
    await waitFor(() => api.registryAgents.updateFor('ref-binary') === '1.1.0', 'the newer version');
    const before = api.agentsView.getTreeItem(api.agents.find('Registry Reference Agent')!);
    assert.equal(before.contextValue, 'agent.running.registry.update');
    assert.match(String(before.description), /update available: 1\.1\.0/);
    assert.deepEqual(api.registryAgents.updates(), [{ id: 'ref-binary', name: 'Registry Reference Agent', installed: '1.0.0', available: '1.1.0' }]);
    assert.deepEqual(await api.registryAgents.perform('ref-binary', 'install'), { kind: 'done' });
    await waitFor(() => api.agents.find('Registry Reference Agent')?.definition.registry?.version === '1.1.0', 'the new version in the list');
    const status = api.agents.find('Registry Reference Agent')!;
    assert.equal(status.state, 'running', 'the running agent was not stopped');
    assert.equal(status.stale, true, 'it shows that a restart applies the new version');
    const connection = api.agents.running('Registry Reference Agent')!;
    const { sessionId } = await connection.newSession({ cwd: folders[0]!, mcpServers: [] });
    assert.deepEqual(await connection.startTurn({ sessionId, prompt: [{ type: 'text', text: 'still here' }] }).ended, {
      reason: 'stopped',
      stopReason: 'end_turn',
    });
    installedDir = gallery('ref-binary')!.installed!.dir;
    assert.match(installedDir!, /1\.1\.0/);
    await api.agents.restart('Registry Reference Agent');
    assert.equal(api.agents.find('Registry Reference Agent')?.stale, false);
    const definition = api.agents.find('Registry Reference Agent')?.definition;
    assert.equal(definition && 'command' in definition ? definition.command : undefined, path.join(installedDir!, 'bin', 'launch.sh'));
  });

  it('refuses a corrupt archive and a wrong checksum, leaving nothing behind', async () => {
    const corrupt = await api.registryAgents.perform('ref-corrupt', 'install');
    assert.equal(corrupt.kind, 'failed');
    assert.equal(gallery('ref-corrupt')!.error, corrupt.kind === 'failed' ? corrupt.message : undefined);
    const badsum = await api.registryAgents.perform('ref-badsum', 'install');
    assert.equal(badsum.kind, 'failed');
    assert.match(badsum.kind === 'failed' ? badsum.message : '', /a{64}/, 'the message names the expected checksum');
    assert.deepEqual(leftovers(), [], 'no folder of either agent, no staging left');
    assert.deepEqual(
      api.registryAgents.listInput().installed.map((a) => a.id),
      ['ref-binary'],
    );
    assert.equal(api.agents.find('Corrupt Agent'), undefined);
    assert.equal(api.agents.find('Wrong Checksum Agent'), undefined);
  });

  it('uninstalls it: gone from the list, stopped, and its folder removed', async () => {
    assert.deepEqual(await api.registryAgents.perform('ref-binary', 'uninstall'), { kind: 'done' });
    await waitFor(() => api.agents.find('Registry Reference Agent') === undefined, 'the agent to leave the list');
    await waitFor(() => !fs.existsSync(installedDir!), 'its folder to be removed');
    assert.equal(gallery('ref-binary')!.installed, undefined);
  });
});
