// @ts-check
// Installs what a real VS Code needs on a machine without a desktop or internet (see CONTRIBUTING.md,
// "Real VS Code"): Debian's chromium, ripgrep, libkrb5-dev and bubblewrap (only when missing, only as root), and
// code-server from npm into an ignored cache folder keyed on its version.
//
//   node scripts/vscode-web/install.mjs      install everything that is missing, print what is there
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository: the nearest folder above this file with our package.json (also from a compiled copy in out/). */
export const ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) || !existsSync(path.join(dir, 'esbuild.mjs'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the repository root');
    dir = parent;
  }
  return dir;
})();
/** Ignored by git; safe to delete (everything in it is re-created on demand). */
export const CACHE_DIR = path.join(ROOT, '.cache');
/** The last code-server whose engines.node is 20 (VS Code 1.100.3). */
export const CODE_SERVER_VERSION = '4.100.3';
export const CODE_SERVER_DIR = path.join(CACHE_DIR, `code-server-${CODE_SERVER_VERSION}`);
export const CODE_SERVER_BIN = path.join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const RIPGREP_CACHE_NAME = 'vscode-ripgrep-cache-1.15.11';
const RIPGREP_TARBALL = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

/** Where Chromium is, if anywhere. `ACP_CHROMIUM` overrides. */
export function findChromium() {
  const candidates = [process.env.ACP_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  return candidates.find((candidate) => candidate && existsSync(candidate));
}

function log(/** @type {string} */ message) {
  console.log(`[vscode-web] ${message}`);
}

/** @param {string} command @param {string[]} args @param {import('node:child_process').SpawnSyncOptions} [options] */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

/**
 * Debian packages: ripgrep (code-server's search), libkrb5-dev (its native build), bubblewrap (agents confined
 * by acpWorkspace.sandbox on Linux; the confinement tests run the real bwrap), and chromium when `browser` is
 * set (the test tiers; the demo does not need it).
 */
export function ensureSystemPackages({ browser = true } = {}) {
  const missing = [];
  if (browser && !findChromium()) missing.push('chromium');
  if (!existsSync('/usr/bin/rg')) missing.push('ripgrep');
  if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/krb5/krb5.h')) missing.push('libkrb5-dev');
  if (!existsSync('/usr/bin/bwrap')) missing.push('bubblewrap');
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing Debian packages: ${missing.join(' ')} (install them with: sudo apt-get install -y --no-install-recommends ${missing.join(' ')})`);
  }
  log(`installing ${missing.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

/**
 * code-server from npm into `.cache/code-server-<version>`. Its postinstall builds native modules and
 * downloads ripgrep from GitHub unless a cached tarball exists: we give it Debian's rg. Installs into a
 * temporary folder first and renames, so an interrupted install never looks complete.
 */
export function ensureCodeServer() {
  if (existsSync(CODE_SERVER_BIN)) return CODE_SERVER_BIN;
  ensureSystemPackages({ browser: false });
  mkdirSync(CACHE_DIR, { recursive: true });
  const started = Date.now();
  log(`installing code-server ${CODE_SERVER_VERSION} into ${path.relative(ROOT, CODE_SERVER_DIR)} (about a minute)`);
  const staging = mkdtempSync(path.join(CACHE_DIR, `code-server-${CODE_SERVER_VERSION}.partial-`));
  const scratch = mkdtempSync(path.join(tmpdir(), 'acp-ws-cs-install-'));
  try {
    const rgDir = path.join(scratch, 'rg');
    mkdirSync(rgDir);
    copyFileSync('/usr/bin/rg', path.join(rgDir, 'rg'));
    mkdirSync(path.join(scratch, RIPGREP_CACHE_NAME));
    run('tar', ['-czf', path.join(scratch, RIPGREP_CACHE_NAME, RIPGREP_TARBALL), '-C', rgDir, 'rg']);
    // npm 11 runs dependency install scripts only when allowed (allowScripts).
    writeFileSync(
      path.join(staging, 'package.json'),
      JSON.stringify({ name: 'acp-workspace-code-server', private: true, allowScripts: { 'code-server': true, argon2: true } }, null, 2),
    );
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    run(npm, ['install', '--no-audit', '--no-fund', '--no-save', `code-server@${CODE_SERVER_VERSION}`], {
      cwd: staging,
      env: {
        ...process.env,
        TMPDIR: scratch,
        npm_config_yes: 'true',
        npm_config_unsafe_perm: 'true',
        npm_config_loglevel: 'warn',
        npm_config_update_notifier: 'false',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (!existsSync(path.join(staging, 'node_modules', 'code-server', 'out', 'node', 'entry.js'))) {
      throw new Error('code-server did not install (entry.js missing)');
    }
    rmSync(CODE_SERVER_DIR, { recursive: true, force: true });
    renameSync(staging, CODE_SERVER_DIR);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
  }
  log(`code-server ${CODE_SERVER_VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return CODE_SERVER_BIN;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureSystemPackages();
    ensureCodeServer();
    log(`code-server: ${CODE_SERVER_BIN}`);
    log(`chromium: ${findChromium() ?? 'not found'}`);
  } catch (error) {
    console.error(`[vscode-web] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
