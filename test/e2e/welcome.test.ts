import * as assert from 'node:assert/strict';
import { useWorkbench, type Workbench } from './workbench';

/**
 * VS Code shows a view's welcome content until the extension registers the view's data too: wait until the
 * extension is active (its Sessions view has rendered, which it does after the Agents view is registered).
 */
async function extensionReady(bench: Workbench): Promise<void> {
  await bench.webview('.sessions', 60_000);
}

describe('the Agents view in Restricted Mode (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const workbench = useWorkbench('single', undefined, () => ({ workspaceTrust: true }));

  it('says agents do not run in Restricted Mode, and its button opens Manage Workspace Trust', async () => {
    const bench = workbench();
    const page = bench.page;
    // The workbench asks whether to trust the folder's authors: a user who says no is in Restricted Mode.
    const dontTrust = page.getByRole('button', { name: /No, I don.t trust the authors/ });
    await dontTrust.click({ timeout: 60_000 }).catch(() => undefined);
    const sidebar = await bench.openAcpContainer();
    const pane = sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Agents' }) });
    await extensionReady(bench);
    assert.equal(await pane.locator('.monaco-list-row').count(), 0, 'no agents listed');
    await pane.getByText('Agents do not run in Restricted Mode', { exact: false }).waitFor({ timeout: 60_000 });
    await bench.screenshot('agents-view-restricted', sidebar);
    await pane.getByRole('button', { name: 'Manage Workspace Trust' }).click();
    await page.locator('.tabs-container .tab', { hasText: 'Workspace Trust' }).waitFor({ timeout: 30_000 });
  });
});

describe('the Agents view without a folder (real workbench, Chromium)', function () {
  this.timeout(180_000);
  // No folder and no workspace: an empty window.
  const workbench = useWorkbench('no folder');

  it('offers Open Folder, Add Folder to Workspace and the walkthrough', async () => {
    const bench = workbench();
    const page = bench.page;
    const sidebar = await bench.openAcpContainer();
    const pane = sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Agents' }) });
    await extensionReady(bench);
    assert.equal(await pane.locator('.monaco-list-row').count(), 0, 'no agents listed');
    await pane.getByText('Open a folder, or add folders to a workspace, to start a session.', { exact: false }).waitFor({ timeout: 60_000 });
    for (const button of ['Open Folder', 'Add Folder to Workspace']) await pane.getByRole('button', { name: button }).waitFor();
    await bench.screenshot('agents-view-no-folder', sidebar);
    await pane.locator('a', { hasText: 'Get started' }).click();
    await page.locator('.gettingStartedContainer .step-title', { hasText: 'Pick an agent' }).first().waitFor({ timeout: 30_000 });
  });
});
