/** The questions a chat asks with VS Code's own dialogs (integration tests answer them instead; see TestApi). */
import * as vscode from 'vscode';
import type { ChatUi } from '../../sessions/ports';

export const vscodeChatUi: ChatUi = {
  async confirmOpenOutside({ agentName, path, reason }) {
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Open {0}?', path),
      {
        modal: true,
        detail: vscode.l10n.t('{0}. The link comes from {1}: open the file only if you expect it.', reason, agentName),
      },
      vscode.l10n.t('Open'),
    );
    return choice === vscode.l10n.t('Open');
  },
};
