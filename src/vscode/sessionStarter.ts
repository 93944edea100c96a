/**
 * Starting a session with the workspace's folders: which agent, which primary folder, which other folders
 * the user allows, what the agent can take; and reopening a session with the current folders after the
 * workspace changed. The complete, consented root list is what gets sent.
 */
import * as vscode from 'vscode';
import type { AcpConnection } from '../acp/connection';
import type { Logger } from '../common/logger';
import type { FolderGrants } from '../roots/folderGrants';
import { describeRoots, type Root } from '../roots/rootSet';
import { choosePrimary, describeNotShared, foldersNeedingConsent, planRoots, type CandidateRoot, type Candidates, type RootPlan } from '../roots/workspaceRoots';
import type { ActiveSessions } from '../sessions/activeSessions';
import type { AgentSession } from '../sessions/agentSession';
import { reopenMode, reopenSession, startSession, type ReopenMode } from '../sessions/sessionLifecycle';
import type { Agents } from './agents';
import type { McpServers } from './mcpServers';
import type { RootsUi } from './rootsUi';
import { readDefaultAgent, readPrimaryFolder, readShareAllFolders } from './settings';
import { activeEditorFolderIndex, currentCandidates } from './workspaceFolders';

/** A session that was started, with notes for its chat (e.g. MCP servers not passed). */
export interface StartedSession {
  readonly session: AgentSession;
  readonly notes: readonly string[];
}

export interface NewSessionOptions {
  /** The agent; default: `acpWorkspace.defaultAgent`, else the user picks. */
  readonly agentName?: string;
  /** Index of the workspace folder to use as primary (skips the primary-folder setting). */
  readonly primaryIndex?: number;
}

/** Why nothing was started, in words, or undefined when the user cancelled. */
export class SessionStartError extends Error {
  override readonly name = 'SessionStartError';
}

/** What the chats do around a reopen (the starter knows sessions, not chats). */
export interface ReopenHooks {
  /** Before the request: `load` replays the history, which the session's chat must take instead of what it shows. */
  readonly reopening?: (previous: AgentSession, mode: ReopenMode) => void;
  /** After it: the session continues as a new object. */
  readonly reopened?: (previous: AgentSession, next: AgentSession) => void;
}

export class SessionStarter {
  constructor(
    private readonly agents: Agents,
    private readonly sessions: ActiveSessions,
    private readonly grants: FolderGrants,
    private readonly ui: () => RootsUi,
    private readonly logger: Logger,
    private readonly pickAgent: () => Promise<string | undefined>,
    private readonly mcp: McpServers,
    /** A session is about to be reopened, and then was (as a new object): its chat continues with it. */
    private readonly hooks: ReopenHooks = {},
  ) {}

  /** Runs the whole flow; resolves with the sessions started (none if the user cancelled). */
  async newSession(options: NewSessionOptions = {}): Promise<StartedSession[]> {
    if (!vscode.workspace.isTrusted) {
      throw new SessionStartError(
        'Agents are not started in Restricted Mode: an agent runs programs and reads and writes files in this workspace. Trust the workspace to use agents.',
      );
    }
    const candidates = currentCandidates();
    if (candidates.roots.length === 0) {
      throw new SessionStartError(
        candidates.notShared.length > 0
          ? `None of this workspace's folders is on this machine's file system, so there is no folder to share with an agent (${candidates.notShared.map((f) => f.name).join(', ')}).`
          : 'Open a folder or workspace first: a session works in a folder.',
      );
    }
    const agentName = options.agentName ?? (readDefaultAgent() || (await this.pickAgent()));
    if (!agentName) return [];
    let primary = this.initialPrimary(candidates, options.primaryIndex) ?? (await this.ui().pickPrimary(agentName, candidates.roots));
    if (!primary) return [];
    const connection = await this.agents.start(agentName);

    for (;;) {
      const decision = await this.decide(connection, candidates, primary);
      if (decision === 'cancel') return [];
      if (decision === 'choose-primary') {
        const next = await this.ui().pickPrimary(agentName, candidates.roots);
        if (!next) return [];
        primary = next;
        continue;
      }
      if (decision === 'one-per-folder') {
        const started: StartedSession[] = [];
        for (const root of candidates.roots) {
          started.push(await this.start(connection, planRoots(candidates, root, () => true, false, false)));
        }
        return started;
      }
      return [await this.start(connection, decision)];
    }
  }

  /**
   * Reopens a session with the workspace's current folders (resume, else load) after consent for any new
   * folder; its primary folder stays if it still exists. The session object is replaced in the registry.
   */
  async reopenWithCurrentFolders(session: AgentSession): Promise<AgentSession | undefined> {
    const candidates = currentCandidates();
    const primary = candidates.roots.find((root) => root.path === session.rootSet.cwd.path) ?? candidates.roots[0];
    if (!primary) throw new SessionStartError('The workspace has no local folder left to reopen the session in.');
    const decision = await this.decide(session.connection, candidates, primary);
    if (decision === 'cancel' || decision === 'choose-primary' || decision === 'one-per-folder') return undefined;
    const mode = reopenMode(session.connection);
    if (!mode) throw new SessionStartError(`${session.agentName} cannot reopen sessions (it supports neither session/resume nor session/load).`);
    const { servers } = this.mcp.forAgent(session.agentName, session.connection.caps);
    this.hooks.reopening?.(session, mode);
    const reopened = await reopenSession(session.connection, session.sessionId, decision.rootSet, { mode, mcpServers: servers });
    this.sessions.add(reopened);
    this.hooks.reopened?.(session, reopened);
    this.logger.info(`Reopened session ${session.sessionId} of ${session.agentName} with ${describeRoots(decision.rootSet)}.`);
    return reopened;
  }

  private initialPrimary(candidates: Candidates, primaryIndex: number | undefined): CandidateRoot | undefined {
    if (primaryIndex !== undefined) return candidates.roots.find((root) => root.index === primaryIndex);
    return choosePrimary(candidates.roots, readPrimaryFolder(), activeEditorFolderIndex());
  }

  /** Consent and capability: the plan to send, or what the user chose instead. */
  private async decide(
    connection: AcpConnection,
    candidates: Candidates,
    primary: Root,
  ): Promise<RootPlan | 'cancel' | 'choose-primary' | 'one-per-folder'> {
    const agentName = connection.agentName;
    const shareAll = readShareAllFolders();
    const supportsAdditional = connection.caps.sessions.additionalDirectories;
    const others = candidates.roots.filter((root) => root.path !== primary.path);
    if (!supportsAdditional && others.length > 0) {
      const choice = await this.ui().singleRootChoice(agentName, primary, others);
      if (!choice) return 'cancel';
      if (choice !== 'continue') return choice;
    }
    if (supportsAdditional) {
      const ask = foldersNeedingConsent(candidates, primary, (p) => this.grants.isGranted(p), shareAll);
      if (ask.length > 0) {
        const allowed = await this.ui().askConsent(agentName, primary, ask);
        if (!allowed) return 'cancel';
        await this.grants.grant(allowed.map((root) => root.path));
        const refused = ask.filter((root) => !allowed.some((a) => a.path === root.path));
        if (refused.length > 0) this.logger.info(`Not shared with ${agentName} (not allowed): ${refused.map((r) => r.path).join(', ')}`);
      }
    }
    const plan = planRoots(candidates, primary, (p) => this.grants.isGranted(p), shareAll, supportsAdditional);
    this.ui().reportNotShared(
      agentName,
      plan.notShared.filter((f) => f.reason === 'not-local' || f.reason === 'missing'),
    );
    return plan;
  }

  private async start(connection: AcpConnection, plan: RootPlan): Promise<StartedSession> {
    const mcp = this.mcp.forAgent(connection.agentName, connection.caps);
    const session = await startSession(connection, plan.rootSet, { mcpServers: mcp.servers });
    this.sessions.add(session);
    const left = plan.notShared.map((f) => `${f.name} (${f.reason})`);
    this.logger.info(
      `Started session ${session.sessionId} with ${connection.agentName} in ${describeRoots(plan.rootSet)}` +
        (left.length > 0 ? `; not shared: ${left.join(', ')}` : ''),
    );
    const notShared = plan.notShared.map((f) => `Not shared with this session: “${f.name}” (${describeNotShared(f.reason)}).`);
    return { session, notes: [...notShared, ...mcp.notPassed] };
  }
}
