import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { useWorkbench } from './workbench';

describe('notifications and the badge for a chat out of view (real workbench, Chromium)', function () {
  this.timeout(180_000);
  let workspaces = '';
  const bench = useWorkbench('multi-root', (paths) => (workspaces = paths.workspaces));
  let chat: FrameLocator;

  before(async () => {
    const workbench = bench();
    chat = await workbench.newChat('Reference Agent (offline)');
  });

  async function send(text: string) {
    const input = chat.locator('.prompt-input');
    await input.fill(text);
    await input.press('Enter');
  }

  const toast = (text: string | RegExp): Locator => bench().page.locator('.notifications-toasts .notification-toast', { hasText: text });
  /** The number on the ACP entry of the activity bar ('' when it shows none). */
  const badge = (): Locator => bench().page.locator('.activitybar').getByRole('tab', { name: /^ACP/ }).locator('.badge .badge-content');
  async function badgeText(): Promise<string> {
    return (await badge().count()) > 0 && (await badge().isVisible()) ? (await badge().innerText()).trim() : '';
  }
  async function untilBadge(expected: string) {
    for (let i = 0; i < 300 && (await badgeText()) !== expected; i++) await bench().page.waitForTimeout(100);
    assert.equal(await badgeText(), expected, `the badge shows ${JSON.stringify(expected)}`);
  }
  /** Another editor in front of the chat: what happens in it now happens unseen. */
  async function hideChat() {
    await bench().runCommand('File: New Untitled Text File');
    await bench().page.locator('.tab.active', { hasText: 'Untitled' }).waitFor({ timeout: 30_000 });
  }
  async function clearNotifications() {
    await bench().runCommand('Notifications: Clear All Notifications');
    await bench().page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'detached', timeout: 30_000 });
  }

  it('asks in a notification for a permission in a hidden chat; Allow there lets the tool call proceed', async () => {
    await send('permission');
    await chat.locator('.entry.permission.pending').waitFor({ timeout: 30_000 });
    await hideChat();
    const asks = toast('asks:');
    await asks.waitFor({ timeout: 30_000 });
    for (const name of ['Allow once', 'Always allow', 'Reject', 'Always reject', 'Show'])
      await asks.locator('.monaco-button', { hasText: name }).first().waitFor();
    await untilBadge('1');
    await asks.locator('.monaco-button', { hasText: 'Allow once' }).first().click();
  });

  it('says in a notification that the turn ended while the chat was hidden; the badge stays until Show brings the chat back', async () => {
    const finished = toast('finished:');
    await finished.waitFor({ timeout: 60_000 });
    assert.match(await finished.innerText(), /“.+” finished: /);
    await untilBadge('1');
    await finished.locator('.monaco-button', { hasText: 'Show' }).waitFor();
    await bench().screenshot('notification', finished);
    await finished.locator('.monaco-button', { hasText: 'Show' }).click();
    chat = await bench().webview('.prompt-input');
    await chat.locator('.entry.permission.resolved', { hasText: 'Allowed once' }).last().waitFor({ timeout: 30_000 });
    await chat.locator('.entry.tool.status-completed').last().waitFor({ timeout: 30_000 });
    await untilBadge('');
  });

  it('says in an error notification that the agent failed in a hidden chat, and Restart Agent there reopens the session', async () => {
    await clearNotifications();
    const resumed = await chat.locator('.entry.info', { hasText: 'Session resumed.' }).count();
    await send('permission crash');
    await chat.locator('.entry.permission.pending').waitFor({ timeout: 30_000 });
    await hideChat();
    await toast('asks:').locator('.monaco-button', { hasText: 'Allow once' }).first().click({ timeout: 30_000 });
    const failed = toast(/exited|crashed|stopped/);
    await failed.waitFor({ timeout: 60_000 });
    assert.match(await failed.innerText(), /“.+”: .+exited/, 'it names the chat and says what happened');
    await untilBadge('1');
    await bench().screenshot('notification-failed', failed);
    await failed.locator('.monaco-button', { hasText: 'Restart Agent' }).click();
    await bench().runCommand('ACP: Focus Chat');
    chat = await bench().webview('.prompt-input');
    for (let i = 0; i < 600 && (await chat.locator('.entry.info', { hasText: 'Session resumed.' }).count()) <= resumed; i++)
      await bench().page.waitForTimeout(100);
    assert.ok((await chat.locator('.entry.info', { hasText: 'Session resumed.' }).count()) > resumed, 'the chat was reopened');
    await untilBadge('');
  });

  it('a permission notification answered in the chat first no longer acts: it says the request was already answered', async () => {
    await clearNotifications();
    await send('permission');
    await chat.locator('.entry.permission.pending').waitFor({ timeout: 30_000 });
    await hideChat();
    await toast('asks:').waitFor({ timeout: 30_000 });
    await bench().runCommand('ACP: Focus Chat');
    chat = await bench().webview('.prompt-input');
    await chat.locator('.entry.permission.pending button[data-kind=allow_once]').click({ timeout: 30_000 });
    await chat.locator('.entry.permission.resolved', { hasText: 'Allowed once' }).last().waitFor({ timeout: 30_000 });
    await untilBadge('');
    // The notification is still there (in the notification center if its toast has gone): its Reject is stale.
    await bench().runCommand('Notifications: Show Notifications');
    const stale = bench().page.locator('.notifications-center .notification-list-item', { hasText: 'asks:' });
    await stale.locator('.monaco-button', { hasText: /^Reject$/ }).click({ timeout: 30_000 });
    await bench().page.locator('.notification-list-item', { hasText: 'no longer waits: it was already answered' }).first().waitFor({ timeout: 30_000 });
    assert.equal(
      await chat
        .locator('.entry.permission.resolved')
        .last()
        .innerText()
        .then((t) => /Allowed once/.test(t)),
      true,
      'the answer in the chat stands',
    );
    await bench().runCommand('Notifications: Clear All Notifications');
  });

  it('with acpWorkspace.notifications "off": no notification and no badge', async () => {
    await clearNotifications();
    await send('permission');
    await chat.locator('.entry.permission.pending').waitFor({ timeout: 30_000 });
    // A waiting request counts in the badge even in view: its going away says the setting applies.
    await untilBadge('1');
    const file = path.join(workspaces, 'multi-root', 'multi-root.code-workspace');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"settings": {', '"settings": {\n    "acpWorkspace.notifications": "off",'));
    await untilBadge('');
    await hideChat();
    await bench().runCommand('ACP: Focus Chat');
    chat = await bench().webview('.prompt-input');
    await chat.locator('.entry.permission.pending button[data-kind=allow_once]').click({ timeout: 30_000 });
    await chat.locator('.entry.permission.resolved', { hasText: 'Allowed once' }).last().waitFor({ timeout: 30_000 });
    assert.equal(await bench().page.locator('.notifications-toasts .notification-toast').count(), 0, 'no notification');
    assert.equal(await badgeText(), '');
  });
});
