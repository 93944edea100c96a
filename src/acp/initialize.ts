/**
 * `initialize` with a time limit, and the words for its failure: the same for an agent process of ours and for
 * an agent behind a URL, so both say the same thing when an agent does not finish starting. The request itself
 * is built by the connection (`AcpConnection.initialize`), which chooses the protocol version from the answer
 * (`protocolVersion.ts`).
 */
import * as l10n from '@vscode/l10n';
import type { AgentCaps } from './capabilities';
import type { InitializeOptions, OwnedAgentConnection } from './agentConnections';
import { ConnectionClosedError } from './errors';
import { systemClock, type Clock, type TimerHandle } from '../common/clock';
import { errorMessage } from '../common/errors';

/** The agent did not answer `initialize` within its time limit. */
export class InitializeTimeoutError extends Error {
  override name = 'InitializeTimeoutError';
}

export interface InitializeLimit {
  /** The agent's display name, for the message. */
  readonly agent: string;
  readonly timeoutMs: number;
  readonly clock?: Clock;
}

/**
 * Sends `initialize` and resolves with the agent's capabilities; rejects with an {@link InitializeTimeoutError}
 * when no answer comes within `limit.timeoutMs`, or with the connection's error (a closed connection, another
 * protocol version: {@link AcpConnection.initialize} has then closed it). The caller ends the connection on failure.
 */
export async function initializeWithin(connection: OwnedAgentConnection, options: InitializeOptions, limit: InitializeLimit): Promise<AgentCaps> {
  const clock = limit.clock ?? systemClock;
  const { agent, timeoutMs } = limit;
  let timer: TimerHandle | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = clock.setTimeout(
      () =>
        reject(
          new InitializeTimeoutError(
            timeoutMs < 1000
              ? l10n.t('{0} did not finish starting within {1} ms.', agent, timeoutMs)
              : l10n.t('{0} did not finish starting within {1} s.', agent, Math.round(timeoutMs / 1000)),
          ),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([connection.initialize(options), timeout]);
  } finally {
    clock.clearTimeout(timer);
  }
}

/** Why `initialize` failed, in words: a closed connection's own reason (an exit, a dropped link), else the error's message. */
export function initializeFailureMessage(error: unknown): string {
  return error instanceof ConnectionClosedError ? error.reason : errorMessage(error);
}
