import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, Workbench, tooling } from './workbench';

describe('ACP in the real workbench (code-server + Chromium)', function () {
  this.timeout(180_000);
  const runId = randomUUID();
  let scratch: string;
  let workbench: Workbench;

  before(async () => {
    const { install } = await tooling();
    fs.mkdirSync(install.CACHE_DIR, { recursive: true });
    scratch = fs.mkdtempSync(path.join(install.CACHE_DIR, 'e2e-'));
    fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces'), path.join(scratch, 'workspaces'), { recursive: true, verbatimSymlinks: true });
    workbench = await Workbench.open({
      target: path.join(scratch, 'workspaces', 'multi-root', 'multi-root.code-workspace'),
      scratch: path.join(scratch, 'server'),
      env: { ACP_WS_TEST_RUN: runId },
    });
  });

  after(async () => {
    await workbench?.close();
    const { processes } = await tooling();
    const leftovers = processes.sweepMarkedProcesses('ACP_WS_TEST_RUN', runId);
    fs.rmSync(scratch, { recursive: true, force: true });
    assert.deepEqual(leftovers, [], 'every process the UI tests started was stopped');
  });

  it('opens the ACP container from the activity bar and shows the Agents view with every preset', async () => {
    const sidebar = await workbench.openAcpContainer();
    const tree = workbench.viewTree(sidebar, 'Agents');
    const rows = tree.locator('.monaco-list-row');
    await rows.filter({ hasText: 'Reference Agent (offline)' }).waitFor({ timeout: 30_000 });
    const labels = await rows.locator('.label-name').allInnerTexts();
    assert.deepEqual(labels, ['Claude Code', 'Codex', 'Gemini CLI', 'opencode', 'Reference Agent (offline)']);
    const descriptions = await rows.locator('.label-description').allInnerTexts();
    assert.ok(descriptions.every((d) => d.includes('not running')), descriptions.join(' | '));
    assert.equal(await rows.first().getAttribute('aria-label'), 'Claude Code, not running');
    await workbench.screenshot('agents-view', sidebar);
  });

  it('starts the offline agent from the Command Palette and shows it running', async () => {
    await workbench.runCommand('ACP: Start Agent');
    await workbench.pick('Reference Agent (offline)');
    const sidebar = await workbench.openAcpContainer();
    const row = workbench.viewTree(sidebar, 'Agents').locator('.monaco-list-row', { hasText: 'Reference Agent (offline)' });
    await row.locator('.label-description', { hasText: 'running · Reference Agent (offline) 1.0.0' }).waitFor({ timeout: 30_000 });
    assert.match((await row.getAttribute('aria-label')) ?? '', /Reference Agent \(offline\), running/);
    await workbench.screenshot('agent-running', sidebar);
  });

  it('shows the ACP Workspace log from the Command Palette', async () => {
    await workbench.runCommand('ACP: Show Log');
    const panel = workbench.page.locator('#workbench\\.parts\\.panel');
    const output = panel.locator('.output-view, .monaco-editor').first();
    await output.waitFor({ timeout: 30_000 });
    // Monaco renders a line as token spans, with non-breaking spaces: match whole lines, spaces as \s.
    const lines = panel.locator('.view-line');
    await lines.filter({ hasText: /\[info\]\sACP\sWorkspace\s\S+\sactivated\./ }).first().waitFor({ timeout: 30_000 });
    await lines.filter({ hasText: /Starting\sReference\sAgent\s\(offline\)/ }).first().waitFor({ timeout: 30_000 });
    await workbench.screenshot('log', panel);
  });

  it('stops the agent from the view', async () => {
    const sidebar = await workbench.openAcpContainer();
    const row = workbench.viewTree(sidebar, 'Agents').locator('.monaco-list-row', { hasText: 'Reference Agent (offline)' });
    await row.hover();
    await row.getByRole('button', { name: 'Stop Agent' }).click();
    await row.locator('.label-description', { hasText: 'not running' }).waitFor({ timeout: 30_000 });
  });
});
