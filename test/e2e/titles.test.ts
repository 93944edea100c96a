import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { seedStore } from '../fixtures/referenceAgent/store';
import { useWorkbench, type WorkbenchPaths } from './workbench';

const AGENT = 'Reference Agent (offline)';
const RENAMED = 'Greeting, renamed by me';
const FORKED = `${RENAMED} (fork)`;

/** One session of this workspace in the offline agent's store, titled by the agent. */
function seed(paths: WorkbenchPaths): void {
  const root = path.join(paths.workspaces, 'multi-root');
  const [app, lib, docs] = ['app', 'lib', 'docs'].map((name) => fs.realpathSync.native(path.join(root, name))) as [string, string, string];
  const store = path.join(paths.userData, 'User', 'globalStorage', 'acp-workspace.acp-workspace', 'reference-agent');
  seedStore(store, [
    {
      sessionId: 'ui_titled',
      cwd: app,
      additionalDirectories: [lib, docs],
      title: 'Fix the greeting',
      updatedAt: new Date(Date.now() - 3_600_000).toISOString(),
      history: [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Please fix the greeting in lib' } },
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'The greeting now says hello to everyone.' } },
      ],
    },
  ]);
}

describe('one title everywhere: the chat tab, the Agents view and the Sessions view (real workbench, Chromium)', function () {
  this.timeout(300_000);
  const bench = useWorkbench('multi-root', seed);
  let view: FrameLocator;

  const sessionsView = async () => (view = await bench().webview('.sessions', 60_000));
  const row = (title: string) => view.locator('.row.session', { has: view.locator('.title', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }) });
  const tab = (title: string) => bench().page.locator('.tabs-container .tab', { hasText: `${title} · ${AGENT}` });

  /** The Agents view's tree, with the agent's open sessions shown under it. */
  async function agentsViewSessions(): Promise<Locator> {
    const sidebar = await bench().openAcpContainer();
    const tree = bench().viewTree(sidebar, 'Agents');
    const agent = tree.locator('.monaco-list-row', { hasText: AGENT });
    await agent.waitFor({ timeout: 30_000 });
    if ((await agent.getAttribute('aria-expanded')) === 'false') await agent.locator('.monaco-tl-twistie').click();
    return tree;
  }

  /**
   * Waits until the tab (and the chat's header), the Agents view and the Sessions view all show `title` for one
   * session, its chat ready (a tab restored after a reload reopens its session when it is first shown: until
   * then the other views may still show the session as not open).
   */
  async function showsEverywhere(title: string): Promise<void> {
    await tab(title).waitFor({ timeout: 60_000 });
    await tab(title).click();
    await bench()
      .page.locator('.tabs-container .tab.active', { hasText: `${title} · ${AGENT}` })
      .waitFor({ timeout: 60_000 });
    const chat = await bench().webview(`.chat-header .session-title:text-is("${title}")`, 60_000);
    await chat.locator('.chat-header .status.status-idle').waitFor({ timeout: 60_000 });
    const tree = await agentsViewSessions();
    await tree.locator('.monaco-list-row .label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }).waitFor({ timeout: 60_000 });
    await sessionsView();
    await row(title).waitFor({ timeout: 60_000 });
  }

  /** Answers the modal dialog with the button labelled `label`. */
  async function answerDialog(label: string): Promise<void> {
    const dialog = bench().page.locator('.monaco-dialog-box');
    await dialog.locator('.monaco-button', { hasText: label }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  }

  before(async () => {
    await bench().openAcpContainer();
    await sessionsView();
    await view.locator('select[aria-label=Agent]').selectOption(AGENT);
    await row('Fix the greeting').waitFor({ timeout: 60_000 });
    await row('Fix the greeting').click();
    await view.locator('.details .button', { hasText: 'Open' }).click();
    await answerDialog("Use the Session's Folders");
    const chat = await bench().webview('.prompt-input', 60_000);
    await chat.locator('.entry.info', { hasText: 'the agent replayed its history' }).waitFor({ timeout: 60_000 });
    await tab('Fix the greeting').waitFor({ timeout: 60_000 });
  });

  it('an open session has its title in the chat tab, the Agents view and the Sessions view (no “Session from …”)', async () => {
    await showsEverywhere('Fix the greeting');
    const labels = await (await agentsViewSessions()).locator('.monaco-list-row .label-name').allInnerTexts();
    assert.ok(!labels.some((label) => /^Session (in .+ )?from /.test(label)), `no dated name for a named session: ${labels.join(' | ')}`);
  });

  it('a rename in the Sessions view renames the chat tab, the Agents view row and the Sessions row, also after a window reload', async () => {
    await sessionsView();
    await row('Fix the greeting').click();
    await view.locator('.details .button', { hasText: 'Rename' }).click();
    const input = bench().page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ timeout: 30_000 });
    await input.fill(RENAMED);
    await input.press('Enter');
    await showsEverywhere(RENAMED);
    assert.equal(await tab('Fix the greeting').count(), 0, 'the tab lost its old title');
    const labels = await (await agentsViewSessions()).locator('.monaco-list-row .label-name').allInnerTexts();
    assert.ok(!labels.some((label) => /^Session (in .+ )?from /.test(label)), `no dated name for a named session: ${labels.join(' | ')}`);
    await bench().screenshot('titles-renamed');

    await bench().reloadWindow();
    await showsEverywhere(RENAMED);
    assert.equal(await tab('Fix the greeting').count(), 0, 'the old title did not come back with the reload');
  });

  it('a fork is “<title> (fork)” in its tab, the Agents view and the Sessions view, before and after a reload', async () => {
    await sessionsView();
    await row(RENAMED).click();
    await view.locator('.details .button', { hasText: 'Fork' }).click();
    // The fork's own tab (the chat it was forked from is a webview with a prompt box too).
    await bench().webview(`.entry.info:has-text("Forked from “${RENAMED}”")`, 60_000);
    await showsEverywhere(FORKED);
    await showsEverywhere(RENAMED);
    assert.equal(await tab('Untitled session').count(), 0);
    await bench().screenshot('titles-forked');

    await bench().reloadWindow();
    await showsEverywhere(FORKED);
    await showsEverywhere(RENAMED);
    const rows = async () => (await view.locator('.row.session .title').allInnerTexts()).map((t) => t.trim()).sort();
    for (let i = 0; i < 300 && JSON.stringify(await rows()) !== JSON.stringify([FORKED, RENAMED].sort()); i++) await bench().page.waitForTimeout(100);
    assert.deepEqual(await rows(), [FORKED, RENAMED].sort(), 'the Sessions view names both the same way');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
