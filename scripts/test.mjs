// Runs everything `npm test` promises: lint, type-check and build, then every test tier, and ends
// with one line: `tests: N passed, M failed`.
//
//   node scripts/test.mjs                 all tiers
//   node scripts/test.mjs --only unit     one tier (unit)
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

/** @type {{ name: string, passed: number, failed: number, note?: string }[]} */
const results = [];
const scratch = mkdtempSync(path.join(tmpdir(), 'acp-ws-tests-'));

function run(command, args, env = {}) {
  return spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
}

/** Runs mocha with the summary reporter and records its counts as one tier. */
function mochaTier(name, mochaArgs, env = {}) {
  const summaryFile = path.join(scratch, `${name}.json`);
  const started = Date.now();
  const result = run(
    process.execPath,
    [path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--reporter', path.join(root, 'scripts', 'summary-reporter.cjs'), ...mochaArgs],
    { ...env, ACP_TEST_SUMMARY_FILE: summaryFile },
  );
  let counts;
  try {
    counts = JSON.parse(readFileSync(summaryFile, 'utf8'));
  } catch {
    counts = undefined;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (!counts) {
    results.push({ name, passed: 0, failed: 1, note: `did not finish (exit ${result.status ?? result.signal})` });
  } else {
    // A skipped test is not a pass: count it against the run so it cannot hide.
    results.push({ name, passed: counts.passes, failed: counts.failures + counts.pending, note: `${seconds} s${counts.pending ? `, ${counts.pending} skipped` : ''}` });
  }
}

const wants = (tier) => only === undefined || only === tier;

console.log('== build: type-check, lint, bundle');
const build = run(process.execPath, [path.join(root, 'esbuild.mjs')]);
if (build.status !== 0) {
  results.push({ name: 'build (type-check, lint, bundle)', passed: 0, failed: 1, note: 'failed; no tests ran' });
} else {
  if (wants('unit')) {
    console.log('\n== unit tests (plain Node)');
    mochaTier('unit', []);
  }
}

rmSync(scratch, { recursive: true, force: true });
console.log('\n== summary');
for (const r of results) console.log(`  ${r.name}: ${r.passed} passed, ${r.failed} failed${r.note ? ` (${r.note})` : ''}`);
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && results.length > 0 ? 0 : 1);
