/**
 * The five ACP `terminal/*` methods on a connection, served by {@link Terminals}. A terminal's cwd must
 * lie inside its session's roots (checked by the session's RootGuard); a session the client does not
 * know cannot start terminals. A `terminal/create` that fails is told to its session before the agent
 * gets the error, so the user sees every command the agent asked for. A session may refuse every command
 * (a remote agent that is not offered the terminal, which is then not advertised either) or admit each one
 * (asked first, confined).
 */
import * as l10n from '@vscode/l10n';
import type { AcpConnection, CancellationToken } from '../acp/connection';
import { TerminalCreateMethod, TerminalKillMethod, TerminalOutputMethod, TerminalReleaseMethod, TerminalWaitForExitMethod } from '../acp/schema';
import type { RootGuard } from '../roots/rootGuard';
import { TerminalError, TerminalErrorCodes } from './terminalError';
import type { CreateTerminalParams, TerminalAdmission, Terminals } from './terminals';

/** What a terminal needs to know about its session. */
export interface TerminalSession {
  readonly guard: RootGuard;
  readonly cwd: string;
  /**
   * Lets each command start and confines it (a remote agent's command: asked first, confined, fail closed);
   * undefined: commands run as the connection's {@link Terminals} runs them. `token`: the request's.
   */
  admit?(token: CancellationToken): TerminalAdmission;
  /**
   * `terminal/create` failed: the folder was refused (a {@link TerminalCwdRefusedError}) or the command could
   * not start. The agent gets the error after this.
   */
  createFailed?(params: CreateTerminalParams, error: TerminalError): void;
  /** Refuses every command before anything is looked at (the terminal is not offered): the error, or undefined. */
  refuse?(params: CreateTerminalParams): TerminalError | undefined;
}

export interface TerminalHandlerOptions {
  /**
   * Whether the connection advertises the terminal (default true). False: the handlers only answer, in words, an
   * agent that asks anyway (`TerminalSession.refuse` says why), and `terminal` is not among the client's
   * capabilities.
   */
  readonly advertise?: boolean;
}

export function registerTerminalHandlers(
  connection: AcpConnection,
  terminals: Terminals,
  sessionOf: (sessionId: string) => TerminalSession | undefined,
  options: TerminalHandlerOptions = {},
): void {
  const registration = { advertise: options.advertise !== false };
  connection.onRequest(
    TerminalCreateMethod,
    async (params, token) => {
      const session = sessionOf(params.sessionId);
      if (!session) {
        throw new TerminalError(TerminalErrorCodes.UnknownTerminal, l10n.t('No open session {0} on this connection.', params.sessionId), {
          sessionId: params.sessionId,
        });
      }
      try {
        const refused = session.refuse?.(params);
        if (refused) throw refused;
        return await terminals.create(params, session.guard, session.cwd, session.admit?.(token));
      } catch (error) {
        if (error instanceof TerminalError) session.createFailed?.(params, error);
        throw error;
      }
    },
    registration,
  );
  connection.onRequest(
    TerminalOutputMethod,
    (params) => {
      const { output, truncated, exitStatus } = terminals.output(params);
      return exitStatus ? { output, truncated, exitStatus: { ...exitStatus } } : { output, truncated };
    },
    registration,
  );
  connection.onRequest(TerminalWaitForExitMethod, async (params, token) => ({ ...(await terminals.waitForExit(params, token)) }), registration);
  connection.onRequest(
    TerminalKillMethod,
    async (params) => {
      await terminals.kill(params);
      return {};
    },
    registration,
  );
  connection.onRequest(
    TerminalReleaseMethod,
    async (params) => {
      await terminals.release(params);
      return {};
    },
    registration,
  );
}
