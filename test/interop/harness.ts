/**
 * The extension's own client, wired in plain Node the way the extension wires it (see src/extension.ts
 * and src/sessions/routing/sessionRouter.ts), around one real agent process:
 *
 * - `AgentProcess` spawns the agent in its own process group and runs `initialize`, with the client
 *   capabilities the extension advertises (fs through `RootGuard` + `guardedFs`, terminals, the same
 *   feature flags);
 * - sessions start, reopen and fork through `sessionLifecycle`; each open session has a `Thread` and a
 *   `SessionController`, which receives its `session/update`s and permission requests (and, when the
 *   test gives them, runs {@link InteropClientOptions.turns} around every turn, as the extension runs
 *   its checkpoints);
 * - permission requests are answered by option kind (what a test sets in {@link InteropClient.permissionKind});
 * - every message on the wire is recorded and checked against the ACP JSON Schema (the unit tier's
 *   conformance checker), so tests can assert on exactly what the client sent.
 */
import type { Message } from 'vscode-jsonrpc/node';
import { AgentProcess, type AgentProcessOptions } from '../../src/process/agentProcess';
import { HandlerError, type AcpConnection } from '../../src/acp/connection';
import { ErrorCodes } from '../../src/acp/errors';
import * as acp from '../../src/acp/schema';
import { ActiveSessions } from '../../src/sessions/routing/activeSessions';
import { fileSystemHost } from '../../src/sessions/routing/fsHandlers';
import type { AgentSession } from '../../src/sessions/routing/agentSession';
import { SessionController, type TurnHooks } from '../../src/sessions/turns/sessionController';
import { terminalHost } from '../../src/terminal/handlers';
import { Terminals } from '../../src/terminal/terminals';
import { Thread } from '../../src/thread/thread';
import { conformance } from '../helpers/conformance';
import { recordingLogger, type RecordingLogger } from '../helpers/memoryPeer';
import type { InteropAgent } from './agents';
import { transcriptEvent } from '../../src/acp/v1/transcriptEvents';
import { v1 } from '../helpers/v1Connection';

/** One message on the wire, as the client sent or received it. */
export interface WireMessage {
  readonly direction: 'send' | 'receive';
  readonly message: Message & { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown };
}

/** A permission request the agent made, and the kind the client chose (by kind, never by position). */
export interface PermissionSeen {
  readonly sessionId: string;
  readonly title: string;
  readonly toolCallId: string;
  readonly options: ReadonlyArray<{ optionId: string; kind: string; name: string }>;
  chosen?: string;
}

export interface InteropClientOptions {
  readonly agent: InteropAgent;
  /** Working directory of the agent process. */
  readonly cwd: string;
  /** How long `initialize` may take. */
  readonly initializeTimeoutMs?: number;
  /** Run around every turn of every chat this client opens (the extension gives its `Checkpoints`); none by default. */
  readonly turns?: TurnHooks;
  /** How the agent is confined at each launch (as the extension does with `acpWorkspace.sandbox` on); none by default. */
  readonly confinement?: AgentProcessOptions['confinement'];
}

/** Every agent process any interop client started, so a hook can kill what a failing test left. */
export const startedAgents = new Set<AgentProcess>();

export class InteropClient {
  readonly process: AgentProcess;
  readonly sessions = new ActiveSessions();
  readonly logger: RecordingLogger = recordingLogger();
  readonly wire: WireMessage[] = [];
  readonly permissions: PermissionSeen[] = [];
  /** Every `session/update` received, per session id, in order (across restarts). */
  readonly updates = new Map<string, acp.SessionUpdate[]>();
  /** Notifications the connection could not read (should stay empty). */
  readonly protocolErrors: string[] = [];
  /** Which option kind to pick for a permission request; `undefined` leaves it unanswered. */
  permissionKind: (request: PermissionSeen) => string | undefined = () => 'reject_once';

  private readonly threads = new Map<string, Thread>();
  private readonly controllers = new Map<string, SessionController>();

  constructor(private readonly options: InteropClientOptions) {
    const conformanceTap = conformance.newTap();
    this.process = new AgentProcess({
      command: options.agent.command,
      cwd: options.cwd,
      parentEnv: options.agent.env,
      logger: this.logger,
      clientInfo: { name: 'acp-workspace-interop', title: 'ACP Workspace (interop tests)', version: '0.0.0' },
      features: { booleanConfigOptions: true, notices: true, compaction: true, terminalAuth: true },
      registerHandlers: (connection) => this.register(v1(connection)),
      restartPolicy: false,
      ...(options.confinement ? { confinement: options.confinement } : {}),
      initializeTimeoutMs: options.initializeTimeoutMs ?? 60_000,
      stopGraceMs: 3000,
      tap: (direction, message) => {
        conformanceTap(direction, message);
        this.wire.push({ direction, message: message as WireMessage['message'] });
      },
    });
    startedAgents.add(this.process);
  }

  async start(): Promise<AcpConnection> {
    return v1(await this.process.start());
  }

  /** Stops the agent process (its whole group) and starts a new one. Open sessions are disconnected. */
  async restart(): Promise<AcpConnection> {
    return v1(await this.process.restart());
  }

  get connection(): AcpConnection {
    const connection = this.process.connection;
    if (!connection) throw new Error(`${this.options.agent.command.name} is not running (${this.process.state}).`);
    return v1(connection);
  }

  /** The chat of a session: a Thread and a SessionController, registered like the extension does. */
  open(session: AgentSession): SessionController {
    const existing = this.controllers.get(session.sessionId);
    if (existing) {
      existing.attach(session);
      this.sessions.add(session);
      return existing;
    }
    const thread = this.threadFor(session.sessionId);
    const controller = new SessionController(session, thread, {
      ...(this.options.turns ? { turns: this.options.turns } : {}),
      onPermissionRequested: (entryId) => {
        // Like a person clicking, after the request is shown (the controller registers it right after this).
        setImmediate(() => this.answerPermission(controller, entryId));
      },
    });
    this.controllers.set(session.sessionId, controller);
    this.sessions.add(session);
    return controller;
  }

  /** Forgets the thread and chat of `sessionId`, so a `session/load` replays into a fresh one. */
  freshThread(sessionId: string): Thread {
    this.controllers.delete(sessionId);
    this.threads.delete(sessionId);
    return this.threadFor(sessionId);
  }

  thread(sessionId: string): Thread {
    const thread = this.threads.get(sessionId);
    if (!thread) throw new Error(`no thread for session ${sessionId}`);
    return thread;
  }

  /** A position in the wire log, for {@link sentSince}. */
  mark(): number {
    return this.wire.length;
  }

  /** Messages the client sent since `mark`, optionally only one method's requests. */
  sentSince(mark: number, method?: string): Array<WireMessage['message']> {
    return this.wire
      .slice(mark)
      .filter((w) => w.direction === 'send' && (method === undefined || w.message.method === method))
      .map((w) => w.message);
  }

  /** Requests and notifications the agent sent since `mark`, optionally only one method's. */
  receivedSince(mark: number, method?: string): Array<WireMessage['message']> {
    return this.wire
      .slice(mark)
      .filter((w) => w.direction === 'receive' && w.message.method !== undefined && (method === undefined || w.message.method === method))
      .map((w) => w.message);
  }

  /** Stops the agent and its process group. */
  async dispose(): Promise<void> {
    await this.process.dispose();
    startedAgents.delete(this.process);
  }

  // ---- internals ----------------------------------------------------------------------------------

  private threadFor(sessionId: string): Thread {
    let thread = this.threads.get(sessionId);
    if (!thread) {
      thread = new Thread({ agentName: this.options.agent.command.name, roots: [], prompt: { image: false, audio: false, embeddedContext: false } });
      this.threads.set(sessionId, thread);
    }
    return thread;
  }

  private answerPermission(controller: SessionController, entryId: string): void {
    const entry = controller.thread.entry(entryId);
    if (entry?.kind !== 'permission') return;
    const seen: PermissionSeen = {
      sessionId: controller.session.sessionId,
      title: entry.title,
      toolCallId: entry.toolCallId ?? '',
      options: entry.options.map((o) => ({ optionId: o.optionId, kind: o.kind, name: o.name })),
    };
    this.permissions.push(seen);
    const kind = this.permissionKind(seen);
    if (kind !== undefined && controller.choosePermissionKind(entryId, kind)) seen.chosen = kind;
  }

  private register(connection: AcpConnection): void {
    connection.onProtocolError((error) => this.protocolErrors.push(error.message));
    connection.onNotification(acp.SessionUpdateNotification, ({ sessionId, update }) => {
      const list = this.updates.get(sessionId) ?? [];
      list.push(update);
      this.updates.set(sessionId, list);
      const controller = this.controllers.get(sessionId);
      if (controller && controller.session.connection === connection) controller.onEvent(transcriptEvent(update));
      else this.threadFor(sessionId).apply(transcriptEvent(update));
    });
    connection.servePermissions((request, token) => {
      const controller = this.controllers.get(request.sessionId);
      if (!controller) throw new HandlerError(ErrorCodes.ResourceNotFound, `No open session ${request.sessionId}.`, { sessionId: request.sessionId });
      return controller.requestPermission(request, token);
    });
    // fs/* exactly as the extension serves them: only inside the session's roots.
    const sessionOf = (sessionId: string) => {
      const session = this.sessions.find(connection.agentName, sessionId);
      return session?.connection === connection ? session : undefined;
    };
    connection.serveFileSystem(fileSystemHost({ sessionOf, logger: this.logger }));
    const terminals = new Terminals({ logger: this.logger, parentEnv: this.options.agent.env });
    connection.serveTerminals(
      terminalHost(terminals, (sessionId) => {
        const session = sessionOf(sessionId);
        return session && { guard: session.guard, cwd: session.rootSet.cwd.path };
      }),
    );
    connection.onDidClose(() => void terminals.dispose());
  }
}

/** Rejects with a readable message when `promise` takes longer than `ms` (a hung agent fails, never hangs). */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The agent's text in a thread's entries (all agent messages joined). */
export function agentText(thread: Thread): string {
  return thread
    .snapshot()
    .entries.flatMap((e) => (e.kind === 'agent' ? e.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : []))
    .join('');
}

/** True while any process of the process group `pgid` exists (zombies included). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
