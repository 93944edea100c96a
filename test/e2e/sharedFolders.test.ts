import * as assert from 'node:assert/strict';
import { useWorkbench } from './workbench';

describe('sharing workspace folders with an agent (real prompts, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root');

  const quickInput = () => bench().page.locator('.quick-input-widget');
  const rows = () => quickInput().locator('.quick-input-list .monaco-list-row');
  /** Each row's label (its first line; a hidden detail line may linger from an earlier pick). */
  const labels = () => rows().evaluateAll((list) => list.map((row) => row.querySelector('.quick-input-list-row .label-name')?.textContent ?? ''));
  const checkbox = (row: ReturnType<typeof rows>) => row.locator('.monaco-checkbox');
  /** The OK button of a multi-select pick (Enter on a focused row would toggle it instead). */
  const accept = async () => {
    await quickInput().locator('.quick-input-action .monaco-button', { hasText: 'OK' }).click();
    await quickInput().waitFor({ state: 'hidden', timeout: 10_000 });
  };

  async function sessionRow(description: string) {
    const sidebar = await bench().openAcpContainer();
    const tree = bench().viewTree(sidebar, 'Agents');
    const row = tree.locator('.monaco-list-row', { hasText: 'Session' }).filter({ hasText: description });
    // The agent's row opens by itself when it gets a session; if the tree kept it closed (it can, on a busy
    // machine), open it like a person would.
    const agent = tree.locator('.monaco-list-row[aria-expanded="false"]', { hasText: 'Reference Agent (offline)' });
    const deadline = Date.now() + 30_000;
    while (!(await row.first().isVisible())) {
      if (Date.now() > deadline) await row.first().waitFor({ timeout: 1 }); // fails, saying what it looked for
      if (await agent.isVisible()) await agent.click();
      await bench().page.waitForTimeout(100);
    }
    return { sidebar, row: row.first() };
  }

  it('asks which folders to share, listing each by name and path, and starts the session with them', async () => {
    await bench().newSession('Reference Agent (offline)');
    await quickInput().locator('.quick-input-title', { hasText: 'Share workspace folders with Reference Agent (offline)?' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await labels(), ['lib', 'docs']);
    assert.match((await rows().first().getAttribute('aria-label')) ?? '', /^lib, \/.*multi-root\/lib$/, 'each folder is listed with its path');
    assert.equal(
      await rows()
        .filter({ has: bench().page.locator('.monaco-checkbox.checked') })
        .count(),
      2,
      'both are proposed',
    );
    await bench().screenshot('consent-prompt', quickInput());
    await bench().page.keyboard.press('Enter');
    const { sidebar, row } = await sessionRow('app, lib, docs');
    assert.match((await row.getAttribute('aria-label')) ?? '', /sharing app, lib and docs/);
    await bench().screenshot('session-with-three-folders', sidebar);
    // The session's chat opens and takes the focus once it has loaded; like a person, wait until it shows
    // before the next command (a quick pick opened meanwhile would close when the chat takes the focus).
    await bench().webview('.prompt-input');
  });

  it('lets the user revoke a folder in Manage Shared Folders, then asks again and honours a refusal', async () => {
    await bench().runCommand('ACP: Manage Shared Folders');
    // Grants are per agent: first which agent, then its folders.
    await quickInput().locator('.quick-input-title', { hasText: 'Shared Folders' }).waitFor({ timeout: 30_000 });
    await bench().pick('Reference Agent (offline)');
    await quickInput().locator('.quick-input-title', { hasText: 'Folders shared with Reference Agent (offline)' }).waitFor({ timeout: 30_000 });
    const lib = rows().filter({ hasText: 'lib' }).first();
    assert.equal(await checkbox(lib).getAttribute('aria-checked'), 'true', 'lib was granted');
    await checkbox(lib).click();
    assert.equal(await checkbox(lib).getAttribute('aria-checked'), 'false');
    await bench().screenshot('manage-shared-folders', quickInput());
    await accept();
    // The open session of the first test can no longer reach lib: it says so, and the Agents view shows it.
    const { row: revoked } = await sessionRow('no longer shared: lib');
    assert.match((await revoked.getAttribute('aria-label')) ?? '', /sharing app and docs/);
    const notice = bench().page.locator('.notifications-toasts .notification-toast', { hasText: 'is no longer shared with Reference Agent (offline)' });
    await notice.waitFor({ timeout: 30_000 });
    await notice.locator('.monaco-button', { hasText: 'Keep Current Folders' }).click();

    await bench().newSession('Reference Agent (offline)');
    await quickInput().locator('.quick-input-title', { hasText: 'Share workspace folders' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await labels(), ['lib'], 'only the revoked folder is asked about');
    await checkbox(rows().first()).click();
    assert.equal(await checkbox(rows().first()).getAttribute('aria-checked'), 'false');
    await accept();
    await sessionRow('app, docs');
  });
});
