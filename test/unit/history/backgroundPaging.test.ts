import * as assert from 'node:assert/strict';
import type { ListedSession } from '../../../src/acp/port/agentConnection';
import { BackgroundPaging, PAGING_REFRESH_MS, pagingRefreshDelay, type PagingTarget } from '../../../src/history/backgroundPaging';
import { AgentCatalog, type Lister, type SourcePlan } from '../../../src/history/catalog';
import { flush } from '../../helpers/memoryPeer';

function sessions(n: number, prefix = 's'): ListedSession[] {
  return Array.from({ length: n }, (_, i) => ({
    sessionId: `${prefix}${i}`,
    cwd: i % 2 === 0 ? '/w/app' : '/w/lib',
    title: `Session ${i}`,
    updatedAt: new Date(Date.UTC(2026, 10, 1) - i * 60_000).toISOString(),
  }));
}

interface Request {
  readonly params: { cwd?: string; cursor?: string };
  readonly signal: AbortSignal | undefined;
  answer(): void;
  fail(error: Error): void;
}

/**
 * A fake agent's session/list that answers only when the test says so: `requests` holds what was asked and
 * not answered yet. A cancelled request stays pending, like one whose agent has not answered the
 * `$/cancel_request` yet, until the test answers it (the page) or fails it.
 */
function onDemandAgent(all: ListedSession[], pageSize: number) {
  const requests: Request[] = [];
  const asked: Array<{ cwd?: string; cursor?: string }> = [];
  const lister: Lister = (params, signal) =>
    new Promise((resolve, reject) => {
      asked.push(params);
      const matching = all.filter((s) => params.cwd === undefined || s.cwd === params.cwd);
      const offset = params.cursor === undefined ? 0 : Number(params.cursor);
      requests.push({
        params,
        signal,
        answer: () =>
          resolve({
            sessions: matching.slice(offset, offset + pageSize),
            ...(offset + pageSize < matching.length ? { nextCursor: String(offset + pageSize) } : {}),
          }),
        fail: reject,
      });
    });
  /** Answers the oldest open request, then lets the paging react. */
  const answer = async () => {
    const request = requests.shift();
    assert.ok(request, 'a request is waiting for its answer');
    request.answer();
    await flush();
  };
  const fail = async (error: Error) => {
    requests.shift()!.fail(error);
    await flush();
  };
  return { lister, requests, asked, answer, fail };
}

const ALL: SourcePlan = [undefined];

describe('BackgroundPaging (a search pages without scrolling)', () => {
  let paging: BackgroundPaging | undefined;
  let changes = 0;
  afterEach(() => {
    paging?.dispose();
    paging = undefined;
    changes = 0;
  });
  const make = (options: { maxSessions?: number; pause?: () => Promise<void> } = {}) =>
    (paging = new BackgroundPaging({ pause: () => Promise.resolve(), ...options, onDidChange: () => changes++ }));
  const target = (catalog: AgentCatalog, plan: SourcePlan = ALL, agentName = 'Agent'): PagingTarget => ({ agentName, list: catalog, plan });

  it('pages while wanted, one page in flight at a time, until the list is complete', async () => {
    const agent = onDemandAgent(sessions(250), 100);
    const catalog = new AgentCatalog('Agent', agent.lister);
    const runner = make();
    runner.want([target(catalog)]);
    assert.equal(runner.isPaging('Agent'), true);
    assert.ok(changes > 0, 'the view hears that paging started');
    assert.equal(agent.requests.length, 1);
    await flush();
    assert.equal(agent.requests.length, 1, 'the next page waits for this one');
    await agent.answer();
    assert.deepEqual(runner.progress(), { active: true, stopped: false, capped: false, loaded: 100 });
    assert.equal(agent.requests.length, 1);
    await agent.answer();
    await agent.answer();
    assert.equal(catalog.size, 250);
    assert.equal(runner.isPaging('Agent'), false);
    assert.deepEqual(runner.progress(), { active: false, stopped: false, capped: false, loaded: 250 });
    assert.deepEqual(
      agent.asked.map((p) => p.cursor),
      [undefined, '100', '200'],
    );
    runner.want([target(catalog)]);
    await flush();
    assert.equal(agent.requests.length, 0, 'a complete list asks for nothing more');
  });

  it('stops when no longer wanted (the search was cleared): the page in flight is cancelled, nothing more is asked', async () => {
    const agent = onDemandAgent(sessions(500), 100);
    const catalog = new AgentCatalog('Agent', agent.lister);
    const runner = make();
    runner.want([target(catalog)]);
    await agent.answer();
    const inFlight = agent.requests[0]!;
    runner.want([]);
    assert.equal(inFlight.signal?.aborted, true, 'the connection sends $/cancel_request');
    assert.equal(runner.isPaging('Agent'), false);
    await agent.answer();
    await flush();
    assert.equal(agent.requests.length, 0);
    assert.equal(catalog.size, 200, 'a page the agent still answered is kept');
    assert.equal(runner.progress().stopped, false, 'not wanted is not stopped by the user');
  });

  it('stops on the user’s Stop, keeps what was loaded, says so, and resumes where it stopped', async () => {
    const agent = onDemandAgent(sessions(500), 100);
    const catalog = new AgentCatalog('Agent', agent.lister);
    const runner = make();
    runner.want([target(catalog)]);
    await agent.answer();
    runner.stop();
    const cancelled = agent.requests.shift()!;
    assert.equal(cancelled.signal?.aborted, true);
    cancelled.fail(Object.assign(new Error('Request cancelled'), { code: -32800 }));
    await flush();
    assert.deepEqual(runner.progress(), { active: false, stopped: true, capped: false, loaded: 100 });
    assert.equal(catalog.errorFor(ALL), undefined, 'a stop is no error');
    runner.want([target(catalog)]);
    await flush();
    assert.equal(agent.requests.length, 0, 'typing on after a stop does not start paging again');
    runner.resume();
    assert.equal(agent.requests.length, 1);
    assert.equal(agent.requests[0]!.params.cursor, '100', 'the cancelled page is asked for again');
    while (agent.requests.length > 0) await agent.answer();
    assert.equal(catalog.size, 500);
    assert.deepEqual(runner.progress(), { active: false, stopped: false, capped: false, loaded: 500 });
  });

  it('stops on an error, which the catalog keeps for its Retry; after the retry it pages on', async () => {
    const agent = onDemandAgent(sessions(300), 100);
    const catalog = new AgentCatalog('Agent', agent.lister);
    const runner = make();
    runner.want([target(catalog)]);
    await agent.answer();
    await agent.fail(new Error('the agent went away'));
    assert.equal(runner.isPaging('Agent'), false);
    assert.equal(catalog.errorFor(ALL), 'the agent went away');
    runner.want([target(catalog)]);
    await flush();
    assert.equal(agent.requests.length, 0, 'no paging against a standing error');
    catalog.retry(ALL);
    runner.want([target(catalog)]);
    await agent.answer();
    await agent.answer();
    assert.equal(catalog.size, 300);
  });

  it('stops at the cap and says the cap was reached', async () => {
    const agent = onDemandAgent(sessions(500), 100);
    const catalog = new AgentCatalog('Agent', agent.lister);
    const runner = make({ maxSessions: 150 });
    runner.want([target(catalog)]);
    await agent.answer();
    await agent.answer();
    assert.equal(agent.requests.length, 0);
    assert.equal(catalog.size, 200);
    assert.deepEqual(runner.progress(), { active: false, stopped: false, capped: true, loaded: 200 });
  });

  it('goes on from the first page when the catalog is reset (refresh) while a page is in flight', async () => {
    const agent = onDemandAgent(sessions(250), 100);
    const catalog = new AgentCatalog('Agent', agent.lister);
    const runner = make();
    runner.want([target(catalog)]);
    await agent.answer();
    catalog.reset();
    await agent.answer();
    assert.equal(catalog.size, 0, 'the page of the old listing is dropped');
    assert.equal(agent.requests.length, 1);
    assert.equal(agent.requests[0]!.params.cursor, undefined);
    while (agent.requests.length > 0) await agent.answer();
    assert.equal(catalog.size, 250);
  });

  it('pages the new catalog of an agent restarted meanwhile, and cancels the old one’s page', async () => {
    const before = onDemandAgent(sessions(300), 100);
    const old = new AgentCatalog('Agent', before.lister);
    const runner = make();
    runner.want([target(old)]);
    await before.answer();
    const after = onDemandAgent(sessions(300), 100);
    const fresh = new AgentCatalog('Agent', after.lister);
    runner.want([target(fresh)]);
    assert.equal(before.requests[0]!.signal?.aborted, true);
    assert.equal(after.requests.length, 1);
    assert.equal(after.requests[0]!.params.cursor, undefined);
    while (after.requests.length > 0) await after.answer();
    assert.equal(fresh.size, 300);
    assert.equal(runner.isPaging('Agent'), false);
  });

  it('follows a new scope: the old plan’s page is cancelled, and the catalog never has two pages in flight', async () => {
    const agent = onDemandAgent(sessions(400), 100);
    const catalog = new AgentCatalog('Agent', agent.lister);
    const runner = make();
    runner.want([target(catalog, ['/w/app'])]);
    assert.deepEqual(agent.asked, [{ cwd: '/w/app' }]);
    runner.want([target(catalog, ALL)]);
    assert.equal(agent.requests[0]!.signal?.aborted, true);
    await flush();
    assert.equal(agent.requests.length, 1, 'the new plan waits for the cancelled page to settle');
    await agent.answer();
    assert.equal(agent.requests.length, 1);
    assert.deepEqual(agent.asked[1], {}, 'then the unfiltered list');
  });

  it('pages several agents side by side, one page in flight each, and counts what they loaded', async () => {
    const first = onDemandAgent(sessions(200, 'a'), 100);
    const second = onDemandAgent(sessions(100, 'b'), 50);
    const runner = make();
    runner.want([target(new AgentCatalog('A', first.lister), ALL, 'A'), target(new AgentCatalog('B', second.lister), ALL, 'B')]);
    assert.equal(first.requests.length + second.requests.length, 2);
    await first.answer();
    await second.answer();
    assert.equal(runner.progress().loaded, 150);
    await first.answer();
    assert.equal(runner.isPaging('A'), false);
    assert.equal(runner.isPaging('B'), true);
    await second.answer();
    assert.deepEqual(runner.progress(), { active: false, stopped: false, capped: false, loaded: 300 });
  });

  it('pauses between pages even when the agent answers at once: each pause lets one more page through', async () => {
    const all = sessions(500);
    let asked = 0;
    const catalog = new AgentCatalog('Agent', (params) => {
      asked++;
      const offset = params.cursor === undefined ? 0 : Number(params.cursor);
      return Promise.resolve({ sessions: all.slice(offset, offset + 100), ...(offset + 100 < all.length ? { nextCursor: String(offset + 100) } : {}) });
    });
    const waiting: Array<() => void> = [];
    const runner = make({ pause: () => new Promise<void>((resolve) => waiting.push(resolve)) });
    runner.want([target(catalog)]);
    await flush();
    assert.equal(asked, 1);
    assert.equal(waiting.length, 1, 'after a page it waits for its pause');
    waiting.shift()!();
    await flush();
    assert.equal(asked, 2);
    while (waiting.length > 0) {
      waiting.shift()!();
      await flush();
    }
    assert.equal(asked, 5);
    assert.equal(catalog.size, 500);
  });

  it('does not spin when pages neither arrive nor end (a list that keeps being reset)', async () => {
    let asked = 0;
    const list = { size: 0, hasMore: () => true, errorFor: () => undefined, loadMore: () => (asked++, Promise.resolve(false)) };
    const runner = make();
    runner.want([{ agentName: 'Agent', list, plan: ALL }]);
    await flush(5);
    assert.equal(asked, 2);
    assert.equal(runner.isPaging('Agent'), false);
  });

  it('spaces the view’s recomputations while paging: at least the refresh interval, and four times the last one’s cost', () => {
    assert.equal(pagingRefreshDelay(0), PAGING_REFRESH_MS);
    assert.equal(pagingRefreshDelay(10), PAGING_REFRESH_MS);
    assert.equal(pagingRefreshDelay(800), 3200);
  });
});
