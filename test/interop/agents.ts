/**
 * The real agents of the interop tier, how each is started offline, and the scratch space they run in.
 *
 * Every agent gets an explicit environment built here (never this process's): a temporary HOME, the
 * variables it needs, and a marker that every process it starts inherits, so leftovers can be found.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentCommand } from '../../src/agents/agentConfig';

const REPO = path.resolve(__dirname, '..', '..', '..');
const MODULES = path.join(REPO, 'node_modules');

/** Set in every agent's environment: `<name>=<this run's id>`; inherited by everything they start. */
export const MARKER_NAME = 'ACP_WORKSPACE_INTEROP_RUN';
export const RUN_ID = `${process.pid}-${Date.now().toString(36)}`;

export interface InteropAgent {
  /** Also the name of its recording in test/fixtures/updates/ (`<id>.jsonl`). */
  readonly id: string;
  readonly version: string;
  readonly command: AgentCommand;
  /** The whole environment the agent process gets. */
  readonly env: NodeJS.ProcessEnv;
}

function packageVersion(name: string): string {
  return (JSON.parse(fs.readFileSync(path.join(MODULES, name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** What every agent gets from this machine: PATH (agents run node and shell commands) and the marker. */
function baseEnvironment(home: string): NodeJS.ProcessEnv {
  const tmp = path.join(home, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8', [MARKER_NAME]: RUN_ID };
}

/**
 * `@agentclientprotocol/claude-agent-acp` (bundles Claude Code as a native binary), pointed at the
 * scripted model server. What each variable is for is written down in docs/interop.md.
 */
export function claudeAgentAcp(home: string, modelUrl: string): InteropAgent {
  const version = packageVersion('@agentclientprotocol/claude-agent-acp');
  return {
    id: `claude-agent-acp-${version}`,
    version,
    command: {
      name: 'claude-agent-acp',
      command: process.execPath,
      args: [path.join(MODULES, '@agentclientprotocol', 'claude-agent-acp', 'dist', 'index.js')],
      env: {},
    },
    env: {
      ...baseEnvironment(home),
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: 'sk-ant-interop-not-a-real-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
  };
}

/** The example agent of `@agentclientprotocol/sdk@1` (installed as `@agentclientprotocol/sdk-v1`). */
export function sdkV1Example(home: string): InteropAgent {
  const version = packageVersion('@agentclientprotocol/sdk-v1');
  return {
    id: 'sdk-v1-example',
    version,
    command: {
      name: 'sdk-v1-example',
      command: process.execPath,
      args: [path.join(MODULES, '@agentclientprotocol', 'sdk-v1', 'dist', 'examples', 'agent.js')],
      env: {},
    },
    env: baseEnvironment(home),
  };
}

/** A scratch folder with the multi-root fixture's app, lib, docs (and outside) folders, real paths. */
export interface Scratch {
  readonly dir: string;
  readonly home: string;
  readonly app: string;
  readonly lib: string;
  readonly docs: string;
  /** Outside every root. */
  readonly outside: string;
  cleanup(): void;
}

export function makeScratch(prefix: string): Scratch {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const fixture = path.join(REPO, 'test', 'fixtures', 'workspaces', 'multi-root');
  const workspace = path.join(dir, 'workspace');
  for (const folder of ['app', 'lib', 'docs', 'outside']) {
    fs.cpSync(path.join(fixture, folder), path.join(workspace, folder), { recursive: true, verbatimSymlinks: true });
  }
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  return {
    dir,
    home,
    app: path.join(workspace, 'app'),
    lib: path.join(workspace, 'lib'),
    docs: path.join(workspace, 'docs'),
    outside: path.join(workspace, 'outside'),
    cleanup: () => {
      // ACP_INTEROP_KEEP=1 keeps the scratch folder (workspace, the agent's HOME with its transcripts) to look at.
      if (process.env['ACP_INTEROP_KEEP'] === '1') console.log(`      kept ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Processes of this run still alive: every process whose environment carries this run's marker
 * (Linux /proc; elsewhere only what the caller checks by process group).
 */
export function leftoverProcesses(): Array<{ pid: number; command: string }> {
  if (process.platform !== 'linux') return [];
  const marker = `${MARKER_NAME}=${RUN_ID}`;
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (!environ.split('\0').includes(marker)) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/^\d+ \(.*\) Z /.test(stat)) continue; // a zombie is already dead; its parent has not reaped it yet
      found.push({ pid, command: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** The model provider id the interop tier gives Codex (its `config.toml`), and the variable its key is read from. */
export const CODEX_PROVIDER = 'scripted';
export const CODEX_KEY_VARIABLE = 'ACP_INTEROP_OPENAI_KEY';

/**
 * `@agentclientprotocol/codex-acp` (the TypeScript adapter; it runs `codex app-server` from `@openai/codex`, a
 * native binary), pointed at the scripted Responses API server by a `config.toml` in its own CODEX_HOME, with
 * nothing set about its sandbox or approvals (its default mode). What each setting is for: docs/interop.md.
 */
export function codexAgentAcp(home: string, modelUrl: string, model: string): InteropAgent {
  const version = packageVersion('@agentclientprotocol/codex-acp');
  const codexHome = path.join(home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      `model = ${JSON.stringify(model)}`,
      `model_provider = ${JSON.stringify(CODEX_PROVIDER)}`,
      // Without this Codex resolves chatgpt.com and api.github.com (its plugin marketplace) at every start.
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      '',
      `[model_providers.${CODEX_PROVIDER}]`,
      'name = "Scripted model server"',
      `base_url = ${JSON.stringify(modelUrl)}`,
      `env_key = ${JSON.stringify(CODEX_KEY_VARIABLE)}`,
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  return {
    id: `codex-acp-${version}`,
    version,
    command: {
      name: 'codex-acp',
      command: process.execPath,
      args: [path.join(MODULES, '@agentclientprotocol', 'codex-acp', 'dist', 'index.js')],
      env: {},
    },
    env: {
      ...baseEnvironment(home),
      CODEX_HOME: codexHome,
      [CODEX_KEY_VARIABLE]: 'sk-interop-not-a-real-key',
    },
  };
}
