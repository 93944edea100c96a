/** The questions a chat asks with VS Code's own dialogs (integration tests answer them instead; see TestApi). */
import * as vscode from 'vscode';
import type { ChatUi } from '../../sessions/ports';

export const vscodeChatUi: ChatUi = {
  async confirmOpenOutside({ agentName, path, reason }) {
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Open {0}?', path),
      {
        modal: true,
        detail: `${reason}. The link comes from ${agentName}: open the file only if you expect it.`,
      },
      vscode.l10n.t('Open'),
    );
    return choice === vscode.l10n.t('Open');
  },
};
