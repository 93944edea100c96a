/**
 * Undo after Reload Window (issue 24, item 1), in the real workbench: the agent changes files with its own
 * tools, the user edits one of them and creates a file, the window reloads, and the chat, the review and
 * Undo must tell the user's work apart from the agent's exactly as before the reload.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { useWorkbench } from './workbench';

const AGENT = 'Reference Agent (offline)';
const LINES = `${Array.from({ length: 30 }, (_, i) => `export const line${i + 1} = ${i + 1};`).join('\n')}\n`;
const USER_LINE = "export const line15 = 'edited by the user';";

describe('undo after Reload Window keeps what the user did (real workbench, Chromium)', function () {
  this.timeout(300_000);
  let lines = '';
  let agentFile = '';
  let userFile = '';
  let greet = '';
  let greetBefore = '';
  const bench = useWorkbench('multi-root', (paths) => {
    const root = path.join(paths.workspaces, 'multi-root');
    lines = path.join(root, 'app', 'src', 'lines.ts');
    agentFile = path.join(root, 'lib', 'src', 'agent.ts');
    userFile = path.join(root, 'app', 'src', 'user.ts');
    greet = path.join(root, 'lib', 'src', 'greet.ts');
    greetBefore = fs.readFileSync(greet, 'utf8');
    fs.writeFileSync(lines, LINES);
  });
  let chat: FrameLocator;
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

  before(async () => {
    chat = await bench().newChat(AGENT);
  });

  it('a turn in which the agent changes files itself ends with its changes entry; then the user edits a line of it and creates a file', async () => {
    const input = chat.locator('.prompt-input');
    await input.fill(
      [`prepend-direct ${lines} // agent top`, `append-direct ${lines} // agent end`, `write-direct ${agentFile} export const agent = 1;`].join('\n'),
    );
    await input.press('Enter');
    const changes = chat.locator('.entry.changes');
    await changes.waitFor({ timeout: 60_000 });
    assert.equal((await changes.locator('.changes-summary').innerText()).trim(), '2 files changed in 2 folders, +3 −0');
    // The user, after the turn (the window is still open, then reloads).
    fs.writeFileSync(lines, read(lines)!.replace('export const line15 = 15;', USER_LINE));
    fs.writeFileSync(userFile, 'export const mine = true;\n');
  });

  it('after Reload Window the chat shows the changes entry again, after its turn', async () => {
    await bench().reloadWindow();
    chat = await bench().webview('.prompt-input', 60_000);
    await chat.locator('.entry.info', { hasText: 'the agent replayed its history' }).waitFor({ timeout: 60_000 });
    const changes = chat.locator('.entry.changes');
    await changes.waitFor({ timeout: 60_000 });
    assert.equal(await changes.count(), 1);
    assert.equal(
      (await changes.locator('.changes-summary').innerText()).trim(),
      '2 files changed in 2 folders, +3 −0',
      'what the agent changed, as before the reload',
    );
    assert.deepEqual(
      (await changes.locator('.changed-path').allInnerTexts()).map((t) => t.trim()),
      ['app/src/lines.ts', 'lib/src/agent.ts'],
    );
    // In its place: after the agent's answer, before the note the reopen added.
    const kinds = await chat
      .locator('.entry')
      .evaluateAll((nodes) =>
        nodes.map((n) =>
          n.classList.contains('changes') ? 'changes' : n.classList.contains('info') ? 'info' : n.classList.contains('user') ? 'user' : 'other',
        ),
      );
    assert.ok(
      kinds.indexOf('changes') > kinds.indexOf('user') && kinds.indexOf('changes') < kinds.lastIndexOf('info'),
      `changes entry in place: ${kinds.join(', ')}`,
    );
    await bench().screenshot('review-reload-chat', changes);
  });

  it('the review lists only the agent’s changes: the user’s line and file are not in it', async () => {
    await chat.locator('.entry.changes').locator('button', { hasText: 'Review' }).click();
    const review = await bench().webview('.review-header', 60_000);
    const card = review.locator('.file-card', { hasText: 'lines.ts' });
    await card.waitFor({ timeout: 30_000 });
    assert.equal(await review.locator('.file-card').count(), 2, 'lines.ts and agent.ts');
    assert.equal(await review.locator('.file-card', { hasText: 'user.ts' }).count(), 0);
    const added = (await card.locator('.diff-line.added').allInnerTexts()).join('\n');
    assert.match(added, /agent top/);
    assert.match(added, /agent end/);
    assert.doesNotMatch(await card.innerText(), /line15|edited by the user/, 'the user’s line is no change of the agent’s');
    assert.equal(await card.locator('.hunk').count(), 2, 'the agent’s two edits, nothing of the user’s');
    await bench().screenshot('review-reload-review', review.locator('main.review'));
  });

  it('a second turn after the reload lists only what the agent changed in it', async () => {
    await bench().page.locator('.tabs-container .tab', { hasText: AGENT }).filter({ hasNotText: 'Review:' }).click();
    chat = await bench().webview('.prompt-input', 60_000);
    const input = chat.locator('.prompt-input');
    await input.fill(`append-direct ${greet} // the agent again`);
    await input.press('Enter');
    const second = chat.locator('.entry.changes').nth(1);
    await second.waitFor({ timeout: 60_000 });
    assert.deepEqual(
      (await second.locator('.changed-path').allInnerTexts()).map((t) => t.trim()),
      ['src/greet.ts'],
      'the user’s file and line are not the agent’s',
    );
  });

  it('Undo of turn 1 (from the chat, after the confirmation) keeps the user’s line and file, and the confirmation does not name them', async () => {
    await chat.locator('.entry.changes').first().locator('button', { hasText: 'Undo' }).click();
    const dialog = bench().page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    const asked = await dialog.innerText();
    assert.match(asked, /Undo turn 1 and the turn after it\? 3 files will change\./);
    assert.match(asked, /restore app\/src\/lines\.ts \(merged with your edits\)/);
    assert.match(asked, /remove lib\/src\/agent\.ts/);
    assert.match(asked, /restore lib\/src\/greet\.ts/);
    assert.doesNotMatch(asked, /user\.ts/, 'the user’s file is not named');
    await bench().screenshot('review-reload-confirm', dialog);
    await dialog.locator('.monaco-button', { hasText: /^Undo$/ }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    await chat.locator('.entry.changes.undone').nth(1).waitFor({ timeout: 30_000 });
    assert.equal(read(lines), LINES.replace('export const line15 = 15;', USER_LINE), 'the agent’s lines are gone, the user’s line stays');
    assert.equal(read(userFile), 'export const mine = true;\n', 'the user’s file stays');
    assert.equal(read(agentFile), undefined, 'the file the agent created is gone');
    assert.equal(read(greet), greetBefore, 'the second turn is undone too');
  });
});
