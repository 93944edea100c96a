import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, RUN_MARKER, SCREENSHOT_DIR, Workbench, tooling } from './workbench';

describe('the Agents view in Restricted Mode (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const runId = randomUUID();
  let scratch = '';
  let workbench: Workbench | undefined;

  before(async () => {
    const { install } = await tooling();
    scratch = fs.mkdtempSync(path.join(install.CACHE_DIR, 'e2e-welcome-'));
    fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces', 'single'), path.join(scratch, 'single'), { recursive: true });
    workbench = await Workbench.open({ target: path.join(scratch, 'single'), scratch: path.join(scratch, 'server'), workspaceTrust: true, env: { [RUN_MARKER]: runId } });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !workbench) return;
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await workbench.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'failed-welcome-restricted.png') }).catch(() => undefined);
  });

  after(async () => {
    await workbench?.close();
    const leftovers = await (await tooling()).processes.sweepMarkedProcessesAfter(RUN_MARKER, runId);
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    assert.deepEqual(leftovers, [], 'every process the UI test started was stopped');
  });

  it('says agents do not run in Restricted Mode, and its button opens Manage Workspace Trust', async () => {
    const bench = workbench!;
    const page = bench.page;
    // The workbench asks whether to trust the folder's authors: a user who says no is in Restricted Mode.
    const dontTrust = page.getByRole('button', { name: /No, I don.t trust the authors/ });
    await dontTrust.click({ timeout: 60_000 }).catch(() => undefined);
    const sidebar = await bench.openAcpContainer();
    const pane = sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Agents' }) });
    await pane.getByText('Agents do not run in Restricted Mode', { exact: false }).waitFor({ timeout: 60_000 });
    await bench.screenshot('agents-view-restricted', sidebar);
    await pane.getByRole('button', { name: 'Manage Workspace Trust' }).click();
    await page.locator('.tabs-container .tab', { hasText: 'Workspace Trust' }).waitFor({ timeout: 30_000 });
  });
});
