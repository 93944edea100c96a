/**
 * The agent's terminals on a connection (the port's {@link TerminalHost}: create, output, wait for exit, kill,
 * release), served by {@link Terminals}. A terminal's cwd must lie inside its session's roots (checked by the
 * session's RootGuard); a session the client does not know cannot start terminals. A `terminal/create` that fails
 * is told to its session before the agent gets the error, so the user sees every command the agent asked for. A
 * session may refuse every command (a remote agent that is not offered the terminal, which is then not advertised
 * either) or admit each one (asked first, confined). */
import * as l10n from '@vscode/l10n';
import type { CancellationSignal, TerminalHost } from '../acp/port/client';
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
  admit?(token: CancellationSignal): TerminalAdmission;
  /**
   * `terminal/create` failed: the folder was refused (a {@link TerminalCwdRefusedError}) or the command could
   * not start. The agent gets the error after this.
   */
  createFailed?(params: CreateTerminalParams, error: TerminalError): void;
  /** Refuses every command before anything is looked at (the terminal is not offered): the error, or undefined. */
  refuse?(params: CreateTerminalParams): TerminalError | undefined;
}

/**
 * The terminal host a connection serves (`serveTerminals`): {@link Terminals} for the sessions `sessionOf` knows on
 * that connection.
 */
export function terminalHost(terminals: Terminals, sessionOf: (sessionId: string) => TerminalSession | undefined): TerminalHost {
  return {
    create: async (params, token) => {
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
    output: (ref) => terminals.output(ref),
    waitForExit: (ref, token) => terminals.waitForExit(ref, token),
    kill: (ref) => terminals.kill(ref),
    release: (ref) => terminals.release(ref),
  };
}
