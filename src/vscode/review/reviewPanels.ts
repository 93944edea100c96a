/**
 * The Review Changes tab of a session: its pending changes (what the agent changed and the user has not
 * accepted or rejected yet) grouped by folder, with hunks, accept/reject per file, per hunk or all, and
 * each file's diff in VS Code's own diff editor. One tab per session; it follows the review as it changes,
 * and the session's title when it is renamed. The tab comes back after a window reload: its webview keeps which
 * session it reviews (`ReviewTab`) and VS Code hands that to {@link ReviewPanels.deserializeWebviewPanel}.
 * The logic is {@link ChangeReview}'s; this adapts it to a webview panel.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/logger';
import type { ChangeReview, ReviewTarget } from '../../sessions/review/changeReview';
import { ReviewTab, ReviewToHost, type HostToReview, type ReviewState } from '../../shared/reviewProtocol';
import { REVIEW_VIEW_TYPE } from '../contributionIds';
import { webviewHtml, webviewOptions } from '../webviewHtml';
import { CheckpointDocuments, currentUri } from './checkpointDocuments';
import { errorMessage } from '../../common/errors';

export { REVIEW_VIEW_TYPE };

/** A session's title as its review tab names it (the chat's title: "<title> · <agent>"), and when titles change. */
export interface ReviewTitles {
  titleOf(target: Pick<ReviewTarget, 'agentName' | 'sessionId'>): string | undefined;
  onDidChange(listener: () => void): { dispose(): void };
}

export class ReviewPanel extends Disposable {
  readonly panel: vscode.WebviewPanel;
  private current: ReviewTarget;
  private version = 0;
  private message: ReviewState['message'];
  private last: ReviewState | undefined;
  /** The states posted lately by version: an action names the one it was chosen on. */
  private readonly recent = new Map<number, ReviewState>();
  private refreshing: Promise<void> = Promise.resolve();
  /** States posted so far (tests wait for them). */
  posts = 0;

  constructor(
    target: ReviewTarget,
    private readonly review: ChangeReview,
    extensionUri: vscode.Uri,
    private readonly logger: Logger,
    onDidDispose: () => void,
    /** A tab VS Code restored after a reload, to show the review in (else a new tab). */
    restored?: vscode.WebviewPanel,
  ) {
    super();
    this.current = target;
    if (restored) {
      restored.title = tabTitle(target.title);
      restored.webview.options = webviewOptions(extensionUri);
    }
    this.panel = this._register(
      restored ??
        vscode.window.createWebviewPanel(REVIEW_VIEW_TYPE, tabTitle(target.title), vscode.ViewColumn.Active, {
          ...webviewOptions(extensionUri),
          retainContextWhenHidden: false,
        }),
    );
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'activitybar.svg');
    this.panel.webview.html = webviewHtml(this.panel.webview, extensionUri, 'review', `Review: ${target.title}`);
    this._register(this.panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    this._register(this.panel.onDidDispose(() => onDidDispose()));
  }

  /** The session it reviews, with its title as the tab shows it. */
  get target(): ReviewTarget {
    return this.current;
  }

  /** The session was renamed: the tab and the heading follow. */
  retitle(title: string): void {
    if (title === this.current.title) return;
    this.current = { ...this.current, title };
    this.panel.title = tabTitle(title);
    void this.refresh();
  }

  /** The state last posted. */
  get state(): ReviewState | undefined {
    return this.last;
  }

  /** Builds the state again and posts it (after any change of the review). */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing.then(async () => {
      const target = this.current;
      const state = await this.review.view(target, ++this.version, this.message);
      this.last = state;
      this.recent.set(state.version, state);
      for (const version of this.recent.keys()) if (this.recent.size > RECENT_STATES) this.recent.delete(version);
      this.post({ type: 'state', state, tab: { agentName: target.agentName, sessionId: target.sessionId, title: target.title } });
    });
    return this.refreshing.catch((error: unknown) => this.logger.warn(`Review of ${this.target.sessionId}: ${String(error)}`));
  }

  /** What the webview asks (tests call it like the webview does). */
  async handle(message: ReviewToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
        return this.refresh();
      case 'accept':
      case 'reject':
      case 'acceptAll':
      case 'rejectAll':
      case 'undo':
      case 'redo': {
        // The review refreshes by itself (a checkpoint written, the tab shown again): an action chosen on an earlier
        // state is done when what it acts on is as the user saw it, and not done (and said) when that changed.
        const seen = this.recent.get(message.version);
        if (message.version !== this.version && !(seen && this.last && sameTarget(seen, this.last, message))) {
          this.message = {
            severity: 'warning',
            text: vscode.l10n.t('The review changed before your action reached it: nothing was done. Look at it again and choose.'),
          };
          return this.refresh();
        }
        this.message = await this.review.perform(this.target, message);
        return this.refresh();
      }
      case 'openDiff': {
        // The file as the tab shows it (no need to read every pending file again).
        const file = this.last?.files.find((f) => f.key === message.key);
        if (!file) return;
        const diff = this.review.diffOf(this.target, file);
        const left = CheckpointDocuments.uri(diff.before);
        const right = currentUri(diff.root, diff.path, diff.exists);
        await vscode.commands.executeCommand('vscode.diff', left, right, vscode.l10n.t('{0} ({1} ↔ now)', diff.path, diff.label), { preview: true });
        return;
      }
      case 'openFile': {
        const file = this.last?.files.find((f) => f.key === message.key);
        const diff = file && this.review.diffOf(this.target, file);
        if (diff?.exists) await vscode.window.showTextDocument(currentUri(diff.root, diff.path, true), { preview: true });
        return;
      }
    }
  }

  private post(message: HostToReview): void {
    this.posts++;
    void this.panel.webview.postMessage(message);
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = ReviewToHost.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`Ignored an invalid message from the review view: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      return;
    }
    try {
      await this.handle(parsed.data);
    } catch (error) {
      const text = errorMessage(error);
      this.logger.error(`Review action ${parsed.data.type} failed: ${text}`);
      void vscode.window.showErrorMessage(text);
    }
  }
}

/** States kept to match an action with the state it was chosen on (a click races a refresh or two). */
const RECENT_STATES = 8;

/** Whether what `action` acts on is the same in both states: its file, every file, or the turns. */
function sameTarget(seen: ReviewState, now: ReviewState, action: Extract<ReviewToHost, { version: number }>): boolean {
  switch (action.type) {
    case 'accept':
    case 'reject': {
      const before = seen.files.find((f) => f.key === action.key);
      return before !== undefined && JSON.stringify(before) === JSON.stringify(now.files.find((f) => f.key === action.key));
    }
    case 'acceptAll':
    case 'rejectAll':
      return JSON.stringify(seen.files) === JSON.stringify(now.files);
    case 'undo':
    case 'redo':
      return JSON.stringify(seen.turns) === JSON.stringify(now.turns);
  }
}

/** The open review tabs, one per session; VS Code hands it the tabs it restores after a reload. */
export class ReviewPanels extends Disposable implements vscode.WebviewPanelSerializer {
  private readonly panels = new Map<string, ReviewPanel>();

  constructor(
    private readonly review: ChangeReview,
    private readonly extensionUri: vscode.Uri,
    private readonly logger: Logger,
    private readonly titles?: ReviewTitles,
  ) {
    super();
    this._register(review.onDidChange((target) => void this.panels.get(key(target))?.refresh()));
    if (titles) this._register(titles.onDidChange(() => this.retitle()));
  }

  /** A review tab VS Code restored after a reload: it shows its session's review again (a state it cannot read closes it). */
  deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const parsed = ReviewTab.safeParse(state);
    if (!parsed.success || this.panels.has(key(parsed.data))) {
      this.logger.info('Closed a Review Changes tab restored after the window reload: it did not say which session it reviews.');
      panel.dispose();
      return Promise.resolve();
    }
    const target = { ...parsed.data, title: this.titles?.titleOf(parsed.data) ?? parsed.data.title };
    this.open(target, panel);
    return Promise.resolve();
  }

  /** Opens (or brings forward) the review tab of a session. */
  show(target: ReviewTarget): ReviewPanel {
    const existing = this.panels.get(key(target));
    if (existing) {
      existing.panel.reveal(undefined, false);
      void existing.refresh();
      return existing;
    }
    return this.open({ ...target, title: this.titles?.titleOf(target) ?? target.title });
  }

  private open(target: ReviewTarget, restored?: vscode.WebviewPanel): ReviewPanel {
    const panel: ReviewPanel = new ReviewPanel(
      target,
      this.review,
      this.extensionUri,
      this.logger,
      () => {
        this.panels.delete(key(target));
        panel.dispose();
      },
      restored,
    );
    this.panels.set(key(target), panel);
    return panel;
  }

  /** Each tab takes its session's title as it is now (after a rename). */
  private retitle(): void {
    for (const panel of this.panels.values()) {
      const title = this.titles?.titleOf(panel.target);
      if (title) panel.retitle(title);
    }
  }

  find(target: Pick<ReviewTarget, 'agentName' | 'sessionId'>): ReviewPanel | undefined {
    return this.panels.get(key(target));
  }

  override dispose(): void {
    for (const panel of this.panels.values()) panel.dispose();
    this.panels.clear();
    super.dispose();
  }
}

function tabTitle(title: string): string {
  return vscode.l10n.t('Review: {0}', title);
}

function key(target: Pick<ReviewTarget, 'agentName' | 'sessionId'>): string {
  return `${target.agentName}\u0000${target.sessionId}`;
}
