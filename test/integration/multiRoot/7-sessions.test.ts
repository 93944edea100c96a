import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import { sourcePlan } from '../../../src/history/sessionView';
import type { Thread } from '../../../src/thread/thread';
import type { SessionRow, ViewSettings } from '../../../src/shared/historyProtocol';
import type { HistoryUi } from '../../../src/sessions/ports';
import { seedStore, type SeedSession } from '../../fixtures/referenceAgent/store';
import { activate, addRecordingAgent, assertConforms, reopenFromHistory, restoreTab, waitFor, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const NAME = 'History Agent';
const SESSIONS = 250;
const PAGE = 100;

class ScriptedHistoryUi implements HistoryUi {
  confirm = true;
  newName: string | undefined = 'Renamed here';
  readonly asked: string[] = [];
  async confirmDelete(agentName: string, title: string) {
    this.asked.push(`delete ${agentName} “${title}”`);
    return this.confirm;
  }
  async rename(current: string) {
    this.asked.push(`rename “${current}”`);
    return this.newName;
  }
  async copyId(sessionId: string) {
    this.asked.push(`copy ${sessionId}`);
  }
}

describe('the session history in the real extension host (250 sessions in three pages)', function () {
  this.timeout(90_000);
  let api: TestApi;
  let agent: RecordingAgent;
  let rootsUi: ScriptedRootsUi;
  let historyUi: ScriptedHistoryUi;
  let app: string;
  let lib: string;
  let docs: string;
  const received = (method: string) =>
    agent
      .received()
      .filter((m) => m.method === method)
      .map((m) => m.params ?? {});

  /** 250 sessions across the three folders: every fifth has exactly the workspace's roots, others differ. */
  function seeds(): SeedSession[] {
    const start = Date.now() - 60_000;
    return Array.from({ length: SESSIONS }, (_, i): SeedSession => {
      const roots: Array<[string, string[]]> = [
        [app, [lib, docs]],
        [app, [docs, lib]],
        [lib, []],
        [docs, [app]],
        ['/nonexistent/elsewhere', []],
      ];
      const [cwd, additionalDirectories] = roots[i % 5]!;
      return {
        sessionId: `hist_${String(i).padStart(3, '0')}`,
        cwd,
        additionalDirectories,
        title: i === 7 ? '<img src=x onerror="document.title=1">Injected' : `Session ${i} about ${['greeting', 'parser', 'docs', 'tests', 'build'][i % 5]}`,
        updatedAt: new Date(start - i * 3_600_000).toISOString(),
        history:
          i === 0
            ? [
                { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Rename the greeting helper' } },
                { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Renamed greet() to welcome() in lib.' } },
              ]
            : [],
      };
    });
  }

  let settingsSeq = 0;
  async function settings(change: Partial<ViewSettings>): Promise<void> {
    await api.sessionsView.receive({ type: 'settings', seq: ++settingsSeq, settings: { ...api.sessionsView.model.currentSettings, ...change } });
  }

  /** Pages until the current scope's list is complete, like the view does when its end scrolls into view. */
  async function loadAll(): Promise<number> {
    let pages = 0;
    for (;;) {
      const entry = api.history.entries().find((e) => e.name === NAME)!;
      const plan = sourcePlan(api.sessionsView.model.currentSettings.scope, api.history.workspace(), entry);
      if (!entry.catalog!.hasMore(plan)) return pages;
      await api.sessionsView.loadMore(NAME);
      pages++;
      assert.ok(pages < 20, 'paging ends');
    }
  }

  function rows(): SessionRow[] {
    const state = api.sessionsView.model.compute();
    return api.sessionsView.model.rows(0, state.count).filter((r): r is SessionRow => r.kind === 'session');
  }

  const row = (sessionId: string) => {
    const found = rows().find((r) => r.sessionId === sessionId);
    assert.ok(found, `${sessionId} is listed`);
    return found;
  };
  const viewOf = (sessionId: string) => api.sessionsView.model.find(row(sessionId).key)!;

  before(async () => {
    api = await activate();
    rootsUi = new ScriptedRootsUi();
    historyUi = new ScriptedHistoryUi();
    api.setRootsUi(rootsUi);
    api.setHistoryUi(historyUi);
    [app, lib, docs] = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath)) as [string, string, string];
    await api.grants.set(NAME, [lib, docs]);
    agent = await addRecordingAgent(NAME, ['--page-size', String(PAGE)]);
    seedStore(agent.storeDir, seeds());
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent setting');
  });

  after(async () => {
    for (const chat of api.chats.all()) if (chat.controller.session.agentName === NAME) chat.panel.dispose();
    api.setHistoryUi(undefined);
    api.setRootsUi(undefined);
    await api.agents.stop(NAME);
    await agent.dispose();
  });

  it('picking the agent starts it; its 250 sessions arrive in three pages through the opaque cursors', async () => {
    await settings({ agent: NAME, scope: 'all', query: '', showHidden: false });
    await waitFor(() => api.agents.find(NAME)?.state === 'running', 'the agent to start');
    assert.equal(await loadAll(), 3);
    const lists = received('session/list');
    assert.equal(lists.length, 3);
    assert.deepEqual(lists[0], {});
    assert.ok(typeof lists[1]!['cursor'] === 'string' && typeof lists[2]!['cursor'] === 'string');
    assert.equal(rows().length, SESSIONS);
    await api.history.index.flush();
    const stored = fs
      .readdirSync(path.join(api.history.index['dir'] as string))
      .map((f) => (f.endsWith('.json') ? fs.readFileSync(path.join(api.history.index['dir'] as string, f), 'utf8') : ''))
      .join('');
    for (const list of lists.slice(1)) assert.equal(stored.includes(list['cursor'] as string), false, 'cursors are never stored');
  });

  it('scopes: exactly this workspace’s root list, any of its folders, or all', async () => {
    await settings({ scope: 'workspace' });
    assert.equal(rows().length, SESSIONS / 5);
    assert.ok(rows().every((r) => r.roots.map((x) => x.path).join() === [app, lib, docs].join()));
    await settings({ scope: 'folders' });
    assert.equal(rows().length, (SESSIONS / 5) * 4);
    await settings({ scope: 'all' });
    assert.equal(rows().length, SESSIONS);
    const elsewhere = row('hist_004');
    assert.deepEqual(elsewhere.roots, [{ name: 'elsewhere', path: '/nonexistent/elsewhere', primary: true, missing: true }]);
  });

  it('after a refresh, "This workspace" pages only the primary folder’s sessions (cwd filter)', async () => {
    await settings({ scope: 'workspace' });
    const before = received('session/list').length;
    api.sessionsView.refresh();
    await waitFor(() => !api.history.catalog(NAME)!.isLoading, 'the first page');
    await loadAll();
    const lists = received('session/list').slice(before);
    assert.ok(lists.length >= 1);
    assert.ok(
      lists.every((p) => p['cwd'] === app),
      JSON.stringify(lists),
    );
    assert.equal(rows().length, SESSIONS / 5);
    await settings({ scope: 'all' });
    await loadAll();
  });

  it('searches titles fuzzily and keeps titles with markup as plain text', async () => {
    await settings({ query: 'sess 12 gret' });
    const found = rows();
    assert.ok(found.length > 0);
    assert.ok(found.some((r) => r.sessionId === 'hist_120'));
    const top = found[0]!;
    assert.ok(top.highlights.length > 0);
    await settings({ query: 'injected' });
    const injected = rows()[0]!;
    assert.equal(injected.sessionId, 'hist_007');
    assert.equal(injected.title, '<img src=x onerror="document.title=1">Injected');
    await settings({ query: '' });
  });

  it('opens a session: load with the complete root list, and the history replays into a chat', async () => {
    const chat = await reopenFromHistory(api, viewOf('hist_000'), 'open');
    assert.ok(chat);
    const load = received('session/load').at(-1)!;
    assert.deepEqual({ cwd: load['cwd'], additionalDirectories: load['additionalDirectories'] }, { cwd: app, additionalDirectories: [lib, docs] });
    assert.equal(rootsUi.asked.length, 0, 'no question: the session has exactly the workspace’s folders');
    const entries = chat.controller.thread.snapshot().entries;
    assert.deepEqual(
      entries
        .filter((e) => e.kind === 'user' || e.kind === 'agent')
        .map((e) => (e.kind === 'user' || e.kind === 'agent' ? e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '')),
      ['Rename the greeting helper', 'Renamed greet() to welcome() in lib.'],
    );
    await waitFor(() => row('hist_000').open, 'the row to show the session as open');
    assert.equal(row('hist_000').actions.close.enabled, true);
  });

  it('finds an opened session by the text of its transcript, and says what the search covered', async () => {
    await waitFor(() => api.history.index.get(NAME, 'hist_000')?.hasText === true, 'the transcript to be indexed', 10_000);
    await settings({ query: 'welcome()' });
    try {
      // Transcript text is searched in the index's worker: its answer, then the snippet of the row, come later.
      await waitFor(() => rows()[0]?.sessionId === 'hist_000' && rows()[0]?.snippet !== undefined, 'the transcript match and its snippet', 10_000);
      const hit = rows()[0]!;
      // Words are matched, punctuation separates them: the query's word is highlighted.
      assert.equal(hit.snippet!.text.slice(...hit.snippet!.highlights[0]!), 'welcome');
      await waitFor(() => /transcript text of 1 of them/.test(api.sessionsView.model.compute().coverage ?? ''), 'the coverage line', 10_000);
      assert.doesNotMatch(api.sessionsView.model.compute().coverage!, /still being indexed/);
    } finally {
      await settings({ query: '' }); // the tests after this one expect the whole list
    }
  });

  it('forks with a changed folder set after the user chose which list: the agent gets the complete chosen list', async () => {
    rootsUi.asked.length = 0;
    rootsUi.reopenRoots = 'workspace';
    const forked = await reopenFromHistory(api, viewOf('hist_001'), 'fork');
    assert.ok(forked);
    assert.equal(rootsUi.asked.length, 1);
    assert.match(
      rootsUi.asked[0]!,
      /reopen-roots History Agent Fork “Session 1 about parser”: The session's folders: “app”.*“docs”.*“lib”.*This workspace's folders: “app”.*“lib”.*“docs”/,
    );
    let fork = received('session/fork').at(-1)!;
    assert.deepEqual(
      { sessionId: fork['sessionId'], cwd: fork['cwd'], additionalDirectories: fork['additionalDirectories'] },
      { sessionId: 'hist_001', cwd: app, additionalDirectories: [lib, docs] },
    );
    assert.notEqual(forked.controller.session.sessionId, 'hist_001');

    rootsUi.reopenRoots = 'session';
    await reopenFromHistory(api, viewOf('hist_001'), 'fork');
    fork = received('session/fork').at(-1)!;
    assert.deepEqual(fork['additionalDirectories'], [docs, lib], 'the session’s own order');
    await waitFor(() => rows().some((r) => r.sessionId === forked.controller.session.sessionId), 'the fork to appear in the list');
  });

  it('forks on an agent that replays the history while forking: the fork shows it, and says so', async () => {
    const forking = await addRecordingAgent('Forking Agent', ['--fork-replays']);
    try {
      await api.grants.set('Forking Agent', [lib, docs]);
      await waitFor(() => api.agents.find('Forking Agent') !== undefined, 'the agent setting');
      const [started] = await api.starter.newSession({ agentName: 'Forking Agent' });
      const source = api.chats.open(started!.session);
      await api.chats.dispatch(source, { type: 'prompt', text: 'remember the fork', attachments: [] });
      await waitFor(
        () => source.controller.thread.session.status === 'idle' && source.controller.thread.snapshot().entries.some((e) => e.kind === 'turnEnd'),
        'the turn',
      );
      const view = api.history.view('Forking Agent', started!.session.sessionId, { cwd: app, additionalDirectories: [lib, docs] })!;
      const forked = await reopenFromHistory(api, view, 'fork');
      assert.ok(forked);
      const entries = forked.controller.thread.snapshot().entries;
      const texts = entries.flatMap((e) =>
        e.kind === 'user' || e.kind === 'agent'
          ? [e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')]
          : e.kind === 'info'
            ? [`info: ${e.text}`]
            : [],
      );
      assert.deepEqual(texts.slice(0, 2), ['remember the fork', 'Echo: remember the fork'], 'the replayed history');
      assert.match(texts.at(-1)!, /^info: Forked from “.+”: the agent replayed its history, and the new session continues from it\.$/);
      assert.doesNotMatch(JSON.stringify(texts), /not shown/);
      forked.panel.dispose();
      source.panel.dispose();
    } finally {
      await api.agents.stop('Forking Agent');
      await forking.dispose();
    }
  });

  it('never sends a folder that no longer exists: the session’s working folder is gone, so only the workspace’s list is offered', async () => {
    rootsUi.asked.length = 0;
    rootsUi.reopenRoots = 'workspace';
    await reopenFromHistory(api, viewOf('hist_004'), 'resume');
    assert.match(rootsUi.asked[0]!, /working folder no longer exists.*No longer on this machine \(never sent\): “elsewhere”/);
    const resume = received('session/resume').at(-1)!;
    assert.deepEqual(
      { sessionId: resume['sessionId'], cwd: resume['cwd'], additionalDirectories: resume['additionalDirectories'] },
      { sessionId: 'hist_004', cwd: app, additionalDirectories: [lib, docs] },
    );
  });

  it('cancelling the folder question starts nothing', async () => {
    rootsUi.reopenRoots = undefined;
    const before = received('session/load').length;
    assert.equal(await reopenFromHistory(api, viewOf('hist_003'), 'open'), undefined);
    assert.equal(received('session/load').length, before);
  });

  const restoredTab = (state: unknown) => restoreTab(api, state);
  const texts = (thread: Thread) =>
    thread
      .snapshot()
      .entries.map((e) =>
        e.kind === 'user' || e.kind === 'agent'
          ? e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')
          : e.kind === 'error'
            ? e.message
            : e.kind === 'info'
              ? e.text
              : e.kind,
      );

  it('a chat tab restored after a window reload reopens its session in that tab: load with the complete roots, history replayed, draft kept', async () => {
    // Still open in a chat (the test above): the restored tab makes way for it.
    const open = api.chats.find(NAME, 'hist_000');
    assert.ok(open);
    const duplicate = restoredTab({ agentName: NAME, sessionId: 'hist_000', roots: [app, lib, docs] });
    await api.chatRestorer.settled();
    assert.equal(duplicate.closed, true);
    assert.equal(api.chats.find(NAME, 'hist_000'), open);
    open.panel.dispose();

    rootsUi.asked.length = 0;
    const loads = received('session/load').length;
    const { panel, restored } = restoredTab({
      agentName: NAME,
      sessionId: 'hist_000',
      title: 'Session 0 about greeting',
      roots: [app, lib, docs],
      draft: { text: 'and now the tests', attachments: [{ kind: 'file', path: path.join(lib, 'src', 'greet.ts'), label: 'lib/src/greet.ts' }] },
    });
    assert.ok(restored);
    assert.equal(restored.thread.session.status, 'loading', 'the tab shows at once, reopening');
    await api.chatRestorer.settled();
    const chat = api.chats.find(NAME, 'hist_000');
    assert.ok(chat, 'the session is open again');
    assert.equal(chat.panel, restored, 'in the restored tab, not a new one');
    assert.equal(chat.panel.panel, panel);
    const load = received('session/load').slice(loads);
    assert.equal(load.length, 1);
    assert.deepEqual(
      { sessionId: load[0]!['sessionId'], cwd: load[0]!['cwd'], additionalDirectories: load[0]!['additionalDirectories'] },
      { sessionId: 'hist_000', cwd: app, additionalDirectories: [lib, docs] },
    );
    assert.equal(rootsUi.asked.length, 0, 'the same folders as the workspace: no question');
    const shown = texts(chat.controller.thread);
    assert.ok(shown.includes('Rename the greeting helper') && shown.includes('Renamed greet() to welcome() in lib.'), JSON.stringify(shown));
    assert.equal(chat.controller.thread.session.status, 'idle');
    assert.equal(chat.panel.currentDraft.text, 'and now the tests');
    assert.deepEqual(
      chat.panel.currentDraft.attachments.map((a) => a.label),
      ['lib/src/greet.ts'],
    );
    // It is a working chat again.
    await api.chats.dispatch(chat, { type: 'prompt', text: 'hello again', attachments: [] });
    await waitFor(() => chat.controller.thread.session.status === 'idle' && texts(chat.controller.thread).includes('hello again'), 'the turn');
    assert.equal(received('session/prompt').at(-1)!['sessionId'], 'hist_000');
    chat.panel.dispose();
  });

  it('a restored tab gives its queued messages back to its chat, held until the user says to send them', async () => {
    const prompts = received('session/prompt').length;
    const { restored } = restoredTab({
      agentName: NAME,
      sessionId: 'hist_000',
      roots: [app, lib, docs],
      queue: [
        { text: 'queued before the reload', attachments: [] },
        { text: 'and this one too', attachments: [{ kind: 'file', path: path.join(lib, 'src', 'greet.ts'), label: 'lib/src/greet.ts' }] },
      ],
    });
    assert.ok(restored);
    await api.chatRestorer.settled();
    const chat = api.chats.find(NAME, 'hist_000');
    assert.ok(chat && chat.panel === restored);
    const { queue } = chat.controller;
    assert.deepEqual(
      queue.messages.map((m) => m.text),
      ['queued before the reload', 'and this one too'],
    );
    assert.equal(queue.messages[1]!.attachments[0]?.label, 'lib/src/greet.ts');
    assert.equal(queue.held, 'restored');
    assert.equal(received('session/prompt').length, prompts, 'nothing sent by itself after the reload');
    await api.chats.dispatch(chat, { type: 'queue', queue: { action: 'sendNext' } });
    await waitFor(
      () => received('session/prompt').length >= prompts + 2 && chat.controller.thread.session.status === 'idle',
      'both queued messages sent, one per turn',
    );
    assert.deepEqual(texts(chat.controller.thread).filter((t) => t === 'queued before the reload' || t.startsWith('and this one too')).length, 2);
    assert.equal(queue.size, 0);
    chat.panel.dispose();

    // A queue that cannot be read (another version's state) does not keep the tab from coming back.
    const unreadable = restoredTab({ agentName: NAME, sessionId: 'hist_000', roots: [app, lib, docs], queue: 'not a list' });
    assert.ok(unreadable.restored, 'restored without the queue');
    await api.chatRestorer.settled();
    assert.equal(api.chats.find(NAME, 'hist_000')?.controller.queue.size, 0);
    api.chats.find(NAME, 'hist_000')?.panel.dispose();
  });

  it('a restored tab whose session cannot be reopened says why, keeps its place, and reopens when asked again', async () => {
    rootsUi.asked.length = 0;
    rootsUi.reopenRoots = undefined; // the user cancels the folder question (hist_001 has the folders in another order)
    const { restored } = restoredTab({ agentName: NAME, sessionId: 'hist_001', title: 'Session 1 about parser', roots: [app, docs, lib] });
    await api.chatRestorer.settled();
    assert.ok(restored);
    assert.equal(rootsUi.asked.length, 1);
    assert.equal(restored.thread.session.status, 'disconnected');
    const error = restored.thread.snapshot().entries.find((e) => e.kind === 'error');
    assert.ok(error && error.kind === 'error');
    assert.match(error.message, /could not be reopened\. The choice of folders was cancelled\./);
    assert.deepEqual(error.actions, ['reopen', 'showLog']);
    assert.equal(api.chats.find(NAME, 'hist_001'), undefined);

    rootsUi.reopenRoots = 'session';
    // The error's Reopen button, through the tab's own message path.
    await restored['receive']({ type: 'action', action: 'reopen' });
    await api.chatRestorer.settled();
    const chat = api.chats.find(NAME, 'hist_001');
    assert.ok(chat && chat.panel === restored, 'Reopen in the tab opens it there');
    assert.deepEqual(received('session/load').at(-1)!['additionalDirectories'], [docs, lib]);
    assert.equal(
      chat.controller.thread.snapshot().entries.some((e) => e.kind === 'error'),
      false,
      'the error is gone with the replay',
    );
    chat.panel.dispose();
  });

  it('a restored tab with nothing to reopen stays and says so, never vanishing (issue 25, item 8); one of an agent that is gone says so', async () => {
    for (const state of [undefined, { agentName: NAME, sessionId: 42 }, { draft: { text: '', attachments: [] } }]) {
      const empty = restoredTab(state);
      await api.chatRestorer.settled();
      assert.equal(empty.closed, false, `the tab stays (saved state ${JSON.stringify(state)})`);
      assert.ok(empty.restored);
      assert.equal(empty.restored.thread.session.status, 'disconnected');
      const said = empty.restored.thread.snapshot().entries.find((e) => e.kind === 'error');
      assert.ok(said && said.kind === 'error');
      assert.match(said.message, /had no session that can be reopened/);
      empty.restored.dispose();
      assert.equal(empty.closed, true);
    }
    const bad = restoredTab({ agentName: 'Gone Agent', sessionId: 's1', roots: [app] });
    await api.chatRestorer.settled();
    assert.ok(bad.restored);
    const error = bad.restored.thread.snapshot().entries.find((e) => e.kind === 'error');
    assert.ok(error && error.kind === 'error');
    assert.match(error.message, /Gone Agent/);
    assert.equal(bad.closed, false, 'the tab stays, saying why');
    bad.restored.dispose();
    assert.equal(bad.closed, true);
  });

  it('renames, pins and hides locally (ACP has no rename for this agent)', async () => {
    await api.historyActions.run('rename', viewOf('hist_010'));
    assert.equal(row('hist_010').title, 'Renamed here');
    await api.historyActions.run('pin', viewOf('hist_010'));
    const state = api.sessionsView.model.compute();
    const first = api.sessionsView.model.rows(0, 2);
    assert.deepEqual(
      first.map((r) => (r.kind === 'group' ? r.label : r.kind === 'session' ? r.sessionId : r.kind)),
      ['Pinned', 'hist_010'],
    );
    assert.ok(state.count > 0);
    await api.historyActions.run('hide', viewOf('hist_011'));
    assert.equal(
      rows().some((r) => r.sessionId === 'hist_011'),
      false,
    );
    await settings({ showHidden: true });
    assert.equal(row('hist_011').hidden, true);
    await settings({ showHidden: false });
  });

  it('deletes after confirmation: session/delete, and the row is gone', async () => {
    historyUi.confirm = false;
    await api.historyActions.run('delete', viewOf('hist_020'));
    assert.equal(received('session/delete').length, 0);
    historyUi.confirm = true;
    await api.historyActions.run('delete', viewOf('hist_020'));
    assert.deepEqual(received('session/delete').at(-1), { sessionId: 'hist_020' });
    assert.equal(
      rows().some((r) => r.sessionId === 'hist_020'),
      false,
    );
    assert.deepEqual(
      historyUi.asked.filter((a) => a.startsWith('delete')),
      ['delete History Agent “Session 20 about greeting”', 'delete History Agent “Session 20 about greeting”'],
    );
  });

  it('shows a new session at once, and its title as soon as the agent sets it', async () => {
    const [started] = await api.starter.newSession({ agentName: NAME });
    const id = started!.session.sessionId;
    await waitFor(() => rows().some((r) => r.sessionId === id), 'the new session in the list');
    const chat = api.chats.open(started!.session);
    await api.chats.dispatch(chat, { type: 'prompt', text: 'title Live rename works', attachments: [] });
    await waitFor(() => rows().find((r) => r.sessionId === id)?.title === 'Live rename works', 'the live title');
    chat.panel.dispose();
  });

  it('when the agent stops, the list falls back to local history and offers to start it again', async () => {
    const catalog = api.history.catalog(NAME)!;
    catalog.reset();
    await api.sessionsView.loadMore(NAME);
    const loaded = catalog.size;
    assert.equal(loaded, PAGE);
    await api.agents.stop(NAME);
    // The stopped agent's catalog is gone with its connection: the view falls back to local history.
    assert.equal(api.history.catalog(NAME), undefined);
    const status = api.sessionsView.model.rows(0, api.sessionsView.model.compute().count).at(-1)!;
    assert.ok(status.kind === 'status' && status.action === 'startAgent', JSON.stringify(status));
    assert.ok(
      rows().every((r) => r.local),
      'local history while the agent is not running',
    );
  });

  it('sent only messages that conform to the ACP JSON Schema', () => {
    assertConforms(agent.received());
  });
});
