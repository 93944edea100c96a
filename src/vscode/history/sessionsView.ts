/**
 * The "Sessions" webview view in the ACP container. The host computes the (possibly huge) list with
 * {@link SessionsModel}; the webview renders a virtual window and asks for the rows it shows. Reaching the
 * end of an agent's loaded sessions loads its next page; selecting one agent starts it. Actions on rows come
 * from the webview's buttons and keys, and from its native context menu (commands below).
 */
import * as vscode from 'vscode';
import type { AgentRegistry } from '../../agents/agentRegistry';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/logger';
import { DEFAULT_SETTINGS, SessionsModel } from '../../history/sessionsModel';
import { sourcePlan, type AgentEntry } from '../../history/sessionView';
import type { Chats } from '../../sessions/chats';
import type { HistoryActions } from '../../sessions/historyActions';
import type { SessionHistory } from '../../sessions/sessionHistory';
import { HistoryRequests, SessionAction, SessionsToHost, ViewSettings, type HostToSessions, type Row, type StatusAction } from '../../shared/historyProtocol';
import { answer } from '../../shared/ipc';
import { readDefaultAgent } from '../settings';
import { SessionCommandIds } from '../sessionCommands';
import { webviewHtml, webviewOptions } from '../webviewHtml';

const SETTINGS_KEY = 'acpWorkspace.sessionsView';
/** Changes arriving together (a page of sessions, many title updates) are shown together. */
const COMPUTE_DELAY_MS = 16;
/** Showing the view again re-reads the first page of each list when it was shown longer ago than this. */
const SOFT_REFRESH_MS = 10_000;

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
  private lastShown = 0;
  private readonly autoStarted = new Set<string>();
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
    this.model = new SessionsModel({
      index: history.index,
      agents: () => history.entries(),
      workspace: () => history.workspace(),
      isOpen: (agentName, sessionId) => chats.find(agentName, sessionId) !== undefined,
      now: () => Date.now(),
      trusted: () => vscode.workspace.isTrusted,
    });
    const stored = ViewSettings.safeParse(context.workspaceState.get(SETTINGS_KEY));
    // First time: the default agent's sessions, if one is set; else every agent's.
    this.model.setSettings(stored.success ? stored.data : { ...DEFAULT_SETTINGS, agent: readDefaultAgent() || null });
    this._register(history.onDidChange(() => this.schedule()));
    for (const action of SessionAction.options) {
      this._register(vscode.commands.registerCommand(`acpWorkspace.history.${action}`, (context?: RowContext) => this.runFromMenu(action, context)));
    }
    this._register(vscode.commands.registerCommand('acpWorkspace.history.refresh', () => this.refresh()));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = webviewOptions(this.context.extensionUri);
    view.webview.html = webviewHtml(view.webview, this.context.extensionUri, 'history', 'Sessions');
    const subscriptions = [
      view.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)),
      view.onDidChangeVisibility(() => {
        if (view.visible) this.shown();
      }),
    ];
    view.onDidDispose(() => {
      for (const s of subscriptions) s.dispose();
      if (this.view === view) this.view = undefined;
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
        this.post(await answer(HistoryRequests, { rows: (window) => Promise.resolve(this.rowsFor(window)) }, message));
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
      case 'newSession':
        await vscode.commands.executeCommand(SessionCommandIds.newSession, message.agentName ?? undefined);
        return;
    }
  }

  /** Rows [from, to) of the current list; the end of a list in view reads its next page. */
  private rowsFor(window: { version: number; from: number; to: number }): { version: number; rows: Row[] } {
    if (window.version !== this.version) return { version: this.version, rows: [] };
    for (const status of this.model.statusRowsIn(window.from, window.to)) {
      if (status.state === 'more') void this.loadMore(status.agentName);
    }
    return { version: this.version, rows: this.model.rows(window.from, window.to) };
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
        return this.loadMore(agentName);
      case 'loadMore':
        return this.loadMore(agentName);
      case 'startAgent':
        try {
          await this.agents.start(agentName);
        } catch (error) {
          void vscode.window.showErrorMessage(error instanceof Error ? error.message : String(error));
        }
        return;
    }
  }

  private async applySettings(settings: ViewSettings): Promise<void> {
    const previous = this.model.currentSettings;
    this.model.setSettings(settings);
    await this.context.workspaceState.update(SETTINGS_KEY, settings);
    this.computeNow();
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
    const now = Date.now();
    if (now - this.lastShown > SOFT_REFRESH_MS) {
      for (const agent of this.model.shownAgents()) {
        if (agent.catalog && agent.catalog.size > 0) void agent.catalog.refreshFirstPage(this.planFor(agent));
      }
    }
    this.lastShown = now;
    this.schedule();
  }

  private runFromMenu(action: SessionAction, context: RowContext | undefined): Promise<void> | undefined {
    const key = typeof context?.key === 'string' ? context.key : undefined;
    const session = key === undefined ? undefined : this.model.find(key);
    if (!session) return undefined;
    return this.actions.run(action, session).then(() => this.schedule());
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.computeNow();
    }, COMPUTE_DELAY_MS);
  }

  private computeNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const state = this.model.compute();
    this.version++;
    this.post({
      type: 'state',
      version: this.version,
      settings: this.model.currentSettings,
      settingsSeq: this.settingsSeq,
      agents: this.history.entries().map((a) => ({ name: a.name, running: a.running })),
      ...state,
      notices: [...this.history.problems, ...state.notices],
    });
    this.computedEmitter.fire();
  }

  private post(message: HostToSessions): void {
    if (!this.view) return;
    this.posts++;
    void this.view.webview.postMessage(message);
  }

  override dispose(): void {
    clearTimeout(this.timer);
    super.dispose();
  }
}
