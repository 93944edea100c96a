/**
 * What open sessions may reach follows the user's decisions at once. A folder removed from the workspace, or
 * a grant the user took back (ACP: Manage Shared Folders), is withdrawn from every open session it reached:
 * the guard refuses it from then on (files, terminals, prompts), the agent's terminals running in it are
 * stopped, and the session is marked stale. A confined agent's own tools lose the folder too: its
 * confinement is narrowed at once (the agent restarts without it, a running turn stopped, and its chats are
 * reopened with the folders shared now, see AgentLifecycle.narrow). ACP cannot change a session's roots
 * mid-session, so the user is offered to reopen the other sessions with what is shared now (or keep them as
 * they are, without the folder). A folder added to the workspace is an offer to reopen, for sessions whose
 * agent takes more than one folder.
 */
import * as l10n from '@vscode/l10n';
import * as path from 'node:path';
import type { Logger } from '../../common/logger';
import type { FolderGrants, GrantsChange } from '../../roots/folderGrants';
import { listInWords, namedRoot, rootPaths } from '../../roots/rootSet';
import type { CandidateRoot } from '../../roots/workspaceRoots';
import type { ActiveSessions } from '../routing/activeSessions';
import type { AgentSession } from '../routing/agentSession';
import type { Notices, RootsUi, WorkspacePort } from '../ports';
import type { SessionRouter } from '../routing/sessionRouter';
import type { SessionStarter } from './sessionStarter';
import type { AgentLifecycle } from './agentLifecycle';
import { describeFolderChange, staleAfterFolderChange } from '../routing/staleRoots';
import { errorMessage } from '../../common/errors';

export interface FolderChangesOptions {
  readonly sessions: ActiveSessions;
  readonly starter: SessionStarter;
  readonly grants: FolderGrants;
  readonly router: SessionRouter;
  readonly workspace: WorkspacePort;
  readonly ui: () => RootsUi;
  readonly notices: Notices;
  readonly logger: Logger;
  /** The agents' lifecycle: what is taken back leaves a confined agent's confinement (see AgentLifecycle.narrow). */
  readonly lifecycle?: Pick<AgentLifecycle, 'narrow' | 'launchedAgents'>;
  /**
   * The user chose to keep a session's folders (the roots it can still reach, cwd first): remembered with the
   * session, so its chat restored after a window reload does not ask which folders again.
   */
  readonly remember?: (session: AgentSession, roots: readonly string[]) => void;
}

export class FolderChanges {
  private last: readonly CandidateRoot[];
  private readonly subscription: { dispose(): void };

  constructor(private readonly options: FolderChangesOptions) {
    this.last = options.workspace.candidates().roots;
    this.subscription = options.grants.onDidChange((change) => void this.grantsChanged(change));
  }

  /**
   * The workspace's folders changed: withdraws removed roots at once (from the sessions and the agents'
   * confinement), marks affected sessions; resolves after the user answered.
   */
  async foldersChanged(): Promise<void> {
    const { sessions, workspace, logger } = this.options;
    const before = this.last;
    const after = workspace.candidates().roots;
    this.last = after;
    const changed: AgentSession[] = [];
    for (const session of sessions.all()) {
      const effect = staleAfterFolderChange(session.rootSet, before, after, session.connection.caps.sessions.additionalDirectories);
      if (!effect) continue;
      session.markStale(effect.stale);
      this.withdraw(session, effect.removed, effect.stale.reason);
      changed.push(session);
    }
    const removed = before.filter((root) => !after.some((now) => now.path === root.path)).map((root) => root.path);
    if (removed.length > 0) await Promise.all((this.options.lifecycle?.launchedAgents() ?? []).map((agent) => this.narrow(agent, removed)));
    const affected = this.stillOpen(changed);
    if (affected.length === 0) return;
    logger.info(`Workspace folders changed; ${affected.length} open session(s) keep their old folders until reopened.`);
    const change = describeFolderChange(before, after);
    await this.offerReopen(
      affected,
      affected.length === 1
        ? l10n.t(
            'Workspace folders changed ({0}). The {1} session still has its old folders: reopen it with the current folders?',
            change,
            affected[0]!.agentName,
          )
        : l10n.t(
            'Workspace folders changed ({0}). {1} open sessions still have their old folders: reopen them with the current folders?',
            change,
            affected.length,
          ),
    );
  }

  /**
   * An agent's grants changed: folders taken back stop at once for its open sessions and leave its
   * confinement; resolves after the narrowing restart (if any) and the user's answer.
   */
  async grantsChanged({ agent, revoked, granted }: GrantsChange): Promise<void> {
    if (this.options.workspace.shareAllFolders()) return;
    if (granted.length > 0) this.sharedNow(agent, granted);
    if (revoked.length === 0) return;
    const withdrawnFrom: AgentSession[] = [];
    for (const session of this.options.sessions.forAgent(agent)) {
      // The primary folder is the user's choice of where the session works, not a grant.
      const taken = revoked.filter((folder) => folder !== session.rootSet.cwd.path);
      const names = listInWords(taken.map((folder) => `“${namedRoot(folder).name}”`));
      const reason =
        taken.length === 1
          ? l10n.t('{0} is no longer shared with {1}: the session can no longer reach it. Reopen it to give the agent the folders shared now.', names, agent)
          : l10n.t(
              '{0} are no longer shared with {1}: the session can no longer reach them. Reopen it to give the agent the folders shared now.',
              names,
              agent,
            );
      if (this.withdraw(session, taken, reason).length > 0) withdrawnFrom.push(session);
    }
    await this.narrow(agent, revoked);
    // A narrowing restart reopened the agent's chats with the folders shared now: nothing to offer for them.
    const affected = this.stillOpen(withdrawnFrom);
    if (affected.length === 0) return;
    const folders = listInWords(revoked.map((folder) => `“${namedRoot(folder).name}”`));
    await this.offerReopen(
      affected,
      affected.length === 1
        ? revoked.length === 1
          ? l10n.t('{0} is no longer shared with {1}; its open session can no longer reach it. Reopen it with the folders shared now?', folders, agent)
          : l10n.t('{0} are no longer shared with {1}; its open session can no longer reach them. Reopen it with the folders shared now?', folders, agent)
        : revoked.length === 1
          ? l10n.t(
              '{0} is no longer shared with {1}; {2} open sessions can no longer reach it. Reopen them with the folders shared now?',
              folders,
              agent,
              affected.length,
            )
          : l10n.t(
              '{0} are no longer shared with {1}; {2} open sessions can no longer reach them. Reopen them with the folders shared now?',
              folders,
              agent,
              affected.length,
            ),
    );
  }

  /** Reopens sessions with the current folders, one after the other; a failure is told and the rest go on. */
  async reopen(sessions: readonly AgentSession[]): Promise<void> {
    for (const session of sessions) {
      try {
        await this.options.starter.reopenWithCurrentFolders(session);
      } catch (error) {
        const message = errorMessage(error);
        this.options.logger.error(`Reopening ${session.sessionId}: ${message}`);
        this.options.notices.error(l10n.t('Could not reopen the {0} session: {1}', session.agentName, message));
      }
    }
  }

  /** Keeps sessions as they are ("Keep Current Folders"): no longer stale, and the choice is remembered. */
  keep(sessions: readonly AgentSession[]): void {
    for (const session of sessions) {
      session.markStale(undefined);
      const withdrawn = new Set(session.withdrawn);
      this.options.remember?.(
        session,
        rootPaths(session.rootSet).filter((root) => !withdrawn.has(root)),
      );
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }

  /**
   * Folders newly shared with the agent: its open sessions that could take them say so (the chat header and
   * the Agents view offer to reopen them with the current folders; nothing pops up). A confined agent is
   * restarted by its confinement instead, and its chats come back with them (AgentLifecycle.ensureCovers).
   */
  private sharedNow(agent: string, granted: readonly string[]): void {
    const workspaceFolders = new Set(this.options.workspace.candidates().roots.map((root) => root.path));
    for (const session of this.options.sessions.forAgent(agent)) {
      if (session.stale || !session.connection.caps.sessions.additionalDirectories) continue;
      const withdrawn = new Set(session.withdrawn);
      const reaches = new Set(rootPaths(session.rootSet).filter((root) => !withdrawn.has(root)));
      const added = granted.filter((folder) => workspaceFolders.has(folder) && !reaches.has(folder));
      if (added.length === 0) continue;
      const names = listInWords(added.map((folder) => `“${namedRoot(folder).name}”`));
      session.markStale({
        reason:
          added.length === 1
            ? l10n.t('{0} is now shared with {1}: reopen the session to give it to the agent.', names, agent)
            : l10n.t('{0} are now shared with {1}: reopen the session to give them to the agent.', names, agent),
      });
    }
  }

  /** The agent's confinement lets the folders go; a failure (the agent did not start again) is said in its chats. */
  private async narrow(agent: string, folders: readonly string[]): Promise<void> {
    try {
      await this.options.lifecycle?.narrow(agent, folders);
    } catch (error) {
      this.options.logger.warn(`Narrowing the confinement of ${agent}: ${errorMessage(error)}`);
    }
  }

  /** The sessions that are still open as they were (not reopened or closed meanwhile). */
  private stillOpen(sessions: readonly AgentSession[]): AgentSession[] {
    return sessions.filter((session) => this.options.sessions.find(session.agentName, session.sessionId) === session);
  }

  /** Withdraws roots from a session and stops the agent's terminals running in them. */
  private withdraw(session: AgentSession, folders: readonly string[], reason: string): string[] {
    const withdrawn = session.withdraw(folders, reason);
    if (withdrawn.length === 0) return withdrawn;
    this.options.logger.info(`${session.agentName} session ${session.sessionId} can no longer reach ${withdrawn.join(', ')}.`);
    const terminals = this.options.router.terminals(session.connection);
    const inside = (cwd: string) => withdrawn.some((root) => cwd === root || cwd.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`));
    for (const terminal of terminals?.list(session.sessionId) ?? []) {
      if (!terminal.exitStatus && inside(terminal.cwd))
        void terminals?.kill({ sessionId: session.sessionId, terminalId: terminal.terminalId }).catch(() => undefined);
    }
    return withdrawn;
  }

  private async offerReopen(affected: readonly AgentSession[], message: string): Promise<void> {
    const choice = await this.options.ui().staleChoice(message);
    if (choice === 'keep') this.keep(affected);
    if (choice === 'reopen') await this.reopen(affected);
  }
}
