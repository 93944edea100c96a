/** The questions the session history asks, as VS Code prompts (integration tests answer them instead). */
import * as vscode from 'vscode';
import type { HistoryUi } from '../../sessions/ports';

export const vscodeHistoryUi: HistoryUi = {
  async confirmDelete(agentName, title, open) {
    const answer = await vscode.window.showWarningMessage(
      `Delete “${title}”?`,
      { modal: true, detail: `${agentName} deletes the session and its history${open ? ', and its chat closes' : ''}. This cannot be undone.` },
      'Delete',
    );
    return answer === 'Delete';
  },
  async rename(current, agentCanRename) {
    return vscode.window.showInputBox({
      title: 'Rename Session',
      value: current,
      prompt: agentCanRename ? 'The agent renames the session too.' : 'The name is kept in this client (ACP has no rename for this agent). Empty restores the agent’s title.',
      validateInput: (value) => (value.length > 200 ? 'Keep it under 200 characters.' : undefined),
    });
  },
  async copyId(sessionId) {
    await vscode.env.clipboard.writeText(sessionId);
    void vscode.window.setStatusBarMessage(`Copied session id ${sessionId}`, 3000);
  },
};
