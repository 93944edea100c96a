/**
 * Which request reopens a session, for each way a user reopens one. One table for every path: the Sessions
 * view's Open, Resume and Fork, a chat tab restored after a window reload, a chat recovering from an agent
 * that exited, and a session reopened with the workspace's current folders. The rows for which an action
 * is offered in the Sessions view come from the same table.
 *
 * The rule behind the order: when the chat is empty (a new tab, a tab restored after a reload) the history
 * is worth replaying, so `session/load` comes first; when the chat still shows the conversation (after a
 * crash, after the folders changed) a replay would only repeat it, so `session/resume` comes first.
 */
import * as l10n from '@vscode/l10n';
import type { AgentCaps } from '../acp/capabilities';

/** How the user reopens a session. */
export type ReopenVerb =
  /** Open from the Sessions view, into a new chat. */
  | 'open'
  /** Resume from the Sessions view: continue without the history. */
  | 'resume'
  /** Fork from the Sessions view: a new session with the history. */
  | 'fork'
  /** A chat tab VS Code restored after a window reload. */
  | 'restore'
  /** A chat whose agent exited (Reopen Session, Restart Agent). */
  | 'recover'
  /** A chat or session reopened with the workspace's current folders. */
  | 'refolder';

/** The lifecycle requests that continue an existing session. */
export type ReopenMethod = 'load' | 'resume' | 'fork';

/** For each verb, the requests that may serve it, in order of preference. */
export const REOPEN_POLICY: Readonly<Record<ReopenVerb, readonly ReopenMethod[]>> = {
  open: ['load', 'resume'],
  restore: ['load', 'resume'],
  resume: ['resume'],
  fork: ['fork'],
  recover: ['resume', 'load'],
  refolder: ['resume', 'load'],
};

/** What an agent advertised that matters here (it may come from a run before this one). */
export type ReopenCaps = Pick<AgentCaps, 'loadSession' | 'sessions'>;

export function supportsMethod(method: ReopenMethod, caps: ReopenCaps): boolean {
  switch (method) {
    case 'load':
      return caps.loadSession;
    case 'resume':
      return caps.sessions.resume;
    case 'fork':
      return caps.sessions.fork;
  }
}

/** The request to send for `verb` to an agent with `caps`, or why there is none (in words). */
export function chooseReopenMethod(verb: ReopenVerb, caps: ReopenCaps, agentName: string): { method: ReopenMethod } | { reason: string } {
  const methods = REOPEN_POLICY[verb];
  const method = methods.find((m) => supportsMethod(m, caps));
  if (method) return { method };
  if (methods.length > 1) return { reason: l10n.t('{0} can neither load nor resume sessions.', agentName) };
  return {
    reason:
      methods[0] === 'fork'
        ? l10n.t('{0} does not support forking sessions (session/fork).', agentName)
        : l10n.t('{0} does not support resuming sessions (session/resume).', agentName),
  };
}

/** Thrown when the agent offers no request for what the user asked; the message says why. */
export class ReopenUnsupportedError extends Error {
  override readonly name = 'ReopenUnsupportedError';
}
