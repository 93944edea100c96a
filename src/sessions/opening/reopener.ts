/**
 * Reopening a session, the one way every path does it: from the Sessions view (open, resume, fork), a chat
 * tab restored after a window reload, a chat whose agent exited, every chat of an agent that restarts
 * (whoever asked for the restart; `AgentLifecycle`, which owns this, restarts), a session reopened with the
 * workspace's current folders. Which request serves which verb is the table in `history/reopenPolicy.ts`; the
 * root list is the caller's decision (it may ask the user, once the agent's capabilities are known) and is
 * always sent complete.
 */
import * as l10n from '@vscode/l10n';
import type { AgentConnection } from '../../acp/port/agentConnection';
import type { Logger } from '../../common/logger';
import { chooseReopenMethod, ReopenUnsupportedError, type ReopenCaps, type ReopenMethod, type ReopenVerb } from '../../history/reopenPolicy';
import type { ForkOrigin } from '../../history/sessionTitle';
import { createRootSet, describeRoots, rootPaths, sameRootPaths, type Root, type RootSet } from '../../roots/rootSet';
import { describeNotShared } from '../../roots/workspaceRoots';
import { mappedRootSet } from './mappedFolders';
import type { Thread } from '../../thread/thread';
import type { ActiveSessions } from '../routing/activeSessions';
import type { AgentSession } from '../routing/agentSession';
import type { Chats } from '../chats/chats';
import { explainFailure, isExplainable, type ExplainedFailure } from '../routing/explainFailure';
import type { AgentPool, SessionMcpServers } from '../ports';
import type { SessionController } from '../turns/sessionController';
import { forkSession, reopenSession } from '../routing/sessionLifecycle';
import type { SessionRouter } from '../routing/sessionRouter';
import { errorMessage } from '../../common/errors';

export interface ReopenRequest {
  readonly verb: ReopenVerb;
  readonly agentName: string;
  readonly sessionId: string;
  /**
   * The complete root list to send, decided once the agent runs (what it supports matters, and the user
   * may be asked); undefined cancels.
   */
  readonly roots: (connection: AgentConnection) => Promise<RootSet | undefined>;
  /**
   * The chat the session continues in (recover, refolder): a `load` replay replaces its conversation, and
   * what only the chat showed (turn ends, errors, notes, unrecorded tool calls) stays in place.
   */
  readonly chat?: SessionController;
  /** A transcript for the new chat (a tab restored after a window reload), instead of a new one. */
  readonly thread?: Thread;
  /** Without a chat: register the session but open none (a session reopened with new folders). */
  readonly withoutChat?: boolean;
  /**
   * The folders the session will likely work in, known before the agent starts (a restored tab's or a history
   * row's working folder): a confined agent is launched with them, rather than restarted once they are chosen.
   */
  readonly expectedFolders?: readonly string[];
  /**
   * What the agent advertised when it last ran (the history keeps it), known before it starts: a verb it could not
   * serve then is refused without starting it (a chat tab restored after a reload). Its live capabilities decide
   * once it runs.
   */
  readonly knownCaps?: ReopenCaps;
  /** The request is moot by the time the agent answers (the restored tab was closed). */
  readonly cancelled?: () => boolean;
  /**
   * The title the history knows: the agent's, recorded; for a fork, the parent's title as shown, which names
   * the fork until the agent or the user does (see history/sessionTitle.ts).
   */
  readonly title?: string;
  /** For a fork: the parent's own agent title, which an agent may copy into the fork without naming it. */
  readonly parentAgentTitle?: string;
}

export interface Reopened {
  readonly session: AgentSession;
  readonly method: ReopenMethod;
  /** The chat it continues in; undefined with {@link ReopenRequest.withoutChat}. */
  readonly chat: SessionController | undefined;
}

export interface ReopenerOptions {
  readonly agents: AgentPool;
  readonly chats: Chats;
  readonly router: SessionRouter;
  readonly sessions: ActiveSessions;
  readonly mcp: SessionMcpServers;
  readonly logger: Logger;
  /** Records a session the client opened (with the agent title the history knows) or forked (with its origin). */
  readonly record?: (session: AgentSession, title: string | undefined, forkOf?: ForkOrigin) => void;
  /**
   * The agent's confinement (`acpWorkspace.sandbox`, through `AgentLifecycle.ensureCovers`): told the folders a
   * reopened session will work in, so a confined agent whose confinement does not include them (a folder granted
   * for this reopen) is restarted first.
   */
  readonly confinement?: { ensureCovers(agentName: string, folders: readonly string[]): Promise<void> };
  /**
   * Which folders a remote agent can be given (its entry maps them to its own paths); undefined for an agent that
   * sees this machine's paths. A reopened session keeps only those: the others are said in its chat.
   */
  readonly mappedFolders?: (agentName: string) => ((folder: string) => boolean) | undefined;
  /**
   * The workspace's folders shared with the agent now (granted, or all with `acpWorkspace.shareAllFolders`;
   * only mapped ones for a remote agent): what a chat reopened with the current folders is given besides its own.
   */
  readonly sharedFolders?: (agentName: string) => readonly Root[];
}

/** How a restart (`AgentLifecycle.restartAgent`) reopens the agent's chats. */
export interface RestartOptions {
  /**
   * Each chat is reopened with the folders shared now: its own (less what was taken back) and every workspace
   * folder shared with the agent since (the restart a changed confinement needs: a folder the new process may
   * write in because it was shared is one the reopened session is told of, and one taken back is in neither).
   */
  readonly currentFolders?: boolean;
}

/**
 * The reveal policy: whether the chat a reopen opens (or finds open) takes the user there. A session opened,
 * resumed or forked from the Sessions view is what the user asked to see: its tab comes to the front and takes the
 * keyboard. A chat restored after a window reload is already where the user left it and comes back while they may
 * be doing something else (another tab clicked, a file opened): it stays in the background, or with several
 * restored chats the last to finish would take the editor from the one the user went to. The verbs that continue a
 * chat (a recovery, new folders) open none and leave it where it is.
 */
const REVEAL: Readonly<Record<ReopenVerb, 'front' | 'background'>> = {
  open: 'front',
  resume: 'front',
  fork: 'front',
  restore: 'background',
  recover: 'background',
  refolder: 'background',
};

/** Whether a reopen with this verb brings its chat to the front (see {@link REVEAL}). */
export function revealsChat(verb: ReopenVerb): boolean {
  return REVEAL[verb] === 'front';
}

/**
 * What the chat says once the session is back, by verb and request. `replayed`: the chat shows history the
 * agent sent while reopening (always for `load`; for `fork` only from agents that replay while forking,
 * which the fork RFD leaves open: opencode does, claude-agent-acp and the reference agent do not).
 */
function reopenedNote(verb: ReopenVerb, method: ReopenMethod, title: string | undefined, replayed: boolean): string {
  if (method === 'fork') {
    if (title === undefined) {
      return replayed
        ? l10n.t('Forked: the agent replayed the history of the session, and the new session continues from it.')
        : l10n.t('Forked: the new session continues from the history of the session, which is not shown here.');
    }
    return replayed
      ? l10n.t('Forked from “{0}”: the agent replayed its history, and the new session continues from it.', title)
      : l10n.t('Forked from “{0}”: the new session continues from its history, which is not shown here.', title);
  }
  switch (verb) {
    case 'recover':
      return method === 'load' ? l10n.t('Session reopened: the agent replayed its history.') : l10n.t('Session resumed.');
    case 'refolder':
      return method === 'load'
        ? l10n.t('Session reopened with the current folders: the agent replayed its history.')
        : l10n.t('Session reopened with the current folders.');
    case 'open':
    case 'restore':
    case 'resume':
    case 'fork':
      return method === 'load'
        ? l10n.t('Session opened: the agent replayed its history.')
        : l10n.t('Session resumed: earlier messages are not shown (resuming does not replay them).');
  }
}

export class Reopener {
  constructor(private readonly options: ReopenerOptions) {}

  /**
   * Reopens (or forks) a session. Resolves with it, or undefined when the root choice was cancelled or the
   * request became moot. Throws {@link ReopenUnsupportedError} when the agent offers no request for the verb.
   */
  async reopen(request: ReopenRequest): Promise<Reopened | undefined> {
    const { agents, chats, router, sessions, mcp, logger } = this.options;
    const { verb, agentName, sessionId, chat } = request;
    if (request.knownCaps) methodFor(verb, request.knownCaps, agentName);
    // A chat closed a moment ago may still be closing its session on the agent: reopening must come after.
    await chats.whenClosed(agentName, sessionId);
    // Every path but a recovery (which a restart runs, and which a launch covers through the open chats):
    // a confined agent is launched, or restarted, with the folders the session is expected to work in.
    const declares = this.options.confinement !== undefined && verb !== 'recover';
    if (declares && request.expectedFolders && request.expectedFolders.length > 0)
      await this.options.confinement!.ensureCovers(agentName, request.expectedFolders);
    let connection = await agents.start(agentName);
    const method = methodFor(verb, connection.caps, agentName);
    const chosen = await request.roots(connection);
    if (!chosen) return undefined;
    const { roots, unmapped } = mappedRootSet(agentName, chosen, this.options.mappedFolders?.(agentName));
    // The folders chosen (a folder granted for this reopen, a restored tab's primary folder, which needs no
    // grant) may widen the agent's confinement: the session reopens after the restart. (Not while recovering:
    // a restart reopens its chats that way, and waiting for a restart from inside it would never end.)
    if (declares) {
      await this.options.confinement!.ensureCovers(agentName, rootPaths(roots));
      connection = await agents.start(agentName);
    }
    const { servers, notPassed } = mcp.forAgent(agentName, connection.caps);

    const continues = chat !== undefined && method !== 'fork';
    if (continues) chats.prepareReopen(chat, connection, method);
    else if (method === 'load') router.expectReplay(connection, sessionId);
    // A fork's new id is known only from its answer, and some agents replay the history before they answer.
    const fork = method === 'fork' ? router.expectFork(connection) : undefined;
    let session: AgentSession;
    try {
      session =
        method === 'fork'
          ? await forkSession(connection, sessionId, roots, { mcpServers: servers })
          : await reopenSession(connection, sessionId, roots, { mode: method, mcpServers: servers });
    } catch (error) {
      fork?.done(undefined);
      if (continues) chats.abandonReopen(chat, connection);
      else router.abandonReplay(connection, sessionId);
      throw error;
    }
    fork?.done(session.sessionId);
    if (request.cancelled?.()) {
      if (continues) chats.abandonReopen(chat, connection);
      router.abandonReplay(connection, session.sessionId);
      void connection
        .closer()
        ?.closeSession(session.sessionId)
        .catch(() => undefined);
      return undefined;
    }

    // Recorded before its chat opens, so the chat has its title from the start.
    if (method === 'fork') {
      const { title, parentAgentTitle } = request;
      const forkOf: ForkOrigin | undefined =
        title === undefined ? undefined : { sessionId, title, ...(parentAgentTitle ? { agentTitle: parentAgentTitle } : {}) };
      this.options.record?.(session, undefined, forkOf);
    } else {
      this.options.record?.(session, request.title);
    }
    // In the same turn as the answer: the replayed history is waiting for its chat.
    let target: SessionController | undefined;
    if (continues) {
      chats.reattach(chat, session);
      target = chat;
    } else if (request.withoutChat) {
      sessions.add(session);
    } else {
      request.thread?.reset();
      // A load (or a fork that replays) brings the history before the chat exists: built aside, shown whole.
      target = chats.open(session, { thread: request.thread, replay: method !== 'resume', background: !revealsChat(verb) });
    }
    if (target) {
      // The replay reaches the chat in slices (the extension host stays responsive): it is complete after that.
      await chats.caughtUp(target);
      const replayed = method === 'load' || (method === 'fork' && target.thread.hasConversation);
      // What was built aside (see prepareReopen and Chats.open) is shown now, whole.
      if (continues ? method === 'load' : method !== 'resume') target.thread.endReplay();
      for (const root of unmapped) target.thread.addInfo(l10n.t('Not shared with this session: “{0}” ({1}).', root.name, describeNotShared('not-mapped')));
      for (const line of notPassed) target.thread.addInfo(line);
      target.thread.addInfo(reopenedNote(verb, method, request.title, replayed));
    }
    logger.info(`${verb} ${agentName} session ${sessionId}${method === 'fork' ? ` as ${session.sessionId}` : ''} (${method}) with ${describeRoots(roots)}.`);
    return { session, method, chat: target };
  }

  /**
   * Reopens the session of a chat whose agent exited or restarted ('recover': resume, else load), with the
   * chat's complete root list less the folders the user took back meanwhile (they stay withdrawn: a restart
   * is no consent), plus, with `currentFolders`, the workspace folders shared with the agent since. When the
   * list changed, the chat says so. What goes wrong is said in the chat, with the ways forward; resolves with
   * the reopened session, or undefined.
   */
  async recover(chat: SessionController, options: RestartOptions = {}): Promise<Reopened | undefined> {
    const { chats, logger } = this.options;
    const previous = chat.session;
    try {
      const reopened = await this.reopen({
        verb: 'recover',
        agentName: previous.agentName,
        sessionId: previous.sessionId,
        chat,
        roots: (connection) => Promise.resolve(options.currentFolders ? this.currentRoots(previous, connection) : stillShared(previous)),
        // Closed meanwhile (during a restart, say): nothing more goes to it.
        cancelled: () => !chats.has(chat),
      });
      // The header shows the folders; the chat says that they changed.
      if (reopened?.chat && !sameRootPaths(rootPaths(previous.rootSet), rootPaths(reopened.session.rootSet))) {
        reopened.chat.thread.addInfo(l10n.t('The session’s folders now: {0}.', describeRoots(reopened.session.rootSet)));
      }
      return reopened;
    } catch (error) {
      const message = errorMessage(error);
      logger.warn(`Reopening ${previous.agentName} session ${previous.sessionId}: ${message}`);
      if (!chats.has(chat)) return undefined;
      // Recovering is a load-or-resume row of the policy: unsupported means the agent offers neither.
      if (error instanceof ReopenUnsupportedError)
        chat.reconnectFailed(l10n.t('{0} can neither load nor resume sessions, so this chat cannot continue: start a new session.', previous.agentName), []);
      else chat.reconnectFailed(message, undefined, this.explain(previous.agentName, error));
      return undefined;
    }
  }

  /** The agent's words and the likely cause of a failed start or reopen, when the agent said anything. */
  explain(agentName: string, error: unknown): ExplainedFailure | undefined {
    if (!isExplainable(error)) return undefined;
    return explainFailure(agentName, error, this.options.agents.running(agentName)?.recentStderr ?? [], ['restart', 'reopen']);
  }

  /**
   * A chat's folders as shared now: its own less those withdrawn, and the workspace folders shared with the
   * agent since (when the agent takes more than one folder).
   */
  private currentRoots(previous: AgentSession, connection: AgentConnection): RootSet {
    const kept = stillShared(previous);
    if (!connection.caps.sessions.additionalDirectories) return kept;
    const have = new Set(rootPaths(kept));
    const added = (this.options.sharedFolders?.(previous.agentName) ?? []).filter((root) => !have.has(root.path));
    return added.length === 0 ? kept : createRootSet(kept.cwd, [...kept.additionalDirectories, ...added]);
  }
}

/** The request that serves the verb with these capabilities; throws {@link ReopenUnsupportedError} when none does. */
function methodFor(verb: ReopenVerb, caps: ReopenCaps, agentName: string): ReopenMethod {
  const choice = chooseReopenMethod(verb, caps, agentName);
  if ('reason' in choice) throw new ReopenUnsupportedError(choice.reason);
  return choice.method;
}

/**
 * The session's roots without those withdrawn from it (a revoked grant, a folder removed from the workspace).
 * @throws when its working folder itself was withdrawn: it cannot be reopened there.
 */
function stillShared(session: AgentSession): RootSet {
  const withdrawn = new Set(session.withdrawn);
  const { cwd, additionalDirectories } = session.rootSet;
  if (withdrawn.has(cwd.path)) {
    throw new Error(
      l10n.t(
        "The session's folder “{0}” is no longer in the workspace, so it cannot be reopened there. Start a new session, or open it from the Sessions view.",
        cwd.name,
      ),
    );
  }
  return createRootSet(
    cwd,
    additionalDirectories.filter((root) => !withdrawn.has(root.path)),
  );
}
