// Runs everything `npm test` promises: lint, type-check and build, then every test tier, and ends
// with one line: `tests: N passed, M failed`.
//
//   node scripts/test.mjs                 all tiers
//   node scripts/test.mjs --only unit     one tier (unit, interop, integration, e2e, package)
//
// A tier that cannot run counts as failed and says why; the other tiers still run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;

/** @type {{ name: string, passed: number, failed: number, note?: string, failures?: string[] }[]} */
const results = [];
const scratch = mkdtempSync(path.join(tmpdir(), 'acp-ws-tests-'));

function run(command, args, env = {}, timeoutMs = undefined) {
  return spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env }, timeout: timeoutMs, killSignal: 'SIGTERM' });
}

/** Runs mocha with the summary reporter and records its counts as one tier (stopped after `timeoutMs`, if given). */
function mochaTier(name, mochaArgs, env = {}, timeoutMs = undefined) {
  const summaryFile = path.join(scratch, `${name}.json`);
  const started = Date.now();
  const result = run(
    process.execPath,
    [path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--reporter', path.join(root, 'scripts', 'summary-reporter.cjs'), ...mochaArgs],
    { ...env, ACP_TEST_SUMMARY_FILE: summaryFile },
    timeoutMs,
  );
  if (result.error?.code === 'ETIMEDOUT') console.log(`\n${name}: stopped after ${timeoutMs / 1000} s`);
  recordTier(name, summaryFile, result, started);
}

function recordTier(name, summaryFile, result, started) {
  let counts;
  try {
    counts = JSON.parse(readFileSync(summaryFile, 'utf8'));
  } catch {
    counts = undefined;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (!counts) {
    results.push({ name, passed: 0, failed: 1, note: `did not finish (exit ${result.status ?? result.signal})` });
    return;
  }
  // A skipped test is not a pass: count it against the run so it cannot hide.
  const failed = counts.failures + counts.pending;
  // A run whose tests passed but whose process failed (leftover processes, a crash) is a failure too.
  const extra = failed === 0 && result.status !== 0 ? 1 : 0;
  const notes = [`${seconds} s`, counts.pending ? `${counts.pending} skipped` : '', extra ? `exited with ${result.status ?? result.signal}` : ''].filter(Boolean);
  results.push({ name, passed: counts.passes, failed: failed + extra, note: notes.join(', '), failures: counts.failed ?? [] });
}

/** Runs a command that records its counts in $ACP_TEST_SUMMARY_FILE (an in-host mocha run) as one tier. */
function commandTier(name, args) {
  const summaryFile = path.join(scratch, `${name.replace(/\W+/g, '-')}.json`);
  const started = Date.now();
  const result = run(process.execPath, args, { ACP_TEST_SUMMARY_FILE: summaryFile });
  recordTier(name, summaryFile, result, started);
}

const wants = (tier) => only === undefined || only === tier;

/**
 * The tiers that need a real VS Code need code-server and a browser. Install them (on demand, cached)
 * and start Chromium once; if that fails, say why and count those tiers as failed.
 */
function realVsCodeReady() {
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { ensureCodeServer, ensureSystemPackages } from './scripts/vscode-web/install.mjs';
       import { launchBrowser } from './scripts/vscode-web/browser.mjs';
       try {
         ensureSystemPackages({ browser: true });
         ensureCodeServer();
         const browser = await launchBrowser();
         const page = await browser.context.newPage();
         await page.setContent('<p>ok</p>');
         await browser.close();
       } catch (error) {
         console.error('not ready: ' + String(error instanceof Error ? error.message : error).split('\\n')[0]);
         process.exit(1);
       }`,
    ],
    { cwd: root, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' },
  );
  if (result.status === 0) {
    console.log(`real VS Code ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return undefined;
  }
  process.stderr.write(result.stderr ?? '');
  const line = (result.stderr ?? '').split('\n').find((l) => l.startsWith('not ready: '));
  return line ? line.slice('not ready: '.length) : `the check exited with ${result.status ?? result.signal}`;
}

/**
 * On Linux the unit and interop tiers confine agents with the real bubblewrap: install it (and the other
 * Debian packages the later tiers need) first; if that cannot be done, say why (those tests then fail saying
 * bwrap is missing).
 */
function systemPackages() {
  if (process.platform !== 'linux') return;
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { ensureSystemPackages } from './scripts/vscode-web/install.mjs'; ensureSystemPackages({ browser: false });`],
    { cwd: root, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' },
  );
  if (result.status !== 0) console.log(`system packages not installed: ${(result.stderr ?? '').trim().split('\n').at(-1)}`);
}

systemPackages();
console.log('== build: type-check, lint, bundle');
const build = run(process.execPath, [path.join(root, 'esbuild.mjs')]);
if (build.status !== 0) {
  results.push({ name: 'build (type-check, lint, bundle)', passed: 0, failed: 1, note: 'failed; no tests ran' });
} else {
  if (wants('unit')) {
    console.log('\n== unit tests (plain Node)');
    mochaTier('unit', []);
  }
  if (wants('interop')) {
    // Real agents from npm (pinned in package.json), offline against a scripted model server on loopback.
    // Each test has a bounded timeout; the whole tier is stopped after 10 minutes whatever happens.
    console.log('\n== interop tests: real agents against a scripted model server (offline)');
    mochaTier(
      'interop',
      ['--no-config', '--require', 'out/test/unit/hooks.js', '--require', 'out/test/interop/hooks.js', '--timeout', '90000', 'out/test/interop/**/*.test.js'],
      {},
      10 * 60_000,
    );
  }
  const realTiers = ['integration', 'e2e', 'package'].filter(wants);
  if (realTiers.length > 0) {
    console.log('\n== real VS Code: code-server + Chromium');
    const notReady = realVsCodeReady();
    if (notReady) {
      console.log(`\nThe real-VS-Code tiers cannot run here: ${notReady}`);
      if (wants('unit')) console.log('The unit tier above ran without them.');
      for (const tier of realTiers) results.push({ name: tier, passed: 0, failed: 1, note: `not run: ${notReady}` });
    } else {
      if (wants('integration')) {
        for (const suite of ['multiRoot', 'singleFolder', 'untrusted']) {
          console.log(`\n== integration tests in a real VS Code: ${suite}`);
          commandTier(`integration (${suite})`, [path.join(root, 'scripts', 'vscode-web', 'run-integration.mjs'), suite]);
        }
      }
      if (wants('e2e')) {
        console.log('\n== UI tests: Playwright drives the workbench in Chromium');
        mochaTier('e2e', ['--no-config', '--timeout', '180000', 'out/test/e2e/**/*.test.js']);
      }
      if (wants('package')) {
        // Last: it replaces dist/ with the production bundles it packages.
        console.log('\n== packaging: build the .vsix, install it into VS Code, check it activates');
        mochaTier('package', ['--no-config', '--timeout', '240000', 'out/test/package/**/*.test.js']);
      }
    }
  }
}

rmSync(scratch, { recursive: true, force: true });
console.log('\n== summary');
for (const r of results) console.log(`  ${r.name}: ${r.passed} passed, ${r.failed} failed${r.note ? ` (${r.note})` : ''}`);
const failures = results.flatMap((r) => (r.failures ?? []).map((f) => `  ${r.name}: ${f}`));
if (failures.length > 0) console.log(`\n== failed\n${failures.join('\n')}\n`);
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && results.length > 0 ? 0 : 1);
