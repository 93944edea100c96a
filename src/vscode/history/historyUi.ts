/** The questions the session history asks, as VS Code prompts (integration tests answer them instead). */
import * as vscode from 'vscode';
import type { HistoryUi } from '../../sessions/ports';

export const vscodeHistoryUi: HistoryUi = {
  async confirmDelete(agentName, title, open) {
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('Delete “{0}”?', title),
      {
        modal: true,
        detail: open
          ? vscode.l10n.t('{0} deletes the session and its history, and its chat closes. This cannot be undone.', agentName)
          : vscode.l10n.t('{0} deletes the session and its history. This cannot be undone.', agentName),
      },
      vscode.l10n.t('Delete'),
    );
    return answer === vscode.l10n.t('Delete');
  },
  async rename(current, agentCanRename) {
    return vscode.window.showInputBox({
      title: vscode.l10n.t('Rename Session'),
      value: current,
      prompt: agentCanRename
        ? vscode.l10n.t('The agent renames the session too.')
        : vscode.l10n.t('The name is kept in this client (ACP has no rename for this agent). Empty restores the agent’s title.'),
      validateInput: (value) => (value.length > 200 ? vscode.l10n.t('Keep it under 200 characters.') : undefined),
    });
  },
  async copyId(sessionId) {
    await vscode.env.clipboard.writeText(sessionId);
    void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied session id {0}', sessionId), 3000);
  },
};
