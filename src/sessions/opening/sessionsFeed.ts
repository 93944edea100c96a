/**
 * What the Sessions view shows and when, without VS Code (as the chat has its TranscriptFeed): the host computes
 * the (possibly huge) list with {@link SessionsModel} and posts it to the screen, which renders a virtual window
 * and asks for the rows it shows. Reaching the end of an agent's loaded sessions loads its next page; while a
 * search is typed, {@link BackgroundPaging} loads the shown agents' remaining pages without scrolling (its bar
 * shows progress, Stop and "Search All Sessions"), and sleeps once the view has been hidden a while. Changes
 * arriving together are shown together (recomputes coalesce; while pages arrive, less often). The selected row
 * stays in place as pages arrive. Selecting one agent starts it. The webview view provider
 * (vscode/history/sessionsView.ts) is a thin adapter around it.
 */
import type { AgentRegistry } from '../../agents/agentRegistry';
import { systemClock, type Clock, type TimerHandle } from '../../common/clock';
import { Emitter, type Event } from '../../common/events';
import { Disposable } from '../../common/lifecycle';
import { errorMessage } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { BackgroundPaging, pagingRefreshDelay, type PagingTarget } from '../../history/backgroundPaging';
import { pagingBar } from '../../history/pagingBar';
import { DEFAULT_SETTINGS, SessionsModel } from '../../history/sessionsModel';
import { sourcePlan, type AgentEntry } from '../../history/sessionView';
import {
  HistoryRequests,
  SessionsToHost,
  ViewSettings,
  type HostToSessions,
  type PagingBar,
  type Row,
  type SessionAction,
  type StatusAction,
} from '../../shared/historyProtocol';
import { answer } from '../../shared/ipc';
import type { HistoryActions } from './historyActions';
import type { SessionHistory } from './sessionHistory';

/** Changes arriving together (a page of sessions, many title updates) are shown together. */
export const COMPUTE_DELAY_MS = 16;
/** Showing the view again re-reads the first page of each list when it was shown longer ago than this. */
export const SOFT_REFRESH_MS = 10_000;
/** Background paging stops once the view has been hidden this long (and goes on when it is shown again). */
export const HIDDEN_PAGING_MS = 30_000;

/** The webview the feed posts to: one at a time, from when it is resolved until it is disposed. */
export interface SessionsScreen {
  /** Whether it is on screen now. */
  readonly visible: boolean;
  post(message: HostToSessions): void;
}

export interface SessionsFeedOptions {
  readonly history: Pick<SessionHistory, 'index' | 'transcripts' | 'problems' | 'onDidChange' | 'entries' | 'workspace'>;
  readonly agents: Pick<AgentRegistry, 'find' | 'start'>;
  readonly actions: Pick<HistoryActions, 'run'>;
  /** Whether a session has an open chat. */
  readonly isOpen: (agentName: string, sessionId: string) => boolean;
  /** Whether the workspace is trusted (an untrusted one starts no agent). */
  readonly trusted: () => boolean;
  /** The settings stored by the last window (read with zod), and how to store them. */
  readonly storedSettings: unknown;
  readonly saveSettings: (settings: ViewSettings) => PromiseLike<void>;
  /** The default agent's name (`acpWorkspace.defaultAgent`), asked when no settings were stored. */
  readonly defaultAgent: () => string | undefined;
  /** New Session (for one agent, or asking which). */
  readonly newSession: (agentName: string | undefined) => PromiseLike<unknown>;
  /** Shows why an agent did not start. */
  readonly showError: (message: string) => void;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Awaited between two background pages (tests hold pages back). */
  readonly pagingPause?: () => Promise<void>;
}

export class SessionsFeed extends Disposable {
  readonly model: SessionsModel;
  private readonly clock: Clock;
  private screen: SessionsScreen | undefined;
  private version = 0;
  /** The `seq` of the webview's last settings message. */
  private settingsSeq = 0;
  private timer: TimerHandle | undefined;
  private timerDelay = 0;
  /** How long the last recomputation took (paging spaces them by it). */
  private lastComputeMs = 0;
  private lastShown = 0;
  private readonly autoStarted = new Set<string>();
  private readonly paging: BackgroundPaging;
  /** The view was hidden long enough (or is gone): background paging waits until it is shown. */
  private pagingAsleep = true;
  private hiddenTimer: TimerHandle | undefined;
  /** The row the webview says is selected, and where it was in the last list posted. */
  private selectedKey: string | undefined;
  private lastAnchor: { key: string; index: number } | undefined;
  /** The settings of the last list posted: a list for other settings (a keystroke) starts from its best rows. */
  private lastSettings: ViewSettings | undefined;
  /** The rows window the webview last asked for. */
  private lastWindow: { from: number; to: number } | undefined;
  /** Posts so far (tests read it). */
  posts = 0;
  private readonly computedEmitter = this._register(new Emitter<void>());
  /** The list was recomputed (tests wait for it). */
  readonly onDidCompute: Event<void> = this.computedEmitter.event;

  constructor(private readonly options: SessionsFeedOptions) {
    super();
    const { history } = options;
    this.clock = options.clock ?? systemClock;
    this.paging = new BackgroundPaging({ onDidChange: () => this.schedule(), ...(options.pagingPause ? { pause: options.pagingPause } : {}) });
    this._register({ dispose: () => this.paging.dispose() });
    this.model = new SessionsModel({
      index: history.index,
      transcripts: history.transcripts,
      agents: () => history.entries(),
      workspace: () => history.workspace(),
      isOpen: options.isOpen,
      now: () => this.clock.now(),
      trusted: options.trusted,
      paging: this.paging,
    });
    const stored = ViewSettings.safeParse(options.storedSettings);
    // First time: the default agent's sessions, if one is set; else every agent's.
    this.model.setSettings(stored.success ? stored.data : { ...DEFAULT_SETTINGS, agent: options.defaultAgent() || null });
    this._register(history.onDidChange(() => this.schedule()));
    this._register(this.model.onDidUpdate(() => this.schedule()));
    // A transcript changed or the index got further: a search on screen asks again (nothing else depends on it).
    this._register(history.transcripts.onDidChange(() => this.model.currentSettings.query.trim() && this.schedule()));
  }

  /** A webview was resolved: the list goes to it (its `ready` asks for the first one). */
  attach(screen: SessionsScreen): void {
    this.screen = screen;
    this.pagingAsleep = false;
  }

  /** The webview was disposed: nothing is posted until another is attached, and background paging waits. */
  detach(screen: SessionsScreen): void {
    if (this.screen !== screen) return;
    this.screen = undefined;
    this.sleepPaging();
  }

  /** The webview was shown or hidden (it says which through `visible`). */
  visibilityChanged(): void {
    if (this.screen?.visible) this.shown();
    else this.hidden();
  }

  /** Whether the view is on screen (tests wait for it). */
  get visible(): boolean {
    return this.screen?.visible === true;
  }

  /** Runs a message from the webview (the view calls it; so can tests). */
  async receive(raw: unknown): Promise<void> {
    const parsed = SessionsToHost.safeParse(raw);
    if (!parsed.success) {
      this.options.logger.warn(`Ignored an invalid message from the Sessions view: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'ready':
        this.shown();
        this.computeNow();
        await this.startSelectedAgent(false);
        return;
      case 'settings':
        this.settingsSeq = message.seq;
        return this.applySettings(message.settings);
      case 'request':
        this.post(await answer(HistoryRequests, { rows: (window) => this.rowsFor(window) }, message));
        return;
      case 'action': {
        const session = this.model.find(message.key);
        if (!session) return;
        await this.options.actions.run(message.action, session);
        this.schedule();
        return;
      }
      case 'status':
        return this.statusAction(message.action, message.agentName);
      case 'paging':
        if (message.action === 'stop') this.paging.stop();
        else this.paging.resume();
        this.computeNow();
        return;
      case 'selected':
        this.selectedKey = message.key ?? undefined;
        return;
      case 'newSession':
        await this.options.newSession(message.agentName ?? undefined);
        return;
    }
  }

  /** Runs an action on the row with this key (the rows' native context menu); none when the row is gone. */
  runAction(action: SessionAction, key: string | undefined): Promise<void> | undefined {
    const session = key === undefined ? undefined : this.model.find(key);
    if (!session) return undefined;
    return this.options.actions.run(action, session).then(() => this.schedule());
  }

  /**
   * Rows [from, to) of the current list, with the transcript snippets of those rows; the end of a list in view
   * reads its next page (while searching, background paging reads them, and after the user's Stop nothing does).
   */
  private async rowsFor(window: { version: number; from: number; to: number }): Promise<{ version: number; rows: Row[] }> {
    if (window.version !== this.version) return { version: this.version, rows: [] };
    this.lastWindow = { from: window.from, to: window.to };
    this.loadEndsIn(window.from, window.to);
    const rows = await this.model.rowsWithSnippets(window.from, window.to);
    // The list may have changed while snippets were asked for: the webview asks again for the new one.
    return { version: this.version, rows: window.version === this.version ? rows : [] };
  }

  /** The end of an agent's list among rows [from, to), which the webview shows: read its next page. */
  private loadEndsIn(from: number, to: number): void {
    if (this.searching()) return;
    for (const status of this.model.statusRowsIn(from, to)) {
      if (status.state === 'more') void this.loadMore(status.agentName);
    }
  }

  /** What the paging bar says now (tests read it). */
  currentPagingBar(): PagingBar | undefined {
    return pagingBar(this.paging.progress());
  }

  /** Forgets what was listed and reads the shown agents' lists again from their first page. */
  refresh(): void {
    for (const agent of this.model.shownAgents()) {
      if (!agent.catalog) continue;
      agent.catalog.reset();
      void this.loadMore(agent.name);
    }
    this.schedule();
  }

  /** Reads the next page an agent's list needs for the current scope. */
  async loadMore(agentName: string): Promise<void> {
    const agent = this.options.history.entries().find((a) => a.name === agentName);
    if (!agent?.catalog) return;
    await agent.catalog.loadMore(this.planFor(agent));
  }

  private planFor(agent: AgentEntry) {
    return sourcePlan(this.model.currentSettings.scope, this.options.history.workspace(), agent);
  }

  private async statusAction(action: StatusAction, agentName: string): Promise<void> {
    const agent = this.options.history.entries().find((a) => a.name === agentName);
    switch (action) {
      case 'retry':
        if (!agent?.catalog) return;
        agent.catalog.retry(this.planFor(agent));
        // While searching, background paging goes on from the page that failed.
        if (this.searching()) return this.computeNow();
        return this.loadMore(agentName);
      case 'loadMore':
        return this.loadMore(agentName);
      case 'startAgent':
        try {
          await this.options.agents.start(agentName);
        } catch (error) {
          this.options.showError(errorMessage(error));
        }
        return;
    }
  }

  private async applySettings(settings: ViewSettings): Promise<void> {
    const previous = this.model.currentSettings;
    this.model.setSettings(settings);
    // Paging starts (or stops) with the keystroke, before the settings are stored.
    this.computeNow();
    // A Stop holds for one search: the next search pages again.
    if (!this.searching()) this.paging.resume();
    await this.options.saveSettings(settings);
    if (settings.agent !== previous.agent) await this.startSelectedAgent(true);
  }

  /**
   * Showing one agent's sessions is asking for them: start it if it is not running. Picking it always
   * does; the view merely being shown does once per agent (stopped later, its status row offers a start).
   */
  private async startSelectedAgent(picked: boolean): Promise<void> {
    const name = this.model.currentSettings.agent;
    if (name === null || !this.options.trusted()) return;
    if (!picked && this.autoStarted.has(name)) return;
    this.autoStarted.add(name);
    const status = this.options.agents.find(name);
    if (!status || status.state === 'running' || status.state === 'starting' || (!picked && status.state === 'failed')) return;
    await this.statusAction('startAgent', name);
  }

  /** The view became visible: catch up, and look for sessions created elsewhere meanwhile. */
  private shown(): void {
    this.clock.clearTimeout(this.hiddenTimer);
    this.hiddenTimer = undefined;
    this.pagingAsleep = false;
    const now = this.clock.now();
    if (now - this.lastShown > SOFT_REFRESH_MS) {
      for (const agent of this.model.shownAgents()) {
        if (agent.catalog && agent.catalog.size > 0) void agent.catalog.refreshFirstPage(this.planFor(agent));
      }
    }
    this.lastShown = now;
    this.schedule();
  }

  /** The view was hidden: background paging goes on for a while (a quick look elsewhere), then waits. */
  private hidden(): void {
    this.clock.clearTimeout(this.hiddenTimer);
    this.hiddenTimer = this.clock.setTimeout(() => this.sleepPaging(), HIDDEN_PAGING_MS);
  }

  private sleepPaging(): void {
    this.clock.clearTimeout(this.hiddenTimer);
    this.hiddenTimer = undefined;
    this.pagingAsleep = true;
    this.updatePaging();
  }

  private searching(): boolean {
    return this.model.currentSettings.query.trim() !== '';
  }

  /** Tells background paging which lists need it now: the shown agents' while a search is typed in a live view. */
  private updatePaging(): void {
    const targets: PagingTarget[] = [];
    if (this.searching() && !this.pagingAsleep) {
      for (const agent of this.model.shownAgents()) {
        if (agent.catalog) targets.push({ agentName: agent.name, list: agent.catalog, plan: this.planFor(agent) });
      }
    }
    this.paging.want(targets);
  }

  /** Recomputes soon; while pages arrive in the background, less often (progress, not every page: pagingRefreshDelay). */
  private schedule(): void {
    const delay = this.paging.progress().active ? pagingRefreshDelay(this.lastComputeMs) : COMPUTE_DELAY_MS;
    if (this.timer !== undefined) {
      if (delay >= this.timerDelay) return;
      this.clock.clearTimeout(this.timer);
    }
    this.timerDelay = delay;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.computeNow();
    }, delay);
  }

  private computeNow(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const started = performance.now();
    this.updatePaging();
    const state = this.model.compute();
    const paging = pagingBar(this.paging.progress());
    const anchor = this.anchor();
    this.lastSettings = this.model.currentSettings;
    this.version++;
    this.post({
      type: 'state',
      version: this.version,
      settings: this.model.currentSettings,
      settingsSeq: this.settingsSeq,
      agents: this.options.history.entries().map((a) => ({ name: a.name, running: a.running })),
      ...state,
      notices: [...this.options.history.problems, ...state.notices],
      ...(paging ? { paging } : {}),
      ...(anchor ? { anchor } : {}),
      ...this.windowFor(state.count, anchor),
    });
    this.lastAnchor = anchor;
    this.lastComputeMs = performance.now() - started;
    this.computedEmitter.fire();
  }

  /**
   * Where the selected row is now, if it is in the list and the list is for the same settings (pages or
   * changes arrived); a new query or scope shows its best rows where they are, not around the old selection.
   */
  private anchor(): { key: string; index: number } | undefined {
    if (this.selectedKey === undefined || !this.screen || !sameSettings(this.lastSettings, this.model.currentSettings)) return undefined;
    const index = this.model.indexOf(this.selectedKey, this.lastAnchor?.key === this.selectedKey ? this.lastAnchor.index : 0);
    return index < 0 ? undefined : { key: this.selectedKey, index };
  }

  /**
   * The rows of the window the webview shows, moved as far as the selected row moved, posted with the list:
   * as pages arrive and results improve, the webview shows the new rows at once (no blank rows until it has
   * asked again) and keeps the selected row where it was.
   */
  private windowFor(count: number, anchor: { key: string; index: number } | undefined): { window?: { from: number; rows: Row[] } } {
    const last = this.lastWindow;
    // A hidden view's webview is gone; shown again, it asks for its rows itself.
    if (!last || !this.screen?.visible) return {};
    const shift = anchor && this.lastAnchor?.key === anchor.key ? anchor.index - this.lastAnchor.index : 0;
    const from = Math.min(Math.max(0, last.from + shift), count);
    const to = Math.min(Math.max(from, last.to + shift), count);
    this.lastWindow = { from, to };
    // The webview will not ask for these rows: what it would have done on asking happens here.
    this.loadEndsIn(from, to);
    return { window: { from, rows: this.model.rows(from, to) } };
  }

  private post(message: HostToSessions): void {
    if (!this.screen) return;
    this.posts++;
    this.screen.post(message);
  }

  override dispose(): void {
    this.clock.clearTimeout(this.timer);
    this.clock.clearTimeout(this.hiddenTimer);
    this.model.dispose();
    super.dispose();
  }
}

function sameSettings(a: ViewSettings | undefined, b: ViewSettings): boolean {
  return a !== undefined && a.agent === b.agent && a.scope === b.scope && a.query === b.query && a.showHidden === b.showHidden;
}
