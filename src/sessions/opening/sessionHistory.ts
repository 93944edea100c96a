/**
 * The session history behind the Sessions view: the local index (in the extension's global storage), a
 * `session/list` catalog for each running agent that lists sessions (bound to its current connection, so a
 * restart starts a fresh listing with fresh cursors), and what each agent supported when it last ran.
 * Sessions this client creates, opens or forks are recorded as they appear; titles and transcript text are
 * recorded from their chats.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { tokenFor } from '../../acp/abortToken';
import type { AgentConnection } from '../../acp/port/agentConnection';
import type { AgentRegistry } from '../../agents/agentRegistry';
import { Emitter, type Event } from '../../common/events';
import type { Logger } from '../../common/logger';
import { AgentCatalog } from '../../history/catalog';
import type { JournalCursor } from '../../history/changeJournal';
import { TranscriptIndexClient } from '../../history/fulltext/transcriptIndexClient';
import { LocalSessionIndex } from '../../history/localIndex';
import type { ReopenCaps } from '../../history/reopenPolicy';
import { promptTitle, type ForkOrigin } from '../../history/sessionTitle';
import { viewOf, type AgentEntry, type SessionView, type WorkspaceShape } from '../../history/sessionView';
import { firstPromptText, transcriptText } from '../../history/transcript';
import type { TranscriptSearch } from '../../history/transcriptSearch';
import { rootPaths } from '../../roots/rootSet';
import { choosePrimary, planRoots, restrictToMapped } from '../../roots/workspaceRoots';
import type { Thread } from '../../thread/thread';
import type { ActiveSessions } from '../routing/activeSessions';
import type { AgentSession } from '../routing/agentSession';
import type { WorkspacePort } from '../ports';

const CAPS_KEY = 'acpWorkspace.lastAgentCaps';
/** A chat's transcript is recorded this long after its last change (it changes with every chunk). */
const TEXT_DELAY_MS = 1500;

/** What an agent supported when it last ran, as kept in global state (validated when read back). */
const StoredCaps = z.object({
  loadSession: z.boolean(),
  sessions: z.object({
    list: z.boolean(),
    resume: z.boolean(),
    close: z.boolean(),
    delete: z.boolean(),
    additionalDirectories: z.boolean(),
    fork: z.boolean(),
    setTitle: z.boolean(),
  }),
});

/** Key-value storage that survives the window (VS Code's global state). */
export interface GlobalStateStore {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

export interface SessionHistoryOptions {
  /** Where the local index keeps its files. */
  readonly storageDir: string;
  /** Where what each agent supported is remembered. */
  readonly memory: GlobalStateStore;
  readonly agents: AgentRegistry;
  readonly sessions: ActiveSessions;
  readonly workspace: WorkspacePort;
  readonly logger: Logger;
  /** The transcript index worker's script (`dist/transcript-worker.js` in the extension). */
  readonly transcriptWorker: string;
  /** The localized strings for the worker's messages (VS Code's `l10n.bundle`). */
  readonly l10nBundle?: Record<string, string>;
  /**
   * Which folders an agent can be given at all: for a remote agent with path mappings, the mapped ones (undefined:
   * any). "This workspace" and the reopen question are about those folders only.
   */
  readonly mappedFolders?: (agentName: string) => ((folder: string) => boolean) | undefined;
}

export class SessionHistory {
  readonly index: LocalSessionIndex;
  /** Full-text search over the stored transcripts, in a worker that follows the local index's text files. */
  readonly transcripts: TranscriptSearch;
  private readonly transcriptIndex: TranscriptIndexClient;
  private readonly catalogs = new WeakMap<AgentConnection, AgentCatalog>();
  private readonly known = new WeakSet<AgentSession>();
  /** Chats whose transcript text is written after a pause, with the write (run at once by a flush). */
  private readonly pendingTexts = new Map<Thread, { readonly timer: ReturnType<typeof setTimeout>; readonly write: () => void }>();
  private readonly changeEmitter = new Emitter<void>();
  private readonly subscriptions: Array<{ dispose(): void }>;
  private existsCache = new Map<string, boolean>();
  private workspaceShape: WorkspaceShape | undefined;
  /** Problems with the stored history, for the view's notices. */
  readonly problems: string[] = [];

  /** Something the Sessions view shows changed (agents, a catalog, the index, open sessions, folders). */
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(private readonly options: SessionHistoryOptions) {
    this.index = new LocalSessionIndex(options.storageDir, {
      onProblem: (problem) => {
        options.logger.warn(problem);
        this.problems.push(problem);
      },
    });
    this.transcriptIndex = new TranscriptIndexClient({
      workerFile: options.transcriptWorker,
      historyDir: options.storageDir,
      documents: () => this.index.textKeys(),
      logger: options.logger,
      ...(options.l10nBundle ? { l10nBundle: options.l10nBundle } : {}),
    });
    this.transcripts = this.transcriptIndex;
    // Ends with the local index (its dispose writes what is pending first, and tells this).
    this.index.onDidChangeText((change) => {
      if (change.kind === 'written') this.transcriptIndex.put(change.key, change.text, change.stamp);
      else this.transcriptIndex.remove(change.key);
    });
    this.subscriptions = [
      this.index.onDidChange(() => this.changed()),
      options.agents.onDidChange(() => this.agentsChanged()),
      options.sessions.onDidChange(() => this.sessionsChanged()),
    ];
    this.agentsChanged();
  }

  /** The workspace's folders or its trust changed: everything is worked out again. */
  workspaceChanged(): void {
    this.changed();
  }

  /** The primary folder may follow another folder now (active editor, setting): worked out again when next needed. */
  primaryMayHaveChanged(): void {
    this.workspaceShape = undefined;
  }

  /** The configured agents as the model needs them. */
  entries(): AgentEntry[] {
    return this.options.agents.list().map((status) => {
      const connection = status.process?.connection;
      return {
        name: status.definition.name,
        running: connection !== undefined,
        caps: connection?.caps ?? this.lastCaps(status.definition.name),
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
    const record = this.index.get(agentName, sessionId) ?? (fallback ? { agentName, sessionId, ...fallback, createdAt: 0, updatedAt: 0 } : undefined);
    return viewOf(agentName, this.catalog(agentName)?.get(sessionId), record);
  }

  /** What an agent supported when it last ran (it may not run now); undefined if it never ran here. */
  knownCaps(agentName: string): ReopenCaps | undefined {
    return this.options.agents.find(agentName)?.process?.connection?.caps ?? this.lastCaps(agentName);
  }

  /**
   * The workspace as the model sees it: worked out (real paths of the folders) once until something changes,
   * not on every keystroke of a search; folder existence is cached the same way.
   */
  workspace(): WorkspaceShape {
    return (this.workspaceShape ??= this.computeWorkspace());
  }

  /** Records a session the client created, opened or forked (with where it was forked from), and shows it at once. */
  recordSession(session: AgentSession, title?: string, forkOf?: ForkOrigin): void {
    const roots = { cwd: session.rootSet.cwd.path, additionalDirectories: session.rootSet.additionalDirectories.map((r) => r.path) };
    this.index.record({ agentName: session.agentName, sessionId: session.sessionId, ...roots, ...(title ? { title } : {}), ...(forkOf ? { forkOf } : {}) });
    const catalog = session.connection.isClosed ? undefined : this.catalogs.get(session.connection);
    catalog?.upsert({ sessionId: session.sessionId, ...roots, updatedAt: Date.now(), ...(title ? { title } : {}) });
  }

  /** A chat's thread changed: the agent's title and the first prompt's at once, its transcript text after a pause. */
  threadChanged(session: AgentSession, thread: Thread): void {
    const title = thread.agentTitle;
    const record = this.index.get(session.agentName, session.sessionId);
    if (title && record && record.title !== title) {
      this.index.record({ agentName: session.agentName, sessionId: session.sessionId, title });
      this.catalogs.get(session.connection)?.upsert({ sessionId: session.sessionId, title, updatedAt: Date.now() });
    }
    if (record && record.promptTitle === undefined) {
      const fromPrompt = promptTitle(firstPromptText(thread.snapshot().entries));
      if (fromPrompt) this.index.record({ agentName: session.agentName, sessionId: session.sessionId, promptTitle: fromPrompt });
    }
    clearTimeout(this.pendingTexts.get(thread)?.timer);
    const write = () => {
      this.pendingTexts.delete(thread);
      this.index.setText(session.agentName, session.sessionId, transcriptText(thread.snapshot().entries));
    };
    this.pendingTexts.set(thread, { timer: setTimeout(write, TEXT_DELAY_MS), write });
  }

  /** The catalog of a connection (created on first use; it lives as long as the connection). */
  catalogFor(connection: AgentConnection): AgentCatalog {
    let catalog = this.catalogs.get(connection);
    if (!catalog) {
      catalog = new AgentCatalog(connection.agentName, (params, signal) => {
        const lister = connection.lister();
        return lister ? lister.listSessions(params, signal && tokenFor(signal)) : Promise.reject(connection.unsupported('list'));
      });
      this.catalogs.set(connection, catalog);
      let cursor = catalog.changes.cursor;
      const subscription = catalog.onDidChange(() => {
        cursor = this.keepAgentTitles(catalog!, cursor);
        this.changed();
      });
      connection.onDidClose(() => subscription.dispose());
    }
    return catalog;
  }

  /**
   * The agent's titles a listing brought, kept in the client's record of the sessions it has one for: an agent
   * that names its sessions only in `session/list` (opencode) keeps its title after a reload, before anything
   * is listed again (the title rule: the agent's title wins over the first prompt). Follows the catalog's
   * changes since `cursor`; returns the cursor to follow from next.
   */
  private keepAgentTitles(catalog: AgentCatalog, cursor: JournalCursor): JournalCursor {
    const { agentName } = catalog;
    const slots = catalog.changes.since(cursor);
    const ids =
      slots === undefined
        ? this.index.forAgent(agentName).map((record) => record.sessionId)
        : slots.flatMap((slot) => {
            const id = catalog.sessionIdAt(slot);
            return id === undefined ? [] : [id];
          });
    for (const sessionId of new Set(ids)) {
      const record = this.index.get(agentName, sessionId);
      const title = record && catalog.get(sessionId)?.title;
      if (record && title && title !== record.title) this.index.record({ agentName, sessionId, title, at: record.updatedAt });
    }
    return catalog.changes.cursor;
  }

  /**
   * Writes what waits now (the transcript texts in their pause, then the local index's records and texts, which
   * it writes a moment after each change); resolves once it is on disk. Deactivation waits for it: a window
   * reload must not lose a rename made just before.
   */
  flush(): Promise<void> {
    this.writePendingTexts();
    return this.index.flush();
  }

  /** Stops listening; resolves once the pending texts are written and the transcript index saved and ended. */
  dispose(): Promise<void> {
    this.writePendingTexts();
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changeEmitter.dispose();
    // The texts still to write are written (and told to the transcript index) first; then it saves and ends.
    return this.index.dispose().finally(() => this.transcriptIndex.dispose());
  }

  private writePendingTexts(): void {
    for (const { timer, write } of [...this.pendingTexts.values()]) {
      clearTimeout(timer);
      write();
    }
  }

  private computeWorkspace(): WorkspaceShape {
    const { workspace } = this.options;
    const candidates = workspace.candidates();
    const setting = workspace.primaryFolder();
    const primaryOf = (roots: typeof candidates.roots) => choosePrimary(roots, setting === 'ask' ? 'first' : setting, workspace.activeEditorFolderIndex());
    const byKey = new Map<string, readonly string[]>();
    const rootSetFor = (agent: AgentEntry): readonly string[] => {
      const supports = agent.caps?.sessions.additionalDirectories ?? true;
      // A remote agent with path mappings can only ever be given its mapped folders: a session of this workspace
      // is one with those (a folder it cannot have is no reason to leave a session out, or to ask about it).
      const isMapped = this.options.mappedFolders?.(agent.name);
      const own = isMapped ? restrictToMapped(candidates, isMapped) : candidates;
      const key = `${supports}\u0000${own.roots.map((r) => r.path).join('\u0000')}`;
      let roots = byKey.get(key);
      if (!roots) {
        const primary = primaryOf(own.roots);
        // The workspace's folders, whether or not they are shared yet: a session "of this workspace" is
        // one with these folders; sharing is asked when such a session is opened.
        roots = primary ? rootPaths(planRoots(own, primary, () => true, true, supports).rootSet) : [];
        byKey.set(key, roots);
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

  /** What the agent supported when it last ran here, if that was kept and still reads as such. */
  private lastCaps(agentName: string): ReopenCaps | undefined {
    const parsed = StoredCaps.safeParse(this.storedCaps()[agentName]);
    return parsed.success ? parsed.data : undefined;
  }

  private storedCaps(): Record<string, unknown> {
    const stored = this.options.memory.get(CAPS_KEY);
    return typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? (stored as Record<string, unknown>) : {};
  }

  private agentsChanged(): void {
    // Remember what each running agent supports, for its rows while it is not running.
    const stored = { ...this.storedCaps() };
    let dirty = false;
    for (const status of this.options.agents.list()) {
      const caps = status.process?.connection?.caps;
      if (!caps) continue;
      const next = { loadSession: caps.loadSession, sessions: caps.sessions };
      if (JSON.stringify(stored[status.definition.name]) !== JSON.stringify(next)) {
        stored[status.definition.name] = next;
        dirty = true;
      }
    }
    if (dirty) void this.options.memory.update(CAPS_KEY, stored);
    this.changed();
  }

  private sessionsChanged(): void {
    for (const session of this.options.sessions.all()) {
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

/** The history's files under the extension's global storage. */
export function historyStorageDir(globalStorage: string): string {
  return path.join(globalStorage, 'session-history');
}
