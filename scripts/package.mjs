// @ts-check
// Builds the production bundles and packages the extension with @vscode/vsce into
// acp-workspace-<version>.vsix (bundled output only), then reports what is in it and how big it is.
//
//   node scripts/package.mjs              type-check, lint, production build, package
//   node scripts/package.mjs --no-check   skip type-check and lint (the test runner already ran them)
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ROOT } from './vscode-web/install.mjs';

const VSCE = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');

/** Files that must never ship, as patterns over the package's relative paths (the reference agent is for tests and the demo). */
export const FORBIDDEN = [/^src\//, /^test\//, /^scripts\//, /^bench\//, /\.map$/, /^node_modules\//, /\.ts$/, /^\.cache\//, /^out\//, /^media\/screenshots\//, /^dist\/reference-agent/];
/** Files that must ship. */
export const REQUIRED = ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist/extension.js', 'dist/core.js', 'dist/webview/chat.js', 'dist/webview/chat.css', 'dist/webview/history.js', 'dist/webview/history.css', 'dist/webview/review.js', 'dist/webview/review.css', 'dist/webview/codicon.ttf', 'media/icon.png', 'media/activitybar.svg', ...['pickAgent', 'shareFolders', 'startSession', 'findSession', 'reviewChanges'].map((step) => `media/walkthrough/${step}.md`), 'l10n/bundle.l10n.json', 'package.nls.json'];

function run(/** @type {string[]} */ args, /** @type {boolean} */ quiet = false) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: quiet ? 'pipe' : 'inherit' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed:\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  return result.stdout ?? '';
}

const kib = (/** @type {number} */ bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/**
 * @param {{ check?: boolean }} [options]
 * @returns {{ vsix: string, files: string[], sizes: Record<string, number> }}
 */
export function packageExtension(options = {}) {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  run([path.join(ROOT, 'esbuild.mjs'), '--production', ...(options.check === false ? ['--no-check'] : [])]);
  const vsix = path.join(ROOT, `acp-workspace-${version}.vsix`);
  run([VSCE, 'package', '--no-dependencies', '--out', vsix]);
  const files = run([VSCE, 'ls', '--no-dependencies'], true)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const sizes = {
    vsix: statSync(vsix).size,
    'dist/extension.js': statSync(path.join(ROOT, 'dist', 'extension.js')).size,
    'dist/core.js': statSync(path.join(ROOT, 'dist', 'core.js')).size,
    'dist/core.js (gzip)': gzipSync(readFileSync(path.join(ROOT, 'dist', 'core.js'))).length,
  };
  return { vsix, files, sizes };
}

/** Problems with a file list: forbidden files present, required files missing. */
export function checkFiles(/** @type {string[]} */ files) {
  const problems = files.filter((file) => FORBIDDEN.some((pattern) => pattern.test(file))).map((file) => `must not ship: ${file}`);
  for (const required of REQUIRED) if (!files.includes(required)) problems.push(`missing: ${required}`);
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { vsix, files, sizes } = packageExtension({ check: !process.argv.includes('--no-check') });
    console.log(`\n${path.relative(ROOT, vsix)}: ${files.length} files`);
    for (const file of files) console.log(`  ${file}`);
    console.log('sizes:');
    for (const [name, bytes] of Object.entries(sizes)) console.log(`  ${name}: ${kib(bytes)}`);
    const problems = checkFiles(files);
    if (problems.length > 0) throw new Error(problems.join('\n'));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
