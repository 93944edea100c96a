import * as assert from 'node:assert/strict';
import { useWorkbench } from './workbench';

describe('the Get Started walkthrough (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root');
  const STEPS = ['Pick an agent', 'Share your folders', 'Start a session', 'Find a past session', 'Review what the agent changed'];

  it('opens from Welcome: Open Walkthrough… and shows its five steps', async () => {
    const workbench = bench();
    await workbench.runCommand('Welcome: Open Walkthrough...');
    await workbench.pick('Get started with ACP Workspace');
    const page = workbench.page;
    const container = page.locator('.gettingStartedContainer');
    await container
      .locator('.getting-started-category .category-title, h2', { hasText: 'Get started with ACP Workspace' })
      .first()
      .waitFor({ timeout: 60_000 });
    const titles = await container.locator('.getting-started-step .step-title').allInnerTexts();
    assert.deepEqual(
      titles.map((t) => t.trim()),
      STEPS,
    );
    // The first step is open, with its page of media (a markdown file of ours).
    await container.locator('.getting-started-step.expanded .step-title', { hasText: 'Pick an agent' }).waitFor({ timeout: 30_000 });
    await workbench.screenshot('walkthrough', container);
  });

  it("runs a step's button: Start a session → New Session opens a chat, and the step is done", async () => {
    const workbench = bench();
    const page = workbench.page;
    const step = page.locator('.gettingStartedContainer .getting-started-step', { has: page.locator('.step-title', { hasText: 'Start a session' }) });
    await step.locator('.step-title').click();
    await step.locator('.step-description-container').waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await step.getAttribute('aria-checked'), 'false', 'not done before its button ran');
    await step.getByRole('button', { name: 'New Session' }).click();
    await workbench.pick('Reference Agent (offline)');
    await page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click({ timeout: 30_000 });
    const chat = await workbench.webview('.prompt-input', 60_000);
    await chat.locator('.agent-name', { hasText: 'Reference Agent (offline)' }).waitFor({ timeout: 60_000 });
    // Back to the walkthrough tab: the step's completion event (onCommand:acpWorkspace.newSession) checked it.
    await page.locator('.tabs-container .tab', { hasText: 'Walkthrough: ACP Workspace' }).click();
    await page
      .locator('.gettingStartedContainer .getting-started-step[aria-checked="true"] .step-title', { hasText: 'Start a session' })
      .waitFor({ timeout: 30_000 });
  });

  it('runs Find a past session → Show Sessions; a search that finds nothing says so, with Clear Search', async () => {
    const workbench = bench();
    const page = workbench.page;
    const step = page.locator('.gettingStartedContainer .getting-started-step', { has: page.locator('.step-title', { hasText: 'Find a past session' }) });
    await step.locator('.step-title').click();
    await step.getByRole('button', { name: 'Show Sessions' }).click();
    const sessions = await workbench.webview('.sessions .search-input', 60_000);
    await sessions.locator('.search-input').fill('qqq-nothing-matches-this');
    const empty = sessions.locator('.empty', { hasText: 'No session matches the search.' });
    await empty.waitFor({ timeout: 30_000 });
    await empty.getByRole('button', { name: 'Clear Search' }).click();
    await sessions.locator('.empty').waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await sessions.locator('.search-input').inputValue(), '');
  });
});
