/**
 * The Sessions view's list, computed from the agents' catalogs and the local index: scoped, searched,
 * grouped (by agent, then Pinned and date), with a status row closing each agent's part (loading, more to
 * load, an error with a retry, or why only local history is shown).
 *
 * Built for a million sessions. Each agent's sessions are followed incrementally ({@link AgentSessions}:
 * what changed in its catalog or records since the last computation, nothing else), kept newest first and
 * per scope; date groups are ranges of that order found by binary search; the list is a few blocks
 * ({@link ListLayout}); full rows are built only for the window the webview shows. A search runs over titles
 * on the host ({@link TitleSearch}: best first, in time slices, narrowing as the user types, following
 * changes) and over transcript text off it ({@link TranscriptMatches}), whose answer is merged in when it
 * arrives ({@link SessionsModel.onDidUpdate}). A change that does not touch the list (a chat's text, which
 * chats are open) recomputes nothing: rows read those when they are built.
 */
import * as l10n from '@vscode/l10n';
import { Emitter, type Event } from '../common/events';
import type { Row, SessionRow, SpecialRow, StatusRow, ViewSettings } from '../shared/historyProtocol';
import { AgentSessions } from './agentSessions';
import type { BackgroundPaging } from './backgroundPaging';
import { dateGroupLabel, startOfDay, type DateGroup } from './dateGroups';
import { ListLayout, type Block, type ListedSession } from './listLayout';
import type { LocalSessionIndex } from './localIndex';
import { pagingBar } from './pagingBar';
import { coverageLine, emptyText, statusRowOf } from './listText';
import { sessionRow, withSnippets } from './sessionRows';
import { matchTitle, MAX_RESULTS, queryWords } from './search';
import { inScope, sourcePlan, type AgentEntry, type SessionView, type WorkspaceShape } from './sessionView';
import { TitleSearch, TitleSearchRun } from './titleSearch';
import { TranscriptMatches } from './transcriptMatches';
import type { TranscriptSearch } from './transcriptSearch';

export interface SessionsModelDeps {
  readonly index: LocalSessionIndex;
  /** The transcripts' full-text search (answered off the host thread); undefined: only titles are searched. */
  readonly transcripts: TranscriptSearch | undefined;
  agents(): readonly AgentEntry[];
  workspace(): WorkspaceShape;
  isOpen(agentName: string, sessionId: string): boolean;
  now(): number;
  /** False in Restricted Mode: no agent runs, only local history is shown. */
  trusted(): boolean;
  /**
   * Background paging (history/backgroundPaging.ts): an agent it pages shows as loading, and while its bar
   * tells what is loaded, the coverage line does not repeat it.
   */
  readonly paging?: Pick<BackgroundPaging, 'isPaging' | 'progress'>;
  /** How long one slice of a title search may take (default {@link SEARCH_SLICE_MS} by `performance.now`). */
  readonly searchSlice?: { readonly ms: number; readonly clock: () => number };
}

export interface ModelState {
  readonly count: number;
  readonly specials: SpecialRow[];
  readonly searching: boolean;
  readonly coverage: string | undefined;
  readonly notices: string[];
  readonly empty: string;
}

export const DEFAULT_SETTINGS: ViewSettings = { agent: null, scope: 'workspace', query: '', showHidden: false };

/** One slice of a title search (the rest goes on after the host has had its turn). */
export const SEARCH_SLICE_MS = 6;
/** While a long search goes on, the view hears about its progress at most this often. */
const PROGRESS_MS = 150;
const DAY_MS = 24 * 60 * 60 * 1000;

interface Section {
  readonly agent: AgentEntry;
  readonly sessions: AgentSessions;
  readonly status: StatusRow | undefined;
}

export class SessionsModel {
  private settings: ViewSettings = DEFAULT_SETTINGS;
  private readonly stores = new Map<string, AgentSessions>();
  private readonly groups = new Map<string, { key: string; sessions: AgentSessions; blocks: Block[] }>();
  private layout = new ListLayout([]);
  private search: TitleSearch | undefined;
  private searchKeys = '';
  private textOnly: { keys: ReadonlySet<string>; versions: string; sessions: ListedSession[] } | undefined;
  private readonly text: TranscriptMatches;
  private continuation: ReturnType<typeof setImmediate> | undefined;
  private lastProgress = 0;
  private readonly updates = new Emitter<void>();
  /** Work done in the background changed the list (title search progress, transcript matches): compute again. */
  readonly onDidUpdate: Event<void> = this.updates.event;
  /**
   * What the model did, for tests and benchmarks: title searches started, titles tested, agents' parts of the
   * list grouped again (see also each agent's {@link AgentSessions.work} and the transcript side's work).
   */
  readonly work = { titleSearches: 0, titleTests: 0, groupings: 0 };

  constructor(private readonly deps: SessionsModelDeps) {
    this.text = new TranscriptMatches(deps.transcripts, () => this.updates.fire());
  }

  /** Whether a title search is still going on in the background (its progress comes by {@link onDidUpdate}). */
  get searchPending(): boolean {
    return this.search !== undefined && !this.search.finished;
  }

  /** What the transcript side asked so far (tests and benchmarks read it). */
  get textWork(): { readonly searches: number; readonly snippetRequests: number } {
    return this.text.work;
  }

  get currentSettings(): ViewSettings {
    return this.settings;
  }

  setSettings(settings: ViewSettings): void {
    this.settings = settings;
  }

  /** The agents the view shows, in configuration order. */
  shownAgents(): AgentEntry[] {
    const agents = this.deps.agents();
    return this.settings.agent === null ? [...agents] : agents.filter((a) => a.name === this.settings.agent);
  }

  /** A session by its row key (agent and session id), as the view knows it now. */
  find(key: string): SessionView | undefined {
    const split = key.indexOf('\u0000');
    if (split < 0) return undefined;
    const sessions = this.stores.get(key.slice(0, split));
    const slot = sessions?.slotOf(key.slice(split + 1));
    return slot === undefined ? undefined : sessions!.viewAt(slot);
  }

  /** An agent's sessions, caught up with its catalog and the records. */
  sessionsOf(agent: AgentEntry): AgentSessions {
    let sessions = this.stores.get(agent.name);
    if (!sessions) {
      sessions = new AgentSessions(agent.name, this.deps.index);
      this.stores.set(agent.name, sessions);
    }
    sessions.sync(agent.catalog);
    return sessions;
  }

  /** Recomputes the list: cheap enough for every keystroke and every change (see bench/sessions.bench.ts). */
  compute(): ModelState {
    const { scope, showHidden } = this.settings;
    const workspace = this.deps.workspace();
    const agents = this.shownAgents();
    this.forgetAgentsGone();
    const phrase = this.settings.query.trim().toLowerCase();
    const searching = phrase.length > 0;
    const notices: string[] = [];
    let sections: Section[] = agents.map((agent) => {
      const sessions = this.sessionsOf(agent);
      const rootSet = workspace.rootSetFor(agent);
      const key = [scope, showHidden, workspace.folders.join('\u0000'), rootSet.join('\u0000')].join('|');
      sessions.setScope(key, (roots) => inScope(roots, scope, workspace, agent), showHidden);
      return {
        agent,
        sessions,
        status: this.deps.trusted()
          ? statusRowOf(agent, sourcePlan(this.settings.scope, workspace, agent), this.deps.paging?.isPaging(agent.name) === true)
          : undefined,
      };
    });
    if (this.settings.agent === null) {
      // All agents: an agent that is not running and has nothing here gets one line, not a section.
      const idle = sections.filter((s) => !s.agent.running && s.sessions.scoped.length === 0);
      if (idle.length > 0 && idle.length < sections.length) {
        sections = sections.filter((s) => !idle.includes(s));
        notices.push(l10n.t('Not running, no sessions here yet: {0}.', idle.map((s) => s.agent.name).join(', ')));
      }
    }
    if (!this.deps.trusted()) notices.push(l10n.t('Agents are not started in Restricted Mode: this is the history of sessions opened in this client.'));
    let coverage: string | undefined;
    const blocks: Block[] = [];
    if (searching) {
      const search = this.searchFor(phrase, sections);
      search.scan(this.deadline());
      if (!search.finished) this.continueLater();
      this.text.request(phrase);
      const titleHits = search.hits();
      const textOnly = this.textOnlyHits(phrase, search, sections);
      const hits: ListedSession[] = titleHits.map((hit) => ({ sessions: hit.sessions, slot: hit.slot, byTitle: true }));
      for (const session of textOnly) {
        if (hits.length >= MAX_RESULTS) break;
        hits.push(session);
      }
      blocks.push({ kind: 'sessions', sessions: hits });
      for (const section of sections) if (section.status && section.status.state !== 'info') blocks.push({ kind: 'row', row: section.status });
      coverage = this.coverage(phrase, search, sections, hits.length, textOnly.length);
    } else {
      this.endSearch();
      const byAgent = agents.length > 1 || this.settings.agent === null;
      for (const section of sections) {
        if (byAgent)
          blocks.push({
            kind: 'row',
            row: { kind: 'group', key: `agent:${section.agent.name}`, label: section.agent.name, level: 1, count: section.sessions.scoped.length },
          });
        this.group(section, blocks);
        if (section.status) blocks.push({ kind: 'row', row: section.status });
      }
    }
    this.layout = new ListLayout(blocks);
    return {
      count: this.layout.count,
      specials: this.layout.specials(),
      searching,
      coverage,
      notices,
      empty: emptyText({ configured: this.deps.agents().length, shown: agents.length, searching, scope: this.settings.scope }),
    };
  }

  /**
   * Full rows [from, to) of the last computed list, with the transcript snippets already known for them; the
   * ones not known yet are asked for, and {@link onDidUpdate} fires when they arrive (the next state carries
   * them). The webview's own requests wait for them instead ({@link rowsWithSnippets}).
   */
  rows(from: number, to: number): Row[] {
    const rows = this.plainRows(from, to);
    const wanted = this.snippetKeys(rows);
    if (!wanted) return rows;
    const { known, missing } = this.text.knownSnippets(wanted.phrase, wanted.keys);
    if (missing.length > 0) {
      void this.text.snippets(wanted.phrase, missing).then((found) => {
        if (found.size > 0) this.updates.fire();
      });
    }
    return withSnippets(rows, known);
  }

  /** {@link rows} with the transcript snippets of the rows whose text matched, waiting for those not known yet. */
  async rowsWithSnippets(from: number, to: number): Promise<Row[]> {
    const rows = this.plainRows(from, to);
    const wanted = this.snippetKeys(rows);
    if (!wanted) return rows;
    return withSnippets(rows, await this.text.snippets(wanted.phrase, wanted.keys));
  }

  private plainRows(from: number, to: number): Row[] {
    const workspace = this.deps.workspace();
    const agents = new Map(this.deps.agents().map((a) => [a.name, a]));
    const words = this.search ? this.search.words : [];
    const rows: Row[] = [];
    for (const item of this.layout.slice(from, to)) {
      if (item.kind === 'row') {
        rows.push(item.row);
        continue;
      }
      const { sessions, slot, byTitle } = item.session;
      const view = sessions.viewAt(slot);
      if (!view) continue; // gone since the list was computed: the next state drops it
      const highlights = byTitle ? (matchTitle(view.title, words) ?? []) : [];
      const open = this.deps.isOpen(view.agentName, view.sessionId);
      rows.push(sessionRow(view, { highlights, agent: agents.get(view.agentName), workspace, open, trusted: this.deps.trusted() }));
    }
    return rows;
  }

  /** The shown sessions whose transcript text matched the query (they get a snippet), if searching. */
  private snippetKeys(rows: readonly Row[]): { phrase: string; keys: string[] } | undefined {
    const phrase = this.settings.query.trim().toLowerCase();
    const keys = phrase ? this.text.keys(phrase) : undefined;
    if (!keys) return undefined;
    const wanted = rows.filter((row): row is SessionRow => row.kind === 'session' && keys.has(row.key)).map((row) => row.key);
    return wanted.length > 0 ? { phrase, keys: wanted } : undefined;
  }

  /**
   * Where the session with row key `key` is in the last computed list, or -1; the nearest to `near` (where it
   * was) if it shows more than once. Found through its agent's order, without walking the list.
   */
  indexOf(key: string, near = 0): number {
    const split = key.indexOf('\u0000');
    if (split < 0) return -1;
    const sessions = this.stores.get(key.slice(0, split));
    const slot = sessions?.slotOf(key.slice(split + 1));
    return sessions && slot !== undefined ? this.layout.indexOf(sessions, slot, near) : -1;
  }

  /** Whether the paging bar says what is loaded and what is not (then the coverage line need not). */
  private pagingTold(): boolean {
    return this.deps.paging !== undefined && pagingBar(this.deps.paging.progress()) !== undefined;
  }

  /** The status rows in [from, to) (the view scrolled to the end of a list: they may ask for more pages). */
  statusRowsIn(from: number, to: number): StatusRow[] {
    return this.layout.slice(from, to).flatMap((item) => (item.kind === 'row' && item.row.kind === 'status' ? [item.row] : []));
  }

  /** Stops background work (a search going on, a question to the transcript search). */
  dispose(): void {
    this.endSearch();
    this.text.dispose();
    this.updates.dispose();
  }

  // ---- the list -------------------------------------------------------------------------------------

  /**
   * An agent's part of the list: Pinned, then the date groups, as ranges of its scoped order (kept until its
   * sessions, the scope or the day change).
   */
  private group(section: Section, blocks: Block[]): void {
    const { sessions, agent } = section;
    const today = startOfDay(this.deps.now());
    const key = `${sessions.stamp}:${sessions.scopeGeneration}:${sessions.slotGeneration}:${today}`;
    const cached = this.groups.get(agent.name);
    if (cached?.key === key && cached.sessions === sessions) {
      for (const block of cached.blocks) blocks.push(block);
      return;
    }
    const own: Block[] = [];
    this.groupNow(section, today, own);
    this.groups.set(agent.name, { key, sessions, blocks: own });
    for (const block of own) blocks.push(block);
  }

  private groupNow(section: Section, today: number, blocks: Block[]): void {
    this.work.groupings++;
    const { sessions, agent } = section;
    const scoped = sessions.scoped;
    const pinned = sessions.pinnedInScope();
    if (pinned.length > 0) {
      blocks.push({ kind: 'row', row: { kind: 'group', key: `pinned:${agent.name}`, label: l10n.t('Pinned'), level: 2, count: pinned.length } });
      blocks.push({ kind: 'sessions', sessions: pinned.map((slot) => ({ sessions, slot })) });
    }
    const pinnedPositions = pinned.map((slot) => scoped.positionOf(slot)).sort((a, b) => a - b);
    // The order is newest first, so each date group is a range found by binary search.
    const bounds: Array<[DateGroup, number]> = [
      ['today', scoped.partition((slot) => (sessions.timeAt(slot) ?? -Infinity) >= today)],
      ['yesterday', scoped.partition((slot) => (sessions.timeAt(slot) ?? -Infinity) >= today - DAY_MS)],
      ['week', scoped.partition((slot) => (sessions.timeAt(slot) ?? -Infinity) >= today - 7 * DAY_MS)],
      ['older', scoped.partition((slot) => sessions.timeAt(slot) !== undefined)],
      ['none', scoped.length],
    ];
    let from = 0;
    for (const [group, to] of bounds) {
      const skip = pinnedPositions.filter((p) => p >= from && p < to);
      const count = to - from - skip.length;
      if (count > 0) {
        blocks.push({ kind: 'row', row: { kind: 'group', key: `date:${agent.name}:${group}`, label: dateGroupLabel(group), level: 2, count } });
        blocks.push({ kind: 'range', sessions, from, to, skip });
      }
      from = to;
    }
  }

  /**
   * Drops what is kept for an agent that is gone, or whose catalog is not the one kept (it stopped or
   * restarted): a million sessions of a closed connection must not stay in memory because the view shows
   * another agent now. It is built again when shown.
   */
  private forgetAgentsGone(): void {
    if (this.stores.size === 0) return;
    const catalogs = new Map(this.deps.agents().map((a) => [a.name, a.catalog]));
    for (const [name, sessions] of [...this.stores]) {
      if (catalogs.has(name) && sessions.follows(catalogs.get(name))) continue;
      this.stores.delete(name);
      this.groups.delete(name);
    }
  }

  // ---- search ---------------------------------------------------------------------------------------

  /**
   * The title search for `phrase` over the sections' scoped sessions: the current one while nothing it
   * depends on changed (it follows changes to the sessions itself); a new one narrowed from it when the
   * phrase extends the previous one; a new one otherwise.
   */
  private searchFor(phrase: string, sections: readonly Section[]): TitleSearch {
    const keys = [phrase, ...sections.map((s) => `${s.agent.name}:${s.sessions.scopeGeneration}:${s.sessions.slotGeneration}`)].join('\u0000');
    const previous = this.search;
    if (previous && keys === this.searchKeys) return previous;
    const narrowing = previous !== undefined && previous.query.length > 0 && phrase.startsWith(previous.query);
    const words = queryWords(phrase);
    const runs = sections.map((section) => {
      const before = narrowing || previous?.query === phrase ? previous!.runs.find((run) => run.sessions === section.sessions) : undefined;
      return new TitleSearchRun(section.sessions, words, before, this.work);
    });
    previous?.dispose();
    this.cancelContinuation();
    this.search = new TitleSearch(phrase, words, runs);
    this.searchKeys = keys;
    this.textOnly = undefined;
    this.work.titleSearches++;
    return this.search;
  }

  private endSearch(): void {
    this.search?.dispose();
    this.search = undefined;
    this.searchKeys = '';
    this.textOnly = undefined;
    this.cancelContinuation();
    this.text.request(undefined);
  }

  /** The clock a slice of search is measured by. */
  private deadline(): () => boolean {
    const slice = this.deps.searchSlice ?? { ms: SEARCH_SLICE_MS, clock: () => performance.now() };
    const end = slice.clock() + slice.ms;
    return () => slice.clock() >= end;
  }

  /** Goes on with an unfinished search after the host has had its turn, one slice at a time. */
  private continueLater(): void {
    if (this.continuation !== undefined) return;
    this.continuation = setImmediate(() => {
      this.continuation = undefined;
      const search = this.search;
      if (!search || search.finished) return;
      search.scan(this.deadline());
      if (!search.finished) this.continueLater();
      const now = performance.now();
      if (search.finished || now - this.lastProgress >= PROGRESS_MS) {
        this.lastProgress = now;
        this.updates.fire();
      }
    });
  }

  private cancelContinuation(): void {
    if (this.continuation !== undefined) clearImmediate(this.continuation);
    this.continuation = undefined;
  }

  /** Sessions of the shown lists whose transcript text matched and whose title did not, newest first. */
  private textOnlyHits(phrase: string, search: TitleSearch, sections: readonly Section[]): ListedSession[] {
    const keys = this.text.keys(phrase);
    if (!keys) return [];
    const versions = search.runs.map((run) => `${run.version}:${run.sessions.stamp}`).join(',');
    if (this.textOnly?.keys === keys && this.textOnly.versions === versions) return this.textOnly.sessions;
    const byAgent = new Map(sections.map((s) => [s.agent.name, s.sessions]));
    const runs = new Map(search.runs.map((run) => [run.sessions, run]));
    const found: ListedSession[] = [];
    for (const key of keys) {
      const split = key.indexOf('\u0000');
      const sessions = split < 0 ? undefined : byAgent.get(key.slice(0, split));
      const slot = sessions?.slotOf(key.slice(split + 1));
      if (!sessions || slot === undefined || !sessions.inScope(slot) || runs.get(sessions)?.matches(slot)) continue;
      found.push({ sessions, slot, byTitle: false });
    }
    found.sort((a, b) =>
      AgentSessions.before(a.sessions, a.slot, b.sessions, b.slot) ? -1 : AgentSessions.before(b.sessions, b.slot, a.sessions, a.slot) ? 1 : 0,
    );
    this.textOnly = { keys, versions, sessions: found };
    return found;
  }

  /** What the search covered, in words. */
  private coverage(phrase: string, search: TitleSearch, sections: readonly Section[], shown: number, textOnly: number): string {
    const text = this.text.state(phrase);
    return coverageLine({
      searched: sections.reduce((sum, s) => sum + s.sessions.scoped.length, 0),
      withText: text.kind === 'answered' ? sections.reduce((sum, s) => sum + s.sessions.withTextInScope(), 0) : 0,
      text,
      matched: search.matched() + textOnly,
      shown,
      finished: search.finished,
      exhaustive: search.exhaustive,
      notLoaded: sections.some((s) => s.agent.catalog?.hasMore(sourcePlan(this.settings.scope, this.deps.workspace(), s.agent))) && !this.pagingTold(),
    });
  }
}
