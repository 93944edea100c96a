import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ListedSession } from '../../../../src/acp/port/agentConnection';
import type { AcpConnection } from '../../../../src/acp/connection';
import type { AgentStatus } from '../../../../src/agents/agentRegistry';
import { Emitter } from '../../../../src/common/events';
import { silentLogger } from '../../../../src/common/logger';
import { AgentCatalog, type ListPage } from '../../../../src/history/catalog';
import { LocalSessionIndex } from '../../../../src/history/localIndex';
import type { AgentEntry, WorkspaceShape } from '../../../../src/history/sessionView';
import type { AgentState } from '../../../../src/process/agentRuntime';
import { COMPUTE_DELAY_MS, HIDDEN_PAGING_MS, SessionsFeed, type SessionsScreen } from '../../../../src/sessions/opening/sessionsFeed';
import type { HostToSessions, Row, SessionRow, ViewSettings } from '../../../../src/shared/historyProtocol';
import { flush } from '../../../helpers/memoryPeer';
import { FakeTranscripts } from '../../history/fakeTranscripts';
import { FakeClock } from '../../remote/remoteAgentFakes';

const workspace: WorkspaceShape = { folders: ['/w/app'], rootSetFor: () => ['/w/app'], exists: () => true };
/** FakeClock's time, which the model takes for now. */
const NOW = new FakeClock().now();
const SETTINGS: ViewSettings = { agent: 'Agent', scope: 'all', query: '', showHidden: false };

function sessions(count: number, prefix = 's', offset = 0): ListedSession[] {
  return Array.from({ length: count }, (_, i) => ({
    sessionId: `${prefix}${i}`,
    cwd: '/w/app',
    title: `Session ${prefix}${i} about greeting`,
    updatedAt: new Date(NOW - (offset + i + 1) * 60_000).toISOString(),
  }));
}

/** The webview: keeps what the feed posts. */
class FakeScreen implements SessionsScreen {
  visible = true;
  readonly posted: HostToSessions[] = [];
  post(message: HostToSessions): void {
    this.posted.push(message);
  }
  states() {
    return this.posted.flatMap((m) => (m.type === 'state' ? [m] : []));
  }
  lastState() {
    const state = this.states().at(-1);
    assert.ok(state, 'a list was posted');
    return state;
  }
}

describe('SessionsFeed: what the Sessions view shows and when', () => {
  let dir: string;
  let index: LocalSessionIndex;
  let clock: FakeClock;
  let listed: ListedSession[];
  /** The cursor of every page the agent was asked for. */
  let asked: Array<string | undefined>;
  let catalog: AgentCatalog;
  let agentState: AgentState;
  let trusted: boolean;
  let started: string[];
  let errors: string[];
  let pauses: Array<() => void>;
  let changes: Emitter<void>;
  let feeds: SessionsFeed[];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-feed-'));
    index = new LocalSessionIndex(dir);
    clock = new FakeClock();
    listed = sessions(300);
    asked = [];
    catalog = new AgentCatalog('Agent', (params) => {
      asked.push(params.cursor);
      const offset = params.cursor === undefined ? 0 : Number(params.cursor);
      const page: ListPage = { sessions: listed.slice(offset, offset + 100), ...(offset + 100 < listed.length ? { nextCursor: String(offset + 100) } : {}) };
      return Promise.resolve(page);
    });
    agentState = 'running';
    trusted = true;
    started = [];
    errors = [];
    pauses = [];
    changes = new Emitter<void>();
    feeds = [];
  });
  afterEach(async () => {
    for (const feed of feeds) feed.dispose();
    for (const resume of pauses) resume();
    await index.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The pages read after the first (the first is read again each time the view is shown). */
  const pages = () => asked.filter((cursor) => cursor !== undefined);

  function feed(stored: unknown = SETTINGS, start = () => Promise.resolve({} as AcpConnection), defaultAgent = ''): SessionsFeed {
    const agent: AgentEntry = { name: 'Agent', running: agentState === 'running', caps: undefined, catalog };
    const f = new SessionsFeed({
      history: { index, transcripts: new FakeTranscripts(), problems: [], onDidChange: changes.event, entries: () => [agent], workspace: () => workspace },
      agents: {
        find: (name) => (name === 'Agent' ? ({ state: agentState } as AgentStatus) : undefined),
        start: (name) => {
          started.push(name);
          return start();
        },
      },
      actions: { run: () => Promise.resolve() },
      isOpen: () => false,
      trusted: () => trusted,
      storedSettings: stored,
      saveSettings: () => Promise.resolve(),
      defaultAgent: () => defaultAgent,
      newSession: () => Promise.resolve(),
      showError: (message) => errors.push(message),
      logger: silentLogger,
      clock,
      pagingPause: () => new Promise<void>((resolve) => pauses.push(resolve)),
    });
    feeds.push(f);
    return f;
  }

  /** A feed whose view is attached and has said `ready` (the list posted once). */
  async function shown(f: SessionsFeed): Promise<{ f: SessionsFeed; screen: FakeScreen }> {
    const screen = new FakeScreen();
    f.attach(screen);
    await f.receive({ type: 'ready' });
    return { f, screen };
  }

  async function rows(f: SessionsFeed, screen: FakeScreen, from: number, to: number): Promise<Row[]> {
    const id = screen.posted.length + 1000;
    await f.receive({ type: 'request', id, method: 'rows', params: { version: screen.lastState().version, from, to } });
    const response = screen.posted.find((m) => m.type === 'response' && m.id === id);
    assert.ok(response?.type === 'response' && response.result !== undefined, `the rows were answered: ${JSON.stringify(response)}`);
    return (response.result as { rows: Row[] }).rows;
  }

  describe('recompute coalescing', () => {
    it('changes arriving together are posted as one list, COMPUTE_DELAY_MS after the first', async () => {
      await catalog.loadMore([undefined]);
      const { screen } = await shown(feed());
      assert.equal(screen.states().length, 1, 'ready posts the list at once');
      // Showing the view re-read the first page; its list follows.
      await flush();
      clock.advance(COMPUTE_DELAY_MS);
      const before = screen.states().length;
      assert.deepEqual(clock.pending(), [], 'nothing else is planned');

      changes.fire();
      changes.fire();
      changes.fire();
      assert.deepEqual(clock.pending(), [COMPUTE_DELAY_MS], 'one recompute planned for three changes');
      clock.advance(COMPUTE_DELAY_MS - 1);
      assert.equal(screen.states().length, before, 'not before the delay');
      clock.advance(1);
      assert.equal(screen.states().length, before + 1, 'one list for the three changes');
      assert.deepEqual(clock.pending(), []);
    });

    it('a detached view gets nothing posted, and a shown one recomputes on its own', async () => {
      const { f, screen } = await shown(feed());
      f.detach(screen);
      changes.fire();
      clock.advance(COMPUTE_DELAY_MS);
      assert.equal(screen.states().length, 1, 'no post after the view is gone');
      assert.equal(f.visible, false);
    });
  });

  describe('paging', () => {
    it("the end of an agent's list among the rows the webview asks for reads its next page", async () => {
      await catalog.loadMore([undefined]);
      const { f, screen } = await shown(feed());
      const count = screen.lastState().count;
      await rows(f, screen, 0, 10);
      await flush();
      assert.deepEqual(pages(), [], 'rows at the top read nothing');
      await rows(f, screen, count - 10, count);
      await flush();
      assert.deepEqual(pages(), ['100'], 'the end of the list read the next page');
    });

    it('while a search is typed, pages load in the background (not from the rows asked for), and sleep once the view has been hidden HIDDEN_PAGING_MS', async () => {
      listed = sessions(500);
      await catalog.loadMore([undefined]);
      const { f, screen } = await shown(feed());
      await f.receive({ type: 'settings', seq: 1, settings: { ...SETTINGS, query: 'zebra' } });
      await flush();
      assert.deepEqual(pages(), ['100'], 'background paging read the next page');
      assert.equal(pauses.length, 1, 'and waits between pages');
      assert.equal(f.currentPagingBar()?.state, 'loading');
      const count = screen.lastState().count;
      await rows(f, screen, 0, count);
      await flush();
      assert.deepEqual(pages(), ['100'], 'the rows asked for read no page while searching');

      // Hidden: paging goes on for a while, then sleeps.
      screen.visible = false;
      f.visibilityChanged();
      pauses.shift()!();
      await flush();
      assert.deepEqual(pages(), ['100', '200'], 'a quick look elsewhere does not stop paging');
      clock.advance(HIDDEN_PAGING_MS);
      pauses.shift()!();
      await flush();
      assert.deepEqual(pages(), ['100', '200'], 'asleep: no page once the view was hidden 30 s');

      // Shown again: it goes on from where it stopped.
      screen.visible = true;
      f.visibilityChanged();
      await flush();
      clock.advance(COMPUTE_DELAY_MS);
      await flush();
      assert.deepEqual(pages(), ['100', '200', '300'], 'shown again: paging goes on');
    });

    it('Stop cancels background paging until resumed', async () => {
      listed = sessions(500);
      await catalog.loadMore([undefined]);
      const { f, screen } = await shown(feed());
      await f.receive({ type: 'settings', seq: 1, settings: { ...SETTINGS, query: 'zebra' } });
      await flush();
      assert.deepEqual(pages(), ['100']);
      await f.receive({ type: 'paging', action: 'stop' });
      pauses.shift()!();
      await flush();
      assert.deepEqual(pages(), ['100'], 'no page after Stop');
      assert.equal(screen.lastState().paging?.state, 'stopped');
      await f.receive({ type: 'paging', action: 'resume' });
      await flush();
      assert.deepEqual(pages(), ['100', '200'], 'resumed from where it stopped');
    });
  });

  describe('the selected row kept in place', () => {
    it('as newer sessions arrive above it, the list posted says where it is now and moves the window with it', async () => {
      listed = sessions(10, 's', 5);
      await catalog.loadMore([undefined]);
      const { f, screen } = await shown(feed());
      await flush();
      clock.advance(COMPUTE_DELAY_MS);
      const visible = await rows(f, screen, 3, 8);
      const selected = visible.find((r): r is SessionRow => r.kind === 'session' && r.sessionId === 's4');
      assert.ok(selected, 'the row of s4 is in the window');
      await f.receive({ type: 'selected', key: selected.key });
      // The next list says where the selected row is.
      changes.fire();
      clock.advance(COMPUTE_DELAY_MS);
      const anchored = screen.lastState().anchor;
      assert.ok(anchored && anchored.key === selected.key, 'the list says where the selected row is');

      // Three newer sessions come first in the agent's list.
      listed = [...sessions(3, 'new', 0), ...sessions(10, 's', 5)];
      f.refresh();
      await flush();
      clock.advance(COMPUTE_DELAY_MS);
      const state = screen.lastState();
      const wasAt = (await rows(f, screen, 0, state.count)).findIndex((r) => r.kind === 'session' && r.key === selected.key);
      assert.ok(state.anchor, 'the list says where the selected row is');
      assert.equal(state.anchor.key, selected.key);
      assert.equal(state.anchor.index, wasAt);
      assert.equal(state.anchor.index, anchored.index + 3);
      assert.ok(state.window, 'the window is posted with the list');
      assert.equal(state.window.from, 3 + 3, 'the window moved down as far as the row did');
      assert.ok(
        state.window.rows.some((r) => r.kind === 'session' && r.key === selected.key),
        'the selected row is in the window',
      );
    });

    it('a new query shows its best rows where they are, not around the old selection', async () => {
      listed = sessions(10, 's', 5);
      await catalog.loadMore([undefined]);
      const { f, screen } = await shown(feed());
      const visible = await rows(f, screen, 3, 8);
      const selected = visible.find((r): r is SessionRow => r.kind === 'session');
      assert.ok(selected);
      await f.receive({ type: 'selected', key: selected.key });
      await f.receive({ type: 'settings', seq: 1, settings: { ...SETTINGS, query: 'greeting' } });
      assert.equal(screen.lastState().anchor, undefined);
    });
  });

  describe('starting the selected agent', () => {
    it('showing the view starts the selected agent once; picking it starts it again', async () => {
      agentState = 'stopped';
      const { f } = await shown(feed());
      assert.deepEqual(started, ['Agent'], 'shown: started');
      await f.receive({ type: 'ready' });
      assert.deepEqual(started, ['Agent'], 'shown again: once per agent');
      await f.receive({ type: 'settings', seq: 1, settings: { ...SETTINGS, agent: null } });
      await f.receive({ type: 'settings', seq: 2, settings: SETTINGS });
      assert.deepEqual(started, ['Agent', 'Agent'], 'picked: started again');
    });

    it('a failed agent is not started by showing the view, only by picking it; a running one never', async () => {
      agentState = 'failed';
      const f = feed();
      f.attach(new FakeScreen());
      await f.receive({ type: 'ready' });
      assert.deepEqual(started, []);
      await f.receive({ type: 'settings', seq: 1, settings: { ...SETTINGS, agent: null } });
      await f.receive({ type: 'settings', seq: 2, settings: SETTINGS });
      assert.deepEqual(started, ['Agent']);
      agentState = 'running';
      await f.receive({ type: 'settings', seq: 3, settings: { ...SETTINGS, agent: null } });
      await f.receive({ type: 'settings', seq: 4, settings: SETTINGS });
      assert.deepEqual(started, ['Agent']);
    });

    it('an untrusted workspace starts nothing; a start that fails is shown', async () => {
      agentState = 'stopped';
      trusted = false;
      const untrusted = feed();
      untrusted.attach(new FakeScreen());
      await untrusted.receive({ type: 'ready' });
      assert.deepEqual(started, []);

      trusted = true;
      const f = feed(SETTINGS, () => Promise.reject(new Error('no such program')));
      f.attach(new FakeScreen());
      await f.receive({ type: 'ready' });
      assert.deepEqual(started, ['Agent']);
      assert.deepEqual(errors, ['no such program']);
    });

    it('with no settings stored, the default agent is selected (none: every agent)', () => {
      assert.equal(feed(null, undefined, 'Agent').model.currentSettings.agent, 'Agent');
      assert.equal(feed(null).model.currentSettings.agent, null);
      assert.equal(feed({ ...SETTINGS, agent: 'Other' }, undefined, 'Agent').model.currentSettings.agent, 'Other', 'stored settings win');
    });
  });
});
