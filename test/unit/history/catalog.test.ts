import * as assert from 'node:assert/strict';
import type { ListedSession } from '../../../src/acp/port/agentConnection';
import type { JournalCursor } from '../../../src/history/changeJournal';
import { AgentCatalog, parseTime, type ListPage, type Lister } from '../../../src/history/catalog';

/** A fake agent's session/list over `sessions`: `pageSize` per page, opaque cursors, an exact cwd filter. */
function fakeLister(sessions: ListedSession[], pageSize: number) {
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

function sessions(n: number, cwds: string[]): ListedSession[] {
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
    assert.deepEqual(
      calls.map((c) => c.cwd ?? '(all)'),
      ['/w/app', '/w/lib', '(all)', '(all)'],
    );
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

  it('reads updatedAt as a time only when it is one, and keeps meta and additionalDirectories as given', async () => {
    const catalog = new AgentCatalog('Agent', () =>
      Promise.resolve({
        sessions: [
          { sessionId: 'a', cwd: '/w', updatedAt: 'yesterday-ish', meta: { tag: '<b>x</b>' } },
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

describe('AgentCatalog storage (a million sessions: columns by slot, a change journal)', () => {
  function pagedCatalog(pages: ListedSession[][]) {
    let next = 0;
    const catalog = new AgentCatalog('Agent', () => {
      const sessions = pages[next]!;
      next++;
      return Promise.resolve({ sessions, ...(next < pages.length ? { nextCursor: `c${next}` } : {}) });
    });
    return catalog;
  }
  const changed = (catalog: AgentCatalog, cursor: JournalCursor) => [...new Set(catalog.changes.since(cursor) ?? [])].map((slot) => catalog.sessionIdAt(slot));

  it('notes exactly the sessions a page added or changed, and nothing for a copy it already has', async () => {
    const first = sessions(5, ['/w']);
    const catalog = pagedCatalog([first, [...first.slice(0, 2), { ...first[2]!, title: 'Renamed' }, ...sessions(7, ['/w']).slice(5)]]);
    let cursor = catalog.changes.cursor;
    await catalog.loadMore([undefined]);
    assert.deepEqual(changed(catalog, cursor), ['s0', 's1', 's2', 's3', 's4']);
    cursor = catalog.changes.cursor;
    await catalog.loadMore([undefined]);
    assert.deepEqual(changed(catalog, cursor), ['s2', 's5', 's6'], 'the unchanged copies of s0 and s1 are not noted');
    assert.equal(catalog.get('s2')?.title, 'Renamed');
    assert.equal(catalog.size, 7);
  });

  it('ignores an older copy (not noted), takes a newer one, and keeps what a copy leaves out', async () => {
    const catalog = pagedCatalog([
      [{ sessionId: 'a', cwd: '/w', title: 'Now', additionalDirectories: ['/x'], updatedAt: '2026-11-02T00:00:00Z', meta: { k: 1 } }],
      [{ sessionId: 'a', cwd: '/w', title: 'Before', updatedAt: '2026-11-01T00:00:00Z' }],
      [{ sessionId: 'a', cwd: '/v', updatedAt: '2026-11-03T00:00:00Z' }],
    ]);
    await catalog.loadMore([undefined]);
    let cursor = catalog.changes.cursor;
    await catalog.loadMore([undefined]);
    assert.deepEqual(catalog.changes.since(cursor), []);
    assert.equal(catalog.get('a')?.title, 'Now');
    cursor = catalog.changes.cursor;
    await catalog.loadMore([undefined]);
    assert.equal(catalog.changes.since(cursor)!.length, 1);
    assert.deepEqual(catalog.get('a'), {
      sessionId: 'a',
      cwd: '/v',
      additionalDirectories: ['/x'],
      title: 'Now',
      updatedAt: Date.parse('2026-11-03T00:00:00Z'),
      meta: { k: 1 },
    });
  });

  it('notes upserts and removals; a removed session’s slot is reused, and readers after a reset rebuild', async () => {
    const catalog = pagedCatalog([sessions(3, ['/w'])]);
    await catalog.loadMore([undefined]);
    const cursor = catalog.changes.cursor;
    const slot = catalog.slotOf('s1')!;
    catalog.remove('s1');
    assert.equal(catalog.sessionIdAt(slot), undefined);
    catalog.upsert({ sessionId: 'new', cwd: '/w', title: 'Created here', updatedAt: 5 });
    catalog.upsert({ sessionId: 'unknown' }); // no cwd: nothing to show
    assert.equal(catalog.slotOf('new'), slot, 'the free slot is reused');
    assert.deepEqual(catalog.changes.since(cursor), [slot, slot]);
    assert.equal(catalog.get('unknown'), undefined);
    catalog.reset();
    assert.equal(catalog.changes.since(cursor), undefined, 'after a reset a reader starts over');
    assert.equal(catalog.size, 0);
  });

  it('keeps its journal bounded: a reader that falls far behind is told to rebuild', async () => {
    const catalog = pagedCatalog([sessions(10, ['/w'])]);
    await catalog.loadMore([undefined]);
    const cursor = catalog.changes.cursor;
    for (let i = 0; i < 5000; i++) catalog.upsert({ sessionId: 's0', title: `Title ${i}` });
    assert.equal(catalog.changes.since(cursor), undefined);
    const recent = catalog.changes.cursor;
    catalog.upsert({ sessionId: 's1', title: 'x' });
    assert.deepEqual(catalog.changes.since(recent), [catalog.slotOf('s1')]);
  });

  it('keeps each folder and each list of folders once, however many sessions share them', async () => {
    const catalog = pagedCatalog([
      JSON.parse(
        JSON.stringify([
          { sessionId: 'a', cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs'] },
          { sessionId: 'b', cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs'] },
          { sessionId: 'c', cwd: '/w/app', additionalDirectories: ['/w/lib'] },
        ]),
      ) as ListedSession[],
    ]);
    await catalog.loadMore([undefined]);
    const [a, b, c] = ['a', 'b', 'c'].map((id) => catalog.slotOf(id)!) as [number, number, number];
    assert.equal(catalog.directoriesAt(a), catalog.directoriesAt(b), 'equal lists are one array');
    assert.notEqual(catalog.directoriesAt(a), catalog.directoriesAt(c));
    assert.equal(catalog.directoriesAt(c)![0], catalog.directoriesAt(a)![0], 'and each folder one string');
    assert.ok(Object.isFrozen(catalog.directoriesAt(a)));
  });

  it('reads times exactly as Date.parse does, with a fast path for the usual ISO form', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const chars = '0123456789-T:.Z+ ax';
    const samples = [
      '2026-02-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:59:60Z',
      '0999-01-01T00:00:00Z',
      '2026-01-01T00:00:00.1234Z',
      '2026-01-01T00:00:00.Z',
      '2026-01-01T00:00:00+01:00',
      'yesterday',
      '',
    ];
    for (let i = 0; i < 20_000; i++) {
      let text = new Date(Math.floor(random() * 4e12) - 1e12).toISOString();
      if (random() < 0.3) text = text.replace('.000', random() < 0.5 ? '' : `.${'1234567890'.slice(0, 1 + Math.floor(random() * 9))}`);
      const characters = text.split('');
      for (let k = Math.floor(random() * 3); k > 0; k--) characters[Math.floor(random() * characters.length)] = chars[Math.floor(random() * chars.length)]!;
      samples.push(characters.join(''));
    }
    for (const text of samples) assert.ok(Object.is(parseTime(text), Date.parse(text)), text);
  });
});
