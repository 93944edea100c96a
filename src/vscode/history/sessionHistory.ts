/**
 * The session history behind the Sessions view: the local index (in the extension's global storage), a
 * `session/list` catalog for each running agent that lists sessions (bound to its current connection, so a
 * restart starts a fresh listing with fresh cursors), and what each agent supported when it last ran.
 * Sessions this client creates, opens or forks are recorded as they appear; titles and transcript text are
 * recorded from their chats.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentCaps } from '../../acp/capabilities';
import type { AcpConnection } from '../../acp/connection';
import type { Logger } from '../../common/logger';
import { AgentCatalog } from '../../history/catalog';
import { LocalSessionIndex } from '../../history/localIndex';
import { viewOf, type AgentEntry, type SessionView, type WorkspaceShape } from '../../history/sessionsModel';
import { rootPaths } from '../../roots/rootSet';
import { choosePrimary, planRoots } from '../../roots/workspaceRoots';
import type { ActiveSessions } from '../../sessions/activeSessions';
import type { AgentSession } from '../../sessions/agentSession';
import type { Thread } from '../../thread/thread';
import { transcriptText } from '../../history/transcript';
import type { Agents } from '../agents';
import { Disposable } from '../../common/lifecycle';
import { affectsUs, readPrimaryFolder } from '../settings';
import { activeEditorFolderIndex, currentCandidates } from '../workspaceFolders';

const CAPS_KEY = 'acpWorkspace.lastAgentCaps';
/** A chat's transcript is recorded this long after its last change (it changes with every chunk). */
const TEXT_DELAY_MS = 1500;

type StoredCaps = Pick<AgentCaps, 'loadSession' | 'sessions'>;

export class SessionHistory extends Disposable {
  readonly index: LocalSessionIndex;
  private readonly catalogs = new WeakMap<AcpConnection, AgentCatalog>();
  private readonly known = new WeakSet<AgentSession>();
  private readonly textTimers = new Map<Thread, ReturnType<typeof setTimeout>>();
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  /** Something the Sessions view shows changed (agents, a catalog, the index, open sessions, folders). */
  readonly onDidChange = this.changeEmitter.event;
  private existsCache = new Map<string, boolean>();
  private workspaceShape: WorkspaceShape | undefined;
  /** Problems with the stored history, for the view's notices. */
  readonly problems: string[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly agents: Agents,
    private readonly sessions: ActiveSessions,
    logger: Logger,
  ) {
    super();
    this.index = new LocalSessionIndex(path.join(context.globalStorageUri.fsPath, 'session-history'), {
      onProblem: (problem) => {
        logger.warn(problem);
        this.problems.push(problem);
      },
    });
    this._register(this.index.onDidChange(() => this.changed()));
    this._register(agents.onDidChange(() => this.agentsChanged()));
    this._register(sessions.onDidChange(() => this.sessionsChanged()));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.changed()));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed()));
    // The primary folder can follow the active editor or the setting: work the workspace out again then.
    this._register(vscode.window.onDidChangeActiveTextEditor(() => (this.workspaceShape = undefined)));
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsUs(event, 'primaryFolder')) this.workspaceShape = undefined;
      }),
    );
    this.agentsChanged();
  }

  /** The configured agents as the model needs them. */
  entries(): AgentEntry[] {
    return this.agents.list().map((status) => {
      const connection = status.process?.connection;
      const caps = connection?.caps ?? this.lastCaps(status.definition.name);
      return {
        name: status.definition.name,
        running: connection !== undefined,
        caps: caps as AgentCaps | undefined,
        catalog: connection && connection.caps.sessions.list ? this.catalogFor(connection) : undefined,
      };
    });
  }

  /** The current catalog of an agent, if it runs and lists sessions. */
  catalog(agentName: string): AgentCatalog | undefined {
    return this.entries().find((e) => e.name === agentName)?.catalog;
  }

  /**
   * One session as the history knows it: the agent's listing where it has one, the client's record for the
   * rest, else `fallback` (what a restored chat tab remembered).
   */
  view(agentName: string, sessionId: string, fallback?: { cwd: string; additionalDirectories: readonly string[]; title?: string }): SessionView | undefined {
    const record =
      this.index.get(agentName, sessionId) ??
      (fallback ? { agentName, sessionId, ...fallback, createdAt: 0, updatedAt: 0 } : undefined);
    return viewOf(agentName, this.catalog(agentName)?.get(sessionId), record);
  }

  /** What an agent supported when it last ran (it may not run now); undefined if it never ran here. */
  knownCaps(agentName: string): StoredCaps | undefined {
    return this.agents.list().find((s) => s.definition.name === agentName)?.process?.connection?.caps ?? this.lastCaps(agentName);
  }

  /**
   * The workspace as the model sees it: worked out (real paths of the folders) once until something changes,
   * not on every keystroke of a search; folder existence is cached the same way.
   */
  workspace(): WorkspaceShape {
    return (this.workspaceShape ??= this.computeWorkspace());
  }

  private computeWorkspace(): WorkspaceShape {
    const candidates = currentCandidates();
    const setting = readPrimaryFolder();
    const primary = choosePrimary(candidates.roots, setting === 'ask' ? 'first' : setting, activeEditorFolderIndex());
    const byCapability = new Map<boolean, readonly string[]>();
    const rootSetFor = (agent: AgentEntry): readonly string[] => {
      if (!primary) return [];
      const supports = agent.caps?.sessions.additionalDirectories ?? true;
      let roots = byCapability.get(supports);
      if (!roots) {
        // The workspace's folders, whether or not they are shared yet: a session "of this workspace" is
        // one with these folders; sharing is asked when such a session is opened.
        roots = rootPaths(planRoots(candidates, primary, () => true, true, supports).rootSet);
        byCapability.set(supports, roots);
      }
      return roots;
    };
    return {
      folders: candidates.roots.map((r) => r.path),
      rootSetFor,
      exists: (folder) => {
        let exists = this.existsCache.get(folder);
        if (exists === undefined) {
          exists = fs.existsSync(folder);
          this.existsCache.set(folder, exists);
        }
        return exists;
      },
    };
  }

  /** Records a session the client created, opened or forked, and shows it at once. */
  recordSession(session: AgentSession, title?: string): void {
    const roots = { cwd: session.rootSet.cwd.path, additionalDirectories: session.rootSet.additionalDirectories.map((r) => r.path) };
    this.index.record({ agentName: session.agentName, sessionId: session.sessionId, ...roots, ...(title ? { title } : {}) });
    const catalog = session.connection.isClosed ? undefined : this.catalogs.get(session.connection);
    catalog?.upsert({ sessionId: session.sessionId, ...roots, updatedAt: Date.now(), ...(title ? { title } : {}) });
  }

  /** A chat's thread changed: its title at once, its transcript text after a pause. */
  threadChanged(session: AgentSession, thread: Thread): void {
    const title = thread.session.title;
    const record = this.index.get(session.agentName, session.sessionId);
    if (title && record && record.title !== title) {
      this.index.record({ agentName: session.agentName, sessionId: session.sessionId, title });
      this.catalogs.get(session.connection)?.upsert({ sessionId: session.sessionId, title, updatedAt: Date.now() });
    }
    clearTimeout(this.textTimers.get(thread));
    this.textTimers.set(
      thread,
      setTimeout(() => {
        this.textTimers.delete(thread);
        this.index.setText(session.agentName, session.sessionId, transcriptText(thread.snapshot().entries));
      }, TEXT_DELAY_MS),
    );
  }

  /** The catalog of a connection (created on first use; it lives as long as the connection). */
  catalogFor(connection: AcpConnection): AgentCatalog {
    let catalog = this.catalogs.get(connection);
    if (!catalog) {
      catalog = new AgentCatalog(connection.agentName, (params) => connection.listSessions(params));
      this.catalogs.set(connection, catalog);
      const subscription = catalog.onDidChange(() => this.changed());
      connection.onDidClose(() => subscription.dispose());
    }
    return catalog;
  }

  override dispose(): void {
    for (const timer of this.textTimers.values()) clearTimeout(timer);
    void this.index.dispose();
    super.dispose();
  }

  private lastCaps(agentName: string): StoredCaps | undefined {
    return this.context.globalState.get<Record<string, StoredCaps>>(CAPS_KEY)?.[agentName];
  }

  private agentsChanged(): void {
    // Remember what each running agent supports, for its rows while it is not running.
    const stored = { ...(this.context.globalState.get<Record<string, StoredCaps>>(CAPS_KEY) ?? {}) };
    let dirty = false;
    for (const status of this.agents.list()) {
      const caps = status.process?.connection?.caps;
      if (!caps) continue;
      const next: StoredCaps = { loadSession: caps.loadSession, sessions: caps.sessions };
      if (JSON.stringify(stored[status.definition.name]) !== JSON.stringify(next)) {
        stored[status.definition.name] = next;
        dirty = true;
      }
    }
    if (dirty) void this.context.globalState.update(CAPS_KEY, stored);
    this.changed();
  }

  private sessionsChanged(): void {
    for (const session of this.sessions.all()) {
      if (this.known.has(session)) continue;
      this.known.add(session);
      this.recordSession(session);
    }
    this.changed();
  }

  private changed(): void {
    this.existsCache = new Map();
    this.workspaceShape = undefined;
    this.changeEmitter.fire();
  }
}
