/** The fail-closed question: confinement is on but cannot be set up here (see `sessions/agents/agentConfinement.ts`). */
import * as vscode from 'vscode';
import type { ConfinementUi } from '../sessions/ports';

export const vscodeConfinementUi: ConfinementUi = {
  async confinementUnavailable(agentName, reason, fix) {
    const once = vscode.l10n.t('Start Unconfined Once');
    const settings = vscode.l10n.t('Open Settings');
    const choice = await vscode.window.showErrorMessage(
      vscode.l10n.t('{0} was not started: it is to run confined (acpWorkspace.sandbox), but confinement cannot be set up here.', agentName),
      {
        modal: true,
        detail: vscode.l10n.t('{0}\n\n{1}\n\nStarting it unconfined lets its own tools read and write anything your account can, this once.', reason, fix),
      },
      once,
      settings,
    );
    if (choice === settings) {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'acpWorkspace.sandbox');
      return 'settings';
    }
    return choice === once ? 'unconfined-once' : undefined;
  },
};
