/**
 * Runs mocha inside the VS Code extension host (the standard `extensionTestsPath` contract) over the
 * compiled test files of one suite folder. Counts go to $ACP_TEST_SUMMARY_FILE through the summary
 * reporter, like the other tiers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

/**
 * The extension host's console reaches the launcher mixed with the workbench's own logging; the test
 * output is marked so the launcher can show just that (see scripts/vscode-web/launch.mjs).
 */
export const TEST_OUTPUT_MARK = '[acp-test] ';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

export function runSuite(suiteDir: string): Promise<void> {
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) =>
    console.log(
      format(...args)
        .split('\n')
        .map((line) => TEST_OUTPUT_MARK + line)
        .join('\n'),
    );
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: 60_000,
    reporter: path.join(REPO_ROOT, 'scripts', 'summary-reporter.cjs'),
    // ACP_TEST_GREP=<text> runs only the tests whose full title contains it (while working on one).
    ...(process.env.ACP_TEST_GREP ? { grep: process.env.ACP_TEST_GREP } : {}),
  });
  for (const file of fs
    .readdirSync(suiteDir)
    .filter((f) => f.endsWith('.test.js'))
    .sort()) {
    mocha.addFile(path.join(suiteDir, file));
  }
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
