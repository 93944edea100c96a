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
/**
 * The project has no public repository yet, so package.json names none (nor a homepage or issue tracker): vsce
 * is told that is intended, and leaves the README's relative links as they are instead of pointing them at a
 * guessed GitHub address (VS Code's extension page does not load relative images; a made-up address could one day
 * serve someone else's content). Once there is a repository, set `repository` and drop these flags.
 */
const VSCE_REPOSITORY = ['--allow-missing-repository', '--no-rewrite-relative-links'];

/** Files that must never ship, as patterns over the package's relative paths (the reference agent is for tests and the demo). */
export const FORBIDDEN = [/^src\//, /^test\//, /^scripts\//, /^bench\//, /\.map$/, /^node_modules\//, /\.ts$/, /^\.cache\//, /^out\//, /^media\/screenshots\//, /^dist\/reference-agent/];
/** Files that must ship. */
export const REQUIRED = ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist/extension.js', 'dist/core.js', 'dist/transcript-worker.js', 'dist/webview/chat.js', 'dist/webview/chat.css', 'dist/webview/history.js', 'dist/webview/history.css', 'dist/webview/review.js', 'dist/webview/review.css', 'dist/webview/agents.js', 'dist/webview/agents.css', 'dist/webview/codicon.ttf', 'media/icon.png', 'media/activitybar.svg', ...['pickAgent', 'shareFolders', 'startSession', 'findSession', 'reviewChanges'].map((step) => `media/walkthrough/${step}.md`), 'l10n/bundle.l10n.json', 'package.nls.json', 'resources/registry-snapshot.json'];

/**
 * The production bundles' size limits, minified, in bytes (the package test checks them; a size is deterministic).
 * Activation parses dist/extension.js only; each webview loads its own script and stylesheet. The Sessions view
 * had 311 KB before its protocol moved to zod/mini (issue 16 asked for under 120 KB).
 */
export const BUDGETS = {
  'dist/extension.js': 16 * 1024,
  'dist/webview/history.js': 100 * 1024,
  'dist/webview/history.css': 24 * 1024,
  'dist/webview/review.js': 90 * 1024,
  'dist/webview/review.css': 24 * 1024,
  'dist/webview/chat.js': 240 * 1024,
  'dist/webview/chat.css': 32 * 1024,
  // The Add Agent gallery: cards as plain text, no markdown renderer, no virtual list.
  'dist/webview/agents.js': 60 * 1024,
  'dist/webview/agents.css': 24 * 1024,
};

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
  run([VSCE, 'package', '--no-dependencies', ...VSCE_REPOSITORY, '--out', vsix]);
  const files = run([VSCE, 'ls', '--no-dependencies'], true)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  /** @type {Record<string, number>} */
  const sizes = { vsix: statSync(vsix).size };
  for (const file of [...Object.keys(BUDGETS), 'dist/core.js']) sizes[file] = statSync(path.join(ROOT, file)).size;
  sizes['dist/core.js (gzip)'] = gzipSync(readFileSync(path.join(ROOT, 'dist', 'core.js'))).length;
  return { vsix, files, sizes };
}

/** Bundles over their {@link BUDGETS}, in words. @param {Record<string, number>} sizes */
export function overBudget(sizes) {
  return Object.entries(BUDGETS)
    .filter(([file, budget]) => (sizes[file] ?? Infinity) > budget)
    .map(([file, budget]) => `${file} is ${kib(sizes[file] ?? NaN)}, over its budget of ${kib(budget)} (scripts/package.mjs)`);
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
    console.log('sizes (minified):');
    for (const [name, bytes] of Object.entries(sizes)) console.log(`  ${name}: ${kib(bytes)}${name in BUDGETS ? ` (budget ${kib(BUDGETS[/** @type {keyof typeof BUDGETS} */ (name)])})` : ''}`);
    const problems = [...checkFiles(files), ...overBudget(sizes)];
    if (problems.length > 0) throw new Error(problems.join('\n'));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
