/**
 * Workspace folders added or removed while sessions are open: each affected session is marked stale (ACP
 * cannot change a session's roots mid-session) and the user can reopen it with the current folders or keep
 * its own.
 */
import type { Logger } from '../common/logger';
import type { CandidateRoot } from '../roots/workspaceRoots';
import type { ActiveSessions } from './activeSessions';
import type { AgentSession } from './agentSession';
import type { Notices, RootsUi, WorkspacePort } from './ports';
import type { SessionStarter } from './sessionStarter';
import { describeFolderChange, staleAfterFolderChange } from './staleRoots';

export interface FolderChangesOptions {
  readonly sessions: ActiveSessions;
  readonly starter: SessionStarter;
  readonly workspace: WorkspacePort;
  readonly ui: () => RootsUi;
  readonly notices: Notices;
  readonly logger: Logger;
}

export class FolderChanges {
  private last: readonly CandidateRoot[];

  constructor(private readonly options: FolderChangesOptions) {
    this.last = options.workspace.candidates().roots;
  }

  /** The workspace's folders changed: marks affected sessions stale; resolves after the user answered. */
  async foldersChanged(): Promise<void> {
    const { sessions, workspace, ui, logger } = this.options;
    const before = this.last;
    const after = workspace.candidates().roots;
    this.last = after;
    const affected: AgentSession[] = [];
    for (const session of sessions.all()) {
      const stale = staleAfterFolderChange(session.rootSet, before, after);
      if (!stale) continue;
      session.markStale(stale);
      affected.push(session);
    }
    if (affected.length === 0) return;
    logger.info(`Workspace folders changed; ${affected.length} open session(s) keep their old folders until reopened.`);
    const change = describeFolderChange(before, after);
    const message =
      affected.length === 1
        ? `Workspace folders changed (${change}). The ${affected[0]!.agentName} session still has its old folders: reopen it with the current folders?`
        : `Workspace folders changed (${change}). ${affected.length} open sessions still have their old folders: reopen them with the current folders?`;
    const choice = await ui().staleChoice(message);
    if (choice === 'keep') for (const session of affected) session.markStale(undefined);
    if (choice === 'reopen') await this.reopen(affected);
  }

  /** Reopens sessions with the current folders, one after the other; a failure is told and the rest go on. */
  async reopen(sessions: readonly AgentSession[]): Promise<void> {
    for (const session of sessions) {
      try {
        await this.options.starter.reopenWithCurrentFolders(session);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.options.logger.error(`Reopening ${session.sessionId}: ${message}`);
        this.options.notices.error(`Could not reopen the ${session.agentName} session: ${message}`);
      }
    }
  }
}
