import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ListedSession } from '../../../src/acp/port/agentConnection';
import { AgentCatalog } from '../../../src/history/catalog';
import { LocalSessionIndex, recordKey } from '../../../src/history/localIndex';
import { RootLists } from '../../../src/history/rootLists';
import { fold, foldCode } from '../../../src/history/fold';
import { MAX_RESULTS } from '../../../src/history/search';
import { SessionsModel, type SessionsModelDeps } from '../../../src/history/sessionsModel';
import type { AgentEntry, WorkspaceShape } from '../../../src/history/sessionView';
import type { SessionRow } from '../../../src/shared/historyProtocol';
import { FakeTranscripts } from './fakeTranscripts';

const NOW = Date.UTC(2026, 10, 21, 15);
const MINUTE = 60_000;
const workspace: WorkspaceShape = { folders: ['/w/app'], rootSetFor: () => ['/w/app'], exists: () => true };
const VERBS = ['Fix', 'Refactor', 'Add', 'Remove', 'Review', 'Rename', 'Port', 'Debug'];
const WORDS = ['auth', 'flow', 'parser', 'greeting', 'docs', 'oauth', 'reader', 'cache', 'login', 'token', 'router', 'retry', 'Über', 'café', 'API', 'v2'];

function randomFrom(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

/** Sessions newest first, a minute apart; every 17th has no title. */
function listing(count: number, random: () => number, from = 0): ListedSession[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const words = [VERBS[Math.floor(random() * VERBS.length)]!];
    for (let n = 1 + Math.floor(random() * 4); n > 0; n--) words.push(WORDS[Math.floor(random() * WORDS.length)]!);
    return {
      sessionId: `s${i}`,
      cwd: i % 5 === 4 ? '/elsewhere' : '/w/app',
      ...(i % 17 === 3 ? {} : { title: words.join(' ') }),
      updatedAt: new Date(NOW - i * MINUTE).toISOString(),
    };
  });
}

/** The search as it was specified before it was made fast: every title tested, folded (history/fold.ts), ranked, cut. */
function referenceSearch(sessions: ReadonlyMap<string, { title?: string; time: number }>, query: string): { ids: string[]; matched: number } {
  const words = [...new Set(fold(query).split(/\s+/).filter(Boolean))];
  const alnum = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c > 127;
  const wordStart = (text: string, at: number) => at === 0 || (!alnum(text.charCodeAt(at - 1)) && alnum(text.charCodeAt(at)));
  const tier = (text: string, word: string) => {
    let at = text.indexOf(word);
    if (at >= 0) {
      for (; at >= 0; at = text.indexOf(word, at + 1)) if (wordStart(text, at)) return 0;
      return 1;
    }
    if (word.length === 1) return -1;
    at = 0;
    for (const c of word) {
      at = text.indexOf(c, at);
      if (at < 0) return -1;
      at++;
    }
    return 2;
  };
  const matches: Array<{ id: string; tier: number; time: number }> = [];
  for (const [id, session] of sessions) {
    if (!session.title) continue;
    const lower = fold(session.title);
    let total = 0;
    for (const word of words) {
      const t = tier(lower, word);
      if (t < 0) {
        total = -1;
        break;
      }
      total += t;
    }
    if (total >= 0) matches.push({ id, tier: total, time: session.time });
  }
  matches.sort((a, b) => a.tier - b.tier || b.time - a.time);
  return { ids: matches.slice(0, MAX_RESULTS).map((m) => m.id), matched: matches.length };
}

describe('the Sessions model at scale', () => {
  let dir: string;
  let index: LocalSessionIndex;
  let open: Set<string>;
  let models: SessionsModel[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-scale-'));
    index = new LocalSessionIndex(dir, { writeDelayMs: 60_000 });
    open = new Set();
  });
  afterEach(async () => {
    for (const model of models) model.dispose();
    models = [];
    await index.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A catalog that has listed `sessions` (pages of 500), and can be handed more pages. */
  async function catalogOf(sessions: ListedSession[]): Promise<{ catalog: AgentCatalog; page(more: ListedSession[]): Promise<void> }> {
    let pages: ListedSession[][] = [];
    for (let i = 0; i < sessions.length; i += 500) pages.push(sessions.slice(i, i + 500));
    let served = 0;
    const catalog = new AgentCatalog('Claude', () => {
      const page = pages[served++] ?? [];
      return Promise.resolve({ sessions: page, ...(served < pages.length ? { nextCursor: `p${served}` } : {}) });
    });
    while (catalog.hasMore([undefined])) await catalog.loadMore([undefined]);
    return {
      catalog,
      page: async (more) => {
        pages = [more];
        served = 0;
        await catalog.refreshFirstPage([undefined]);
      },
    };
  }

  function modelOver(catalog: AgentCatalog | undefined, extra: Partial<SessionsModelDeps> = {}, scope: 'all' | 'workspace' = 'all'): SessionsModel {
    const agent: AgentEntry = { name: 'Claude', running: true, caps: undefined, catalog };
    const model = new SessionsModel({
      index,
      transcripts: undefined,
      agents: () => [agent],
      workspace: () => workspace,
      isOpen: (a, id) => open.has(`${a}/${id}`),
      now: () => NOW,
      trusted: () => true,
      // Never cut a search short by the clock here: results must not depend on how fast the machine is.
      searchSlice: { ms: Infinity, clock: () => 0 },
      ...extra,
    });
    model.setSettings({ agent: 'Claude', scope, query: '', showHidden: false });
    models.push(model);
    return model;
  }

  function search(model: SessionsModel, query: string) {
    model.setSettings({ ...model.currentSettings, query });
    const state = model.compute();
    const rows = model.rows(0, state.count).filter((r): r is SessionRow => r.kind === 'session');
    return { state, rows, ids: rows.map((r) => r.sessionId) };
  }

  const untilUpdated = (model: SessionsModel) =>
    new Promise<void>((resolve) => {
      const subscription = model.onDidUpdate(() => {
        subscription.dispose();
        resolve();
      });
    });

  describe('the title search against its plain definition', () => {
    it('finds the same best 2,000 in the same order for every keystroke, narrowing as the user types, across list changes', async () => {
      const random = randomFrom(5);
      const listed = listing(6000, random);
      const { catalog, page } = await catalogOf(listed);
      const mirror = new Map(listed.map((s, i) => [s.sessionId, { ...(s.title ? { title: s.title } : {}), time: NOW - i * MINUTE }]));
      const model = modelOver(catalog);
      model.compute();
      const queries = [
        'r',
        're',
        'ref',
        'refa',
        'refactor',
        'refactor a',
        'refactor au',
        'refactor auth',
        'o',
        'oa',
        'oauth',
        'oauth tok',
        'ü',
        'übe',
        'cafe',
        'café',
        'api v',
        'API V2',
        'rfctr',
        'zz',
      ];
      let next = 6000;
      for (const [k, query] of queries.entries()) {
        if (k % 4 === 3) {
          // Meanwhile: a page of new sessions, a renamed session, a deleted one.
          const fresh = listing(40, random, next).map((s, i) => ({ ...s, updatedAt: new Date(NOW + (next + i) * MINUTE).toISOString() }));
          fresh.forEach((s, i) => mirror.set(s.sessionId, { ...(s.title ? { title: s.title } : {}), time: NOW + (next + i) * MINUTE }));
          next += 40;
          await page(fresh);
          const renamed = `s${k * 97}`;
          catalog.upsert({ sessionId: renamed, title: `Refactor the oauth token ${k}`, updatedAt: NOW + next * MINUTE });
          mirror.set(renamed, { title: `Refactor the oauth token ${k}`, time: NOW + next * MINUTE });
          next++;
          catalog.remove(`s${k * 31 + 1}`);
          mirror.delete(`s${k * 31 + 1}`);
        }
        const { ids, state } = search(model, query);
        const expected = referenceSearch(mirror, query);
        assert.deepEqual(ids, expected.ids, query);
        if (expected.matched > MAX_RESULTS) assert.match(state.coverage!, /More than 2,000 match|2,000 are shown/, query);
        else assert.doesNotMatch(state.coverage ?? '', /match;/, query);
      }
      // A fresh model (nothing to narrow from) agrees too.
      assert.deepEqual(search(modelOver(catalog), 'refactor auth').ids, referenceSearch(mirror, 'refactor auth').ids);
    });

    it('stops once more than 2,000 matched at the best tier, and says so; counts exactly otherwise', async () => {
      const { catalog } = await catalogOf(listing(6000, randomFrom(9)));
      const model = modelOver(catalog);
      const broad = search(model, 'r');
      assert.equal(broad.ids.length, MAX_RESULTS);
      assert.match(broad.state.coverage!, /More than 2,000 match; the best 2,000 are shown\./);
      const tests = model.work.titleTests;
      assert.ok(tests < 6000, `stopped early: ${tests} titles looked at`);
      const narrow = search(model, 'rfctr ath');
      assert.ok(narrow.ids.length > 0 && narrow.ids.length < MAX_RESULTS);
      assert.doesNotMatch(narrow.state.coverage!, /match;/);
    });

    it('ranks a word start above a word’s middle above scattered letters, then the newest first', async () => {
      const titles = ['a unit test harness', 'oauth flow', 'auth flow', 'fix auth'];
      const { catalog } = await catalogOf(
        titles.map((title, i) => ({ sessionId: `t${i}`, cwd: '/w/app', title, updatedAt: new Date(NOW - i * MINUTE).toISOString() })),
      );
      const { rows } = search(modelOver(catalog), 'AUTH');
      assert.deepEqual(
        rows.map((r) => r.title),
        ['auth flow', 'fix auth', 'oauth flow', 'a unit test harness'],
      );
    });

    it('marks the matched characters of titles in any case, non-ASCII letters included', async () => {
      const { catalog } = await catalogOf([
        { sessionId: 'a', cwd: '/w/app', title: 'Refactor the ÜBER Greeting', updatedAt: new Date(NOW).toISOString() },
        { sessionId: 'b', cwd: '/w/app', title: 'Fix the Kelvin sign \u212a', updatedAt: new Date(NOW - MINUTE).toISOString() },
      ]);
      const model = modelOver(catalog);
      const [row] = search(model, 'über greet').rows;
      assert.deepEqual(
        row!.highlights.map(([a, b]) => row!.title.slice(a, b)),
        ['ÜBER', 'Greet'],
      );
      const [scattered] = search(model, 'rfctr').rows;
      assert.equal(scattered!.highlights.map(([a, b]) => scattered!.title.slice(a, b)).join(''), 'Rfctr');
      assert.deepEqual(search(model, 'kelvin k').ids, ['b'], 'k matches the plain letter and the Kelvin sign, which folds to k');
      assert.equal(foldCode(0x212a), 0x6b);
      const byCode = (text: string) => String.fromCharCode(...[...text].map((c) => foldCode(c.charCodeAt(0))));
      assert.equal(byCode('ÜBER Straße İ'), 'uber straße i', 'same length, one code unit each');
      assert.equal(fold('ÜBER Straße İ ﬁ'), 'uber straße i fi', 'a query is folded as a whole');
    });

    it('finds a title with or without its accents, as transcript search does (one fold for both)', async () => {
      const { catalog } = await catalogOf([
        { sessionId: 'accented', cwd: '/w/app', title: 'Café opening hours', updatedAt: new Date(NOW).toISOString() },
        { sessionId: 'plain', cwd: '/w/app', title: 'Cafe refactor', updatedAt: new Date(NOW - MINUTE).toISOString() },
        { sessionId: 'umlaut', cwd: '/w/app', title: 'Über alles', updatedAt: new Date(NOW - 2 * MINUTE).toISOString() },
      ]);
      const model = modelOver(catalog);
      assert.deepEqual(search(model, 'cafe').ids, ['accented', 'plain'], '"cafe" finds "Café"');
      assert.deepEqual(search(model, 'café').ids, ['accented', 'plain'], '"café" finds "Cafe refactor"');
      assert.deepEqual(search(model, 'CAFÉ REFACTOR').ids, ['plain']);
      const [row] = search(model, 'cafe hours').rows;
      assert.deepEqual(
        row!.highlights.map(([a, b]) => row!.title.slice(a, b)),
        ['Café', 'hours'],
        'the accented letters are marked',
      );
      assert.deepEqual(
        search(model, 'u').ids,
        ['umlaut', 'accented'],
        'a one-letter query (decided by the masks) finds the accented letter at a word start first',
      );
    });

    it('stays right when the list changes between slices and the query grows before a slice finished', async () => {
      const random = randomFrom(29);
      const listed = listing(20_000, random);
      const { catalog, page } = await catalogOf(listed);
      const mirror = new Map(listed.map((s, i) => [s.sessionId, { ...(s.title ? { title: s.title } : {}), time: NOW - i * MINUTE }]));
      let clock = 0;
      catalog.upsert({ sessionId: 's3000', title: 'Plain words' });
      mirror.set('s3000', { title: 'Plain words', time: NOW - 3000 * MINUTE });
      const model = modelOver(catalog, { searchSlice: { ms: 0.5, clock: () => clock++ } });
      model.compute();
      search(model, 'rfct');
      assert.equal(model.searchPending, true);
      // Between slices: a session far down the list (not scanned yet) and one near the top (scanned) are renamed,
      // one is deleted, and a page of new sessions arrives.
      // s19990 keeps its time (it stays where the scan has not been yet); s5 moves to the top (scanned part).
      catalog.upsert({ sessionId: 's19990', title: 'Refactor oauth tokens far down' });
      mirror.set('s19990', { title: 'Refactor oauth tokens far down', time: NOW - 19_990 * MINUTE });
      catalog.upsert({ sessionId: 's5', title: 'Refactor oauth tokens on top', updatedAt: NOW + 2 * MINUTE });
      mirror.set('s5', { title: 'Refactor oauth tokens on top', time: NOW + 2 * MINUTE });
      catalog.remove('s7');
      mirror.delete('s7');
      const fresh = listing(30, random, 30_000).map((s, i) => ({ ...s, updatedAt: new Date(NOW + (10 + i) * MINUTE).toISOString() }));
      fresh.forEach((s, i) => mirror.set(s.sessionId, { ...(s.title ? { title: s.title } : {}), time: NOW + (10 + i) * MINUTE }));
      await page(fresh);
      model.compute();
      // The query grows while the first search is unfinished: it narrows from what that one knew.
      search(model, 'rfct oauth');
      catalog.upsert({ sessionId: 's12000', title: 'Rework the oauth flow', updatedAt: NOW + 50 * MINUTE });
      mirror.set('s12000', { title: 'Rework the oauth flow', time: NOW + 50 * MINUTE });
      // The first search found s3000 not to match; now it does, before the second search has come to it.
      catalog.upsert({ sessionId: 's3000', title: 'Refactor the oauth client' });
      mirror.set('s3000', { title: 'Refactor the oauth client', time: NOW - 3000 * MINUTE });
      model.compute();
      while (model.searchPending) await untilUpdated(model);
      const ids = search(model, 'rfct oauth').ids;
      assert.deepEqual(ids, referenceSearch(mirror, 'rfct oauth').ids);
      assert.ok(ids.includes('s19990') && ids.includes('s5') && ids.includes('s3000'));
    });

    it('goes on in time slices in the background and ends with the same answer', async () => {
      const random = randomFrom(13);
      const listed = listing(20_000, random);
      const { catalog } = await catalogOf(listed);
      let clock = 0;
      const sliced = modelOver(catalog, { searchSlice: { ms: 0.5, clock: () => clock++ } });
      sliced.compute();
      const first = search(sliced, 'rfctr oauth');
      assert.equal(sliced.searchPending, true, 'the first slice did not finish');
      assert.match(first.state.coverage!, /Still searching titles/);
      while (sliced.searchPending) await untilUpdated(sliced);
      const done = search(sliced, 'rfctr oauth');
      assert.doesNotMatch(done.state.coverage!, /Still searching/);
      const mirror = new Map(listed.map((s, i) => [s.sessionId, { ...(s.title ? { title: s.title } : {}), time: NOW - i * MINUTE }]));
      assert.deepEqual(done.ids, referenceSearch(mirror, 'rfctr oauth').ids);
    });
  });

  describe('order', () => {
    it('is newest first, equal times in listing order, sessions without a time last, however the pages came', async () => {
      const random = randomFrom(17);
      const times = [5, 3, 3, 9, undefined, 1, 3, undefined, 7];
      const listed: ListedSession[] = times.map((t, i) => ({
        sessionId: `o${i}`,
        cwd: '/w/app',
        title: `Order ${i}`,
        ...(t === undefined ? {} : { updatedAt: new Date(NOW - (10 - t) * MINUTE).toISOString() }),
      }));
      const expected = ['o3', 'o8', 'o0', 'o1', 'o2', 'o6', 'o5', 'o4', 'o7'];
      const { catalog } = await catalogOf(listed);
      assert.deepEqual(search(modelOver(catalog), '').ids, expected, 'a fresh model over a catalog listed out of order');
      // The same sessions arriving one by one in a shuffled order, followed live.
      const shuffled = [...listed].sort(() => random() - 0.5);
      const live = await catalogOf([]);
      const model = modelOver(live.catalog);
      model.compute();
      for (const session of shuffled) {
        await live.page([session]);
        model.compute();
      }
      const ids = search(model, '').ids;
      assert.deepEqual(
        ids.filter((id) => !['o1', 'o2', 'o6'].includes(id)),
        expected.filter((id) => !['o1', 'o2', 'o6'].includes(id)),
      );
      assert.deepEqual(
        ids.filter((id) => ['o1', 'o2', 'o6'].includes(id)),
        shuffled.map((s) => s.sessionId).filter((id) => ['o1', 'o2', 'o6'].includes(id)),
        'equal times in the order they were listed',
      );
    });
  });

  describe('no recomputation for what does not change the list', () => {
    it('a page merges in O(page): only its sessions are updated, nothing is rebuilt, the date groups stay ranges', async () => {
      const random = randomFrom(3);
      const { catalog, page } = await catalogOf(listing(3000, random));
      const model = modelOver(catalog);
      const before = model.compute();
      const sessions = model.sessionsOf({ name: 'Claude', running: true, caps: undefined, catalog });
      const work = { ...sessions.work };
      const top = model.rows(0, 20);
      await page(listing(500, random, 3000)); // older sessions: beyond the window
      const after = model.compute();
      assert.equal(sessions.work.rebuilds, work.rebuilds);
      assert.equal(sessions.work.updated - work.updated, 500);
      assert.equal(after.count, before.count + 500);
      assert.deepEqual(model.rows(0, 20), top, 'the rows in view are the same');
    });

    it('a chat’s text changing while searching asks the text side again but tests no title and regroups nothing', async () => {
      const transcripts = new FakeTranscripts();
      const { catalog } = await catalogOf(listing(1000, randomFrom(4)));
      index.record({ agentName: 'Claude', sessionId: 's1', cwd: '/w/app' });
      const model = modelOver(catalog, { transcripts });
      search(model, 'refactor');
      await untilUpdated(model);
      model.compute();
      const { titleTests, titleSearches } = model.work;
      const asked = model.textWork.searches;
      for (let update = 0; update < 5; update++) {
        index.setText('Claude', 's1', `working ${update}`);
        transcripts.setText(recordKey('Claude', 's1'), `refactor ${'more '.repeat(update)}`);
        const answered = untilUpdated(model);
        model.compute();
        await answered;
        model.compute();
      }
      assert.equal(model.work.titleTests, titleTests, 'no title tested again');
      assert.equal(model.work.titleSearches, titleSearches, 'no new title search');
      assert.equal(model.textWork.searches, asked + 5, 'the text side asked once per change');
    });

    it('which chats are open changes rows only: no regrouping, no session updated', async () => {
      const { catalog } = await catalogOf(listing(2000, randomFrom(8)));
      const model = modelOver(catalog);
      const state = model.compute();
      const sessions = model.sessionsOf({ name: 'Claude', running: true, caps: undefined, catalog });
      const groupings = model.work.groupings;
      const updated = sessions.work.updated;
      const first = model.rows(1, 2)[0] as SessionRow;
      assert.equal(first.open, false);
      open.add(`Claude/${first.sessionId}`);
      assert.deepEqual(model.compute(), state);
      assert.equal((model.rows(1, 2)[0] as SessionRow).open, true);
      assert.equal(model.work.groupings, groupings);
      assert.equal(sessions.work.updated, updated);
    });

    it('a renamed session while searching is tested alone: it joins (or leaves) the hits without a new search', async () => {
      const { catalog } = await catalogOf(listing(3000, randomFrom(21)));
      const model = modelOver(catalog);
      search(model, 'xylophone');
      const { titleTests, titleSearches } = model.work;
      catalog.upsert({ sessionId: 's2500', title: 'Tune the xylophone', updatedAt: NOW + MINUTE });
      assert.deepEqual(search(model, 'xylophone').ids, ['s2500']);
      catalog.upsert({ sessionId: 's2500', title: 'Tune the piano', updatedAt: NOW + 2 * MINUTE });
      assert.deepEqual(search(model, 'xylophone').ids, []);
      assert.equal(model.work.titleSearches, titleSearches);
      assert.equal(model.work.titleTests - titleTests, 2);
    });
  });

  describe('transcript text through the TranscriptSearch contract', () => {
    async function withTexts(auto: boolean) {
      const transcripts = new FakeTranscripts(auto);
      const { catalog } = await catalogOf(listing(300, randomFrom(2)));
      catalog.upsert({ sessionId: 'titled', cwd: '/w/app', title: 'Widget factory rename', updatedAt: NOW + MINUTE });
      for (let i = 0; i < 50; i++) {
        index.record({ agentName: 'Claude', sessionId: `s${i}`, cwd: '/w/app' });
        index.setText('Claude', `s${i}`, `user: about the widget number ${i}`);
        transcripts.setText(recordKey('Claude', `s${i}`), `user: about the widget number ${i}`);
      }
      const model = modelOver(catalog, { transcripts });
      return { transcripts, model };
    }

    it('shows title matches at once and merges the text matches in when they arrive, newest first after them', async () => {
      const { transcripts, model } = await withTexts(false);
      const early = search(model, 'widget');
      assert.deepEqual(early.ids, ['titled']);
      assert.match(early.state.coverage!, /searching transcript text…/);
      const updated = untilUpdated(model);
      transcripts.answerNext();
      await updated;
      const late = search(model, 'widget');
      assert.deepEqual(late.ids, ['titled', ...Array.from({ length: 50 }, (_, i) => `s${i}`)]);
      assert.match(late.state.coverage!, /transcript text of 50 of them/);
    });

    it('aborts a question a newer query supersedes, and never shows its late answer', async () => {
      const { transcripts, model } = await withTexts(false);
      search(model, 'widget numb');
      search(model, 'widget number 42');
      assert.equal(transcripts.asked.length, 2);
      assert.equal(transcripts.asked[0]!.signal?.aborted, true);
      assert.equal(transcripts.asked[1]!.signal?.aborted, false);
      transcripts.waiting.shift(); // the old one: its promise was rejected when it was aborted
      const updated = untilUpdated(model);
      transcripts.answerNext();
      await updated;
      assert.deepEqual(search(model, 'widget number 42').ids, ['s42']);
    });

    it('asks for snippets of the rows being shown only, once per query', async () => {
      const { transcripts, model } = await withTexts(true);
      search(model, 'widget');
      await untilUpdated(model);
      const state = model.compute();
      assert.ok(state.count > 40);
      const rows = await model.rowsWithSnippets(0, 4);
      assert.deepEqual(transcripts.snippetRequests, [['Claude\u0000s0', 'Claude\u0000s1', 'Claude\u0000s2']], 'row 0 matched by its title: no snippet asked');
      const snippet = (rows[1] as SessionRow).snippet!;
      assert.equal(snippet.text.slice(...snippet.highlights[0]!), 'widget');
      await model.rowsWithSnippets(0, 4);
      assert.equal(transcripts.snippetRequests.length, 1, 'kept for the query');
      await model.rowsWithSnippets(10, 12);
      assert.deepEqual(transcripts.snippetRequests[1], ['Claude\u0000s9', 'Claude\u0000s10']);
    });

    it('asks again when a transcript changes, keeping the answer it had meanwhile', async () => {
      const { transcripts, model } = await withTexts(false);
      search(model, 'widget');
      let updated = untilUpdated(model);
      transcripts.answerNext();
      await updated;
      assert.equal(search(model, 'widget').ids.length, 51);
      transcripts.setText(recordKey('Claude', 's60'), 'the widget again');
      index.record({ agentName: 'Claude', sessionId: 's60', cwd: '/w/app' });
      assert.equal(search(model, 'widget').ids.length, 51, 'still the previous answer');
      assert.equal(transcripts.asked.length, 2);
      updated = untilUpdated(model);
      transcripts.answerNext();
      await updated;
      assert.equal(search(model, 'widget').ids.length, 52);
    });
  });

  describe('memory', () => {
    it('keeps no copy of a clean title, and one root list per distinct list of folders', async () => {
      const { catalog } = await catalogOf(listing(100, randomFrom(1)));
      const model = modelOver(catalog);
      model.compute();
      const sessions = model.sessionsOf({ name: 'Claude', running: true, caps: undefined, catalog });
      const slot = catalog.slotOf('s0')!;
      assert.equal(sessions.titleAt(slot), catalog.titleAt(slot), 'the catalog’s own string');
      const lists = new RootLists();
      const a = lists.idOf('/w/app', ['/w/lib', '/w/docs']);
      assert.equal(lists.idOf('/w/app', JSON.parse('["/w/lib","/w/docs"]') as string[]), a);
      assert.notEqual(lists.idOf('/w/app', ['/w/docs', '/w/lib']), a, 'order matters');
      assert.equal(lists.size, 2);
    });

    it('lets go of a stopped agent’s sessions even while another agent is shown', async () => {
      const first = await catalogOf(listing(50, randomFrom(1)));
      const other = await catalogOf(listing(5, randomFrom(2)));
      const agents: AgentEntry[] = [
        { name: 'Claude', running: true, caps: undefined, catalog: first.catalog },
        { name: 'Gemini', running: true, caps: undefined, catalog: other.catalog },
      ];
      const model = modelOver(undefined, { agents: () => agents });
      model.compute();
      const kept = () => (model['stores'] as Map<string, { follows(c: AgentCatalog | undefined): boolean }>).get('Claude');
      assert.equal(kept()?.follows(first.catalog), true);
      model.setSettings({ ...model.currentSettings, agent: 'Gemini' });
      model.compute();
      assert.ok(kept(), 'still kept while its catalog is current');
      agents[0] = { ...agents[0]!, running: false, catalog: undefined }; // the agent stopped: its connection and catalog are gone
      model.compute();
      assert.equal(kept(), undefined, 'nothing holds the closed connection’s catalog');
      model.setSettings({ ...model.currentSettings, agent: 'Claude' });
      model.compute();
      assert.equal(kept()?.follows(undefined), true, 'built again from the records when shown');
    });

    it('reuses a search’s buffers from one keystroke to the next', async () => {
      const { catalog } = await catalogOf(listing(100, randomFrom(1)));
      const model = modelOver(catalog);
      model.compute();
      const sessions = model.sessionsOf({ name: 'Claude', running: true, caps: undefined, catalog });
      const bytes = sessions.borrowBytes();
      bytes[3] = 7;
      sessions.releaseBytes(bytes);
      const again = sessions.borrowBytes();
      assert.equal(again, bytes);
      assert.equal(again[3], 0, 'given back zeroed');
    });
  });
});
