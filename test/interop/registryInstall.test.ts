/**
 * Agents installed from an ACP Registry served on 127.0.0.1 by the test, then started and used like any other
 * agent: a `binary` agent whose archive the test builds (the reference agent and a launcher script in a
 * tar.gz), the real `npx` agent claude-agent-acp (pinned; npm's cache already has it after `npm ci`), and two
 * downloads that must be refused with nothing left in storage (a corrupt archive, a wrong checksum).
 */
import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RegistryInstaller } from '../../src/agents/registry/install/installer';
import type { InstalledAgent, RegistryAgent } from '../../src/agents/registry/types';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import { startSession } from '../../src/sessions/routing/sessionLifecycle';
import { tarGz } from '../unit/agents/registry/install/archives';
import { FileServer } from '../unit/agents/registry/install/fileServer';
import { MARKER_NAME, RUN_ID, claudeAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { InteropClient, within } from './harness';
import { ModelServer } from './modelServer';
import { DEFAULT_AGENT_NAME as REFERENCE_NAME } from '../fixtures/referenceAgent/options';

const REPO = path.resolve(__dirname, '..', '..', '..');
const CLAUDE_AGENT_ACP = '@agentclientprotocol/claude-agent-acp@0.49.0';

describe('interop: agents installed from a registry on 127.0.0.1', function () {
  this.timeout(180_000);
  let scratch: Scratch;
  let server: FileServer;
  let storage: string;
  let installer: RegistryInstaller;
  let registry: { agents: RegistryAgent[] };
  const clients: InteropClient[] = [];

  /** What the agents and npm run with: the scratch HOME, npm's existing cache (offline first), this run's marker. */
  function environment(): NodeJS.ProcessEnv {
    const tmp = path.join(scratch.home, 'tmp');
    fs.mkdirSync(tmp, { recursive: true });
    return {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: scratch.home,
      TMPDIR: tmp,
      LANG: 'C.UTF-8',
      npm_config_cache: process.env['npm_config_cache'] ?? path.join(os.homedir(), '.npm'),
      npm_config_prefer_offline: 'true',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
      [MARKER_NAME]: RUN_ID,
    };
  }

  function agent(id: string): RegistryAgent {
    const found = registry.agents.find((a) => a.id === id);
    assert.ok(found, `the registry lists ${id}`);
    return found;
  }

  /** Nothing of `id` in storage: no version folder, nothing in staging, no record. */
  function assertNothingLeft(id: string): void {
    const agents = path.join(storage, 'agents');
    assert.equal(fs.existsSync(path.join(agents, id)), false, `no folder for ${id}`);
    const staging = path.join(agents, '.staging');
    assert.deepEqual(fs.existsSync(staging) ? fs.readdirSync(staging) : [], [], 'staging is empty');
    assert.equal(installer.find(id), undefined);
    assert.equal(new RegistryInstaller({ storageDir: storage, registryUrl: () => '' }).find(id), undefined, 'nothing recorded on disk');
  }

  function client(record: InstalledAgent, env: NodeJS.ProcessEnv): InteropClient {
    const interop: InteropAgent = {
      id: record.id,
      version: record.version,
      command: { name: record.name, command: record.command, args: record.args, env: record.env },
      env,
    };
    const made = new InteropClient({ agent: interop, cwd: scratch.app, initializeTimeoutMs: 120_000 });
    clients.push(made);
    return made;
  }

  before(async () => {
    scratch = makeScratch('acp-interop-registry-');
    storage = path.join(scratch.dir, 'globalStorage');
    server = await FileServer.start();
    const referenceAgent = path.join(REPO, 'dist', 'reference-agent.js');
    assert.ok(fs.existsSync(referenceAgent), 'dist/reference-agent.js is built (node esbuild.mjs)');
    const good = tarGz([
      { name: 'reference/', type: '5' },
      { name: 'reference/bin/', type: '5' },
      { name: 'reference/bin/reference-agent', data: '#!/bin/sh\nexec node "$(dirname "$0")/../lib/reference-agent.js" "$@"\n', mode: 0o755 },
      { name: 'reference/lib/reference-agent.js', data: fs.readFileSync(referenceAgent) },
    ]);
    const corrupt = randomBytes(64 * 1024);
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    server.file('/downloads/reference-1.0.0.tar.gz', good);
    server.file('/downloads/corrupt-1.0.0.tar.gz', corrupt);
    const target = (file: string, sha256: string) => ({
      archive: `${server.url}/downloads/${file}`,
      cmd: './reference/bin/reference-agent',
      args: ['--store', path.join(scratch.dir, 'ref-store')],
      env: {},
      sha256,
    });
    const binary = (id: string, file: string, sha256: string) => ({
      id,
      name: id,
      version: '1.0.0',
      description: `${id} (test)`,
      authors: ['ACP Workspace tests'],
      distribution: {
        // The launcher is a shell script: every POSIX platform.
        binary: {
          'linux-x86_64': target(file, sha256),
          'linux-aarch64': target(file, sha256),
          'darwin-aarch64': target(file, sha256),
          'darwin-x86_64': target(file, sha256),
        },
      },
    });
    server.file(
      '/registry.json',
      JSON.stringify({
        version: '1.0.0',
        agents: [
          binary('reference-agent', 'reference-1.0.0.tar.gz', sha(good)),
          binary('corrupt-agent', 'corrupt-1.0.0.tar.gz', sha(corrupt)),
          binary('mismatch-agent', 'reference-1.0.0.tar.gz', sha(Buffer.from('not the archive'))),
          {
            id: 'claude-acp',
            name: 'Claude Agent',
            version: '0.49.0',
            description: 'ACP wrapper for Claude Code',
            authors: ['Anthropic'],
            distribution: { npx: { package: CLAUDE_AGENT_ACP, args: [], env: {} } },
          },
        ],
        extensions: [],
      }),
    );
    registry = (await (await fetch(`${server.url}/registry.json`)).json()) as { agents: RegistryAgent[] };
  });

  beforeEach(() => {
    installer = new RegistryInstaller({ storageDir: storage, registryUrl: () => `${server.url}/registry.json`, env: environment() });
  });

  after(async () => {
    for (const made of clients) await made.dispose();
    installer?.dispose();
    await server?.close();
    scratch?.cleanup();
  });

  it('installs a binary agent from its archive, starts it, opens a session with two folders, and uninstalls it', async () => {
    const record = await installer.install(agent('reference-agent'));
    assert.equal(record.distribution, 'binary');
    assert.ok(record.command.startsWith(path.join(storage, 'agents', 'reference-agent', '1.0.0')));
    const interop = client(record, environment());
    const connection = await within(60_000, 'initialize', interop.start());
    assert.equal(connection.caps.agentInfo?.name, REFERENCE_NAME);
    const from = interop.mark();
    const session = await within(30_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [scratch.lib])));
    assert.ok(session.sessionId);
    const [sent] = interop.sentSince(from, 'session/new');
    assert.deepEqual(sent?.params, { cwd: scratch.app, additionalDirectories: [scratch.lib], mcpServers: [] });
    await interop.dispose();
    await installer.uninstall('reference-agent');
    assertNothingLeft('reference-agent');
  });

  it('refuses a corrupt archive and leaves nothing in storage', async () => {
    await assert.rejects(installer.install(agent('corrupt-agent')), /could not be unpacked/);
    assertNothingLeft('corrupt-agent');
  });

  it('refuses an archive whose checksum does not match and leaves nothing in storage', async () => {
    await assert.rejects(installer.install(agent('mismatch-agent')), /does not match its checksum/);
    assertNothingLeft('mismatch-agent');
  });

  it('installs the real npx agent claude-agent-acp (pinned), starts it, opens a session, and uninstalls it', async () => {
    const model = await ModelServer.start();
    try {
      const record = await within(170_000, 'npx warm-up', installer.install(agent('claude-acp')));
      assert.equal(record.distribution, 'npx');
      assert.equal(record.command, 'npx');
      assert.deepEqual(record.args, ['--yes', CLAUDE_AGENT_ACP]);
      // The environment the interop tier gives claude-agent-acp (scripted model server), with npm's cache.
      const claude = claudeAgentAcp(scratch.home, model.url);
      const interop = client(record, { ...claude.env, ...environment() });
      const connection = await within(120_000, 'initialize', interop.start());
      assert.equal(connection.caps.agentInfo?.version, '0.49.0');
      const from = interop.mark();
      const session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [scratch.lib])));
      assert.ok(session.sessionId);
      const [sent] = interop.sentSince(from, 'session/new');
      assert.deepEqual((sent?.params as { cwd: string }).cwd, scratch.app);
      await interop.dispose();
      await installer.uninstall('claude-acp');
      assert.equal(installer.find('claude-acp'), undefined);
    } finally {
      await model.close();
    }
  });
});
