/**
 * What the Sessions view's rows do: open (load with replay into a chat, or resume), resume, fork, close,
 * delete, rename, pin, hide, copy the id. Reopening and forking always send the complete root list, after the
 * user chose between the session's folders and the workspace's when they differ (see reopenRoots.ts).
 */
import * as l10n from '@vscode/l10n';
import type { Logger } from '../../common/logger';
import type { SessionView } from '../../history/sessionView';
import type { FolderGrants } from '../../roots/folderGrants';
import type { SessionAction } from '../../shared/historyProtocol';
import type { Thread } from '../../thread/thread';
import type { Chats } from '../chats/chats';
import type { AgentPool, HistoryUi, Notices, RootsUi, WorkspacePort } from '../ports';
import { revealsChat, type Reopener } from './reopener';
import { chooseReopenRoots } from './reopenRoots';
import type { SessionController } from '../turns/sessionController';
import type { SessionHistory } from './sessionHistory';
import { errorMessage } from '../../common/errors';

/** The ways a session of the history is reopened. */
export type HistoryVerb = 'open' | 'resume' | 'fork' | 'restore';

/** The verb of a reopen, as the folder question names it (a function: t() runs after activate() set the bundle). */
const verbLabel = (): Record<HistoryVerb, string> => ({ open: l10n.t('Open'), restore: l10n.t('Open'), resume: l10n.t('Resume'), fork: l10n.t('Fork') });

/** A chat tab restored after a window reload, waiting for its session. */
export interface RestoredTab {
  readonly thread: Thread;
  isClosed(): boolean;
}

export interface HistoryActionsOptions {
  readonly history: SessionHistory;
  readonly agents: AgentPool;
  readonly chats: Chats;
  readonly reopener: Reopener;
  readonly grants: FolderGrants;
  readonly workspace: WorkspacePort;
  readonly rootsUi: () => RootsUi;
  readonly historyUi: () => HistoryUi;
  readonly notices: Notices;
  readonly logger: Logger;
}

export class HistoryActions {
  constructor(private readonly options: HistoryActionsOptions) {}

  /** Runs an action on a session; problems are shown to the user, never thrown. Resolves when done. */
  async run(action: SessionAction, view: SessionView): Promise<void> {
    try {
      await this.dispatch(action, view);
    } catch (error) {
      const message = errorMessage(error);
      this.options.logger.error(`${action} ${view.agentName} ${view.sessionId}: ${message}`);
      this.options.notices.error(message);
    }
  }

  /**
   * Open (load with replay, else resume), resume (no replay), fork (a new session) or restore (into a tab
   * restored after a window reload) with the complete root list the user chose. A session open in a chat
   * already is shown instead of reopened. Resolves with the chat, or undefined when cancelled.
   */
  async reopen(view: SessionView, verb: HistoryVerb, tab?: RestoredTab): Promise<SessionController | undefined> {
    const { chats, reopener, history } = this.options;
    const existing = chats.find(view.agentName, view.sessionId);
    if (existing && verb !== 'fork') {
      if (revealsChat(verb)) chats.reveal(existing);
      return existing;
    }
    const reopened = await reopener.reopen({
      verb,
      agentName: view.agentName,
      sessionId: view.sessionId,
      title: verb === 'fork' ? view.title : view.agentTitle,
      parentAgentTitle: verb === 'fork' ? view.agentTitle : undefined,
      thread: tab?.thread,
      // A restored tab's agent is not started for a reopen it could not serve when it last ran.
      knownCaps: verb === 'restore' ? history.knownCaps(view.agentName) : undefined,
      // A workspace folder it worked in: a confined agent is launched with it (it needs no grant).
      expectedFolders: history.workspace().folders.includes(view.cwd) ? [view.cwd] : undefined,
      cancelled: tab && (() => tab.isClosed()),
      roots: (connection) =>
        chooseReopenRoots(view, connection, verbLabel()[verb], {
          workspace: this.options.workspace,
          shape: history.workspace(),
          grants: this.options.grants,
          ui: this.options.rootsUi(),
          // A chat restored after a reload keeps the folders the user chose to keep (no question again).
          kept: verb === 'restore' ? history.index.get(view.agentName, view.sessionId)?.keptRoots : undefined,
        }),
    });
    return reopened?.chat;
  }

  private async dispatch(action: SessionAction, view: SessionView): Promise<void> {
    const { chats, history } = this.options;
    switch (action) {
      case 'open':
      case 'resume':
      case 'fork':
        await this.reopen(view, action);
        return;
      case 'close': {
        const chat = chats.find(view.agentName, view.sessionId);
        if (chat) chats.close(chat);
        return;
      }
      case 'delete':
        return this.delete(view);
      case 'rename':
        return this.rename(view);
      case 'pin':
      case 'unpin':
        this.ensureRecord(view);
        history.index.setLocal(view.agentName, view.sessionId, { pinned: action === 'pin' });
        return;
      case 'hide':
      case 'unhide':
        this.ensureRecord(view);
        history.index.setLocal(view.agentName, view.sessionId, { hidden: action === 'hide' });
        return;
      case 'copyId':
        return this.options.historyUi().copyId(view.sessionId);
    }
  }

  private async delete(view: SessionView): Promise<void> {
    const { chats, agents, history, logger } = this.options;
    const chat = chats.find(view.agentName, view.sessionId);
    if (!(await this.options.historyUi().confirmDelete(view.agentName, view.title, chat !== undefined))) return;
    const connection = await agents.start(view.agentName);
    const deleter = connection.deleter();
    if (!deleter) throw new Error(l10n.t('{0} does not support deleting sessions (session/delete).', view.agentName));
    if (chat) chats.close(chat);
    await deleter.deleteSession(view.sessionId);
    history.catalogFor(connection).remove(view.sessionId);
    history.index.remove(view.agentName, view.sessionId);
    logger.info(`Deleted ${view.agentName} session ${view.sessionId}.`);
  }

  private async rename(view: SessionView): Promise<void> {
    const { agents, history } = this.options;
    const connection = agents.running(view.agentName);
    const titles = connection?.titles();
    const next = await this.options.historyUi().rename(view.title, titles !== undefined);
    if (next === undefined) return;
    const title = next.trim();
    this.ensureRecord(view);
    if (titles && connection && title) {
      await titles.setSessionTitle(view.sessionId, title);
      history.index.setLocal(view.agentName, view.sessionId, { localTitle: null });
      history.index.record({ agentName: view.agentName, sessionId: view.sessionId, title });
      history.catalogFor(connection).upsert({ sessionId: view.sessionId, title });
    } else {
      history.index.setLocal(view.agentName, view.sessionId, { localTitle: title || null });
    }
  }

  /** Local changes need a record; a session only the agent listed gets one now. */
  private ensureRecord(view: SessionView): void {
    const { index } = this.options.history;
    if (index.get(view.agentName, view.sessionId)) return;
    index.record({
      agentName: view.agentName,
      sessionId: view.sessionId,
      cwd: view.cwd,
      additionalDirectories: view.additionalDirectories,
      ...(view.agentTitle ? { title: view.agentTitle } : {}),
      ...(view.updatedAt !== undefined ? { at: view.updatedAt } : {}),
    });
  }
}
