/** A status bar item: the active chat's agent and what it is doing; click to bring the chat forward. */
import * as vscode from 'vscode';
import { chatTitle, type ViewSessionState } from '../../shared/chatModel';

/** A function: t() runs after activate() set the bundle. */
const text = (): Record<ViewSessionState['status'], string> => ({
  starting: vscode.l10n.t('starting'),
  loading: vscode.l10n.t('loading'),
  idle: vscode.l10n.t('ready'),
  running: vscode.l10n.t('working'),
  disconnected: vscode.l10n.t('disconnected'),
});

export class ChatStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('acpWorkspace.chatStatus', vscode.StatusBarAlignment.Right, 100);

  constructor() {
    this.item.name = 'ACP Session';
    this.item.command = 'acpWorkspace.focusChat';
  }

  private shown: { session: ViewSessionState | undefined; pending: number } | undefined;

  /** Called on every change of the active chat; the item changes only when its session state does (a new object). */
  show(session: ViewSessionState | undefined, pendingPermissions = 0): void {
    if (this.shown && this.shown.session === session && this.shown.pending === pendingPermissions) return;
    this.shown = { session, pending: pendingPermissions };
    if (!session) {
      this.item.hide();
      return;
    }
    const icon = session.status === 'running' ? '$(loading~spin)' : session.status === 'disconnected' ? '$(debug-disconnect)' : '$(comment-discussion)';
    const waiting = pendingPermissions > 0 ? ` · $(shield) ${pendingPermissions}` : '';
    this.item.text = `${icon} ${session.agentName}: ${text()[session.status]}${waiting}`;
    this.item.tooltip = `${chatTitle(session)}${session.statusDetail ? `\n${session.statusDetail}` : ''}`;
    this.item.backgroundColor = session.status === 'disconnected' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = { label: vscode.l10n.t('ACP session with {0}: {1}', session.agentName, text()[session.status]) };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
