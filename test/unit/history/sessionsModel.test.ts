import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentCaps } from '../../../src/acp/capabilities';
import type { ListedSession } from '../../../src/acp/port/agentConnection';
import { AgentCatalog } from '../../../src/history/catalog';
import { LocalSessionIndex } from '../../../src/history/localIndex';
import { matchTitle, snippetAround } from '../../../src/history/search';
import { dateGroup, dateGroupLabel } from '../../../src/history/dateGroups';
import { SessionsModel } from '../../../src/history/sessionsModel';
import { inScope, sourcePlan, type AgentEntry, type SessionView, type WorkspaceShape } from '../../../src/history/sessionView';
import type { Row, SessionRow, ViewSettings } from '../../../src/shared/historyProtocol';
import { FakeTranscripts } from './fakeTranscripts';

const NOW = new Date(2026, 10, 21, 15, 0, 0).getTime();
const HOUR = 3_600_000;

function caps(sessions: Partial<AgentCaps['sessions']> = {}, loadSession = true): AgentCaps {
  return {
    protocolVersion: 1,
    agentInfo: undefined,
    loadSession,
    prompt: { image: false, audio: false, embeddedContext: false },
    mcp: { http: false, sse: false },
    sessions: { list: true, resume: true, close: true, delete: true, additionalDirectories: true, fork: true, setTitle: false, ...sessions },
    auth: { logout: false },
    authMethods: [],
  };
}

const workspace: WorkspaceShape = {
  folders: ['/w/app', '/w/lib', '/w/docs'],
  rootSetFor: (agent) => (agent.caps?.sessions.additionalDirectories === false ? ['/w/app'] : ['/w/app', '/w/lib', '/w/docs']),
  exists: (folder) => folder.startsWith('/w/'),
};

function info(
  sessionId: string,
  cwd: string,
  additionalDirectories: string[] | undefined,
  title: string | undefined,
  hoursAgo: number,
  extra: Partial<ListedSession> = {},
): ListedSession {
  return {
    sessionId,
    cwd,
    ...(additionalDirectories ? { additionalDirectories } : {}),
    ...(title ? { title } : {}),
    updatedAt: new Date(NOW - hoursAgo * HOUR).toISOString(),
    ...extra,
  };
}

const LISTED: ListedSession[] = [
  info('exact', '/w/app', ['/w/lib', '/w/docs'], 'Refactor the greeting', 1),
  info('reordered', '/w/app', ['/w/docs', '/w/lib'], 'Reordered roots', 2),
  info('lib-only', '/w/lib', [], 'Library docs pass', 30),
  info('extra-root', '/elsewhere', ['/w/docs'], 'Docs from elsewhere', 24 * 3),
  info('other', '/other', [], 'Something else entirely', 24 * 30),
  info('untitled', '/w/app', ['/w/lib', '/w/docs'], undefined, 24 * 400),
  info('html', '/w/app', ['/w/lib', '/w/docs'], '<img src=x onerror=alert(1)>', 5, { meta: { tags: ['<script>'] } }),
];

describe('the session history model', () => {
  let dir: string;
  let index: LocalSessionIndex;
  let catalog: AgentCatalog;
  let agents: AgentEntry[];
  let open = new Set<string>();
  let trusted = true;
  let transcripts: FakeTranscripts | undefined;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-model-'));
    index = new LocalSessionIndex(dir);
    catalog = new AgentCatalog('Claude', () => Promise.resolve({ sessions: LISTED }));
    await catalog.loadMore([undefined]);
    agents = [
      { name: 'Claude', running: true, caps: caps(), catalog },
      {
        name: 'Gemini',
        running: true,
        caps: caps({ list: false, resume: false, fork: false, delete: false, additionalDirectories: false }),
        catalog: undefined,
      },
    ];
    open = new Set();
    trusted = true;
    transcripts = undefined;
  });
  afterEach(async () => {
    await index.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function model(settings: Partial<ViewSettings> = {}) {
    const m = new SessionsModel({
      index,
      transcripts,
      agents: () => agents,
      workspace: () => workspace,
      isOpen: (agent, id) => open.has(`${agent}/${id}`),
      now: () => NOW,
      trusted: () => trusted,
    });
    m.setSettings({ agent: 'Claude', scope: 'all', query: '', showHidden: false, ...settings });
    return m;
  }

  const sessionIds = (rows: Row[]) => rows.filter((r): r is SessionRow => r.kind === 'session').map((r) => r.sessionId);
  const all = (m: SessionsModel) => {
    const state = m.compute();
    return { state, rows: m.rows(0, state.count) };
  };

  describe('scopes', () => {
    it('"This workspace": the same root list, exact and ordered', () => {
      const { rows } = all(model({ scope: 'workspace' }));
      assert.deepEqual(sessionIds(rows), ['exact', 'html', 'untitled']);
    });

    it('"These folders": the working folder or any other root is a workspace folder', () => {
      const { rows } = all(model({ scope: 'folders' }));
      assert.deepEqual(sessionIds(rows), ['exact', 'reordered', 'html', 'lib-only', 'extra-root', 'untitled']);
    });

    it('"All": everything', () => {
      assert.equal(sessionIds(all(model({ scope: 'all' })).rows).length, LISTED.length);
    });

    it('for an agent that takes one folder, the workspace’s root list is its primary folder only', () => {
      const gemini = agents[1]!;
      const view = { cwd: '/w/app', additionalDirectories: [] } as unknown as SessionView;
      assert.equal(inScope(view, 'workspace', workspace, gemini), true);
      assert.equal(inScope(view, 'workspace', workspace, agents[0]!), false);
    });

    it('pages only what a scope needs: the primary folder, the folders then everything, or everything', () => {
      const claude = agents[0]!;
      assert.deepEqual(sourcePlan('workspace', workspace, claude), ['/w/app']);
      assert.deepEqual(sourcePlan('folders', workspace, claude), ['/w/app', '/w/lib', '/w/docs', undefined]);
      assert.deepEqual(
        sourcePlan('folders', workspace, agents[1]!),
        ['/w/app', '/w/lib', '/w/docs'],
        'sessions of a one-folder agent have no other roots to look for',
      );
      assert.deepEqual(sourcePlan('all', workspace, claude), [undefined]);
    });
  });

  describe('rows', () => {
    it('groups by date (newest first), puts pinned sessions first, and ends with the agent’s state', () => {
      index.record({ agentName: 'Claude', sessionId: 'other', cwd: '/other' });
      index.setLocal('Claude', 'other', { pinned: true });
      const { rows } = all(model());
      assert.deepEqual(
        rows.map((r) => (r.kind === 'group' ? `[${r.label} ${r.count}]` : r.kind === 'session' ? r.sessionId : `(${r.state})`)),
        [
          '[Pinned 1]',
          'other',
          '[Today 3]',
          'exact',
          'reordered',
          'html',
          '[Yesterday 1]',
          'lib-only',
          '[Previous 7 days 1]',
          'extra-root',
          '[Older 1]',
          'untitled',
        ],
      );
    });

    it('shows all agents under their names, with local history for an agent that does not list sessions', () => {
      index.record({ agentName: 'Gemini', sessionId: 'g1', cwd: '/w/app', title: 'Gemini work', at: NOW - HOUR });
      const { rows, state } = all(model({ agent: null }));
      const labels = rows.filter((r) => r.kind === 'group' && r.level === 1).map((r) => r.kind === 'group' && r.label);
      assert.deepEqual(labels, ['Claude', 'Gemini']);
      const g1 = rows.find((r): r is SessionRow => r.kind === 'session' && r.sessionId === 'g1')!;
      assert.equal(g1.local, true);
      const status = rows.at(-1)!;
      assert.ok(status.kind === 'status' && /does not list its sessions: this is the local history/.test(status.message));
      assert.deepEqual(
        state.specials.map((s) => s.kind),
        rows.map((r) => (r.kind === 'group' ? (r.level === 1 ? 'group1' : 'group2') : r.kind)).filter((k) => k !== 'session'),
      );
    });

    it('sums up agents that are not running and have no sessions here in one line', () => {
      agents.push({ name: 'Idle', running: false, caps: undefined, catalog: undefined });
      const { rows, state } = all(model({ agent: null }));
      assert.equal(
        rows.some((r) => r.kind === 'group' && r.label === 'Idle'),
        false,
      );
      assert.deepEqual(state.notices, ['Not running, no sessions here yet: Idle.']);
    });

    it('dates untitled sessions (a placeholder, not searched) and keeps titles and _meta as plain text', () => {
      const { rows } = all(model());
      const untitled = rows.find((r): r is SessionRow => r.kind === 'session' && r.sessionId === 'untitled')!;
      assert.match(untitled.title, /^Session in app from .+, .+/, 'where and when it was last active, with the day');
      assert.equal(untitled.titled, false);
      const html = rows.find((r): r is SessionRow => r.kind === 'session' && r.sessionId === 'html')!;
      assert.equal(html.title, '<img src=x onerror=alert(1)>');
      assert.equal(html.meta, JSON.stringify({ tags: ['<script>'] }, null, 2));
    });

    it('marks the primary folder and folders that no longer exist', () => {
      const { rows } = all(model());
      const extra = rows.find((r): r is SessionRow => r.kind === 'session' && r.sessionId === 'extra-root')!;
      assert.deepEqual(extra.roots, [
        { name: 'elsewhere', path: '/elsewhere', primary: true, missing: true },
        { name: 'docs', path: '/w/docs', primary: false, missing: false },
      ]);
    });

    it('takes a session’s roots from the client’s record when the agent does not report them', async () => {
      catalog = new AgentCatalog('Claude', () =>
        Promise.resolve({ sessions: [info('bare', '/w/app', undefined, 'Bare', 1), info('unknown', '/w/lib', undefined, 'Unknown', 2)] }),
      );
      await catalog.loadMore([undefined]);
      agents[0] = { ...agents[0]!, catalog };
      index.record({ agentName: 'Claude', sessionId: 'bare', cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs'] });
      const rows = all(model()).rows.filter((r): r is SessionRow => r.kind === 'session');
      assert.deepEqual(
        rows.map((r) => [r.sessionId, r.roots.map((x) => x.path), r.rootsKnown]),
        [
          ['bare', ['/w/app', '/w/lib', '/w/docs'], true],
          ['unknown', ['/w/lib'], false],
        ],
      );
    });

    it('hides hidden sessions unless asked, and shows the user’s rename', () => {
      index.record({ agentName: 'Claude', sessionId: 'exact', cwd: '/w/app' });
      index.setLocal('Claude', 'exact', { hidden: true, localTitle: 'Mine' });
      assert.equal(sessionIds(all(model()).rows).includes('exact'), false);
      const shown = all(model({ showHidden: true })).rows.find((r): r is SessionRow => r.kind === 'session' && r.sessionId === 'exact')!;
      assert.equal(shown.hidden, true);
      assert.equal(shown.title, 'Mine');
    });

    it('offers each action only when the agent advertises it, and says why not', () => {
      agents[0] = { ...agents[0]!, caps: caps({ resume: false, fork: false, delete: false }, false) };
      open.add('Claude/exact');
      const rows = all(model()).rows.filter((r): r is SessionRow => r.kind === 'session');
      const exact = rows.find((r) => r.sessionId === 'exact')!;
      const lib = rows.find((r) => r.sessionId === 'lib-only')!;
      assert.deepEqual(exact.actions.open, { enabled: true }, 'an open session can always be shown');
      assert.deepEqual(exact.actions.close, { enabled: true });
      assert.deepEqual(lib.actions.open, { enabled: false, reason: 'Claude can neither load nor resume sessions.' });
      assert.deepEqual(lib.actions.fork, { enabled: false, reason: 'Claude does not support forking sessions (session/fork).' });
      assert.deepEqual(lib.actions.delete, { enabled: false, reason: 'Claude does not support deleting sessions (session/delete).' });
      assert.deepEqual(lib.actions.close, { enabled: false, reason: 'Only sessions open in this window can be closed.' });
      assert.equal(exact.open, true);
      trusted = false;
      const restricted = all(model()).rows.find((r): r is SessionRow => r.kind === 'session')!;
      assert.equal(restricted.actions.open.enabled, false);
    });

    it('ends an agent’s part with "more", "loading" or an error with a retry', async () => {
      let fail = false;
      catalog = new AgentCatalog('Claude', (params) =>
        fail ? Promise.reject(new Error('boom')) : Promise.resolve({ sessions: LISTED.slice(0, 2), ...(params.cursor ? {} : { nextCursor: 'c1' }) }),
      );
      agents[0] = { ...agents[0]!, catalog };
      await catalog.loadMore([undefined]);
      const m = model();
      let last = all(m).rows.at(-1)!;
      assert.deepEqual(last.kind === 'status' && [last.state, last.action], ['more', 'loadMore']);
      fail = true;
      const loading = catalog.loadMore([undefined]);
      last = all(m).rows.at(-1)!;
      assert.equal(last.kind === 'status' && last.state, 'loading');
      await loading;
      last = all(m).rows.at(-1)!;
      assert.deepEqual(last.kind === 'status' && [last.state, last.action, last.message], ['error', 'retry', 'Could not load more sessions: boom']);
    });
  });

  describe('search', () => {
    it('finds titles fuzzily with the matched characters, best first, without date groups', () => {
      const m = model({ query: 'rfctr grt' });
      const { rows, state } = all(m);
      assert.equal(state.searching, true);
      const first = rows[0] as SessionRow;
      assert.equal(first.sessionId, 'exact');
      const marked = first.highlights.map(([a, b]) => first.title.slice(a, b)).join('');
      assert.equal(marked.replace(/\s/g, '').toLowerCase(), 'rfctrgrt');
      assert.equal(
        rows.some((r) => r.kind === 'group'),
        false,
      );
    });

    it('searches the transcript text this client has seen (off the host thread), and says how much that covered', async () => {
      transcripts = new FakeTranscripts();
      index.record({ agentName: 'Claude', sessionId: 'other', cwd: '/other' });
      index.setText('Claude', 'other', 'user: please rename the WidgetFactory class\nagent: renamed it everywhere');
      transcripts.setText('Claude\u0000other', 'user: please rename the WidgetFactory class\nagent: renamed it everywhere');
      const m = model({ query: 'widgetfactory' });
      assert.equal(all(m).state.coverage, 'Titles of 7 sessions searched; searching transcript text…');
      await new Promise<void>((resolve) => m.onDidUpdate(() => resolve()));
      const state = m.compute();
      const rows = await m.rowsWithSnippets(0, state.count);
      const hit = rows.find((r): r is SessionRow => r.kind === 'session')!;
      assert.equal(hit.sessionId, 'other');
      const [start, end] = hit.snippet!.highlights[0]!;
      assert.equal(hit.snippet!.text.slice(start, end), 'WidgetFactory');
      assert.equal(state.coverage, 'Titles of 7 sessions searched; transcript text of 1 of them (only sessions opened in this client have text here).');
    });

    it('says when transcript text is not searched', () => {
      const { state } = all(model({ query: 'greeting' }));
      assert.equal(state.coverage, 'Titles of 7 sessions searched; transcript text is not searched here.');
    });

    it('does not match placeholders', () => {
      assert.deepEqual(sessionIds(all(model({ query: 'untitled' })).rows), []);
    });
  });

  it('puts sessions in date groups by the local calendar', () => {
    const midnight = new Date(2026, 10, 21).getTime();
    assert.equal(dateGroup(midnight, NOW), 'today');
    assert.equal(dateGroup(midnight - 1, NOW), 'yesterday');
    assert.equal(dateGroup(midnight - 24 * HOUR - 1, NOW), 'week');
    assert.equal(dateGroup(midnight - 7 * 24 * HOUR - 1, NOW), 'older');
    assert.equal(dateGroup(undefined, NOW), 'none');
    assert.deepEqual((['today', 'yesterday', 'week', 'older', 'none'] as const).map(dateGroupLabel), [
      'Today',
      'Yesterday',
      'Previous 7 days',
      'Older',
      'No date',
    ]);
  });
});

describe('search helpers', () => {
  const marked = (title: string, query: string) => {
    const ranges = matchTitle(title.toLowerCase(), query.toLowerCase().split(' '));
    return ranges && ranges.map(([a, b]) => title.slice(a, b)).join('|');
  };

  it('matches every word as a substring, preferring word starts, else as scattered letters', () => {
    assert.equal(marked('Refactor the greeting', 'greet'), 'greet');
    assert.equal(marked('Unreadable reading list', 'read'), 'read', 'the word start wins over the earlier match inside a word');
    assert.equal(marked('Refactor the greeting', 'rfctr'), 'R|f|ct|r');
    assert.equal(marked('Refactor the greeting', 'greet xyz'), undefined, 'every word must match');
    assert.equal(marked('Refactor the greeting', 'greeting refactor'), 'Refactor|greeting');
  });

  it('cuts a one-line snippet around the hit with ellipses', () => {
    const text = `${'lorem '.repeat(30)}the needle\nis here ${'ipsum '.repeat(40)}`;
    const snippet = snippetAround(text, text.toLowerCase(), 'needle')!;
    assert.ok(snippet.text.startsWith('…') && snippet.text.endsWith('…'));
    assert.equal(snippet.text.includes('\n'), false);
    const [a, b] = snippet.highlights[0]!;
    assert.equal(snippet.text.slice(a, b), 'needle');
  });
});
