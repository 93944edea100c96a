#!/usr/bin/env node
// @ts-check
// Runs one integration suite in a real VS Code through @vscode/test-electron's runTests().
//
//   node scripts/vscode-web/run-integration.mjs <multiRoot|singleFolder|untrusted>
//   ACP_TEST_GREP=<text> node scripts/vscode-web/run-integration.mjs multiRoot    only the tests whose title has <text>
//
// By default VS Code is code-server + headless Chromium (scripts/vscode-web/launch.mjs), which works on
// a machine without a desktop or internet. On a desktop machine with internet, set ACP_VSCODE=desktop
// to let test-electron download and run the desktop VS Code (same version) instead.
import { runTests } from '@vscode/test-electron';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, ROOT, ensureCodeServer, ensureSystemPackages, findChromium } from './install.mjs';

/** @type {Record<string, { target: (fixtures: string) => string, args?: string[] }>} */
const SUITES = {
  multiRoot: { target: (fixtures) => path.join(fixtures, 'multi-root', 'multi-root.code-workspace') },
  singleFolder: { target: (fixtures) => path.join(fixtures, 'single') },
  // Workspace Trust stays on: the folder opens in Restricted Mode.
  untrusted: { target: (fixtures) => path.join(fixtures, 'single'), args: ['--enable-workspace-trust'] },
};

/** A private copy of the fixture workspaces: agents may write into them. */
export function copyFixtures(/** @type {string} */ into) {
  const fixtures = path.join(into, 'workspaces');
  cpSync(path.join(ROOT, 'test', 'fixtures', 'workspaces'), fixtures, { recursive: true, verbatimSymlinks: true });
  return fixtures;
}

async function main() {
  const suite = process.argv[2] ?? '';
  const spec = SUITES[suite];
  if (!spec) throw new Error(`usage: run-integration.mjs <${Object.keys(SUITES).join('|')}>`);
  const desktop = process.env.ACP_VSCODE === 'desktop';
  if (desktop && spec.args?.includes('--enable-workspace-trust')) {
    throw new Error(`the ${suite} suite needs Workspace Trust on, which runTests() turns off for a desktop VS Code: run it without ACP_VSCODE=desktop`);
  }
  if (!desktop) {
    ensureSystemPackages({ browser: true });
    ensureCodeServer();
    if (!findChromium()) throw new Error('Chromium was not found: the integration tests need a browser for code-server');
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  const scratch = mkdtempSync(path.join(CACHE_DIR, `it-${suite}-`));
  try {
    const fixtures = copyFixtures(scratch);
    await runTests({
      ...(desktop ? { version: '1.100.3' } : { vscodeExecutablePath: path.join(ROOT, 'scripts', 'vscode-web', 'launch.mjs') }),
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: path.join(ROOT, 'out', 'test', 'integration', suite, 'index'),
      launchArgs: [spec.target(fixtures), ...(spec.args ?? [])],
      extensionTestsEnv: { ACP_TEST_SUMMARY_FILE: process.env.ACP_TEST_SUMMARY_FILE ?? '', ACP_TEST_GREP: process.env.ACP_TEST_GREP ?? '' },
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`[integration] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
