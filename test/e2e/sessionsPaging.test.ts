import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { seedStore, type SeedSession } from '../fixtures/referenceAgent/store';
import { useWorkbench } from './workbench';

/** A reference agent that answers each page of 20 sessions after 400 ms, so paging can be watched. */
const AGENT = 'Slow Listing Agent';
const SESSIONS = 300;

/** Its store, under the workbench's scratch folder (seeded before the workbench starts). */
const storeOf = (serverScratch: string) => path.join(serverScratch, 'paging-agent-store');

describe('the Sessions view pages in the background while searching (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench(
    'multi-root',
    (paths) => {
      const app = fs.realpathSync.native(path.join(paths.workspaces, 'multi-root', 'app'));
      const now = Date.now();
      const sessions: SeedSession[] = Array.from({ length: SESSIONS }, (_, i) => ({
        sessionId: `paged_${i}`,
        cwd: app,
        additionalDirectories: [],
        // The newer half says "multitask": a search for "task" ranks the older half's word-start matches above it.
        title: i === SESSIONS - 1 ? 'Paging task: the zebra at the end' : i < SESSIONS / 2 ? `Paging multitask ${i}` : `Paging task ${i}`,
        updatedAt: new Date(now - (i + 1) * 3_600_000).toISOString(),
      }));
      seedStore(storeOf(path.dirname(paths.userData)), sessions);
    },
    (scratch) => ({
      userSettings: {
        'acpWorkspace.agents': [
          {
            name: AGENT,
            command: '${node}',
            args: ['${extensionPath}/dist/reference-agent.js', '--store', storeOf(path.join(scratch, 'server')), '--page-size', '20', '--list-delay', '400'],
            writablePaths: [storeOf(path.join(scratch, 'server'))],
          },
        ],
      },
    }),
  );
  let view: FrameLocator;

  /** How many rows the list has (every row says its set size): the results, and the agent's status row. */
  const results = async () => Number(await view.locator('.row.session').first().getAttribute('aria-setsize'));
  const bar = () => view.locator('.paging');
  const barText = async () => (await bar().locator('.paging-text').innerText()).trim();

  before(async () => {
    const workbench = bench();
    await workbench.openAcpContainer();
    view = await workbench.webview('.sessions', 60_000);
    await view.locator('select[aria-label=Agent]').selectOption(AGENT);
    // Its sessions have one folder, not this workspace's three: "All" lists them.
    await view.locator('.scope', { hasText: 'All' }).click();
    await view.locator('.row.session').first().waitFor({ timeout: 60_000 });
  });

  it('shows progress while the results grow, stops on a click on Stop and says so, and goes on with Search All Sessions', async () => {
    await view.locator('.search-input').fill('paging task');
    const stop = bar().getByRole('button', { name: 'Stop loading sessions' });
    await stop.waitFor({ timeout: 30_000 });
    assert.match(await barText(), /^Searching… \d+ sessions loaded so far, more are loading\.$/);

    // The results grow as pages arrive, without scrolling.
    const first = await results();
    for (let i = 0; i < 300 && (await results()) <= first; i++) await bench().page.waitForTimeout(100);
    const grown = await results();
    assert.ok(grown > first, `the results grew (${first} → ${grown})`);
    await bench().screenshot('sessions-paging-progress');

    await stop.click();
    await bar().locator('.paging-text', { hasText: 'Stopped:' }).waitFor({ timeout: 30_000 });
    const loaded = Number(/Stopped: ([\d,.\s]+) sessions loaded/.exec(await barText())![1]!.replace(/\D/g, ''));
    // Every loaded session matches; `grown` counted the agent's status row too (loading, while pages arrived).
    assert.ok(loaded >= grown - 1 && loaded < SESSIONS, `stopped with ${loaded} of ${SESSIONS} loaded (${grown} rows before)`);
    assert.equal(await barText(), `Stopped: ${loaded.toLocaleString('en-US')} sessions loaded; older sessions are not searched.`);
    assert.match(
      await view.locator('.coverage').innerText(),
      new RegExp(`^Titles of ${loaded.toLocaleString('en-US')} sessions searched;`),
      'the search covers what was loaded',
    );
    const resume = bar().getByRole('button', { name: 'Search All Sessions' });
    assert.equal(await resume.count(), 1);
    assert.equal(await view.locator('.row.session', { hasText: 'the zebra at the end' }).count(), 0);
    await bench().screenshot('sessions-paging-stopped');

    await resume.click();
    await bar().waitFor({ state: 'detached', timeout: 60_000 });
    assert.match(await view.locator('.coverage').innerText(), /^Titles of 300 sessions searched;/);
    await view.locator('.search-input').fill('zebra');
    await view.locator('.row.session', { hasText: 'the zebra at the end' }).waitFor({ timeout: 30_000 });
  });

  it('the Stop control is reachable with the keyboard', async () => {
    // The list read again from its first page (Refresh), then a new search.
    await view.locator('.search-input').fill('');
    await bench().runCommand('ACP: Refresh Sessions');
    view = await bench().webview('.sessions');
    await view.locator('.search-input').fill('paging');
    const stop = bar().getByRole('button', { name: 'Stop loading sessions' });
    await stop.waitFor({ timeout: 30_000 });
    await view.locator('.search-input').focus();
    await view.locator('.search-input').press('Tab');
    for (let i = 0; i < 10 && !(await stop.evaluate((element) => element === element.ownerDocument.activeElement)); i++)
      await view.locator(':focus').press('Tab');
    assert.ok(await stop.evaluate((element) => element === element.ownerDocument.activeElement), 'Tab reaches Stop');
    await view.locator(':focus').press('Enter');
    await bar().locator('.paging-text', { hasText: 'Stopped:' }).waitFor({ timeout: 30_000 });
    assert.ok(
      await bar()
        .getByRole('button', { name: 'Search All Sessions' })
        .evaluate((element) => element === element.ownerDocument.activeElement),
      'focus stays on the control',
    );
  });

  it('keeps the selected row where it is on screen while better results arrive above it', async () => {
    await view.locator('.search-input').fill('');
    await bench().runCommand('ACP: Refresh Sessions');
    view = await bench().webview('.sessions');
    await view.locator('.search-input').fill('task');
    // Stopped while only the newer half ("multitask") is loaded, the row is selected; then the rest is loaded
    // and the older half's better matches ("task …") arrive above it. (Selecting while the pages ran raced the
    // pages: on a busy machine the better matches could all be there before the click.)
    await bar().getByRole('button', { name: 'Stop loading sessions' }).click({ timeout: 30_000 });
    await bar().locator('.paging-text', { hasText: 'Stopped:' }).waitFor({ timeout: 30_000 });
    assert.equal(await view.locator('.row.session', { hasText: /Paging task \d/ }).count(), 0, 'stopped before the better matches were loaded');
    const selected = view.locator('.row.session', { hasText: 'Paging multitask 0' });
    await selected.click();
    const before = (await selected.boundingBox())!;
    await bar().getByRole('button', { name: 'Search All Sessions' }).click();
    await bar().waitFor({ state: 'detached', timeout: 60_000 });
    const active = view.locator('.row.session.active');
    assert.equal((await active.locator('.title').innerText()).trim(), 'Paging multitask 0', 'the same session is still selected');
    assert.equal(await active.getAttribute('aria-selected'), 'true');
    const after = (await active.boundingBox())!;
    assert.ok(Math.abs(after.y - before.y) <= 1, `it stayed in place (${before.y} → ${after.y})`);
    assert.ok((await view.locator('.list').evaluate((element) => element.scrollTop)) > 0, 'the better results arrived above it, out of view');
    await bench().screenshot('sessions-paging-anchored');
  });
});
