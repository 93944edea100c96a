// Builds ACP Workspace.
//
//   node esbuild.mjs                 type-check, lint, then bundle (development: source maps)
//   node esbuild.mjs --production    the same, minified, no source maps (what `npm run package` ships)
//   node esbuild.mjs --no-check      bundle only (used by watch loops; CI always checks)
//   node esbuild.mjs --watch         bundle on change (no checks)
//
// Type-checking also emits `out/`, which is what the mocha tiers run.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  // One format (.prettierrc.json: lines up to 160 characters); `npm run format` writes it.
  run('format', 'node_modules/prettier/bin/prettier.cjs', ['--check', '--log-level', 'warn', '{src,test,bench}/**/*.{ts,tsx}']);
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

/** @type {import('esbuild').BuildOptions} */
const extensionHost = {
  ...common,
  outdir: 'dist',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  // jsonc-parser's `main` is a UMD wrapper whose inner requires esbuild cannot follow
  // (microsoft/node-jsonc-parser#57); its `module` entry is the ESM build meant for bundlers.
  // No other bundled package changes with this (checked with the metafile).
  mainFields: ['module', 'main'],
  metafile: true,
};

/**
 * Activation loads dist/extension.js only; it requires dist/core.js the first time something needs the core
 * (src/vscode/activation/lazyCore.ts). The core's require stays a require of the other bundle.
 * @type {import('esbuild').Plugin}
 */
const coreBundleApart = {
  name: 'core-bundle-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/core(\.js)?$/ }, (args) => (args.importer.endsWith(path.join('src', 'extension.ts')) ? { path: './core.js', external: true } : undefined));
  },
};

/**
 * What both extension-host bundles may contain: modules without state or identity (constants, a pure helper,
 * the disposable base class). Anything else in both would exist twice at run time (two registries, two
 * `instanceof` classes), so the build fails on it.
 */
const SHARED_BY_BOTH_BUNDLES = new Set(['src/vscode/contributionIds.ts', 'src/common/logger.ts']);

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  { ...extensionHost, entryPoints: { extension: 'src/extension.ts' }, plugins: [coreBundleApart] },
  { ...extensionHost, entryPoints: { core: 'src/core.ts' } },
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
  {
    // The same agent served over Streamable HTTP and WebSocket (the remote-agent tests start it with --listen).
    ...common,
    entryPoints: { 'reference-agent-serve': 'test/fixtures/referenceAgent/serve.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
];

/**
 * codicon.css with the rules of the icons the webviews show (src/webview/common/icons.ts, the only names `Icon`
 * and the controls take) and none of the others: the font, the base rule and the modifiers stay. All 649 icons
 * would be 29 KB of each view's CSS.
 * @type {import('esbuild').Plugin}
 */
const usedCodicons = {
  name: 'used-codicons',
  setup(build) {
    build.onLoad({ filter: /[\\/]@vscode[\\/]codicons[\\/]dist[\\/]codicon\.css$/ }, (args) => {
      const css = readFileSync(args.path, 'utf8');
      const listed = /ICON_NAMES = \[([^\]]*)\]/.exec(readFileSync(path.join(root, 'src', 'webview', 'common', 'icons.ts'), 'utf8'));
      const names = new Set([...(listed?.[1] ?? '').matchAll(/'([a-z0-9-]+)'/g)].map((m) => m[1]));
      const known = new Set([...css.matchAll(/\.codicon-([a-z0-9-]+):before/g)].map((m) => m[1]));
      const unknown = [...names].filter((name) => !known.has(name));
      if (names.size === 0 || unknown.length > 0) {
        return { errors: [{ text: `src/webview/common/icons.ts: ${names.size === 0 ? 'no ICON_NAMES found' : `codicon.css has no ${unknown.join(', ')}`}` }] };
      }
      const contents = css.replace(/\.codicon-([a-z0-9-]+):before\s*\{[^}]*\}\s*/g, (rule, name) => (names.has(name) ? rule : ''));
      return { contents, loader: 'css', resolveDir: path.dirname(args.path) };
    });
  },
};

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
        // markdown-it's HTML entity decoding by the browser (src/webview/common/htmlEntities.ts) instead of
        // the `entities` package's own 75 KB table of names.
        alias: { entities: './src/webview/common/htmlEntities.ts' },
        plugins: [usedCodicons],
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
  const results = await Promise.all(builds.map((b) => esbuild.build({ ...b, absWorkingDir: root })));
  const bundle = (/** @type {string} */ name) => results[builds.findIndex((b) => Object.keys(b.entryPoints ?? {}).includes(name))]?.metafile;
  checkBundlesApart(bundle('extension'), bundle('core'));
  console.log(`build: bundles ok (${((Date.now() - started) / 1000).toFixed(1)} s, ${production ? 'production' : 'development'})`);
}

/** Fails the build when a module other than {@link SHARED_BY_BOTH_BUNDLES} is in both the activation bundle and the core's. */
function checkBundlesApart(/** @type {import('esbuild').Metafile | undefined} */ activation, /** @type {import('esbuild').Metafile | undefined} */ core) {
  if (!activation || !core) throw new Error('build: no metafile for the extension bundles');
  const inputs = (/** @type {import('esbuild').Metafile} */ meta) => new Set(Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs)));
  const inCore = inputs(core);
  const both = [...inputs(activation)].filter((input) => inCore.has(input) && !SHARED_BY_BOTH_BUNDLES.has(input));
  if (both.length > 0) {
    console.error(`build: dist/extension.js and dist/core.js both contain ${both.join(', ')}: keep the activation bundle apart from the core (esbuild.mjs, SHARED_BY_BOTH_BUNDLES)`);
    process.exit(1);
  }
}
