// Builds ACP Workspace.
//
//   node esbuild.mjs                 type-check, lint, then bundle (development: source maps)
//   node esbuild.mjs --production    the same, minified, no source maps (what `npm run package` ships)
//   node esbuild.mjs --no-check      bundle only (used by watch loops; CI always checks)
//   node esbuild.mjs --watch         bundle on change (no checks)
//
// Type-checking also emits `out/`, which is what the mocha tiers run.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.dirname(fileURLToPath(import.meta.url));
const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const check = !args.has('--no-check') && !watch;

function run(title, command, commandArgs) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(root, command), ...commandArgs], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(`build: ${title} failed`);
    process.exit(result.status ?? 1);
  }
  console.log(`build: ${title} ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

if (check) {
  // tsc emits out/ for the test tiers; start clean so deleted sources leave no stale tests behind.
  rmSync(path.join(root, 'out'), { recursive: true, force: true });
  run('type-check', 'node_modules/typescript/bin/tsc', ['-p', 'tsconfig.json']);
  if (existsSync(path.join(root, 'tsconfig.webview.json'))) {
    run('type-check (webviews)', 'node_modules/typescript/bin/tsc', ['-p', 'tsconfig.webview.json']);
  }
  run('lint', 'node_modules/eslint/bin/eslint.js', ['--max-warnings', '0', '.']);
  // The layer table and no import cycles (.dependency-cruiser.cjs).
  run('imports', 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs', ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err']);
}

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': production ? '"production"' : '"development"' },
};

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    // jsonc-parser's `main` is a UMD wrapper whose inner requires esbuild cannot follow
    // (microsoft/node-jsonc-parser#57); its `module` entry is the ESM build meant for bundlers.
    // No other bundled package changes with this (checked with the metafile).
    mainFields: ['module', 'main'],
  },
  {
    // The transcript index runs in a worker thread (src/history/fulltext/worker.ts), started by the extension.
    ...common,
    entryPoints: { 'transcript-worker': 'src/history/fulltext/worker.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    // The offline reference agent: a real ACP agent built on the official SDK, for the tests and the demo
    // (configured as a user-settings agent, scripts/vscode-web/codeServer.mjs). It does not ship in the package.
    ...common,
    entryPoints: { 'reference-agent': 'test/fixtures/referenceAgent/main.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
];

const webviewDir = path.join(root, 'src', 'webview');
if (existsSync(webviewDir)) {
  for (const entry of readdirSync(webviewDir, { withFileTypes: true })) {
    const main = ['main.tsx', 'main.ts'].map((file) => path.join('src', 'webview', entry.name, file)).find((file) => existsSync(path.join(root, file)));
    if (entry.isDirectory() && main) {
      builds.push({
        ...common,
        entryPoints: { [entry.name]: main },
        outdir: 'dist/webview',
        platform: 'browser',
        format: 'iife',
        target: 'chrome120',
        jsx: 'automatic',
        jsxImportSource: 'preact',
        loader: { '.css': 'css', '.ttf': 'file' },
        assetNames: '[name]',
      });
    }
  }
}

const started = Date.now();
// A bundle that was renamed or removed must not linger (and ship) from an earlier build.
if (!watch) rmSync(path.join(root, 'dist'), { recursive: true, force: true });
if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context({ ...b, absWorkingDir: root })));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('build: watching for changes');
} else {
  await Promise.all(builds.map((b) => esbuild.build({ ...b, absWorkingDir: root })));
  console.log(`build: bundles ok (${((Date.now() - started) / 1000).toFixed(1)} s, ${production ? 'production' : 'development'})`);
}
