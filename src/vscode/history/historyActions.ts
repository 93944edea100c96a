/**
 * What the Sessions view's rows do: open (load with replay into a chat, or resume), resume, fork, close,
 * delete, rename, pin, hide, copy the id. Reopening and forking always send the complete root list, after the
 * user chose between the session's folders and the workspace's when they differ (see reopenPlan.ts).
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { AcpConnection } from '../../acp/connection';
import type { Logger } from '../../common/logger';
import { describeRootChange, planReopen } from '../../history/reopenPlan';
import type { SessionView } from '../../history/sessionsModel';
import type { FolderGrants } from '../../roots/folderGrants';
import { createRootSet, namedRoot, type Root } from '../../roots/rootSet';
import type { AgentSession } from '../../sessions/agentSession';
import { forkSession, reopenSession, type ReopenMode } from '../../sessions/sessionLifecycle';
import type { SessionAction } from '../../shared/historyProtocol';
import type { Agents } from '../agents';
import type { ChatPanel } from '../chat/chatPanel';
import type { Chat, ChatSessions } from '../chat/chatSessions';
import type { McpServers } from '../mcpServers';
import type { RootsUi } from '../rootsUi';
import { readShareAllFolders } from '../settings';
import { currentCandidates } from '../workspaceFolders';
import type { SessionHistory } from './sessionHistory';

/** The questions only the history asks; replaceable in integration tests (the UI tests answer the real ones). */
export interface HistoryUi {
  confirmDelete(agentName: string, title: string, open: boolean): Promise<boolean>;
  /** The new name, '' to go back to the agent's title, undefined when cancelled. */
  rename(current: string, agentCanRename: boolean): Promise<string | undefined>;
}

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
};

type Verb = 'Open' | 'Resume' | 'Fork';

export class HistoryActions {
  constructor(
    private readonly history: SessionHistory,
    private readonly agents: Agents,
    private readonly chats: ChatSessions,
    private readonly grants: FolderGrants,
    private readonly rootsUi: () => RootsUi,
    private readonly historyUi: () => HistoryUi,
    private readonly mcp: McpServers,
    private readonly logger: Logger,
  ) {}

  /** Runs an action on a session; problems are shown to the user, never thrown. Resolves when done. */
  async run(action: SessionAction, view: SessionView): Promise<void> {
    try {
      await this.dispatch(action, view);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error(`${action} ${view.agentName} ${view.sessionId}: ${message}`);
      void vscode.window.showErrorMessage(message);
    }
  }

  private async dispatch(action: SessionAction, view: SessionView): Promise<void> {
    switch (action) {
      case 'open':
        return void (await this.reopen(view, 'Open'));
      case 'resume':
        return void (await this.reopen(view, 'Resume'));
      case 'fork':
        return void (await this.reopen(view, 'Fork'));
      case 'close':
        this.chats.find(view.agentName, view.sessionId)?.panel.dispose();
        return;
      case 'delete':
        return this.delete(view);
      case 'rename':
        return this.rename(view);
      case 'pin':
      case 'unpin':
        this.ensureRecord(view);
        this.history.index.setLocal(view.agentName, view.sessionId, { pinned: action === 'pin' });
        return;
      case 'hide':
      case 'unhide':
        this.ensureRecord(view);
        this.history.index.setLocal(view.agentName, view.sessionId, { hidden: action === 'hide' });
        return;
      case 'copyId':
        await vscode.env.clipboard.writeText(view.sessionId);
        void vscode.window.setStatusBarMessage(`Copied session id ${view.sessionId}`, 3000);
        return;
    }
  }

  /**
   * Open (load with replay, else resume), resume (no replay) or fork (a new session) with the complete root
   * list the user chose. An open session's chat is shown instead of reopening it. `into` is a tab to show
   * the session in (a chat tab restored after a window reload) instead of a new one.
   */
  async reopen(view: SessionView, verb: Verb, into?: ChatPanel): Promise<Chat | undefined> {
    const existing = this.chats.find(view.agentName, view.sessionId);
    if (existing && verb !== 'Fork') {
      existing.panel.reveal();
      return existing;
    }
    // A chat closed a moment ago may still be closing its session on the agent: reopening must come after.
    await this.chats.whenClosed(view.agentName, view.sessionId);
    const connection = await this.agents.start(view.agentName);
    const how = this.howTo(connection, verb);
    const roots = await this.chooseRoots(view, connection, verb);
    if (!roots) return undefined;
    const { servers, notPassed } = this.mcp.forAgent(view.agentName, connection.caps);
    let session: AgentSession;
    if (how === 'fork') {
      session = await forkSession(connection, view.sessionId, roots, { mcpServers: servers });
    } else {
      if (how === 'load') this.chats.expectReplay(connection, view.sessionId);
      try {
        session = await reopenSession(connection, view.sessionId, roots, { mode: how, mcpServers: servers });
      } catch (error) {
        this.chats.abandonReplay(connection, view.sessionId);
        throw error;
      }
    }
    if (into?.isClosed) {
      // The tab was closed while the session reopened: nobody wants it any more.
      this.chats.abandonReplay(connection, session.sessionId);
      if (connection.caps.sessions.close) void connection.closeSession(session.sessionId).catch(() => undefined);
      return undefined;
    }
    // Open the chat in the same turn as the answer: the replayed history is waiting for it.
    into?.thread.reset();
    const chat = this.chats.open(session, { panel: into });
    const { thread } = chat.controller;
    if (view.agentTitle && how !== 'fork') thread.setSession({ title: view.agentTitle });
    for (const line of notPassed) thread.addInfo(line);
    thread.addInfo(
      how === 'load'
        ? 'Session opened: the agent replayed its history.'
        : how === 'resume'
          ? 'Session resumed: earlier messages are not shown (resuming does not replay them).'
          : `Forked from “${view.title}”: the new session continues from its history, which is not shown here.`,
    );
    chat.panel.scheduleRender();
    this.history.recordSession(session, how === 'fork' ? undefined : view.agentTitle);
    this.logger.info(`${verb} ${view.agentName} session ${view.sessionId}${how === 'fork' ? ` as ${session.sessionId}` : ''} (${how}) with ${roots.cwd.path}${roots.additionalDirectories.map((r) => `, ${r.path}`).join('')}.`);
    return chat;
  }

  private howTo(connection: AcpConnection, verb: Verb): ReopenMode | 'fork' {
    const caps = connection.caps;
    const name = connection.agentName;
    if (verb === 'Fork') {
      if (!caps.sessions.fork) throw new Error(`${name} does not support forking sessions (session/fork).`);
      return 'fork';
    }
    if (verb === 'Resume') {
      if (!caps.sessions.resume) throw new Error(`${name} does not support resuming sessions (session/resume).`);
      return 'resume';
    }
    if (caps.loadSession) return 'load';
    if (caps.sessions.resume) return 'resume';
    throw new Error(`${name} can neither load nor resume sessions.`);
  }

  /** The complete root list to send, after the user's choice where one is needed; undefined = cancelled. */
  private async chooseRoots(view: SessionView, connection: AcpConnection, verb: Verb) {
    const workspace = this.history.workspace();
    const shareAll = readShareAllFolders();
    const agent = { name: view.agentName, running: true, caps: connection.caps, catalog: undefined };
    const plan = planReopen({
      cwd: view.cwd,
      additionalDirectories: view.rootsKnown ? view.additionalDirectories : undefined,
      workspaceRoots: workspace.rootSetFor(agent),
      supportsAdditional: connection.caps.sessions.additionalDirectories,
      exists: (folder) => isDirectory(folder),
      isGranted: (folder) => shareAll || this.grants.isGranted(folder),
    });
    let roots = plan.roots;
    if (!roots) {
      const choice = await this.rootsUi().chooseReopenRoots({
        agentName: view.agentName,
        verb,
        title: view.title,
        lines: describeRootChange(plan, (folder) => `“${folderName(folder)}” (${folder})`),
        canUseSession: plan.sessionRoots.length > 0,
        canUseWorkspace: plan.workspaceRoots.length > 0,
      });
      if (!choice) return undefined;
      roots = choice === 'session' ? plan.sessionRoots : plan.workspaceRoots;
    }
    const [cwd, ...others] = roots;
    if (cwd === undefined) return undefined;
    if (!workspace.folders.includes(cwd)) {
      const choice = await this.rootsUi().outsideFolder(view.agentName, cwd);
      if (!choice) return undefined;
      if (choice === 'open') {
        await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(cwd), { forceNewWindow: true });
        return undefined;
      }
      if (choice === 'add') {
        const at = vscode.workspace.workspaceFolders?.length ?? 0;
        if (!vscode.workspace.updateWorkspaceFolders(at, 0, { uri: vscode.Uri.file(cwd) })) {
          throw new Error(`${cwd} could not be added to the workspace.`);
        }
      }
    }
    // The list was shown and chosen (or every folder in it was allowed already): remember the consent.
    await this.grants.grant(others);
    return createRootSet(named(cwd), others.map(named));
  }

  private async delete(view: SessionView): Promise<void> {
    const chat = this.chats.find(view.agentName, view.sessionId);
    if (!(await this.historyUi().confirmDelete(view.agentName, view.title, chat !== undefined))) return;
    const connection = await this.agents.start(view.agentName);
    if (!connection.caps.sessions.delete) throw new Error(`${view.agentName} does not support deleting sessions (session/delete).`);
    chat?.panel.dispose();
    await connection.deleteSession(view.sessionId);
    this.history.catalogFor(connection).remove(view.sessionId);
    this.history.index.remove(view.agentName, view.sessionId);
    this.logger.info(`Deleted ${view.agentName} session ${view.sessionId}.`);
  }

  private async rename(view: SessionView): Promise<void> {
    const connection = this.agents.find(view.agentName)?.process?.connection;
    const agentCanRename = connection?.caps.sessions.setTitle === true;
    const next = await this.historyUi().rename(view.title, agentCanRename);
    if (next === undefined) return;
    const title = next.trim();
    this.ensureRecord(view);
    if (agentCanRename && connection && title) {
      await connection.setSessionTitle(view.sessionId, title);
      this.history.index.setLocal(view.agentName, view.sessionId, { localTitle: null });
      this.history.index.record({ agentName: view.agentName, sessionId: view.sessionId, title });
      this.history.catalogFor(connection).upsert({ sessionId: view.sessionId, title });
    } else {
      this.history.index.setLocal(view.agentName, view.sessionId, { localTitle: title || null });
    }
  }

  /** Local changes need a record; a session only the agent listed gets one now. */
  private ensureRecord(view: SessionView): void {
    if (this.history.index.get(view.agentName, view.sessionId)) return;
    this.history.index.record({
      agentName: view.agentName,
      sessionId: view.sessionId,
      cwd: view.cwd,
      additionalDirectories: view.additionalDirectories,
      ...(view.agentTitle ? { title: view.agentTitle } : {}),
      ...(view.updatedAt !== undefined ? { at: view.updatedAt } : {}),
    });
  }
}

function isDirectory(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** A workspace folder's name (folders are compared by real path), else the folder's base name. */
function folderName(folder: string): string {
  return currentCandidates().roots.find((root) => root.path === folder)?.name ?? namedRoot(folder).name;
}

function named(folder: string): Root {
  return { path: folder, name: folderName(folder) };
}
