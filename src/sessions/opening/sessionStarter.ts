/**
 * Starting a session with the workspace's folders: which agent, which primary folder, which other folders
 * the user allows, what the agent can take; and reopening a session with the current folders after the
 * workspace changed. The complete, consented root list is what gets sent.
 */
import * as l10n from '@vscode/l10n';
import type { AgentConnection } from '../../acp/port/agentConnection';
import type { Logger } from '../../common/logger';
import type { FolderGrants } from '../../roots/folderGrants';
import { describeRoots, rootPaths, sameRootPaths, type Root } from '../../roots/rootSet';
import { mappedCandidates, SessionStartError } from './mappedFolders';
import {
  choosePrimary,
  describeNotShared,
  foldersNeedingConsent,
  planRoots,
  type CandidateRoot,
  type Candidates,
  type RootPlan,
} from '../../roots/workspaceRoots';
import type { ActiveSessions } from '../routing/activeSessions';
import type { AgentSession } from '../routing/agentSession';
import type { Chats } from '../chats/chats';
import type { AgentPool, SessionMcpServers, RootsUi, WorkspacePort } from '../ports';
import type { AgentLifecycle } from './agentLifecycle';
import { startSession } from '../routing/sessionLifecycle';

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

export interface SessionStarterOptions {
  readonly agents: AgentPool;
  readonly sessions: ActiveSessions;
  readonly chats: Chats;
  /**
   * Reopens a session with new folders; tells a confined agent the folders a session will work in before it
   * starts, so one whose confinement does not include them is restarted first (`ensureCovers`).
   */
  readonly lifecycle: Pick<AgentLifecycle, 'reopener' | 'ensureCovers'>;
  readonly grants: FolderGrants;
  readonly workspace: WorkspacePort;
  readonly mcp: SessionMcpServers;
  /** The folder questions (replaceable: integration tests answer them). */
  readonly ui: () => RootsUi;
  /** Which agent, when neither the caller nor the settings say. */
  readonly pickAgent: () => Promise<string | undefined>;
  readonly logger: Logger;
  /**
   * Which folders a remote agent can be given (its entry maps them to its own paths); undefined for an agent that
   * sees this machine's paths (every local agent, a remote one without mappings).
   */
  readonly mappedFolders?: (agentName: string) => ((folder: string) => boolean) | undefined;
}

type Decision = RootPlan | 'cancel' | 'choose-primary' | 'one-per-folder';

export class SessionStarter {
  constructor(private readonly options: SessionStarterOptions) {}

  /** Runs the whole flow; resolves with the sessions started (none if the user cancelled). */
  async newSession(options: NewSessionOptions = {}): Promise<StartedSession[]> {
    const { workspace, agents, ui } = this.options;
    if (!workspace.isTrusted()) {
      throw new SessionStartError(
        l10n.t(
          'Agents are not started in Restricted Mode: an agent runs programs and reads and writes files in this workspace. Trust the workspace to use agents.',
        ),
      );
    }
    const all = workspace.candidates();
    if (all.roots.length === 0) {
      throw new SessionStartError(
        all.notShared.length > 0
          ? l10n.t(
              "None of this workspace's folders is on this machine's file system, so there is no folder to share with an agent ({0}).",
              all.notShared.map((f) => f.name).join(', '),
            )
          : l10n.t('Open a folder or workspace first: a session works in a folder.'),
      );
    }
    const agentName = options.agentName ?? (workspace.defaultAgent() || (await this.options.pickAgent()));
    if (!agentName) return [];
    const candidates = this.candidatesFor(agentName, all);
    let primary = this.initialPrimary(candidates, options.primaryIndex) ?? (await ui().pickPrimary(agentName, candidates.roots));
    if (!primary) return [];
    // The primary folder is the user's choice: the agent's confinement includes it from its launch on.
    await this.options.lifecycle.ensureCovers(agentName, [primary.path]);
    let connection = await agents.start(agentName);

    for (;;) {
      const decision = await this.decide(connection, candidates, primary);
      if (decision === 'cancel') return [];
      if (decision === 'choose-primary') {
        const next = await ui().pickPrimary(agentName, candidates.roots);
        if (!next) return [];
        primary = next;
        continue;
      }
      // A folder granted just now may widen the confinement: the session starts after the restart.
      connection = await this.covering(connection, decision === 'one-per-folder' ? candidates.roots.map((root) => root.path) : rootPaths(decision.rootSet));
      if (decision === 'one-per-folder') {
        const started: StartedSession[] = [];
        for (const root of candidates.roots) {
          started.push(
            await this.start(
              connection,
              planRoots(candidates, root, () => true, false, false),
            ),
          );
        }
        return started;
      }
      return [await this.start(connection, decision)];
    }
  }

  /**
   * Reopens a session with the workspace's current folders (resume, else load) after consent for any new
   * folder; its primary folder stays if it still exists. Its chat, if it has one, continues with it.
   */
  async reopenWithCurrentFolders(session: AgentSession): Promise<AgentSession | undefined> {
    const candidates = this.candidatesFor(session.agentName, this.options.workspace.candidates());
    const primary = candidates.roots.find((root) => root.path === session.rootSet.cwd.path) ?? candidates.roots[0];
    if (!primary) throw new SessionStartError(l10n.t('The workspace has no local folder left to reopen the session in.'));
    const connection = session.connection.isClosed ? await this.options.agents.start(session.agentName) : session.connection;
    const decision = await this.decide(connection, candidates, primary);
    if (typeof decision === 'string') return undefined;
    if (connection === session.connection && session.withdrawn.length === 0 && sameRootPaths(rootPaths(decision.rootSet), rootPaths(session.rootSet))) {
      // Nothing to change: the session already has exactly what it would get.
      session.markStale(undefined);
      this.options.logger.info(`${session.agentName} session ${session.sessionId} already has the current folders; not reopened.`);
      return session;
    }
    // The Reopener widens the agent's confinement to the folders chosen (restarting it first if they are new to it).
    const chat = this.options.chats.find(session.agentName, session.sessionId);
    const reopened = await this.options.lifecycle.reopener.reopen({
      verb: 'refolder',
      agentName: session.agentName,
      sessionId: session.sessionId,
      chat,
      withoutChat: chat === undefined,
      roots: () => Promise.resolve(decision.rootSet),
    });
    return reopened?.session;
  }

  /** The folders `agentName` can be given: for a remote agent with path mappings, only the mapped ones. */
  private candidatesFor(agentName: string, all: Candidates): Candidates {
    return mappedCandidates(agentName, all, this.options.mappedFolders?.(agentName));
  }

  /** The agent's connection once its confinement includes these folders (after a restart, if one was needed). */
  private async covering(connection: AgentConnection, folders: readonly string[]): Promise<AgentConnection> {
    await this.options.lifecycle.ensureCovers(connection.agentName, folders);
    return connection.isClosed ? this.options.agents.start(connection.agentName) : connection;
  }

  private initialPrimary(candidates: Candidates, primaryIndex: number | undefined): CandidateRoot | undefined {
    if (primaryIndex !== undefined) return candidates.roots.find((root) => root.index === primaryIndex);
    const { workspace } = this.options;
    return choosePrimary(candidates.roots, workspace.primaryFolder(), workspace.activeEditorFolderIndex());
  }

  /** Consent and capability: the plan to send, or what the user chose instead. */
  private async decide(connection: AgentConnection, candidates: Candidates, primary: Root): Promise<Decision> {
    const { grants, workspace, logger, ui } = this.options;
    const agentName = connection.agentName;
    const shareAll = workspace.shareAllFolders();
    const supportsAdditional = connection.caps.sessions.additionalDirectories;
    const others = candidates.roots.filter((root) => root.path !== primary.path);
    if (!supportsAdditional && others.length > 0) {
      const choice = await ui().singleRootChoice(agentName, primary, others);
      if (!choice) return 'cancel';
      if (choice !== 'continue') return choice;
    }
    if (supportsAdditional) {
      const ask = foldersNeedingConsent(candidates, primary, (p) => grants.isGranted(agentName, p), shareAll);
      if (ask.length > 0) {
        const allowed = await ui().askConsent(agentName, primary, ask);
        if (!allowed) return 'cancel';
        await grants.grant(
          agentName,
          allowed.map((root) => root.path),
        );
        const refused = ask.filter((root) => !allowed.some((a) => a.path === root.path));
        if (refused.length > 0) logger.info(`Not shared with ${agentName} (not allowed): ${refused.map((r) => r.path).join(', ')}`);
      }
    }
    const plan = planRoots(candidates, primary, (p) => grants.isGranted(agentName, p), shareAll, supportsAdditional);
    ui().reportNotShared(
      agentName,
      plan.notShared.filter((f) => f.reason === 'not-local' || f.reason === 'missing'),
    );
    return plan;
  }

  private async start(connection: AgentConnection, plan: RootPlan): Promise<StartedSession> {
    const mcp = this.options.mcp.forAgent(connection.agentName, connection.caps);
    const session = await startSession(connection, plan.rootSet, { mcpServers: mcp.servers });
    this.options.sessions.add(session);
    const left = plan.notShared.map((f) => `${f.name} (${f.reason})`);
    this.options.logger.info(
      `Started session ${session.sessionId} with ${connection.agentName} in ${describeRoots(plan.rootSet)}` +
        (left.length > 0 ? `; not shared: ${left.join(', ')}` : ''),
    );
    const notShared = plan.notShared.map((f) => l10n.t('Not shared with this session: “{0}” ({1}).', f.name, describeNotShared(f.reason)));
    return { session, notes: [...notShared, ...mcp.notPassed] };
  }
}
