import * as assert from 'node:assert/strict';
import { useWorkbench } from './workbench';

describe('ACP in the real workbench (code-server + Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root');

  it('opens the ACP container from the activity bar and shows the Agents view with every preset, then the agents of the user settings', async () => {
    const sidebar = await bench().openAcpContainer();
    const tree = bench().viewTree(sidebar, 'Agents');
    const rows = tree.locator('.monaco-list-row');
    await rows.filter({ hasText: 'Reference Agent (offline)' }).waitFor({ timeout: 30_000 });
    const labels = await rows.locator('.label-name').allInnerTexts();
    assert.deepEqual(labels, ['Claude Code', 'Codex', 'Gemini CLI', 'opencode', 'Reference Agent (offline)']);
    const descriptions = await rows.locator('.label-description').allInnerTexts();
    assert.ok(
      descriptions.every((d) => d.includes('not running')),
      descriptions.join(' | '),
    );
    assert.equal(await rows.first().getAttribute('aria-label'), 'Claude Code, not running');
    await bench().screenshot('agents-view', sidebar);
  });

  it('starts the offline agent from the Command Palette (a pick titled Start Agent) and shows it running', async () => {
    await bench().runCommand('ACP: Start Agent');
    // The pick says what it is for (it had no title).
    await bench().page.locator('.quick-input-widget .quick-input-title', { hasText: 'Start Agent' }).waitFor({ timeout: 10_000 });
    await bench().pick('Reference Agent (offline)');
    const sidebar = await bench().openAcpContainer();
    const row = bench().viewTree(sidebar, 'Agents').locator('.monaco-list-row', { hasText: 'Reference Agent (offline)' });
    await row.locator('.label-description', { hasText: 'running · Reference Agent (offline) 1.0.0' }).waitFor({ timeout: 30_000 });
    assert.match((await row.getAttribute('aria-label')) ?? '', /Reference Agent \(offline\), running/);
    await bench().screenshot('agent-running', sidebar);
  });

  it('shows the ACP Workspace log from the Command Palette', async () => {
    await bench().runCommand('ACP: Show Log');
    const panel = bench().page.locator('#workbench\\.parts\\.panel');
    const output = panel.locator('.output-view, .monaco-editor').first();
    await output.waitFor({ timeout: 30_000 });
    // Monaco renders a line as token spans, with non-breaking spaces: match whole lines, spaces as \s.
    const lines = panel.locator('.view-line');
    await lines
      .filter({ hasText: /\[info\]\sACP\sWorkspace\s\S+\sactivated\./ })
      .first()
      .waitFor({ timeout: 30_000 });
    await lines
      .filter({ hasText: /Starting\sReference\sAgent\s\(offline\)/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await bench().screenshot('log', panel);
  });

  it('stops the agent from the view', async () => {
    const sidebar = await bench().openAcpContainer();
    const row = bench().viewTree(sidebar, 'Agents').locator('.monaco-list-row', { hasText: 'Reference Agent (offline)' });
    await row.hover();
    await row.getByRole('button', { name: 'Stop Agent' }).click();
    await row.locator('.label-description', { hasText: 'not running' }).waitFor({ timeout: 30_000 });
  });
});
