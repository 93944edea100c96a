import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ListedSession } from '../../../src/acp/port/agentConnection';
import { BackgroundPaging } from '../../../src/history/backgroundPaging';
import { AgentCatalog, type ListPage } from '../../../src/history/catalog';
import { LocalSessionIndex } from '../../../src/history/localIndex';
import { pagingBar } from '../../../src/history/pagingBar';
import { SessionsModel } from '../../../src/history/sessionsModel';
import type { AgentEntry, WorkspaceShape } from '../../../src/history/sessionView';
import type { SessionRow } from '../../../src/shared/historyProtocol';
import { flush } from '../../helpers/memoryPeer';

const workspace: WorkspaceShape = { folders: ['/w/app'], rootSetFor: () => ['/w/app'], exists: () => true };
const NOW = Date.UTC(2026, 10, 21, 12);

/** 300 sessions, newest first; the oldest (on the last page) is the only one about "zebra". */
const LISTED: ListedSession[] = Array.from({ length: 300 }, (_, i) => ({
  sessionId: `s${i}`,
  cwd: '/w/app',
  title: i === 299 ? 'The zebra crossing' : `Session ${i} about greeting`,
  updatedAt: new Date(NOW - (i + 1) * 60_000).toISOString(),
}));

describe('the Sessions list while a search pages in the background', () => {
  let dir: string;
  let index: LocalSessionIndex;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-paging-'));
    index = new LocalSessionIndex(dir);
  });
  afterEach(async () => {
    await index.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds a session of the last page as pages arrive: loading status, progress instead of "not loaded yet", then the hit', async () => {
    const answers: Array<() => void> = [];
    const catalog = new AgentCatalog(
      'Agent',
      (params) =>
        new Promise<ListPage>((resolve) => {
          const offset = params.cursor === undefined ? 0 : Number(params.cursor);
          answers.push(() =>
            resolve({ sessions: LISTED.slice(offset, offset + 100), ...(offset + 100 < LISTED.length ? { nextCursor: String(offset + 100) } : {}) }),
          );
        }),
    );
    const pauses: Array<() => void> = [];
    const paging = new BackgroundPaging({ pause: () => new Promise<void>((resolve) => pauses.push(resolve)) });
    const agent: AgentEntry = { name: 'Agent', running: true, caps: undefined, catalog };
    const model = new SessionsModel({
      index,
      transcripts: undefined,
      agents: () => [agent],
      workspace: () => workspace,
      isOpen: () => false,
      now: () => NOW,
      trusted: () => true,
      paging,
    });
    model.setSettings({ agent: 'Agent', scope: 'all', query: 'zebra', showHidden: false });
    const hits = () => {
      const state = model.compute();
      return { state, rows: model.rows(0, state.count) };
    };

    // Before paging: the first page (the view read it), "more" at the end and "not loaded yet".
    const first = catalog.loadMore([undefined]);
    answers.shift()!();
    await first;
    let { state, rows } = hits();
    assert.deepEqual(
      rows.map((r) => r.kind),
      ['status'],
    );
    assert.equal(rows[0]!.kind === 'status' && rows[0]!.state, 'more');
    assert.match(state.coverage!, /More sessions are not loaded yet\./);

    paging.want([{ agentName: 'Agent', list: catalog, plan: [undefined] }]);
    answers.shift()!();
    await flush();
    assert.equal(pauses.length, 1, 'paging waits between two pages');
    assert.equal(catalog.isLoading, false);
    ({ state, rows } = hits());
    assert.equal(rows[0]!.kind === 'status' && rows[0]!.state, 'loading', 'between two pages too');
    assert.doesNotMatch(state.coverage!, /not loaded yet/, 'the paging bar says it');
    assert.deepEqual(pagingBar(paging.progress()), { state: 'loading', action: 'stop', message: 'Searching… 200 sessions loaded so far, more are loading.' });

    pauses.shift()!();
    await flush();
    answers.shift()!();
    await flush();
    pauses.shift()!();
    await flush();
    ({ state, rows } = hits());
    assert.deepEqual(
      rows.map((r) => (r.kind === 'session' ? r.sessionId : r.kind)),
      ['s299'],
    );
    assert.equal((rows[0] as SessionRow).title, 'The zebra crossing');
    assert.equal(pagingBar(paging.progress()), undefined, 'all loaded: nothing to say');
    assert.equal(state.coverage, 'Titles of 300 sessions searched; transcript text is not searched here.');
    paging.dispose();
  });

  it('says the user stopped it and offers to go on; keeps "not loaded yet" in the coverage line out', async () => {
    const catalog = new AgentCatalog('Agent', (params) => {
      const offset = params.cursor === undefined ? 0 : Number(params.cursor);
      return Promise.resolve({ sessions: LISTED.slice(offset, offset + 100), nextCursor: String(offset + 100) });
    });
    const waiting: Array<() => void> = [];
    const paging = new BackgroundPaging({ pause: () => new Promise<void>((resolve) => waiting.push(resolve)) });
    const agent: AgentEntry = { name: 'Agent', running: true, caps: undefined, catalog };
    const model = new SessionsModel({
      index,
      transcripts: undefined,
      agents: () => [agent],
      workspace: () => workspace,
      isOpen: () => false,
      now: () => NOW,
      trusted: () => true,
      paging,
    });
    model.setSettings({ agent: 'Agent', scope: 'all', query: 'greeting', showHidden: false });
    paging.want([{ agentName: 'Agent', list: catalog, plan: [undefined] }]);
    await flush();
    paging.stop();
    waiting.shift()?.();
    await flush();
    assert.deepEqual(pagingBar(paging.progress()), {
      state: 'stopped',
      action: 'resume',
      message: 'Stopped: 100 sessions loaded; older sessions are not searched.',
    });
    const state = model.compute();
    const status = model.rows(0, state.count).at(-1)!;
    assert.equal(status.kind === 'status' && status.state, 'more');
    assert.doesNotMatch(state.coverage!, /not loaded yet/);
  });

  it('words the bar for one session, and for the cap', () => {
    assert.equal(pagingBar({ active: true, stopped: false, capped: false, loaded: 1 })?.message, 'Searching… 1 session loaded so far, more are loading.');
    assert.equal(pagingBar({ active: false, stopped: true, capped: false, loaded: 1 })?.message, 'Stopped: 1 session loaded; older sessions are not searched.');
    assert.deepEqual(pagingBar({ active: false, stopped: false, capped: true, loaded: 1_000_000 }), {
      state: 'capped',
      message: `${(1_000_000).toLocaleString()} sessions loaded, the most this view loads from one agent: older sessions are not searched.`,
    });
    assert.equal(pagingBar({ active: false, stopped: false, capped: false, loaded: 5 }), undefined);
  });

  it('finds where a selected session is in the computed list (the anchor that keeps it in place)', async () => {
    const catalog = new AgentCatalog('Agent', () => Promise.resolve({ sessions: LISTED.slice(0, 10) }));
    await catalog.loadMore([undefined]);
    const agent: AgentEntry = { name: 'Agent', running: true, caps: undefined, catalog };
    const model = new SessionsModel({
      index,
      transcripts: undefined,
      agents: () => [agent],
      workspace: () => workspace,
      isOpen: () => false,
      now: () => NOW,
      trusted: () => true,
    });
    model.setSettings({ agent: 'Agent', scope: 'all', query: '', showHidden: false });
    const state = model.compute();
    const rows = model.rows(0, state.count);
    const third = rows.findIndex((r) => r.kind === 'session' && r.sessionId === 's2');
    const key = (rows[third] as SessionRow).key;
    assert.equal(model.indexOf(key), third);
    assert.equal(model.indexOf(key, third + 3), third, 'looking outward from where it was');
    assert.equal(model.indexOf(key, 10_000), third);
    assert.equal(model.indexOf('Agent\u0000nope', 4), -1);
  });
});
