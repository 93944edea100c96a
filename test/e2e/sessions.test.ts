import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { dateGroup, dateGroupLabel } from '../../src/history/dateGroups';
import { seedStore, type SeedSession } from '../fixtures/referenceAgent/store';
import { useWorkbench, type WorkbenchPaths } from './workbench';

const AGENT = 'Reference Agent (offline)';

/** Sessions in the offline agent's store before the workbench starts. */
function seed(paths: WorkbenchPaths): void {
  const root = path.join(paths.workspaces, 'multi-root');
  const [app, lib, docs] = ['app', 'lib', 'docs'].map((name) => fs.realpathSync.native(path.join(root, name))) as [string, string, string];
  const store = path.join(paths.userData, 'User', 'globalStorage', 'acp-workspace.acp-workspace', 'reference-agent');
  const now = Date.now();
  const at = (hours: number) => new Date(now - hours * 3_600_000).toISOString();
  const sessions: SeedSession[] = [
    {
      sessionId: 'ui_greeting',
      cwd: app,
      additionalDirectories: [lib, docs],
      title: 'Fix the greeting',
      updatedAt: at(1),
      history: [
        { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Please fix the greeting in lib' } },
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'The greeting now says hello to everyone.' } },
      ],
    },
    { sessionId: 'ui_reordered', cwd: app, additionalDirectories: [docs, lib], title: 'Parser cleanup', updatedAt: at(2) },
    { sessionId: 'ui_html', cwd: app, additionalDirectories: [lib, docs], title: '<img src=x onerror="document.title=1"><b>Bold?</b>', updatedAt: at(3) },
    { sessionId: 'ui_obsolete', cwd: app, additionalDirectories: [lib, docs], title: 'Obsolete experiment', updatedAt: at(30) },
    { sessionId: 'ui_docs', cwd: docs, additionalDirectories: [], title: 'Docs pass', updatedAt: at(50) },
    { sessionId: 'ui_elsewhere', cwd: '/srv/elsewhere', additionalDirectories: [], title: 'Somewhere else', updatedAt: at(24 * 20) },
  ];
  for (let i = 0; i < 40; i++)
    sessions.push({ sessionId: `ui_bulk_${i}`, cwd: lib, additionalDirectories: [], title: `Library task ${i}`, updatedAt: at(100 + i) });
  seedStore(store, sessions);
}

describe('the session history browser (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root', seed);
  let view: FrameLocator;

  const rowTitles = async () => (await view.locator('.row.session .title').allInnerTexts()).map((t) => t.trim());
  const row = (title: string) => view.locator('.row.session', { has: view.locator('.title', { hasText: title }) });

  /** Answers the modal dialog with the button labelled `label`, after checking its text. */
  async function answerDialog(label: string, expect?: RegExp): Promise<string> {
    const dialog = bench().page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    const text = await dialog.innerText();
    if (expect) assert.match(text, expect);
    await dialog.locator('.monaco-button', { hasText: label }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    return text;
  }

  before(async () => {
    const workbench = bench();
    await workbench.openAcpContainer();
    view = await workbench.webview('.sessions', 60_000);
  });

  it('lists the agent’s sessions for this workspace, grouped by date, after picking the agent', async () => {
    await view.locator('select[aria-label=Agent]').selectOption(AGENT);
    await row('Fix the greeting').waitFor({ timeout: 60_000 });
    assert.deepEqual(await rowTitles(), ['Fix the greeting', '<img src=x onerror="document.title=1"><b>Bold?</b>', 'Obsolete experiment']);
    const groups = [...new Set([1, 3, 30].map((hours) => dateGroup(Date.now() - hours * 3_600_000, Date.now())))];
    assert.deepEqual(
      await view
        .locator('.row.group')
        .allInnerTexts()
        .then((t) => t.map((x) => x.split('\n')[0]!.trim().toLowerCase())),
      groups.map((g) => dateGroupLabel(g).toLowerCase()),
    );
    const chips = await row('Fix the greeting').locator('.chip').allInnerTexts();
    assert.deepEqual(
      chips.map((c) => c.trim()),
      ['app', 'lib', 'docs'],
    );
    await bench().screenshot('sessions-view');
  });

  it('renders a title with markup as plain text', async () => {
    const html = row('<img src=x');
    await html.waitFor();
    assert.equal(await view.locator('.list img, .list b').count(), 0, 'no element was created from the title');
    assert.equal((await html.locator('.title').innerText()).trim(), '<img src=x onerror="document.title=1"><b>Bold?</b>');
  });

  it('switches scope: these folders, then all (paging as the list scrolls)', async () => {
    await view.locator('.scope', { hasText: 'These folders' }).click();
    await row('Docs pass').waitFor({ timeout: 30_000 });
    assert.equal(await row('Somewhere else').count(), 0);
    await view.locator('.scope', { hasText: 'All' }).click();
    await row('Parser cleanup').waitFor({ timeout: 30_000 });
    const list = view.locator('.list');
    await list.evaluate((element) => (element.scrollTop = element.scrollHeight));
    await row('Somewhere else').waitFor({ timeout: 30_000 });
    const missing = row('Somewhere else').locator('.chip.missing');
    assert.equal((await missing.innerText()).trim(), 'elsewhere', 'a folder that no longer exists is flagged');
    assert.ok((await view.locator('.row').count()) < 60, 'only the rows in view are in the DOM');
    await list.evaluate((element) => (element.scrollTop = 0));
  });

  it('searches titles with highlighted matches and says what the search covered', async () => {
    await view.locator('.search-input').fill('libtask 3');
    await view.locator('.coverage').waitFor({ timeout: 30_000 });
    await row('Library task 3').first().locator('mark').first().waitFor({ timeout: 30_000 });
    const marked = await row('Library task 3').first().locator('mark').allInnerTexts();
    assert.ok(marked.join('').replace(/\s/g, '').toLowerCase().includes('libtask'), marked.join('|'));
    // Transcript text is searched when the window has a transcript index, else the line says it is not (once
    // that search is over: until then the line says it is searching).
    await view
      .locator('.coverage', { hasText: /Titles of \d+ sessions searched; (transcript text of \d+ of them|transcript text is not searched here)/ })
      .waitFor({ timeout: 30_000 });
    await bench().screenshot('sessions-search');
    // Clear the search and pick a scope at once, before the host can answer the first change: the second
    // change builds on the first, so the old search does not come back.
    interface Button {
      textContent: string | null;
      click(): void;
    }
    interface Input {
      value: string;
      dispatchEvent(event: Event): void;
      ownerDocument: { querySelectorAll(selector: string): ArrayLike<Button> };
    }
    await view.locator('.search-input').evaluate((element) => {
      const input = element as unknown as Input;
      input.value = '';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      Array.from(input.ownerDocument.querySelectorAll('.scope'))
        .find((button) => button.textContent?.includes('This workspace'))
        ?.click();
    });
    await row('Obsolete experiment').waitFor();
    assert.equal(await view.locator('.coverage').count(), 0, 'no search any more');
    assert.equal(await view.locator('.search-input').inputValue(), '');
  });

  it('opens a session with the keyboard: consent for its folders, then its history replays in a chat', async () => {
    await row('Fix the greeting').click();
    await view.locator('.list').press('Enter');
    await answerDialog("Use the Session's Folders", /Open “Fix the greeting” with which folders\?[\s\S]*Not shared with agents yet: “lib” .* and “docs”/);
    const chat = await bench().webview('.prompt-input');
    await chat.locator('.entry.user', { hasText: 'Please fix the greeting in lib' }).waitFor({ timeout: 30_000 });
    await chat.locator('.entry.agent', { hasText: 'The greeting now says hello to everyone.' }).waitFor();
    await chat.locator('.entry.info', { hasText: 'the agent replayed its history' }).waitFor();
    await bench().screenshot('sessions-opened');
    view = await bench().webview('.sessions');
    await row('Fix the greeting').locator('.open-dot').waitFor({ timeout: 10_000 });
  });

  it('forks a session with a different folder set: both lists are shown, the agent gets the chosen one', async () => {
    await view.locator('.scope', { hasText: 'These folders' }).click();
    await row('Parser cleanup').click();
    await view.locator('.details .button', { hasText: 'Fork' }).click();
    const text = await answerDialog("Use This Workspace's Folders", /Fork “Parser cleanup” with which folders\?/);
    assert.match(text, /The session's folders: “app” .*, “docs” .*, “lib”/);
    assert.match(text, /This workspace's folders: “app” .*, “lib” .*, “docs”/);
    // The chat opened by the earlier test stays visible until the fork's tab comes: look for the fork's own chat.
    const chat = await bench().webview('.entry.info:has-text("Forked from “Parser cleanup”")', 60_000);
    await chat.locator('.prompt-input').fill('status');
    await chat.locator('.prompt-input').press('Enter');
    const answer = chat.locator('.entry.agent', { hasText: 'Status:' }).last();
    await answer.waitFor({ timeout: 30_000 });
    // The answer streams in chunks: read it once the turn has ended (Send is back), not at its first words.
    await chat.locator('.button.send').waitFor({ timeout: 30_000 });
    assert.match(await answer.innerText(), /folders \S+\/app, \S+\/lib, \S+\/docs\./, 'the fork has the workspace’s folders in its order');
    view = await bench().webview('.sessions');
  });

  it('deletes a session after confirming, with the Delete key', async () => {
    await row('Obsolete experiment').click();
    await view.locator('.list').press('Delete');
    await answerDialog('Delete', /Delete “Obsolete experiment”\?[\s\S]*cannot be undone/);
    await row('Obsolete experiment').waitFor({ state: 'detached', timeout: 30_000 });
    await bench().screenshot('sessions-after-delete');
  });
});
