/**
 * The five ACP `terminal/*` methods on a connection, served by {@link Terminals}. A terminal's cwd must
 * lie inside its session's roots (checked by the session's RootGuard); a session the client does not
 * know cannot start terminals. A `terminal/create` that fails is told to its session before the agent
 * gets the error, so the user sees every command the agent asked for.
 */
import * as l10n from '@vscode/l10n';
import type { AcpConnection } from '../acp/connection';
import { TerminalCreateMethod, TerminalKillMethod, TerminalOutputMethod, TerminalReleaseMethod, TerminalWaitForExitMethod } from '../acp/schema';
import type { RootGuard } from '../roots/rootGuard';
import { TerminalError, TerminalErrorCodes } from './terminalError';
import type { CreateTerminalParams, Terminals } from './terminals';

/** What a terminal needs to know about its session. */
export interface TerminalSession {
  readonly guard: RootGuard;
  readonly cwd: string;
  /**
   * `terminal/create` failed: the folder was refused (a {@link TerminalCwdRefusedError}) or the command could
   * not start. The agent gets the error after this.
   */
  createFailed?(params: CreateTerminalParams, error: TerminalError): void;
}

export function registerTerminalHandlers(connection: AcpConnection, terminals: Terminals, sessionOf: (sessionId: string) => TerminalSession | undefined): void {
  connection.onRequest(TerminalCreateMethod, async (params) => {
    const session = sessionOf(params.sessionId);
    if (!session) {
      throw new TerminalError(TerminalErrorCodes.UnknownTerminal, l10n.t('No open session {0} on this connection.', params.sessionId), { sessionId: params.sessionId });
    }
    try {
      return await terminals.create(params, session.guard, session.cwd);
    } catch (error) {
      if (error instanceof TerminalError) session.createFailed?.(params, error);
      throw error;
    }
  });
  connection.onRequest(TerminalOutputMethod, (params) => {
    const { output, truncated, exitStatus } = terminals.output(params);
    return exitStatus ? { output, truncated, exitStatus: { ...exitStatus } } : { output, truncated };
  });
  connection.onRequest(TerminalWaitForExitMethod, async (params, token) => ({ ...(await terminals.waitForExit(params, token)) }));
  connection.onRequest(TerminalKillMethod, async (params) => {
    await terminals.kill(params);
    return {};
  });
  connection.onRequest(TerminalReleaseMethod, async (params) => {
    await terminals.release(params);
    return {};
  });
}
