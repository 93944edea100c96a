/** The fail-closed question: confinement is on but cannot be set up here (see `sessions/agentConfinement.ts`). */
import * as vscode from 'vscode';
import type { ConfinementUi } from '../sessions/ports';

export const vscodeConfinementUi: ConfinementUi = {
  async confinementUnavailable(agentName, reason, fix) {
    const once = 'Start Unconfined Once';
    const settings = 'Open Settings';
    const choice = await vscode.window.showErrorMessage(
      `${agentName} was not started: it is to run confined (acpWorkspace.sandbox), but confinement cannot be set up here.`,
      { modal: true, detail: `${reason}\n\n${fix}\n\nStarting it unconfined lets its own tools read and write anything your account can, this once.` },
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
