/**
 * Chat tabs that were never looked at come back after a real Reload Window (issue 25, item 8): Start One Session
 * per Folder opens a chat per folder, all but the last one behind it, and their webviews never run before the
 * reload (so they never saved which session they show). Each must come back with its session when clicked,
 * nothing sent in it, rather than vanish ("OverlayWebview has been disposed" in the workbench log).
 */
import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { useWorkbench } from './workbench';

/**
 * The reference agent without additional folders (a multi-root workspace offers one session per folder), keeping its
 * sessions on disk as the built-in one does (a restarted agent can load them).
 */
const AGENT = 'Single-Folder Agent';
const FOLDERS = ['app', 'lib', 'docs'];

describe('chat tabs never shown before Reload Window come back (real workbench, Chromium)', function () {
  this.timeout(240_000);
  const bench = useWorkbench('multi-root', undefined, () => ({
    userSettings: {
      'acpWorkspace.agents': [
        {
          name: AGENT,
          command: '${node}',
          args: ['${extensionPath}/dist/reference-agent.js', '--disable', 'additionalDirectories', '--store', '${globalStorage}/single-folder-agent'],
        },
      ],
    },
  }));
  // Titled by when they started ("Session in app from 04:41 AM · Single-Folder Agent").
  const tab = (folder: string): Locator => bench().page.locator('.tabs-container .tab', { hasText: new RegExp(`Session in ${folder} from .* · ${AGENT}`) });
  const chatTabs = (): Locator => bench().page.locator('.tabs-container .tab', { hasText: `· ${AGENT}` });

  it('Start One Session per Folder opens a chat per folder, all but the last one behind it', async () => {
    const workbench = bench();
    await workbench.newSession(AGENT);
    // The primary folder first (a quick pick), then the question about the other folders (a dialog).
    const firstFolder = workbench.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'app' }).first();
    const perFolder = workbench.page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Start One Session per Folder' });
    await Promise.race([firstFolder.waitFor({ timeout: 60_000 }), perFolder.waitFor({ timeout: 60_000 })]);
    if (await firstFolder.isVisible()) await workbench.pick('app');
    await perFolder.click({ timeout: 60_000 });
    await workbench.webview(`.agent-name:has-text("${AGENT}")`, 60_000);
    for (const folder of FOLDERS) await tab(folder).waitFor({ timeout: 30_000 });
    assert.equal(await chatTabs().count(), FOLDERS.length);
  });

  it('after Reload Window each of them comes back with its session when clicked; none vanishes', async () => {
    await bench().reloadWindow();
    for (const folder of FOLDERS) await tab(folder).waitFor({ timeout: 60_000 });
    for (const folder of FOLDERS) {
      await tab(folder).click();
      const chat = await bench().webview(`.entry.info:has-text("Session opened")`, 60_000);
      assert.equal(await chatTabs().count(), FOLDERS.length, `no chat tab vanished (the ${folder} one clicked)`);
      assert.match(await chat.locator('.chat-header').innerText(), new RegExp(`Session in ${folder} from`), `the ${folder} chat is shown, with its session`);
      await chat.locator('.prompt-input').waitFor({ timeout: 30_000 });
      assert.equal(await chat.locator('.entry.error').count(), 0, `the ${folder} chat says no error`);
    }
    await bench().screenshot('chat-tabs-after-reload');
  });
});
