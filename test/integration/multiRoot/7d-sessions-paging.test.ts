import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { SessionRow, ViewSettings } from '../../../src/shared/historyProtocol';
import { seedStore, type SeedSession } from '../../fixtures/referenceAgent/store';
import { activate, addRecordingAgent, assertConforms, waitFor, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const SESSIONS = 250;
/** The oldest session, on the agent's last page: the only one about zebras. */
const OLDEST = 'page_249';

describe('the Sessions view pages in the background while a search is typed (250 sessions, the match on the last page)', function () {
  this.timeout(90_000);
  let api: TestApi;
  let app: string;
  let previous: ViewSettings;
  const agents: RecordingAgent[] = [];
  let seq = 1000;

  function seeds(): SeedSession[] {
    const start = Date.now() - 60_000;
    return Array.from({ length: SESSIONS }, (_, i) => ({
      sessionId: `page_${String(i).padStart(3, '0')}`,
      cwd: app,
      additionalDirectories: [],
      title: i === SESSIONS - 1 ? 'Teach the zebra to paginate' : `Paged session ${i} about greeting`,
      updatedAt: new Date(start - i * 60_000).toISOString(),
    }));
  }

  async function agentWith(name: string, args: string[]): Promise<RecordingAgent> {
    const agent = await addRecordingAgent(name, args);
    agents.push(agent);
    seedStore(agent.storeDir, seeds());
    await waitFor(() => api.agents.find(name) !== undefined, 'the agent setting');
    return agent;
  }

  async function settings(change: Partial<ViewSettings>): Promise<void> {
    await api.sessionsView.receive({ type: 'settings', seq: ++seq, settings: { ...api.sessionsView.model.currentSettings, ...change } });
  }

  /** Shows one agent's sessions (it starts) and reads its first page, as the view does for its first screen. */
  async function showAgent(name: string): Promise<NonNullable<ReturnType<TestApi['history']['catalog']>>> {
    await settings({ agent: name, scope: 'all', query: '', showHidden: false });
    await waitFor(() => api.history.catalog(name) !== undefined, `${name} to run`, 30_000);
    const catalog = api.history.catalog(name)!;
    // What the view reads when the end of the (empty) list shows.
    await api.sessionsView.loadMore(name);
    await waitFor(() => catalog.size > 0 && !catalog.isLoading, 'the first page');
    return catalog;
  }

  const hits = (): SessionRow[] => {
    const state = api.sessionsView.model.compute();
    return api.sessionsView.model.rows(0, state.count).filter((r): r is SessionRow => r.kind === 'session');
  };
  const lists = (agent: RecordingAgent) => agent.received().filter((m) => m.method === 'session/list');

  before(async () => {
    api = await activate();
    api.setRootsUi(new ScriptedRootsUi());
    app = fs.realpathSync.native(vscode.workspace.workspaceFolders![0]!.uri.fsPath);
    previous = api.sessionsView.model.currentSettings;
    // The view on screen, as the user has it while typing a search (paging waits while it is not shown).
    await vscode.commands.executeCommand('acpWorkspace.sessions.focus');
    await waitFor(() => api.sessionsView.visible, 'the Sessions view to show');
  });

  after(async () => {
    await settings(previous);
    // Back to the Explorer, where the window started: the Sessions view is hidden again for the suites after this one.
    await vscode.commands.executeCommand('workbench.view.explorer');
    for (const agent of agents) {
      await api.agents.stop(agent.name);
      await agent.dispose();
    }
    api.setRootsUi(undefined);
  });

  it('typing a search finds a session on the last page without any scrolling', async () => {
    const agent = await agentWith('Paging Agent', ['--page-size', '50']);
    const catalog = await showAgent('Paging Agent');
    assert.ok(catalog.size < SESSIONS && catalog.hasMore([undefined]), 'only the first screen is loaded');
    assert.equal(
      hits().some((r) => r.sessionId === OLDEST),
      false,
    );

    await settings({ query: 'zebra' });
    await waitFor(() => hits().some((r) => r.sessionId === OLDEST), 'the session on the last page to be found', 30_000);
    assert.deepEqual(
      hits().map((r) => r.sessionId),
      [OLDEST],
    );
    assert.equal(catalog.size, SESSIONS);
    // Page after page through the cursors, each read once (a courtesy refresh of the first page, no cursor, may
    // come in between when the view is shown again).
    const cursors = lists(agent).flatMap((m) => (typeof m.params?.['cursor'] === 'string' ? [m.params['cursor']] : []));
    assert.equal(cursors.length, SESSIONS / 50 - 1, 'each page after the first read once');
    assert.equal(new Set(cursors).size, cursors.length);
    await waitFor(() => api.sessionsView.currentPagingBar() === undefined, 'the paging bar to go once all is loaded');
    assert.match(api.sessionsView.model.compute().coverage!, /^Titles of 250 sessions searched;/);
    assertConforms(agent.received());
  });

  it('Stop cancels the page in flight ($/cancel_request), keeps what was loaded and says so; Search All Sessions goes on', async () => {
    const agent = await agentWith('Slow Paging Agent', ['--page-size', '25', '--list-delay', '150']);
    const catalog = await showAgent('Slow Paging Agent');
    const sentAtSearch = lists(agent).length;
    await settings({ query: 'zebra' });
    // A page of the background paging in flight (the first screen's pages, read as the list showed, are done).
    await waitFor(
      () => api.sessionsView.currentPagingBar()?.state === 'loading' && lists(agent).length >= sentAtSearch + 2 && catalog.isLoading,
      'background paging with a page in flight',
      30_000,
    );
    // Stop in the same turn in which the page was seen in flight.
    const stopped = api.sessionsView.receive({ type: 'paging', action: 'stop' });
    const loaded = catalog.size;
    await stopped;
    await waitFor(() => !catalog.isLoading, 'the cancelled page to settle');

    // Showing the view again after a while also reads the first page (a courtesy refresh, no cursor, never
    // cancelled): the pages are the lists with a cursor, and the refresh may come at any moment in between.
    const pages = () => lists(agent).filter((m) => typeof m.params?.['cursor'] === 'string');
    const cancels = agent.received().filter((m) => m.method === '$/cancel_request');
    assert.equal(cancels.length, 1);
    const cancelled = pages().at(-1)!;
    assert.deepEqual(cancels[0]!.params, { requestId: cancelled.id }, 'the page in flight was cancelled');
    assert.equal(catalog.size, loaded, 'what was loaded stays');
    assert.equal(catalog.errorFor([undefined]), undefined, 'a stop is no error');
    assert.deepEqual(api.sessionsView.currentPagingBar(), {
      state: 'stopped',
      action: 'resume',
      message: `Stopped: ${loaded} sessions loaded; older sessions are not searched.`,
    });
    assert.equal(
      hits().some((r) => r.sessionId === OLDEST),
      false,
    );
    const status = api.sessionsView.model.rows(0, api.sessionsView.model.compute().count).at(-1)!;
    assert.equal(status.kind === 'status' && status.state, 'more');

    // Typing on does not start it again; Search All Sessions does, from the cancelled page on.
    const cancelledCursor = cancelled.params?.['cursor'];
    const sentBefore = pages().length;
    await settings({ query: 'zebra paginate' });
    assert.equal(catalog.isLoading, false);
    await api.sessionsView.receive({ type: 'paging', action: 'resume' });
    await waitFor(() => hits().some((r) => r.sessionId === OLDEST), 'the search to reach the last page', 30_000);
    assert.equal(pages()[sentBefore]!.params?.['cursor'], cancelledCursor, 'the cancelled page is read again, nothing skipped');
    assert.equal(catalog.size, SESSIONS);
    assertConforms(agent.received());
  });
});
