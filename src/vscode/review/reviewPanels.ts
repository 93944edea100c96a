/**
 * The Review Changes tab of a session: its pending changes (what the agent changed and the user has not
 * accepted or rejected yet) grouped by folder, with hunks, accept/reject per file, per hunk or all, and
 * each file's diff in VS Code's own diff editor. One tab per session; it follows the review as it changes.
 * The logic is {@link ChangeReview}'s; this adapts it to a webview panel.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/logger';
import type { ChangeReview, ReviewTarget } from '../../sessions/changeReview';
import { ReviewToHost, type HostToReview, type ReviewState } from '../../shared/reviewProtocol';
import { webviewHtml, webviewOptions } from '../webviewHtml';
import { CheckpointDocuments, currentUri } from './checkpointDocuments';

export const REVIEW_VIEW_TYPE = 'acpWorkspace.review';

export class ReviewPanel extends Disposable {
  readonly panel: vscode.WebviewPanel;
  private version = 0;
  private message: ReviewState['message'];
  private last: ReviewState | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  /** States posted so far (tests wait for them). */
  posts = 0;

  constructor(
    readonly target: ReviewTarget,
    private readonly review: ChangeReview,
    extensionUri: vscode.Uri,
    private readonly logger: Logger,
    onDidDispose: () => void,
  ) {
    super();
    this.panel = this._register(
      vscode.window.createWebviewPanel(REVIEW_VIEW_TYPE, vscode.l10n.t('Review: {0}', target.title), vscode.ViewColumn.Active, { ...webviewOptions(extensionUri), retainContextWhenHidden: false }),
    );
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'activitybar.svg');
    this.panel.webview.html = webviewHtml(this.panel.webview, extensionUri, 'review', `Review: ${target.title}`);
    this._register(this.panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    this._register(this.panel.onDidDispose(() => onDidDispose()));
  }

  /** The state last posted. */
  get state(): ReviewState | undefined {
    return this.last;
  }

  /** Builds the state again and posts it (after any change of the review). */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing.then(async () => {
      const state = await this.review.view(this.target, ++this.version, this.message);
      this.last = state;
      this.post({ type: 'state', state });
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
        if (message.version !== this.version) return this.refresh(); // it acted on a state that is gone
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
      const text = error instanceof Error ? error.message : String(error);
      this.logger.error(`Review action ${parsed.data.type} failed: ${text}`);
      void vscode.window.showErrorMessage(text);
    }
  }
}

/** The open review tabs, one per session. */
export class ReviewPanels extends Disposable {
  private readonly panels = new Map<string, ReviewPanel>();

  constructor(
    private readonly review: ChangeReview,
    private readonly extensionUri: vscode.Uri,
    private readonly logger: Logger,
  ) {
    super();
    this._register(review.onDidChange((target) => void this.panels.get(key(target))?.refresh()));
  }

  /** Opens (or brings forward) the review tab of a session. */
  show(target: ReviewTarget): ReviewPanel {
    const existing = this.panels.get(key(target));
    if (existing) {
      existing.panel.reveal(undefined, false);
      void existing.refresh();
      return existing;
    }
    const panel: ReviewPanel = new ReviewPanel(target, this.review, this.extensionUri, this.logger, () => {
      this.panels.delete(key(target));
      panel.dispose();
    });
    this.panels.set(key(target), panel);
    return panel;
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

function key(target: Pick<ReviewTarget, 'agentName' | 'sessionId'>): string {
  return `${target.agentName}\u0000${target.sessionId}`;
}
