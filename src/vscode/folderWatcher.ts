/**
 * Workspace folders added or removed while sessions are open: each affected session is marked stale (its
 * roots cannot change mid-session) and the user can reopen it with the current folders or keep its own.
 */
import * as vscode from 'vscode';
import type { Logger } from '../common/logger';
import type { CandidateRoot } from '../roots/workspaceRoots';
import type { ActiveSessions } from '../sessions/activeSessions';
import type { AgentSession } from '../sessions/agentSession';
import { describeFolderChange, staleAfterFolderChange } from '../sessions/staleRoots';
import { Disposable } from '../common/lifecycle';
import type { RootsUi } from './rootsUi';
import type { SessionStarter } from './sessionStarter';
import { currentCandidates } from './workspaceFolders';

export class FolderWatcher extends Disposable {
  private last: readonly CandidateRoot[] = currentCandidates().roots;

  constructor(
    private readonly sessions: ActiveSessions,
    private readonly starter: SessionStarter,
    private readonly ui: () => RootsUi,
    private readonly logger: Logger,
  ) {
    super();
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.onFoldersChanged()));
  }

  /** Marks affected sessions stale; resolves after the user answered (tests await it). */
  async onFoldersChanged(): Promise<void> {
    const before = this.last;
    const after = currentCandidates().roots;
    this.last = after;
    const affected: AgentSession[] = [];
    for (const session of this.sessions.all()) {
      const stale = staleAfterFolderChange(session.rootSet, before, after);
      if (!stale) continue;
      session.markStale(stale);
      affected.push(session);
    }
    if (affected.length === 0) return;
    this.logger.info(`Workspace folders changed; ${affected.length} open session(s) keep their old folders until reopened.`);
    const change = describeFolderChange(before, after);
    const message =
      affected.length === 1
        ? `Workspace folders changed (${change}). The ${affected[0]!.agentName} session still has its old folders: reopen it with the current folders?`
        : `Workspace folders changed (${change}). ${affected.length} open sessions still have their old folders: reopen them with the current folders?`;
    const choice = await this.ui().staleChoice(message);
    if (choice === 'keep') for (const session of affected) session.markStale(undefined);
    if (choice === 'reopen') await this.reopen(affected);
  }

  async reopen(sessions: readonly AgentSession[]): Promise<void> {
    for (const session of sessions) {
      try {
        await this.starter.reopenWithCurrentFolders(session);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.logger.error(`Reopening ${session.sessionId}: ${message}`);
        void vscode.window.showErrorMessage(`Could not reopen the ${session.agentName} session: ${message}`);
      }
    }
  }
}
