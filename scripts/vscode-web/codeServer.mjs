// @ts-check
// Starts code-server (a real VS Code: workbench + the desktop's Node extension host) on 127.0.0.1, with
// every write it makes contained in a scratch folder, and stops it with its whole process group.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, ensureCodeServer } from './install.mjs';
import { freePort, spawnGroup, stopGroup } from './processes.mjs';

/** User settings for a quiet, deterministic workbench. */
export const BASE_USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'window.restoreWindows': 'none',
  'chat.commandCenter.enabled': false,
  'workbench.colorTheme': 'Default Dark Modern',
};

/** The name the tests and the demo pick the offline reference agent by. */
export const REFERENCE_AGENT_NAME = 'Reference Agent (offline)';

/**
 * The offline reference agent (test/fixtures/referenceAgent, built to dist/reference-agent.js by `node esbuild.mjs`)
 * as an `acpWorkspace.agents` entry. It is no preset and does not ship in the .vsix: users never see it; every
 * code-server the tests and the demo start has it in its user settings (machine scope, like a user's own agent).
 * Its sessions are kept in the extension's global storage, where the demo and the UI tests seed past sessions.
 */
export const REFERENCE_AGENT_SETTING = {
  name: REFERENCE_AGENT_NAME,
  command: '${node}',
  args: [path.join(ROOT, 'dist', 'reference-agent.js'), '--store', '${globalStorage}/reference-agent'],
  writablePaths: ['${globalStorage}/reference-agent'],
};

/** The environment code-server runs with: XDG folders inside the scratch folder, no marketplace. */
function serverEnv(/** @type {string} */ scratch, /** @type {Record<string, string> | undefined} */ extra) {
  const xdg = path.join(scratch, 'xdg');
  mkdirSync(path.join(xdg, 'config'), { recursive: true });
  mkdirSync(path.join(xdg, 'data'), { recursive: true });
  return { ...process.env, ...extra, XDG_CONFIG_HOME: path.join(xdg, 'config'), XDG_DATA_HOME: path.join(xdg, 'data'), EXTENSIONS_GALLERY: '{}' };
}

/**
 * Installs a packaged extension the way a user would (`code-server --install-extension x.vsix`).
 * @param {{ scratch: string, vsix: string, extensionsDir?: string }} options
 */
export function installExtension(options) {
  const bin = ensureCodeServer();
  const extensionsDir = options.extensionsDir ?? path.join(options.scratch, 'extensions');
  const userDataDir = path.join(options.scratch, 'user-data');
  mkdirSync(extensionsDir, { recursive: true });
  const result = spawnSync(
    process.execPath,
    [bin, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', options.vsix, '--force'],
    { env: serverEnv(options.scratch, undefined), encoding: 'utf8', timeout: 120_000 },
  );
  if (result.status !== 0) throw new Error(`installing ${options.vsix} failed (${result.status}): ${result.stdout}${result.stderr}`);
  return { extensionsDir, output: `${result.stdout}${result.stderr}` };
}

/**
 * @typedef {object} CodeServerOptions
 * @property {string} scratch       folder for user data, extensions, XDG config/data
 * @property {Record<string, unknown>} [userSettings]  merged over {@link BASE_USER_SETTINGS}; its `acpWorkspace.agents`
 *   come after {@link REFERENCE_AGENT_SETTING}
 * @property {boolean} [workspaceTrust]  keep Workspace Trust on (default off)
 * @property {Record<string, string>} [env]  extra environment (the extension host inherits it)
 * @property {string} [extensionsDir]  default: <scratch>/extensions
 * @property {(line: string) => void} [onOutput]  code-server's own stdout/stderr lines
 * @property {number} [port]  a fixed port on 127.0.0.1 (default: a free one)
 * @property {string} [locale]  the display language (`--locale`), e.g. a pseudo-locale for the l10n tests
 */

/**
 * @param {CodeServerOptions} options
 * @returns {Promise<{ url: string, port: number, userDataDir: string, extensionsDir: string, stop: () => Promise<void> }>}
 */
export async function startCodeServer(options) {
  const bin = ensureCodeServer();
  const userDataDir = path.join(options.scratch, 'user-data');
  const extensionsDir = options.extensionsDir ?? path.join(options.scratch, 'extensions');
  for (const dir of [path.join(userDataDir, 'User'), path.join(userDataDir, 'Machine'), extensionsDir]) mkdirSync(dir, { recursive: true });
  const agents = /** @type {unknown[]} */ (options.userSettings?.['acpWorkspace.agents'] ?? []);
  const settings = {
    ...BASE_USER_SETTINGS,
    ...(options.workspaceTrust ? { 'security.workspace.trust.enabled': true } : {}),
    ...options.userSettings,
    'acpWorkspace.agents': [REFERENCE_AGENT_SETTING, ...agents],
  };
  writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  // A code-server window is a remote window: VS Code takes machine-scoped settings (acpWorkspace.agents and the
  // other settings that choose programs) from the remote's Machine settings and drops them from the User
  // settings once it knows the window is remote, so an agent only in the User settings comes and goes.
  writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(settings, null, 2));

  let lastError;
  for (let attempt = 0; attempt < (options.port ? 1 : 5); attempt++) {
    const port = options.port ?? (await freePort());
    const args = [
      bin,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-getting-started-override',
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
      ...(options.locale ? ['--locale', options.locale] : []),
    ];
    const child = spawnGroup(process.execPath, args, { env: serverEnv(options.scratch, options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {string[]} */
    const output = [];
    const onLine = (/** @type {Buffer} */ chunk) => {
      for (const line of chunk.toString('utf8').split(/\r?\n/)) {
        if (!line) continue;
        output.push(line);
        options.onOutput?.(line);
      }
    };
    child.stdout?.on('data', onLine);
    child.stderr?.on('data', onLine);
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForHealth(url, child, 30000);
      return { url, port, userDataDir, extensionsDir, stop: () => stopGroup(child) };
    } catch (error) {
      await stopGroup(child);
      lastError = new Error(`${error instanceof Error ? error.message : String(error)}\n${output.slice(-10).join('\n')}`);
      if (!output.some((line) => line.includes('EADDRINUSE'))) break;
    }
  }
  throw lastError ?? new Error('code-server did not start');
}

async function waitForHealth(/** @type {string} */ url, /** @type {import('node:child_process').ChildProcess} */ child, /** @type {number} */ timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`code-server exited (${child.exitCode ?? child.signalCode})`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`code-server did not answer ${url}/healthz within ${timeoutMs / 1000} s`);
}

/**
 * The workbench URL for a folder or `.code-workspace`, optionally loading an extension under
 * development and its tests (the payload the web workbench reads instead of CLI flags).
 * @param {string} base @param {{ folder?: string, workspace?: string, extensionDevelopmentPath?: string, extensionTestsPath?: string }} target
 */
export function workbenchUrl(base, target) {
  const url = new URL(base);
  if (target.workspace) url.searchParams.set('workspace', target.workspace);
  else if (target.folder) url.searchParams.set('folder', target.folder);
  const payload = [];
  const authority = url.host;
  if (target.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', `vscode-remote://${authority}${target.extensionDevelopmentPath}`]);
  if (target.extensionTestsPath) payload.push(['extensionTestsPath', `vscode-remote://${authority}${target.extensionTestsPath}`]);
  if (payload.length > 0) url.searchParams.set('payload', JSON.stringify(payload));
  return url.toString();
}
