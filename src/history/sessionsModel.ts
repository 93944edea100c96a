/**
 * The Sessions view's list, computed from the agents' catalogs and the local index: scoped, searched,
 * grouped (by agent, then Pinned and date), with a status row closing each agent's part (loading, more to
 * load, an error with a retry, or why only local history is shown). The list can be very long, so it is
 * kept as light references; full rows (with their actions and why an action is not available) are built
 * only for the window the webview shows.
 */
import * as l10n from '@vscode/l10n';
import { namedRoot } from '../roots/rootSet';
import type { GroupRow, Row, SessionRow, SpecialRow, StatusRow, ViewSettings } from '../shared/historyProtocol';
import type { BackgroundPaging } from './backgroundPaging';
import type { LocalSessionIndex } from './localIndex';
import { dateGroupLabel, groupSince, startOfDay, type DateGroup } from './dateGroups';
import { pagingBar } from './pagingBar';
import { actionsFor } from './rowActions';
import { ListSearch, type Range, type SearchHit, type SearchResult, type Snippet } from './search';
import { inScope, sourcePlan, viewOf, type AgentEntry, type SessionView, type WorkspaceShape } from './sessionView';

export interface SessionsModelDeps {
  readonly index: LocalSessionIndex;
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
}

type Ref =
  | { readonly kind: 'session'; readonly view: SessionView; readonly hit?: SearchHit<SessionView> }
  | GroupRow
  | StatusRow;

export interface ModelState {
  readonly count: number;
  readonly specials: SpecialRow[];
  readonly searching: boolean;
  readonly coverage: string | undefined;
  readonly notices: string[];
  readonly empty: string;
}

export const DEFAULT_SETTINGS: ViewSettings = { agent: null, scope: 'workspace', query: '', showHidden: false };

const META_LIMIT = 4000;

/** Newest first; sessions without a time last; then by title. */
function byRecency(a: SessionView, b: SessionView): number {
  return (b.updatedAt ?? -Infinity) - (a.updatedAt ?? -Infinity) || a.title.localeCompare(b.title);
}

export class SessionsModel {
  private settings: ViewSettings = DEFAULT_SETTINGS;
  private refs: Ref[] = [];
  private readonly viewCache = new Map<string, { catalogVersion: number; indexVersion: number; views: SessionView[] }>();
  private readonly scopedCache = new Map<string, { views: SessionView[]; key: string; scoped: SessionView[] }>();
  private readonly groupedCache = new Map<string, { scoped: SessionView[]; day: number; refs: Ref[]; count: number }>();
  private searchCache: { lists: SessionView[][]; indexVersion: number; textVersion: number; search: ListSearch<SessionView> } | undefined;
  private lastSearch: SearchResult<SessionView> | undefined;
  private readonly textCache = new Map<string, { text: string; lower: string }>();
  private textCacheIndexVersion = -1;
  private lists: SessionView[][] = [];
  private byKey: { lists: SessionView[][]; map: Map<string, SessionView> } | undefined;

  constructor(private readonly deps: SessionsModelDeps) {}

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

  /** A session of the last computed list, by its row key. */
  find(key: string): SessionView | undefined {
    if (this.byKey?.lists !== this.lists) {
      const map = new Map<string, SessionView>();
      for (const list of this.lists) for (const view of list) map.set(view.key, view);
      this.byKey = { lists: this.lists, map };
    }
    return this.byKey.map.get(key);
  }

  /** Every session of an agent, merged and newest first (cached until its catalog or the index changes). */
  views(agent: AgentEntry): SessionView[] {
    const catalogVersion = agent.catalog ? agent.catalog.version : -1;
    const indexVersion = this.deps.index.version;
    const cached = this.viewCache.get(agent.name);
    if (cached && cached.catalogVersion === catalogVersion && cached.indexVersion === indexVersion) return cached.views;
    const records = new Map(this.deps.index.forAgent(agent.name).map((r) => [r.sessionId, r]));
    const views: SessionView[] = [];
    if (agent.catalog) {
      for (const entry of agent.catalog.entries()) {
        const view = viewOf(agent.name, entry, records.get(entry.sessionId));
        if (view) views.push(view);
      }
    } else {
      for (const record of records.values()) {
        const view = viewOf(agent.name, undefined, record);
        if (view) views.push(view);
      }
    }
    views.sort(byRecency);
    this.viewCache.set(agent.name, { catalogVersion, indexVersion, views });
    return views;
  }

  /** An agent's sessions in the current scope (cached until they, the scope or the workspace change). */
  private scoped(agent: AgentEntry, workspace: WorkspaceShape): SessionView[] {
    const { scope, showHidden } = this.settings;
    const views = this.views(agent);
    const key = [scope, showHidden, workspace.folders.join('\0'), workspace.rootSetFor(agent).join('\0')].join('|');
    const cached = this.scopedCache.get(agent.name);
    if (cached && cached.views === views && cached.key === key) return cached.scoped;
    const scoped = views.filter((view) => (showHidden || !view.hidden) && inScope(view, scope, workspace, agent));
    this.scopedCache.set(agent.name, { views, key, scoped });
    return scoped;
  }

  /** Recomputes the list; cheap enough to run on every keystroke (see bench/sessions.bench.ts). */
  compute(): ModelState {
    const { scope, query } = this.settings;
    const workspace = this.deps.workspace();
    const agents = this.shownAgents();
    const searching = query.trim().length > 0;
    const notices: string[] = [];
    let sections = agents.map((agent) => ({ agent, scoped: this.scoped(agent, workspace), status: this.statusOf(agent, workspace) }));
    if (this.settings.agent === null) {
      // All agents: an agent that is not running and has nothing here gets one line, not a section.
      const idle = sections.filter((s) => !s.agent.running && s.scoped.length === 0);
      if (idle.length > 0 && idle.length < sections.length) {
        sections = sections.filter((s) => !idle.includes(s));
        notices.push(l10n.t('Not running, no sessions here yet: {0}.', idle.map((s) => s.agent.name).join(', ')));
      }
    }
    this.lists = sections.map((s) => s.scoped);
    if (!this.deps.trusted()) notices.push(l10n.t('Agents are not started in Restricted Mode: this is the history of sessions opened in this client.'));
    let coverage: string | undefined;
    let refs: Ref[];

    if (searching) {
      const result = this.searchFor(this.lists).run(query);
      this.lastSearch = result;
      refs = result.hits.map((hit) => ({ kind: 'session', view: hit.item, hit }));
      for (const section of sections) if (section.status && section.status.state !== 'info') refs.push(section.status);
      const partial = sections.some((s) => s.agent.catalog?.hasMore(sourcePlan(scope, workspace, s.agent))) && !this.pagingTold();
      coverage = [
        result.searched === 1
          ? l10n.t('Titles of 1 session searched; transcript text of {0} of them (only sessions opened in this client have text here).', result.textSearched)
          : l10n.t('Titles of {0} sessions searched; transcript text of {1} of them (only sessions opened in this client have text here).', result.searched.toLocaleString(), result.textSearched),
        result.matched > result.hits.length ? l10n.t('{0} match; the best {1} are shown.', result.matched.toLocaleString(), result.hits.length.toLocaleString()) : undefined,
        partial ? l10n.t('More sessions are not loaded yet.') : undefined,
      ]
        .filter(Boolean)
        .join(' ');
    } else {
      refs = [];
      const byAgent = agents.length > 1 || this.settings.agent === null;
      for (const section of sections) {
        const grouped = this.grouped(section.agent, section.scoped);
        if (byAgent) refs.push({ kind: 'group', key: `agent:${section.agent.name}`, label: section.agent.name, level: 1, count: grouped.count });
        for (const ref of grouped.refs) refs.push(ref);
        if (section.status) refs.push(section.status);
      }
    }
    this.refs = refs;
    const specials: SpecialRow[] = [];
    for (let index = 0; index < refs.length; index++) {
      const ref = refs[index]!;
      if (ref.kind === 'group') specials.push({ index, kind: ref.level === 1 ? 'group1' : 'group2' });
      else if (ref.kind === 'status') specials.push({ index, kind: 'status' });
    }
    return { count: refs.length, specials, searching, coverage, notices, empty: this.emptyText(agents, searching) };
  }

  /** An agent's part of the list: Pinned, then the date groups (cached per list and day). */
  private grouped(agent: AgentEntry, scoped: SessionView[]): { refs: Ref[]; count: number } {
    const day = startOfDay(this.deps.now());
    const cached = this.groupedCache.get(agent.name);
    if (cached && cached.scoped === scoped && cached.day === day) return cached;
    const refs: Ref[] = [];
    const pinned = scoped.filter((v) => v.pinned);
    if (pinned.length > 0) {
      refs.push({ kind: 'group', key: `pinned:${agent.name}`, label: l10n.t('Pinned'), level: 2, count: pinned.length });
      for (const view of pinned) refs.push({ kind: 'session', view });
    }
    let group: DateGroup | undefined;
    let groupRef: { -readonly [K in keyof GroupRow]: GroupRow[K] } | undefined;
    for (const view of scoped) {
      if (view.pinned) continue;
      const g = groupSince(view.updatedAt, day);
      if (g !== group || !groupRef) {
        group = g;
        groupRef = { kind: 'group', key: `date:${agent.name}:${g}`, label: dateGroupLabel(g), level: 2, count: 0 };
        refs.push(groupRef);
      }
      groupRef.count++;
      refs.push({ kind: 'session', view });
    }
    const entry = { scoped, day, refs, count: scoped.length };
    this.groupedCache.set(agent.name, entry);
    return entry;
  }

  /** The search over the shown lists, kept while they stay the same so typing can narrow it. */
  private searchFor(lists: SessionView[][]): ListSearch<SessionView> {
    const indexVersion = this.deps.index.version;
    const textVersion = this.deps.index.textVersion;
    const cached = this.searchCache;
    if (cached && cached.indexVersion === indexVersion && cached.textVersion === textVersion && cached.lists.length === lists.length && cached.lists.every((l, i) => l === lists[i])) {
      return cached.search;
    }
    const items = lists.length === 1 ? lists[0]! : lists.flat().sort((a, b) => (b.updatedAt ?? -Infinity) - (a.updatedAt ?? -Infinity));
    const withText = items.filter((view) => this.deps.index.get(view.agentName, view.sessionId)?.hasText === true);
    const search = new ListSearch(items, { items: withText, text: (view) => this.textOf(view) });
    this.searchCache = { lists, indexVersion, textVersion, search };
    return search;
  }

  /** Full rows [from, to) of the last computed list. */
  rows(from: number, to: number): Row[] {
    const workspace = this.deps.workspace();
    const agents = new Map(this.deps.agents().map((a) => [a.name, a]));
    return this.refs.slice(from, to).map((ref): Row => {
      if (ref.kind !== 'session') return ref;
      return this.sessionRow(ref.view, ref.hit, agents.get(ref.view.agentName), workspace);
    });
  }

  /**
   * Where the session with row key `key` is in the last computed list, or -1. Looks outward from `near`
   * (where it was), so a row that moved a little is found without scanning the whole list.
   */
  indexOf(key: string, near = 0): number {
    const refs = this.refs;
    const at = (i: number) => {
      const ref = refs[i];
      return ref?.kind === 'session' && ref.view.key === key;
    };
    const start = Math.min(Math.max(0, near), refs.length);
    for (let d = 0; start - d >= 0 || start + d < refs.length; d++) {
      if (at(start + d)) return start + d;
      if (d > 0 && at(start - d)) return start - d;
    }
    return -1;
  }

  /** Whether the paging bar says what is loaded and what is not (then the coverage line need not). */
  private pagingTold(): boolean {
    return this.deps.paging !== undefined && pagingBar(this.deps.paging.progress()) !== undefined;
  }

  /** The status rows in [from, to) that ask for more pages (the view scrolled to the end of a list). */
  statusRowsIn(from: number, to: number): StatusRow[] {
    return this.refs.slice(from, to).filter((ref): ref is StatusRow => ref.kind === 'status');
  }

  private sessionRow(view: SessionView, hit: SearchHit<SessionView> | undefined, agent: AgentEntry | undefined, workspace: WorkspaceShape): SessionRow {
    const roots = [view.cwd, ...view.additionalDirectories].map((p, i) => ({
      name: namedRoot(p).name,
      path: p,
      primary: i === 0,
      missing: !workspace.exists(p),
    }));
    const snippet = hit && this.lastSearch ? this.lastSearch.snippet(hit) : undefined;
    return {
      kind: 'session',
      key: view.key,
      agentName: view.agentName,
      sessionId: view.sessionId,
      title: view.title,
      titled: view.titled,
      highlights: (hit && this.lastSearch ? this.lastSearch.highlights(hit) : []).map((r: Range) => [r[0], r[1]] as [number, number]),
      ...(view.updatedAt !== undefined ? { updatedAt: view.updatedAt } : {}),
      roots,
      rootsKnown: view.rootsKnown,
      pinned: view.pinned,
      hidden: view.hidden,
      open: this.deps.isOpen(view.agentName, view.sessionId),
      local: view.local,
      ...(snippet ? { snippet: snippetRow(snippet) } : {}),
      ...(view.meta !== undefined ? { meta: metaText(view.meta) } : {}),
      actions: actionsFor(view, agent, this.deps.isOpen(view.agentName, view.sessionId), this.deps.trusted()),
    };
  }

  private statusOf(agent: AgentEntry, workspace: WorkspaceShape): StatusRow | undefined {
    const key = `status:${agent.name}`;
    const base = { kind: 'status' as const, key, agentName: agent.name };
    if (!this.deps.trusted()) return undefined;
    if (!agent.running) {
      return { ...base, state: 'info', message: l10n.t('{0} is not running: these are the sessions opened in this client.', agent.name), action: 'startAgent' };
    }
    if (!agent.catalog) {
      return { ...base, state: 'info', message: l10n.t('{0} does not list its sessions: this is the local history of sessions opened in this client.', agent.name) };
    }
    const plan = sourcePlan(this.settings.scope, workspace, agent);
    const error = agent.catalog.errorFor(plan);
    if (error !== undefined) return { ...base, state: 'error', message: l10n.t('Could not load more sessions: {0}', error), action: 'retry' };
    if (agent.catalog.isLoading || this.deps.paging?.isPaging(agent.name)) return { ...base, state: 'loading', message: l10n.t('Loading sessions…') };
    if (agent.catalog.hasMore(plan)) return { ...base, state: 'more', message: l10n.t('More sessions'), action: 'loadMore' };
    return undefined;
  }

  private textOf(view: SessionView): { text: string; lower: string } | undefined {
    if (this.textCacheIndexVersion !== this.deps.index.textVersion) {
      // Texts only change through the index; drop what it no longer has text for.
      this.textCacheIndexVersion = this.deps.index.textVersion;
      for (const key of this.textCache.keys()) {
        const [agentName, sessionId] = key.split('\u0000') as [string, string];
        if (!this.deps.index.get(agentName, sessionId)?.hasText) this.textCache.delete(key);
      }
    }
    const cached = this.textCache.get(view.key);
    const text = this.deps.index.text(view.agentName, view.sessionId);
    if (text === undefined) return undefined;
    if (cached && cached.text === text) return cached;
    const entry = { text, lower: text.toLowerCase() };
    this.textCache.set(view.key, entry);
    return entry;
  }

  private emptyText(agents: readonly AgentEntry[], searching: boolean): string {
    if (this.deps.agents().length === 0) return l10n.t('No agents are configured.');
    if (searching) return l10n.t('No session matches the search.');
    if (agents.length === 0) return l10n.t('This agent is not configured any more.');
    switch (this.settings.scope) {
      case 'workspace':
        return l10n.t('No sessions with exactly this workspace’s folders yet. “These folders” and “All” show more.');
      case 'folders':
        return l10n.t('No sessions in these folders yet. “All” shows sessions in other folders.');
      case 'all':
        return l10n.t('No sessions yet.');
    }
  }
}

function snippetRow(snippet: Snippet): SessionRow['snippet'] {
  return { text: snippet.text, highlights: snippet.highlights.map((r) => [r[0], r[1]] as [number, number]) };
}

function metaText(meta: Readonly<Record<string, unknown>>): string {
  let text: string;
  try {
    text = JSON.stringify(meta, null, 2);
  } catch {
    text = '(unreadable)';
  }
  return text.length > META_LIMIT ? `${text.slice(0, META_LIMIT)}\n…` : text;
}
