/**
 * The Review Changes and Add Agent tabs in the real workbench (issue 25 item 15): the review tab's title follows
 * the session's new title, and both tabs come back after Reload Window, showing what they showed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { useWorkbench } from './workbench';

const AGENT = 'Reference Agent (offline)';

describe('the Review Changes and Add Agent tabs: a rename, a reload (real workbench, Chromium)', function () {
  this.timeout(300_000);
  let file = '';
  const bench = useWorkbench('multi-root', (paths) => {
    file = path.join(paths.workspaces, 'multi-root', 'app', 'src', 'tabs.ts');
    fs.writeFileSync(file, 'export const tabs = 1;\n');
  });
  let chat: FrameLocator;
  const tab = (text: string) => bench().page.locator('.tabs-container .tab', { hasText: text });

  before(async () => {
    chat = await bench().newChat(AGENT);
  });

  it('names the review tab after the session, and renames it when the session is renamed', async () => {
    const input = chat.locator('.prompt-input');
    await input.fill(`prepend-direct ${file} // the agent was here`);
    await input.press('Enter');
    const changes = chat.locator('.entry.changes');
    await changes.waitFor({ timeout: 60_000 });
    await changes.locator('button', { hasText: 'Review' }).click();
    const review = await bench().webview('.review-header', 60_000);
    await review.locator('.file-card', { hasText: 'tabs.ts' }).waitFor({ timeout: 30_000 });
    await tab('Review:').waitFor();

    await tab(AGENT).filter({ hasNotText: 'Review:' }).click();
    chat = await bench().webview('.prompt-input', 60_000);
    await chat.locator('.prompt-input').fill('/title Tabs that come back');
    await chat.locator('.prompt-input').press('Enter');
    await tab(`Tabs that come back · ${AGENT}`).filter({ hasNotText: 'Review:' }).waitFor({ timeout: 30_000 });
    await tab(`Review: Tabs that come back · ${AGENT}`).waitFor({ timeout: 30_000 });
  });

  it('brings the review tab and the Add Agent tab back after Reload Window, each showing what it showed', async () => {
    await bench().runCommand('ACP: Add Agent');
    await bench().webview('.gallery-header', 60_000);
    await tab('Add Agent').waitFor();

    await bench().reloadWindow();
    await tab('Review:').waitFor({ timeout: 60_000 });
    await tab('Add Agent').waitFor({ timeout: 60_000 });
    assert.equal(
      (await tab('Review:').innerText()).trim().split('\n')[0],
      `Review: Tabs that come back · ${AGENT}`,
      'the review tab keeps the session’s title',
    );
    // The Add Agent tab was the active one: it shows the gallery again.
    await bench().webview('.gallery-header', 60_000);
    // VS Code revives a hidden tab when it is shown. The review reads the session's checkpoints once its chat has
    // reopened the session; until then it says so, and it shows the changes as soon as that happens.
    await tab('Review:').click();
    let review = await bench().webview('.review-header', 60_000);
    await tab(AGENT).filter({ hasNotText: 'Review:' }).click();
    chat = await bench().webview('.prompt-input', 60_000);
    await chat.locator('.entry.changes').waitFor({ timeout: 60_000 });
    await tab('Review:').click();
    review = await bench().webview('.review-header', 60_000);
    await review.locator('.file-card', { hasText: 'tabs.ts' }).waitFor({ timeout: 60_000 });
    assert.match(await review.locator('.diff-line.added').first().innerText(), /the agent was here/);
  });
});
