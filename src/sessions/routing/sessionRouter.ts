/**
 * The agent → client surface. {@link SessionRouter.connect} is the one place where a new connection gets
 * every handler an agent may call (`fs/*`, `session/request_permission`, `terminal/*`, `session/update`),
 * and each request or update is routed to its session's chat (a {@link SessionSink}).
 *
 * Updates can arrive before their chat exists: right after `session/new` answers, the whole replay
 * of `session/load`, which comes before its answer, and the history some agents replay while they fork (for
 * a session whose id only the answer names). They wait in a buffer (small for unexpected updates, large for
 * an expected replay) until {@link SessionRouter.route} names the chat, which gets them in time-boxed slices
 * (a replay of 100,000 updates folded in one go would block the extension host for a second or more), the
 * updates arriving meanwhile behind them.
 */
import * as l10n from '@vscode/l10n';
import type { AgentConnection, CancellationToken, PermissionOutcome, PermissionRequest } from '../../acp/port/agentConnection';
import { FramingError, formatSize, type OversizeLine } from '../../acp/transport/ndjson';
import type { TranscriptEvent } from '../../acp/port/events';
import { Emitter, type Event } from '../../common/events';
import type { Logger } from '../../common/logger';
import type { OpenDocuments } from '../../roots/guardedFs';
import { displayLine } from '../../terminal/commandLine';
import { terminalHost, type TerminalSession } from '../../terminal/handlers';
import { TerminalCommandRefusedError, TerminalCwdRefusedError, TerminalErrorCodes, type TerminalError } from '../../terminal/terminalError';
import {
  Terminals,
  type CreateTerminalParams,
  type TerminalChange,
  type TerminalConfine,
  type TerminalStartRequest,
  type TerminalView,
} from '../../terminal/terminals';
import { ConfinementUnavailableError, type Confinement, type ConfinementPolicy, type Confiner } from '../../process/confinement/types';
import type { ThreadTerminal } from '../../thread/thread';
import type { ActiveSessions } from './activeSessions';
import type { AgentSession, Refusal } from './agentSession';
import { fileSystemHost } from './fsHandlers';
import { errorMessage } from '../../common/errors';

/** What a session's traffic goes to: its chat. */
export interface SessionSink {
  /** What the agent did in the session (a message chunk, a tool call, a plan…). */
  onEvent(event: TranscriptEvent): void;
  requestPermission(request: PermissionRequest, token: CancellationToken): Promise<PermissionOutcome>;
  noteRefusal(refusal: Refusal): void;
  /** A terminal the agent started: created, new output, exited. */
  updateTerminal(terminalId: string, terminal: ThreadTerminal): void;
  /** A `terminal/create` that failed (not a refused folder: that is a refusal). */
  noteTerminalFailure(command: string, cwd: string | undefined, message: string): void;
  /** Something the agent sent was lost (a message over the size limit), in words. */
  noteDiscarded(message: string): void;
  /** Updates that waited for the chat are being handed over in slices: `done` of `total` so far. */
  replayProgress?(done: number, total: number): void;
  /**
   * A remote agent whose entry lets it run commands here asks to run one: `question` (the agent, the command, the
   * folder) is asked like a permission in the chat. Resolves true when the user allowed it, once.
   */
  confirmCommand(question: string, token: CancellationToken): Promise<boolean>;
}

/** The confinement one command of a remote agent runs under (remoteCommands.ts: LocalCommandConfinement). */
export interface RemoteCommandConfinement {
  /**
   * For `command args` of a session whose folders (real paths, withdrawn ones left out) are `folders`: the
   * mechanism and the policy, or a rejection (a ConfinementUnavailableError: why, and the fix).
   */
  forCommand(
    folders: readonly string[],
    command: string,
    args: readonly string[],
  ): Promise<{ readonly confiner: Confiner; readonly policy: ConfinementPolicy }>;
}

/** What a remote agent's entry says about the agent → client surface (see {@link SessionRouter.connect}). */
export interface RemoteConnection {
  /**
   * `"localTerminal": true`: it is offered the client terminal; each command is asked first and runs confined to the
   * session's folders (fail closed). Otherwise `terminal` is not advertised and a request is refused in words.
   */
  readonly localTerminal: boolean;
}

/** A refused request (a file or a terminal folder outside the session's roots), for whoever tells the user. */
export interface RefusalEvent {
  readonly session: AgentSession;
  readonly refusal: Refusal;
}

export interface SessionRouterOptions {
  readonly sessions: ActiveSessions;
  /** Open editors for the guarded fs (unsaved text wins over the disk); none outside VS Code. */
  readonly documents?: OpenDocuments;
  readonly logger: Logger;
  /** How long one slice of a handover may take (default {@link SLICE_MS}; tests use 0: one update per slice). */
  readonly sliceMs?: number;
  /** How a remote agent's commands are confined here when its entry lets it run them; none: they are refused. */
  readonly remoteCommands?: RemoteCommandConfinement;
}

/** Updates for a session nobody opened yet (they can arrive right after `session/new` answers). */
const MAX_BUFFERED_UPDATES = 2000;
/** …and for a session being loaded, whose whole history is replayed before `session/load` answers. */
const MAX_REPLAYED_UPDATES = 500_000;
/** Terminal output reaches the chat at most this often. */
const TERMINAL_FLUSH_MS = 50;
/** Updates that waited for their chat are handed over in slices of about this long, the event loop free between. */
const SLICE_MS = 8;

/** Updates being handed over to a chat that just opened: in order, the ones arriving meanwhile at the end. */
interface Handover {
  sink: SessionSink;
  readonly queue: TranscriptEvent[];
  at: number;
  readonly done: Promise<void>;
  readonly finish: () => void;
}

interface Routes {
  readonly sinks: Map<string, SessionSink>;
  readonly buffered: Map<string, TranscriptEvent[]>;
  /** Sessions whose `session/load` replay is expected (kept in the large buffer). */
  readonly replaying: Set<string>;
  /** Sessions whose buffer overflowed (said once). */
  readonly overflowed: Set<string>;
  /** For each fork in progress, the sessions first heard of during it (one of them is the fork). */
  readonly forks: Set<Set<string>>;
  /** Sessions whose buffered updates are being handed over to their chat. */
  readonly handovers: Map<string, Handover>;
  readonly terminals: Terminals;
}

export class SessionRouter {
  private readonly routes = new WeakMap<AgentConnection, Routes>();
  private readonly changedTerminals = new Map<TerminalView, AgentConnection>();
  private terminalTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly refusalEmitter = new Emitter<RefusalEvent>();

  /** The root guard refused a request of an agent: a file, a terminal's folder (the chat shows it too). */
  readonly onDidRefuse: Event<RefusalEvent> = this.refusalEmitter.event;

  constructor(private readonly options: SessionRouterOptions) {}

  /**
   * Registers every agent → client handler on a new connection (before `initialize`, which advertises them).
   * @param confinement how the agent was started (AgentProcess passes it to registerHandlers): when confined,
   *   every `terminal/create` command runs confined by the same mechanism and policy.
   * @param remote the agent runs elsewhere (a remote entry): its commands would run on this machine, where it is
   *   not confined. Unless its entry opts in, the terminal is not advertised and a `terminal/*` request is refused
   *   in words shown in the chat; with the opt-in, each command is asked first and runs confined (fail closed).
   */
  connect(connection: AgentConnection, confinement?: Confinement, remote?: RemoteConnection): void {
    const { sessions, documents, logger } = this.options;
    // The commands the agent runs through the client are confined like the agent (same mechanism, same policy).
    const confine: TerminalConfine | undefined = confinement?.confined
      ? (file, args, env, cwd) => confinement.confiner.wrap(file, args, env, cwd, confinement.policy)
      : undefined;
    const terminals = new Terminals({ logger, confine });
    const routes: Routes = {
      sinks: new Map(),
      buffered: new Map(),
      replaying: new Set(),
      overflowed: new Set(),
      forks: new Set(),
      handovers: new Map(),
      terminals,
    };
    this.routes.set(connection, routes);
    /** The session a request of this agent names, when it is open on this connection. */
    const sessionOf = (sessionId: string): AgentSession | undefined => {
      const session = sessions.find(connection.agentName, sessionId);
      return session?.connection === connection ? session : undefined;
    };
    connection.serveFileSystem(fileSystemHost({ sessionOf, documents, logger, onRefusal: (session, refusal) => this.refused(routes, session, refusal) }));
    connection.onTranscriptEvent((sessionId, event) => this.deliver(connection, routes, sessionId, event));
    connection.servePermissions((request, token) => this.requestPermission(connection, routes, request, token));
    connection.serveTerminals(
      terminalHost(terminals, (sessionId) => {
        const session = sessionOf(sessionId);
        if (!session) return undefined;
        const served: TerminalSession = {
          guard: session.guard,
          cwd: session.rootSet.cwd.path,
          createFailed: (params, error) => this.terminalFailed(connection, routes, session, params, error),
        };
        if (!remote) return served;
        if (!remote.localTerminal) return { ...served, refuse: (params) => notOffered(connection.agentName, params) };
        return { ...served, admit: (token) => (request) => this.admitRemoteCommand(connection, routes, session, request, token) };
      }),
      { advertise: !remote || remote.localTerminal },
    );
    const changes = terminals.onDidChange((terminalId, change) => this.terminalChanged(connection, terminals, terminalId, change));
    const problems = connection.onProtocolError((error) => {
      if (error instanceof FramingError && error.oversize) this.discarded(connection, routes, error.oversize);
    });
    connection.onDidClose(() => {
      changes.dispose();
      problems.dispose();
      void terminals.dispose();
    });
  }

  /**
   * Routes what the agent sends for `sessionId` on `connection` to `sink` from now on, and hands it what
   * was buffered for it: as much as fits in a slice of {@link SLICE_MS} now, the rest in later slices (the
   * updates that arrive meanwhile follow them, in order). Call it before `session/load` (whose replay arrives
   * before its answer) or in the same turn of the event loop as a lifecycle request resolved. Resolves once
   * everything buffered reached the chat (see {@link delivered}).
   */
  route(connection: AgentConnection, sessionId: string, sink: SessionSink): Promise<void> {
    const routes = this.routesOf(connection);
    routes.sinks.set(sessionId, sink);
    routes.replaying.delete(sessionId);
    routes.overflowed.delete(sessionId);
    const handover = routes.handovers.get(sessionId);
    if (handover) {
      // Routed again while handing over (a reopened chat reattached): the rest goes to the new sink.
      handover.sink = sink;
      return handover.done;
    }
    const pending = routes.buffered.get(sessionId);
    if (!pending) return Promise.resolve();
    routes.buffered.delete(sessionId);
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const started: Handover = { sink, queue: pending, at: 0, done, finish };
    routes.handovers.set(sessionId, started);
    this.handOver(routes, sessionId, started);
    return done;
  }

  /**
   * Settles once the updates buffered for the session reached its chat (at once when nothing is being handed
   * over), or once that chat was unrouted (closed) meanwhile.
   */
  delivered(connection: AgentConnection, sessionId: string): Promise<void> {
    return this.routes.get(connection)?.handovers.get(sessionId)?.done ?? Promise.resolve();
  }

  /** Stops routing `sessionId` to `sink` (its chat closed); what was still to hand over to it is dropped. */
  unroute(connection: AgentConnection, sessionId: string, sink: SessionSink): void {
    const routes = this.routes.get(connection);
    if (routes?.sinks.get(sessionId) === sink) routes.sinks.delete(sessionId);
    const handover = routes?.handovers.get(sessionId);
    if (handover?.sink === sink) this.endHandover(routes!, sessionId, handover);
  }

  /** A session is about to be loaded for a chat that does not exist yet: keep its whole replay until it is routed. */
  expectReplay(connection: AgentConnection, sessionId: string): void {
    this.routesOf(connection).replaying.add(sessionId);
  }

  /** The load failed, or nobody wants the session any more: drop what was kept for it. */
  abandonReplay(connection: AgentConnection, sessionId: string): void {
    const routes = this.routes.get(connection);
    routes?.replaying.delete(sessionId);
    routes?.buffered.delete(sessionId);
    routes?.overflowed.delete(sessionId);
    const handover = routes?.handovers.get(sessionId);
    if (handover) this.endHandover(routes!, sessionId, handover);
  }

  /**
   * A `session/fork` is on its way: until `done`, updates for sessions nobody opened yet are kept like a
   * replay, since the new session's id is known only from the answer. `done` with the new id (route it in
   * the same turn) or with undefined when the fork failed, which drops what was kept for it.
   */
  expectFork(connection: AgentConnection): { done(forkedSessionId: string | undefined): void } {
    const routes = this.routesOf(connection);
    const heard = new Set<string>();
    routes.forks.add(heard);
    return {
      done: (forkedSessionId) => {
        routes.forks.delete(heard);
        if (forkedSessionId !== undefined) return;
        for (const sessionId of heard) {
          if (routes.sinks.has(sessionId) || routes.replaying.has(sessionId)) continue;
          routes.buffered.delete(sessionId);
          routes.overflowed.delete(sessionId);
        }
      },
    };
  }

  /** The terminals the agent started on this connection. */
  terminals(connection: AgentConnection): Terminals | undefined {
    return this.routes.get(connection)?.terminals;
  }

  dispose(): void {
    clearTimeout(this.terminalTimer);
    this.refusalEmitter.dispose();
  }

  private routesOf(connection: AgentConnection): Routes {
    const routes = this.routes.get(connection);
    if (!routes) throw new Error(l10n.t("{0}'s connection is not connected to the session router.", connection.agentName));
    return routes;
  }

  /**
   * A remote agent asked for a path outside the folders its entry maps (its path mapping answered the request
   * itself, see `acp/pathMappingTransport.ts`): shown in the session's chat and reported like a refusal of the
   * root guard.
   */
  refusedUnmapped(agentName: string, refusal: { readonly method: string; readonly path: string; readonly sessionId?: string }): void {
    const session = refusal.sessionId === undefined ? undefined : this.options.sessions.find(agentName, refusal.sessionId);
    const routes = session && this.routes.get(session.connection);
    const operation = refusal.method === 'terminal/create' ? 'terminal' : refusal.method === 'fs/write_text_file' ? 'write' : 'read';
    this.options.logger.warn(`Refused ${refusal.method} ${refusal.path} for ${agentName}: outside the folders its path mapping shares.`);
    if (!session || !routes) return;
    const message = l10n.t('{0} is outside the folders shared with this remote agent (its path mapping).', refusal.path);
    this.refused(routes, session, session.noteRefusal({ operation, path: refusal.path, message }));
  }

  private refused(routes: Routes, session: AgentSession, refusal: Refusal): void {
    routes.sinks.get(session.sessionId)?.noteRefusal(refusal);
    this.refusalEmitter.fire({ session, refusal });
  }

  /**
   * A remote agent's command (its entry opts in): confined to the session's folders as they are now, or refused
   * when that cannot be set up (before anyone is asked); then asked in the session's chat; refused unless allowed.
   */
  private async admitRemoteCommand(
    connection: AgentConnection,
    routes: Routes,
    session: AgentSession,
    request: TerminalStartRequest,
    token: CancellationToken,
  ): Promise<TerminalConfine> {
    const agent = connection.agentName;
    const data = { command: request.display, cwd: request.cwd };
    const refused = (reason: string, message: string, chat: string) =>
      new TerminalCommandRefusedError(TerminalErrorCodes.Refused, message, { ...data, reason }, chat);
    /** The confinement for the session's folders as they are now, or the refusal saying why there is none. */
    const confined = async () => {
      try {
        if (!this.options.remoteCommands) throw new ConfinementUnavailableError(l10n.t('No confinement is set up for the commands of remote agents.'), '');
        return await this.options.remoteCommands.forCommand(session.guard.roots, request.command, request.args);
      } catch (error) {
        const why = error instanceof ConfinementUnavailableError ? `${error.reason} ${error.fix}`.trim() : errorMessage(error);
        this.options.logger.warn(`Refused ${request.display} for ${agent} (remote): it cannot be confined here: ${why}`);
        throw refused(
          'unconfined',
          l10n.t('The command was not run on this machine: it cannot be confined here: {0}', why),
          l10n.t('It cannot be confined on this machine, and the commands of a remote agent never run unconfined: {0}', why),
        );
      }
    };
    // Nobody is asked about a command that could not run anyway.
    const { confiner } = await confined();
    const sink = routes.sinks.get(session.sessionId);
    if (!sink)
      throw refused(
        'no-chat',
        l10n.t('The command was not run on this machine: this session has no open chat to ask the user in.'),
        l10n.t('This session had no open chat to ask you in.'),
      );
    const question = l10n.t(
      "{0}, a remote agent, wants to run {1} in {2} on this machine. If you allow it, it runs confined by {3}: it can write only in this session's folders.",
      agent,
      `"${request.display}"`,
      request.cwd,
      confiner.description,
    );
    if (!(await sink.confirmCommand(question, token))) {
      throw refused(
        'not-allowed',
        l10n.t('The user did not allow the command to run on this machine.'),
        l10n.t('You did not allow it to run on this machine.'),
      );
    }
    // The folders may have changed while the user was asked (a folder taken back): the policy is the one of now.
    const { confiner: now, policy } = await confined();
    this.options.logger.info(
      `${agent} (remote) runs ${request.display} in ${request.cwd}, allowed by the user, confined by ${now.description} (${policy.mode}).`,
    );
    return (file, args, env, cwd) => now.wrap(file, args, env, cwd, policy);
  }

  /** A refused terminal folder or command is a refusal like a refused file; any other failure shows as a command that did not start. */
  private terminalFailed(connection: AgentConnection, routes: Routes, session: AgentSession, params: CreateTerminalParams, error: TerminalError): void {
    // A command without arguments may be a shell line: shown as the agent wrote it.
    const command = params.args && params.args.length > 0 ? displayLine(params.command, params.args) : params.command;
    if (error instanceof TerminalCommandRefusedError) {
      const cwd = params.cwd ?? session.rootSet.cwd.path;
      this.options.logger.warn(`Refused terminal ${command} for ${connection.agentName} session ${session.sessionId}: ${error.reason}`);
      this.refused(routes, session, session.noteRefusal({ operation: 'terminal', path: cwd, message: error.reason, command }));
      return;
    }
    if (error instanceof TerminalCwdRefusedError) {
      const cwd = params.cwd ?? session.rootSet.cwd.path;
      this.options.logger.warn(`Refused terminal ${command} in ${cwd} for ${connection.agentName} session ${session.sessionId}: ${error.reason}`);
      this.refused(routes, session, session.noteRefusal({ operation: 'terminal', path: cwd, message: error.reason, command }));
      return;
    }
    routes.sinks.get(session.sessionId)?.noteTerminalFailure(command, params.cwd ?? undefined, error.message);
  }

  /**
   * The agent sent a message over the size limit, which the framing discarded: the chat it was for says so,
   * or, when its start does not tell (or that session has no chat), every chat on this connection does.
   */
  private discarded(connection: AgentConnection, routes: Routes, line: OversizeLine): void {
    const sessionId = line.head.sessionId;
    const sink = sessionId === undefined ? undefined : routes.sinks.get(sessionId);
    if (sink) {
      sink.noteDiscarded(oversizeText(connection.agentName, line, true));
      return;
    }
    const text = oversizeText(connection.agentName, line, false);
    for (const chat of new Set(routes.sinks.values())) chat.noteDiscarded(text);
  }

  /**
   * Hands buffered updates to the chat for one slice, then lets the event loop run (agent messages, other
   * chats, the UI) before the next slice. Order is kept: updates arriving meanwhile wait at the end.
   */
  private handOver(routes: Routes, sessionId: string, handover: Handover): void {
    if (routes.handovers.get(sessionId) !== handover) return;
    const started = performance.now();
    const { queue } = handover;
    while (handover.at < queue.length) {
      const event = queue[handover.at]!;
      // Let go of what was handed over (a long replay holds its updates only until they are folded).
      (queue as Array<TranscriptEvent | undefined>)[handover.at++] = undefined;
      handover.sink.onEvent(event);
      if (performance.now() - started >= (this.options.sliceMs ?? SLICE_MS)) break;
    }
    if (handover.at < queue.length) {
      handover.sink.replayProgress?.(handover.at, queue.length);
      setImmediate(() => this.handOver(routes, sessionId, handover));
      return;
    }
    this.endHandover(routes, sessionId, handover);
  }

  private endHandover(routes: Routes, sessionId: string, handover: Handover): void {
    if (routes.handovers.get(sessionId) === handover) routes.handovers.delete(sessionId);
    handover.queue.length = 0;
    handover.finish();
  }

  private deliver(connection: AgentConnection, routes: Routes, sessionId: string, event: TranscriptEvent): void {
    const handover = routes.handovers.get(sessionId);
    if (handover) {
      handover.queue.push(event);
      return;
    }
    const sink = routes.sinks.get(sessionId);
    if (sink) {
      sink.onEvent(event);
      return;
    }
    let list = routes.buffered.get(sessionId);
    if (!list) {
      list = [];
      routes.buffered.set(sessionId, list);
      for (const heard of routes.forks) heard.add(sessionId);
    }
    const limit = routes.replaying.has(sessionId) || heardDuringFork(routes, sessionId) ? MAX_REPLAYED_UPDATES : MAX_BUFFERED_UPDATES;
    if (list.length < limit) {
      list.push(event);
    } else if (!routes.overflowed.has(sessionId)) {
      routes.overflowed.add(sessionId);
      this.options.logger.warn(`${connection.agentName}: too many updates for session ${sessionId} before its chat opened; dropping more.`);
    }
  }

  private requestPermission(connection: AgentConnection, routes: Routes, request: PermissionRequest, token: CancellationToken): Promise<PermissionOutcome> {
    const sink = routes.sinks.get(request.sessionId);
    if (!sink) {
      this.options.logger.warn(`${connection.agentName} asked for permission in session ${request.sessionId}, which has no open chat; answered cancelled.`);
      return Promise.resolve({ outcome: 'cancelled' });
    }
    return sink.requestPermission(request, token);
  }

  /**
   * A terminal changed (output arrives many times a second): its chat is updated once per
   * {@link TERMINAL_FLUSH_MS}, reading the output (a join of everything kept) once per flush, not per chunk;
   * anything else (created, exited, released) shows at once, with the output so far. The view is taken now:
   * it stays readable after the agent releases the terminal.
   */
  private terminalChanged(connection: AgentConnection, terminals: Terminals, terminalId: string, change: TerminalChange): void {
    const view = terminals.get(terminalId);
    if (!view) return;
    this.changedTerminals.set(view, connection);
    if (change !== 'output') this.flushTerminals();
    else this.terminalTimer ??= setTimeout(() => this.flushTerminals(), TERMINAL_FLUSH_MS);
  }

  private flushTerminals(): void {
    clearTimeout(this.terminalTimer);
    this.terminalTimer = undefined;
    const changed = [...this.changedTerminals];
    this.changedTerminals.clear();
    for (const [view, connection] of changed) {
      this.routes.get(connection)?.sinks.get(view.sessionId)?.updateTerminal(view.terminalId, {
        command: view.commandLine,
        cwd: view.cwd,
        output: view.output,
        truncated: view.truncated,
        exitStatus: view.exitStatus,
      });
    }
  }
}

/** A remote agent that is not offered the terminal asked for one anyway: refused, in words for it and for the chat. */
function notOffered(agentName: string, params: CreateTerminalParams): TerminalError {
  return new TerminalCommandRefusedError(
    TerminalErrorCodes.NotOffered,
    l10n.t(
      '{0} runs on another machine: ACP Workspace does not run its commands on this one (the client terminal is not offered to remote agents).',
      agentName,
    ),
    { command: params.command, reason: 'not-offered' },
    l10n.t(
      '{0} runs on another machine and asked to run this command on yours. It was not run: a remote agent may run commands here only if its entry in acpWorkspace.agents says "localTerminal": true, and then each one is asked first and runs confined.',
      agentName,
    ),
  );
}

function heardDuringFork(routes: Routes, sessionId: string): boolean {
  for (const heard of routes.forks) if (heard.has(sessionId)) return true;
  return false;
}

/** What a discarded message means for a chat, naming the agent, the size, the limit and its setting. */
function oversizeText(agentName: string, line: OversizeLine, forThisChat: boolean): string {
  const size =
    line.head.method === undefined
      ? l10n.t(
          'a message of {0}, over the limit of {1} (setting acpWorkspace.maxMessageSizeMiB, applied when the agent starts)',
          formatSize(line.bytes),
          formatSize(line.limitBytes),
        )
      : l10n.t(
          'a message ({0}) of {1}, over the limit of {2} (setting acpWorkspace.maxMessageSizeMiB, applied when the agent starts)',
          line.head.method,
          formatSize(line.bytes),
          formatSize(line.limitBytes),
        );
  const text = forThisChat
    ? l10n.t('{0} sent {1} for this session. ACP Workspace discarded it, so something {0} sent is missing here.', agentName, size)
    : l10n.t(
        "{0} sent {1}. ACP Workspace discarded it without being able to tell which of {0}'s sessions it was for: something may be missing here or in another chat with {0}.",
        agentName,
        size,
      );
  return line.head.method !== undefined && line.head.id !== undefined
    ? l10n.t('{0} It was a request: ACP Workspace answered it with an error saying so.', text)
    : text;
}
