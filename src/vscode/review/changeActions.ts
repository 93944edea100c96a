/**
 * What a turn's `changes` entry in a chat does (a file's diff before the turn ↔ now, Review, Undo, Redo),
 * the commands that do the same for the active chat, and the confirmation before files are restored.
 */
import * as vscode from 'vscode';
import type { ChangeReview } from '../../sessions/review/changeReview';
import type { RestoreQuestion, ReviewUi } from '../../sessions/ports';
import type { SessionController } from '../../sessions/turns/sessionController';
import { chatTitle } from '../../shared/chatModel';
import type { ChatChangeActions } from '../chat/chatActions';
import type { ChatTabs } from '../chat/chatTabs';
import { CheckpointDocuments, currentUri } from './checkpointDocuments';
import type { ReviewPanels } from './reviewPanels';

/** The confirmation before an undo or redo writes files: a modal listing what will change. */
export const vscodeReviewUi: ReviewUi = {
  async confirmRestore(question: RestoreQuestion): Promise<boolean> {
    const shown = question.files.slice(0, 30);
    const more = question.files.length - shown.length;
    const detail = [...shown, ...(more > 0 ? [`… and ${more} more`] : []), ...(question.note ? ['', question.note] : [])].join('\n');
    const picked = await vscode.window.showWarningMessage(question.title, { modal: true, detail }, question.action);
    return picked === question.action;
  },
};

export class ChangeActions implements ChatChangeActions {
  constructor(
    private readonly review: ChangeReview,
    private readonly panels: ReviewPanels,
  ) {}

  async openChange(controller: SessionController, entryId: string, index: number): Promise<void> {
    const diff = await this.review.turnDiff(controller, entryId, index);
    if (!diff) return;
    await vscode.commands.executeCommand(
      'vscode.diff',
      CheckpointDocuments.uri(diff.before),
      currentUri(diff.root, diff.path, diff.exists),
      vscode.l10n.t('{0} ({1} ↔ now)', diff.path, diff.label),
      {
        preview: true,
      },
    );
  }

  async act(controller: SessionController, entryId: string, action: 'review' | 'undo' | 'redo'): Promise<void> {
    switch (action) {
      case 'review':
        return this.show(controller);
      case 'undo':
        return this.review.undo(controller, entryId);
      case 'redo':
        return this.review.redo(controller, entryId);
    }
  }

  /** Opens the Review Changes tab of a chat's session. */
  async show(controller: SessionController): Promise<void> {
    const panel = this.panels.show({
      agentName: controller.session.agentName,
      sessionId: controller.session.sessionId,
      title: chatTitle(controller.thread.session),
    });
    await panel.refresh();
  }

  /** The commands: Review Changes and Undo Last Turn, for the active chat (or the only one). */
  register(tabs: ChatTabs): vscode.Disposable[] {
    const chat = (): SessionController | undefined => {
      const active = tabs.active() ?? (tabs.all().length === 1 ? tabs.all()[0] : undefined);
      if (!active) void vscode.window.showInformationMessage(vscode.l10n.t('Open the chat whose changes you want to review first.'));
      return active?.controller;
    };
    return [
      vscode.commands.registerCommand('acpWorkspace.reviewChanges', async () => {
        const controller = chat();
        if (controller) await this.show(controller);
      }),
      vscode.commands.registerCommand('acpWorkspace.undoLastTurn', async () => {
        const controller = chat();
        if (controller) await this.review.undoLast(controller);
      }),
    ];
  }
}
