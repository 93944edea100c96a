import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { useWorkbench } from './workbench';

const LINES = `${Array.from({ length: 30 }, (_, i) => `export const line${i + 1} = ${i + 1};`).join('\n')}\n`;

describe('reviewing what an agent changed (real workbench, Chromium)', function () {
  this.timeout(180_000);
  let file = '';
  const bench = useWorkbench('multi-root', (paths) => {
    file = path.join(paths.workspaces, 'multi-root', 'app', 'src', 'lines.ts');
    fs.writeFileSync(file, LINES);
  });
  let chat: FrameLocator;
  let review: FrameLocator;

  before(async () => {
    const workbench = bench();
    await workbench.newSession('Reference Agent (offline)');
    await workbench.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click({ timeout: 30_000 });
    chat = await workbench.webview('.prompt-input');
  });

  it('ends a turn that changed a file (with the agent’s own tools) with a summary; Review opens the session’s review', async () => {
    const input = chat.locator('.prompt-input');
    // Two separate edits of one file: two hunks.
    await input.fill(`title Mark where lines.ts starts and ends\nprepend-direct ${file} // added at the top\nappend-direct ${file} // added at the end`);
    await input.press('Enter');
    const changes = chat.locator('.entry.changes');
    await changes.waitFor({ timeout: 60_000 });
    assert.equal((await changes.locator('.changes-summary').innerText()).trim(), '1 file changed, +2 −0');
    assert.match(await changes.locator('.changes-files').innerText(), /src\/lines\.ts/);
    await bench().screenshot('chat-turn-changes', changes);

    await changes.locator('button', { hasText: 'Review' }).click();
    review = await bench().webview('.review-header', 60_000);
    const card = review.locator('.file-card', { hasText: 'lines.ts' });
    await card.waitFor();
    assert.equal(await card.locator('.hunk').count(), 2, 'the two edits are two hunks');
  });

  it('rejects one hunk: that edit is undone on disk, the other stays for review', async () => {
    await review.getByRole('button', { name: 'Reject hunk 1 of src/lines.ts' }).click();
    const card = review.locator('.file-card', { hasText: 'lines.ts' });
    await card.locator('.hunk', { hasText: 'added at the top' }).waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await card.locator('.hunk').count(), 1, 'one hunk is left');
    assert.equal(fs.readFileSync(file, 'utf8'), `${LINES}// added at the end\n`, 'the top line is gone, the end line stays');
    assert.match(await card.locator('.diff-line.added').innerText(), /added at the end/);
    await bench().screenshot('review-hunk-rejected', review.locator('main.review'));
  });

  it('accepts the rest: nothing is left to review, and the file keeps the accepted edit', async () => {
    await review.getByRole('button', { name: 'Accept src/lines.ts' }).click();
    await review.locator('.review-empty', { hasText: 'No changes to review.' }).waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(file, 'utf8'), `${LINES}// added at the end\n`);
    await review.getByRole('button', { name: 'Undo turn 1' }).waitFor();
  });
});
