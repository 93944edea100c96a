#!/usr/bin/env node
// @ts-check
// A stand-in for the VS Code executable that @vscode/test-electron's runTests() can start
// (`vscodeExecutablePath`): it maps the usual `--extensionDevelopmentPath=… --extensionTestsPath=…
// [folder|file.code-workspace]` arguments onto code-server + headless Chromium, relays the extension
// host's test output, and exits with the code the test runner reported through
// `window.codeAutomationExit(code)`. Extra flags of its own:
//   --enable-workspace-trust   keep Workspace Trust on (runTests always passes --disable-workspace-trust)
//   --screenshot=<file.png>    save a screenshot of the workbench when the run ends
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { launchBrowser } from './browser.mjs';
import { startCodeServer, workbenchUrl } from './codeServer.mjs';
import { CACHE_DIR, ensureSystemPackages } from './install.mjs';
import { killAll, onCleanup, sweepMarkedProcessesAfter } from './processes.mjs';

/** Every process of one run inherits this marker, so leftovers can be found afterwards. */
export const RUN_MARKER = 'ACP_WS_TEST_RUN';
const TIMEOUT_MS = Number(process.env.ACP_VSCODE_TEST_TIMEOUT_MS ?? 10 * 60 * 1000);

function parseArgs(/** @type {string[]} */ argv) {
  /** @type {{ extensionDevelopmentPath?: string, extensionTestsPath?: string, target?: string, trust: boolean, screenshot?: string }} */
  const parsed = { trust: false };
  for (const arg of argv) {
    const [flag, ...rest] = arg.split('=');
    const value = rest.join('=');
    if (flag === '--extensionDevelopmentPath') parsed.extensionDevelopmentPath = path.resolve(value);
    else if (flag === '--extensionTestsPath') parsed.extensionTestsPath = path.resolve(value);
    else if (flag === '--enable-workspace-trust') parsed.trust = true;
    else if (flag === '--screenshot') parsed.screenshot = path.resolve(value);
    else if (!arg.startsWith('-')) parsed.target = path.resolve(arg);
    // Electron-only flags from runTests (--no-sandbox, --user-data-dir=…) do not apply here.
  }
  return parsed;
}

/** Marks the lines the in-host test runner prints (test/integration/runner.ts). */
const TEST_OUTPUT_MARK = '[acp-test] ';

/**
 * The extension host's console calls arrive in the page as ('%c LEVEL', css, fmt, ...args), mixed with
 * the workbench's own logging: show the test runner's lines (and, with ACP_VSCODE_VERBOSE, the rest).
 */
async function relayConsole(/** @type {import('playwright-core').ConsoleMessage} */ message) {
  const args = await Promise.all(message.args().map((arg) => arg.jsonValue().catch(() => '[unserializable]')));
  const hasStyle = typeof args[0] === 'string' && args[0].startsWith('%c') && args.length >= 3;
  const text = hasStyle ? format(...args.slice(2)) : format(...args);
  for (const line of text.split('\n')) {
    if (line.startsWith(TEST_OUTPUT_MARK)) process.stdout.write(`${line.slice(TEST_OUTPUT_MARK.length)}\n`);
    else if (process.env.ACP_VSCODE_VERBOSE && line) process.stdout.write(`[workbench ${message.type()}] ${line}\n`);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!options.extensionDevelopmentPath || !options.extensionTestsPath) {
    throw new Error('usage: launch.mjs --extensionDevelopmentPath=<dir> --extensionTestsPath=<file> [folder|file.code-workspace]');
  }
  ensureSystemPackages({ browser: true });
  const runId = randomUUID();
  const scratch = mkdtempSync(path.join(CACHE_DIR, 'run-'));
  onCleanup(() => rmSync(scratch, { recursive: true, force: true }));

  const server = await startCodeServer({
    scratch,
    workspaceTrust: options.trust,
    env: { [RUN_MARKER]: runId },
    onOutput: (line) => process.env.ACP_VSCODE_VERBOSE && process.stdout.write(`[code-server] ${line}\n`),
  });
  onCleanup(() => server.stop());

  const browser = await launchBrowser();
  onCleanup(() => browser.close());
  const page = await browser.context.newPage();
  /** @type {(code: number) => void} */
  let finish = () => undefined;
  const exitCode = new Promise((resolve) => (finish = resolve));
  await page.exposeFunction('codeAutomationExit', (/** @type {number} */ code) => {
    finish(code);
    return Promise.resolve();
  });
  page.on('console', (message) => void relayConsole(message));
  page.on('pageerror', (error) => process.env.ACP_VSCODE_VERBOSE && process.stdout.write(`[workbench error] ${error.message}\n`));

  const target = options.target?.endsWith('.code-workspace') ? { workspace: options.target } : { folder: options.target };
  await page.goto(
    workbenchUrl(server.url, { ...target, extensionDevelopmentPath: options.extensionDevelopmentPath, extensionTestsPath: options.extensionTestsPath }),
  );
  let timer;
  const code = await Promise.race([
    exitCode,
    new Promise((resolve) => {
      timer = setTimeout(() => {
        process.stdout.write(`[launch] the tests did not finish within ${TIMEOUT_MS / 1000} s\n`);
        resolve(124);
      }, TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (options.screenshot) await page.screenshot({ path: options.screenshot }).catch(() => undefined);

  await killAll();
  const leftovers = await sweepMarkedProcessesAfter(RUN_MARKER, runId);
  if (leftovers.length > 0) {
    process.stdout.write(`[launch] ${leftovers.length} process(es) started by the tests were still running and were killed:\n`);
    for (const p of leftovers) process.stdout.write(`  ${p.pid} ${p.command}\n`);
    return code === 0 ? 3 : Number(code);
  }
  return Number(code);
}

main().then(
  (code) => process.exit(code),
  async (error) => {
    console.error(`[launch] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await killAll();
    process.exit(1);
  },
);
