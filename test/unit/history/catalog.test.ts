import * as assert from 'node:assert/strict';
import type { SessionInfo } from '../../../src/acp/schema';
import { AgentCatalog, type ListPage, type Lister } from '../../../src/history/catalog';

/** A fake agent's session/list over `sessions`: `pageSize` per page, opaque cursors, an exact cwd filter. */
function fakeLister(sessions: SessionInfo[], pageSize: number) {
  const calls: Array<{ cwd?: string; cursor?: string }> = [];
  let failNext: Error | undefined;
  const lister: Lister = (params) => {
    calls.push(params);
    if (failNext) {
      const error = failNext;
      failNext = undefined;
      return Promise.reject(error);
    }
    const matching = sessions.filter((s) => params.cwd === undefined || s.cwd === params.cwd);
    const offset = params.cursor === undefined ? 0 : Number(Buffer.from(params.cursor, 'base64url').toString().replace('page:', ''));
    if (Number.isNaN(offset)) return Promise.reject(Object.assign(new Error('Invalid cursor'), { code: -32602 }));
    const page: ListPage = {
      sessions: matching.slice(offset, offset + pageSize),
      ...(offset + pageSize < matching.length ? { nextCursor: Buffer.from(`page:${offset + pageSize}`).toString('base64url') } : {}),
    };
    return Promise.resolve(page);
  };
  return { lister, calls, failOnce: (error: Error) => (failNext = error) };
}

function sessions(n: number, cwds: string[]): SessionInfo[] {
  return Array.from({ length: n }, (_, i) => ({
    sessionId: `s${i}`,
    cwd: cwds[i % cwds.length]!,
    additionalDirectories: [],
    title: `Session ${i}`,
    updatedAt: new Date(Date.UTC(2026, 10, 1) - i * 60_000).toISOString(),
  }));
}

describe('AgentCatalog (session/list paging and merging)', () => {
  it('pages through the unfiltered list with the opaque cursors, once each, until there is no nextCursor', async () => {
    const { lister, calls } = fakeLister(sessions(250, ['/w/app', '/w/lib', '/w/docs']), 100);
    const catalog = new AgentCatalog('Agent', lister);
    const plan = [undefined];
    assert.equal(catalog.hasMore(plan), true);
    while (catalog.hasMore(plan)) assert.equal(await catalog.loadMore(plan), true);
    assert.equal(catalog.size, 250);
    assert.equal(calls.length, 3);
    assert.deepEqual(calls[0], {});
    assert.ok(calls[1]!.cursor && calls[2]!.cursor && calls[1]!.cursor !== calls[2]!.cursor);
    assert.equal(await catalog.loadMore(plan), false, 'nothing left to load');
    assert.equal(calls.length, 3);
  });

  it('reads per-folder sources in order, and merges sessions met in several sources once', async () => {
    const all = sessions(30, ['/w/app', '/w/lib', '/elsewhere']);
    const { lister, calls } = fakeLister(all, 20);
    const catalog = new AgentCatalog('Agent', lister);
    const plan = ['/w/app', '/w/lib', undefined];
    while (catalog.hasMore(plan)) await catalog.loadMore(plan);
    assert.deepEqual(calls.map((c) => c.cwd ?? '(all)'), ['/w/app', '/w/lib', '(all)', '(all)']);
    assert.equal(catalog.size, 30, 'the sessions of /w/app and /w/lib were met twice and kept once');
  });

  it('needs no per-folder page once the unfiltered list is complete', async () => {
    const { lister, calls } = fakeLister(sessions(10, ['/w/app']), 50);
    const catalog = new AgentCatalog('Agent', lister);
    await catalog.loadMore([undefined]);
    assert.equal(catalog.hasMore(['/w/app', '/w/lib']), false);
    assert.equal(await catalog.loadMore(['/w/app']), false);
    assert.equal(calls.length, 1);
  });

  it('keeps what it loaded when a page fails, says why, and goes on after a retry', async () => {
    const { lister, failOnce } = fakeLister(sessions(150, ['/w/app']), 100);
    const catalog = new AgentCatalog('Agent', lister);
    const plan = [undefined];
    await catalog.loadMore(plan);
    failOnce(new Error('agent went away'));
    assert.equal(await catalog.loadMore(plan), false);
    assert.equal(catalog.size, 100, 'the first page is kept');
    assert.equal(catalog.errorFor(plan), 'agent went away');
    assert.equal(await catalog.loadMore(plan), false, 'no paging while the error stands');
    catalog.retry(plan);
    assert.equal(catalog.errorFor(plan), undefined);
    assert.equal(await catalog.loadMore(plan), true);
    assert.equal(catalog.size, 150);
    assert.equal(catalog.hasMore(plan), false);
  });

  it('starts a source over after the agent rejected its cursor (-32602), without duplicates', async () => {
    const all = sessions(150, ['/w/app']);
    let rejectCursor = false;
    const { lister: inner, calls } = fakeLister(all, 100);
    const lister: Lister = (params) =>
      rejectCursor && params.cursor !== undefined ? Promise.reject(Object.assign(new Error('Invalid cursor'), { code: -32602 })) : inner(params);
    const catalog = new AgentCatalog('Agent', lister);
    const plan = [undefined];
    await catalog.loadMore(plan);
    rejectCursor = true;
    await catalog.loadMore(plan);
    assert.match(catalog.errorFor(plan)!, /Invalid cursor/);
    rejectCursor = false;
    catalog.retry(plan);
    await catalog.loadMore(plan);
    assert.equal(calls.at(-1)!.cursor, undefined, 'the retry starts from the first page');
    while (catalog.hasMore(plan)) await catalog.loadMore(plan);
    assert.equal(catalog.size, 150);
  });

  it('stops paging when an agent hands back the cursor it was given', async () => {
    let calls = 0;
    const catalog = new AgentCatalog('Agent', () => {
      calls++;
      return Promise.resolve({ sessions: sessions(2, ['/w']), nextCursor: 'same' });
    });
    while (catalog.hasMore([undefined])) await catalog.loadMore([undefined]);
    assert.equal(calls, 2);
  });

  it('keeps the most recently updated copy, and ignores pages that arrive after a refresh', async () => {
    let resolveSlow: ((page: ListPage) => void) | undefined;
    const catalog = new AgentCatalog('Agent', (params) =>
      params.cwd === '/slow'
        ? new Promise((resolve) => (resolveSlow = resolve))
        : Promise.resolve({ sessions: [{ sessionId: 'a', cwd: '/w', title: 'new', updatedAt: '2026-11-02T00:00:00Z' }] }),
    );
    catalog.upsert({ sessionId: 'a', cwd: '/w', title: 'newest', updatedAt: Date.parse('2026-11-03T00:00:00Z') });
    await catalog.loadMore([undefined]);
    assert.equal(catalog.get('a')?.title, 'newest', 'an older listing does not overwrite a newer copy');
    catalog.reset();
    const slow = catalog.loadMore(['/slow']);
    catalog.reset();
    resolveSlow!({ sessions: [{ sessionId: 'stale', cwd: '/slow' }] });
    assert.equal(await slow, false);
    assert.equal(catalog.get('stale'), undefined);
    assert.equal(catalog.size, 0);
  });

  it('a page cancelled by its caller is no failure: the source stays at its cursor and paging goes on from there', async () => {
    const all = sessions(150, ['/w/app']);
    const { lister: inner, calls } = fakeLister(all, 100);
    const signals: Array<AbortSignal | undefined> = [];
    let cancelNext = false;
    const lister: Lister = (params, signal) => {
      signals.push(signal);
      if (!cancelNext) return inner(params);
      calls.push(params);
      // What a connection does when the agent answers -32800 to the $/cancel_request.
      return new Promise((_resolve, reject) => signal!.addEventListener('abort', () => reject(Object.assign(new Error('cancelled'), { code: -32800 }))));
    };
    const catalog = new AgentCatalog('Agent', lister);
    const plan = [undefined];
    await catalog.loadMore(plan);
    cancelNext = true;
    const controller = new AbortController();
    const pending = catalog.loadMore(plan, controller.signal);
    assert.equal(signals.at(-1), controller.signal, 'the lister gets the signal, so the connection can cancel the request');
    controller.abort();
    assert.equal(await pending, false);
    assert.equal(catalog.errorFor(plan), undefined, 'no error row for a stop the user asked for');
    assert.equal(catalog.isLoading, false);
    cancelNext = false;
    const cursor = calls.at(-1)!.cursor;
    assert.equal(await catalog.loadMore(plan), true);
    assert.equal(calls.at(-1)!.cursor, cursor, 'the same page is asked for again');
    assert.equal(catalog.size, 150);
  });

  it('keeps a page the agent answers after the cancel, and sends nothing for a signal aborted before', async () => {
    const { lister: inner, calls } = fakeLister(sessions(150, ['/w/app']), 100);
    let release: (() => void) | undefined;
    const catalog = new AgentCatalog('Agent', (params) => new Promise((resolve) => (release = () => resolve(inner(params)))));
    const controller = new AbortController();
    const pending = catalog.loadMore([undefined], controller.signal);
    controller.abort();
    release!();
    assert.equal(await pending, true, 'the agent answered anyway: the page is real');
    assert.equal(catalog.size, 100);
    assert.equal(await catalog.loadMore([undefined], controller.signal), false);
    assert.equal(calls.length, 1, 'nothing sent for an aborted signal');
  });

  it('reads updatedAt as a time only when it is one, and keeps _meta and additionalDirectories as given', async () => {
    const catalog = new AgentCatalog('Agent', () =>
      Promise.resolve({
        sessions: [
          { sessionId: 'a', cwd: '/w', updatedAt: 'yesterday-ish', _meta: { tag: '<b>x</b>' } },
          { sessionId: 'b', cwd: '/w', additionalDirectories: ['/x', '/y'], updatedAt: '2026-11-02T10:00:00.000Z' },
        ],
      }),
    );
    await catalog.loadMore([undefined]);
    assert.equal(catalog.get('a')?.updatedAt, undefined);
    assert.deepEqual(catalog.get('a')?.meta, { tag: '<b>x</b>' });
    assert.equal(catalog.get('a')?.additionalDirectories, undefined, 'not reported is not the same as none');
    assert.deepEqual(catalog.get('b')?.additionalDirectories, ['/x', '/y']);
    assert.equal(catalog.get('b')?.updatedAt, Date.parse('2026-11-02T10:00:00.000Z'));
  });
});
