/**
 * The "Sessions" webview view in the ACP container. The host computes the (possibly huge) list with
 * {@link SessionsModel}; the webview renders a virtual window and asks for the rows it shows. Reaching the
 * end of an agent's loaded sessions loads its next page; while a search is typed, {@link BackgroundPaging}
 * loads the shown agents' remaining pages without scrolling (its bar shows progress, Stop and "Search All
 * Sessions"). Selecting one agent starts it. Actions on rows come from the webview's buttons and keys, and
 * from its native context menu (commands below).
 */
import * as vscode from 'vscode';
import type { AgentRegistry } from '../../agents/agentRegistry';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/logger';
import { BackgroundPaging, pagingRefreshDelay, type PagingTarget } from '../../history/backgroundPaging';
import { pagingBar } from '../../history/pagingBar';
import { DEFAULT_SETTINGS, SessionsModel } from '../../history/sessionsModel';
import { sourcePlan, type AgentEntry } from '../../history/sessionView';
import type { Chats } from '../../sessions/chats/chats';
import type { HistoryActions } from '../../sessions/opening/historyActions';
import type { SessionHistory } from '../../sessions/opening/sessionHistory';
import { HistoryRequests, SessionAction, SessionsToHost, ViewSettings, type HostToSessions, type PagingBar, type Row, type StatusAction } from '../../shared/historyProtocol';
import { answer } from '../../shared/ipc';
import { readDefaultAgent } from '../settings';
import { SessionCommandIds } from '../sessionCommands';
import { webviewHtml, webviewOptions } from '../webviewHtml';
import { errorMessage } from '../../common/errors';

const SETTINGS_KEY = 'acpWorkspace.sessionsView';
/** Changes arriving together (a page of sessions, many title updates) are shown together. */
const COMPUTE_DELAY_MS = 16;
/** Showing the view again re-reads the first page of each list when it was shown longer ago than this. */
const SOFT_REFRESH_MS = 10_000;
/** Background paging stops once the view has been hidden this long (and goes on when it is shown again). */
const HIDDEN_PAGING_MS = 30_000;

/** The context a row gives its native context menu (and the commands it runs). */
interface RowContext {
  readonly key?: unknown;
}

export class SessionsView extends Disposable implements vscode.WebviewViewProvider {
  readonly model: SessionsModel;
  private view: vscode.WebviewView | undefined;
  private version = 0;
  /** The `seq` of the webview's last settings message. */
  private settingsSeq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDelay = 0;
  /** How long the last recomputation took (paging spaces them by it). */
  private lastComputeMs = 0;
  private lastShown = 0;
  private readonly autoStarted = new Set<string>();
  private readonly paging: BackgroundPaging;
  /** The view was hidden long enough (or is gone): background paging waits until it is shown. */
  private pagingAsleep = true;
  private hiddenTimer: ReturnType<typeof setTimeout> | undefined;
  /** The row the webview says is selected, and where it was in the last list posted. */
  private selectedKey: string | undefined;
  private lastAnchor: { key: string; index: number } | undefined;
  /** The settings of the last list posted: a list for other settings (a keystroke) starts from its best rows. */
  private lastSettings: ViewSettings | undefined;
  /** The rows window the webview last asked for. */
  private lastWindow: { from: number; to: number } | undefined;
  /** Posts so far (tests read it). */
  posts = 0;
  private readonly computedEmitter = this._register(new vscode.EventEmitter<void>());
  /** The list was recomputed (tests wait for it). */
  readonly onDidCompute = this.computedEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly history: SessionHistory,
    private readonly agents: AgentRegistry,
    chats: Chats,
    private readonly actions: HistoryActions,
    private readonly logger: Logger,
  ) {
    super();
    this.paging = new BackgroundPaging({ onDidChange: () => this.schedule() });
    this._register({ dispose: () => this.paging.dispose() });
    this.model = new SessionsModel({
      index: history.index,
      transcripts: history.transcripts,
      agents: () => history.entries(),
      workspace: () => history.workspace(),
      isOpen: (agentName, sessionId) => chats.find(agentName, sessionId) !== undefined,
      now: () => Date.now(),
      trusted: () => vscode.workspace.isTrusted,
      paging: this.paging,
    });
    const stored = ViewSettings.safeParse(context.workspaceState.get(SETTINGS_KEY));
    // First time: the default agent's sessions, if one is set; else every agent's.
    this.model.setSettings(stored.success ? stored.data : { ...DEFAULT_SETTINGS, agent: readDefaultAgent() || null });
    this._register(history.onDidChange(() => this.schedule()));
    this._register(this.model.onDidUpdate(() => this.schedule()));
    // A transcript changed or the index got further: a search on screen asks again (nothing else depends on it).
    this._register(history.transcripts.onDidChange(() => this.model.currentSettings.query.trim() && this.schedule()));
    for (const action of SessionAction.options) {
      this._register(vscode.commands.registerCommand(`acpWorkspace.history.${action}`, (context?: RowContext) => this.runFromMenu(action, context)));
    }
    this._register(vscode.commands.registerCommand('acpWorkspace.history.refresh', () => this.refresh()));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = webviewOptions(this.context.extensionUri);
    view.webview.html = webviewHtml(view.webview, this.context.extensionUri, 'history', 'Sessions');
    this.pagingAsleep = false;
    const subscriptions = [
      view.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)),
      view.onDidChangeVisibility(() => {
        if (view.visible) this.shown();
        else this.hidden();
      }),
    ];
    view.onDidDispose(() => {
      for (const s of subscriptions) s.dispose();
      if (this.view !== view) return;
      this.view = undefined;
      this.sleepPaging();
    });
  }

  /** Runs a message from the webview (the view calls it; so can tests). */
  async receive(raw: unknown): Promise<void> {
    const parsed = SessionsToHost.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`Ignored an invalid message from the Sessions view: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
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
        await this.actions.run(message.action, session);
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
        await vscode.commands.executeCommand(SessionCommandIds.newSession, message.agentName ?? undefined);
        return;
    }
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

  /** Whether the view is on screen (tests wait for it). */
  get visible(): boolean {
    return this.view?.visible === true;
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
    const agent = this.history.entries().find((a) => a.name === agentName);
    if (!agent?.catalog) return;
    await agent.catalog.loadMore(this.planFor(agent));
  }

  private planFor(agent: AgentEntry) {
    return sourcePlan(this.model.currentSettings.scope, this.history.workspace(), agent);
  }

  private async statusAction(action: StatusAction, agentName: string): Promise<void> {
    const agent = this.history.entries().find((a) => a.name === agentName);
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
          await this.agents.start(agentName);
        } catch (error) {
          void vscode.window.showErrorMessage(errorMessage(error));
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
    await this.context.workspaceState.update(SETTINGS_KEY, settings);
    if (settings.agent !== previous.agent) await this.startSelectedAgent(true);
  }

  /**
   * Showing one agent's sessions is asking for them: start it if it is not running. Picking it always
   * does; the view merely being shown does once per agent (stopped later, its status row offers a start).
   */
  private async startSelectedAgent(picked: boolean): Promise<void> {
    const name = this.model.currentSettings.agent;
    if (name === null || !vscode.workspace.isTrusted) return;
    if (!picked && this.autoStarted.has(name)) return;
    this.autoStarted.add(name);
    const status = this.agents.find(name);
    if (!status || status.state === 'running' || status.state === 'starting' || (!picked && status.state === 'failed')) return;
    await this.statusAction('startAgent', name);
  }

  /** The view became visible: catch up, and look for sessions created elsewhere meanwhile. */
  private shown(): void {
    clearTimeout(this.hiddenTimer);
    this.hiddenTimer = undefined;
    this.pagingAsleep = false;
    const now = Date.now();
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
    clearTimeout(this.hiddenTimer);
    this.hiddenTimer = setTimeout(() => this.sleepPaging(), HIDDEN_PAGING_MS);
  }

  private sleepPaging(): void {
    clearTimeout(this.hiddenTimer);
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

  private runFromMenu(action: SessionAction, context: RowContext | undefined): Promise<void> | undefined {
    const key = typeof context?.key === 'string' ? context.key : undefined;
    const session = key === undefined ? undefined : this.model.find(key);
    if (!session) return undefined;
    return this.actions.run(action, session).then(() => this.schedule());
  }

  /** Recomputes soon; while pages arrive in the background, less often (progress, not every page: pagingRefreshDelay). */
  private schedule(): void {
    const delay = this.paging.progress().active ? pagingRefreshDelay(this.lastComputeMs) : COMPUTE_DELAY_MS;
    if (this.timer !== undefined) {
      if (delay >= this.timerDelay) return;
      clearTimeout(this.timer);
    }
    this.timerDelay = delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.computeNow();
    }, delay);
  }

  private computeNow(): void {
    clearTimeout(this.timer);
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
      agents: this.history.entries().map((a) => ({ name: a.name, running: a.running })),
      ...state,
      notices: [...this.history.problems, ...state.notices],
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
    if (this.selectedKey === undefined || !this.view || !sameSettings(this.lastSettings, this.model.currentSettings)) return undefined;
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
    if (!last || !this.view?.visible) return {};
    const shift = anchor && this.lastAnchor?.key === anchor.key ? anchor.index - this.lastAnchor.index : 0;
    const from = Math.min(Math.max(0, last.from + shift), count);
    const to = Math.min(Math.max(from, last.to + shift), count);
    this.lastWindow = { from, to };
    // The webview will not ask for these rows: what it would have done on asking happens here.
    this.loadEndsIn(from, to);
    return { window: { from, rows: this.model.rows(from, to) } };
  }

  private post(message: HostToSessions): void {
    if (!this.view) return;
    this.posts++;
    void this.view.webview.postMessage(message);
  }

  override dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.hiddenTimer);
    this.model.dispose();
    super.dispose();
  }
}

function sameSettings(a: ViewSettings | undefined, b: ViewSettings): boolean {
  return a !== undefined && a.agent === b.agent && a.scope === b.scope && a.query === b.query && a.showHidden === b.showHidden;
}
