/**
 * Tells the user about refused requests of agents (files outside the session's folders: src/sessions/routing/fsHandlers.ts;
 * terminal folders: src/terminal/, both routed by SessionRouter).
 */
import * as vscode from 'vscode';
import type { AgentSession, Refusal } from '../sessions/routing/agentSession';
import { refusalScopeText, refusedRequestText } from '../shared/refusalText';

/** Tells the user about refusals, at most once per session every 30 s (the view keeps the full count). */
export class RefusalNotices {
  private readonly lastShown = new WeakMap<AgentSession, number>();

  notify(session: AgentSession, refusal: Refusal): void {
    const last = this.lastShown.get(session) ?? 0;
    if (refusal.time - last < 30_000) return;
    this.lastShown.set(session, refusal.time);
    void vscode.window
      .showWarningMessage(
        `${refusedRequestText(refusal, session.agentName)} ${refusal.message}. ${refusalScopeText(refusal.operation)}`,
        vscode.l10n.t('Show Agents'),
      )
      .then((choice) => choice && vscode.commands.executeCommand('acpWorkspace.agents.focus'));
  }
}
