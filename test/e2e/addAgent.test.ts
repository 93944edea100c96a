/**
 * ACP: Add Agent… in the real workbench (issue 17): the gallery lists the agents of a registry served by the
 * test, a search finds one, Install shows its progress and ends in "Installed", the agent is in the Agents
 * view, a New Session with it answers, and Uninstall (after a confirmation) removes it again.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { serveTestRegistry, type TestRegistry } from './testRegistry';
import { REPO_ROOT, useWorkbench } from './workbench';

const AGENT = {
  id: 'registry-reference',
  name: 'Registry Reference Agent',
  version: '1.0.0',
  description: 'The offline reference agent, installed from a registry served by the test',
};

describe('Add Agent: install an agent from the ACP Registry (real workbench, Chromium)', function () {
  this.timeout(180_000);
  let registry: TestRegistry | undefined;
  let scratch = '';

  // Before the workbench opens: its settings name the registry's URL.
  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-registry-'));
    registry = await serveTestRegistry(AGENT, scratch, path.join(REPO_ROOT, 'dist', 'reference-agent.js'));
  });
  after(async () => {
    await registry?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const bench = useWorkbench('multi-root', undefined, () => ({ userSettings: { 'acpWorkspace.registry.url': registry!.url } }));
  let gallery: FrameLocator;
  const card = () => gallery.locator(`.agent-card[data-agent="${AGENT.id}"]`);

  it('opens the gallery from the Command Palette with the search box focused, and lists the registry’s agent with its icon', async () => {
    await bench().runCommand('ACP: Add Agent');
    gallery = await bench().webview('.gallery-header', 60_000);
    await card().waitFor({ timeout: 60_000 });
    // The view focuses it once its first state is shown (an effect, after that frame is painted).
    const focused = () => gallery.locator('.search-input').evaluate((el) => el === el.ownerDocument.activeElement);
    for (let i = 0; i < 100 && !(await focused()); i++) await bench().page.waitForTimeout(100);
    assert.equal(await focused(), true, 'the search box has the focus');
    assert.match(await gallery.locator('.catalog-status').innerText(), /From 127\.0\.0\.1:\d+, checked/);
    assert.equal((await card().locator('.agent-name').innerText()).trim(), AGENT.name);
    assert.equal((await card().locator('.agent-version').innerText()).trim(), AGENT.version);
    assert.match(await card().locator('.chip.available').innerText(), /Download/);
    await card().locator('.agent-icon img[src^="data:image/svg+xml"]').waitFor({ timeout: 30_000 });
  });

  it('filters as the user types: a word of the description finds it, another word finds nothing', async () => {
    const search = gallery.locator('.search-input');
    await search.pressSequentially('nothing like this');
    await gallery.locator('.gallery-empty', { hasText: 'No agent matches “nothing like this”.' }).waitFor();
    await search.fill('');
    await search.pressSequentially('OFFLINE reference');
    await card().waitFor();
    assert.equal(await gallery.locator('.agent-card').count(), 1);
    assert.equal((await gallery.locator('.result-count').innerText()).trim(), '1 agent');
  });

  it('installs it: progress while the archive downloads, then "Installed" and the announcement', async () => {
    const before = registry!.downloads();
    await card()
      .getByRole('button', { name: `Install ${AGENT.name}` })
      .click();
    await card().getByRole('progressbar').waitFor({ timeout: 30_000 });
    await card()
      .getByRole('button', { name: `Cancel installing ${AGENT.name}` })
      .waitFor();
    await bench().screenshot('add-agent-progress', gallery.locator('main.gallery'));
    await card()
      .locator('.installed-version', { hasText: `Installed ${AGENT.version}` })
      .waitFor({ timeout: 90_000 });
    assert.equal(registry!.downloads(), before + 1, 'the archive was downloaded once');
    assert.equal(await card().locator('.agent-error').count(), 0);
    await gallery.locator('[role=status][aria-live=polite]', { hasText: `${AGENT.name} ${AGENT.version} was installed.` }).waitFor({ timeout: 10_000 });
    await gallery.getByRole('radio', { name: 'Installed (1)' }).waitFor();
    await bench().screenshot('add-agent-installed', gallery.locator('main.gallery'));
  });

  it('shows the installed agent in the Agents view', async () => {
    const sidebar = await bench().openAcpContainer();
    const row = bench().viewTree(sidebar, 'Agents').locator('.monaco-list-row', { hasText: AGENT.name });
    await row.waitFor({ timeout: 30_000 });
    await bench().screenshot('add-agent-agents-view', sidebar);
  });

  it('starts a session with it from its card; the agent answers in the chat', async () => {
    await bench().runCommand('ACP: Add Agent');
    gallery = await bench().webview('.gallery-header', 60_000);
    await card()
      .getByRole('button', { name: `New session with ${AGENT.name}` })
      .click();
    await bench().page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click({ timeout: 30_000 });
    const chat = await bench().webview('.prompt-input', 60_000);
    await chat.locator('.agent-name', { hasText: AGENT.name }).waitFor({ timeout: 60_000 });
    await chat.locator('.roots .chip').first().waitFor();
    assert.deepEqual(
      (await chat.locator('.roots .chip').allInnerTexts()).map((r) => r.trim()),
      ['app', 'lib', 'docs'],
      'the session has the workspace’s three folders',
    );
    await chat.locator('.prompt-input').fill('hello from the registry');
    await chat.locator('.prompt-input').press('Enter');
    await chat.locator('.entry.agent', { hasText: 'Echo: hello from the registry' }).waitFor({ timeout: 60_000 });
    await bench().screenshot('add-agent-chat');
  });

  it('uninstalls it after a confirmation: the card offers Install again and the Agents view no longer lists it', async () => {
    await bench().runCommand('ACP: Add Agent');
    gallery = await bench().webview('.gallery-header', 60_000);
    await card()
      .getByRole('button', { name: `Uninstall ${AGENT.name}` })
      .click();
    const dialog = bench().page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    assert.match(await dialog.innerText(), new RegExp(`Uninstall ${AGENT.name} ${AGENT.version}\\?`));
    await dialog.getByRole('button', { name: 'Uninstall' }).click();
    await card()
      .getByRole('button', { name: `Install ${AGENT.name}` })
      .waitFor({ timeout: 60_000 });
    const sidebar = await bench().openAcpContainer();
    const rows = bench().viewTree(sidebar, 'Agents').locator('.monaco-list-row', { hasText: AGENT.name });
    for (let i = 0; i < 100 && (await rows.count()) > 0; i++) await bench().page.waitForTimeout(100);
    assert.equal(await rows.count(), 0, 'the Agents view no longer lists it');
  });
});
