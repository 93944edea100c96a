/**
 * An agent's failure as a chat shows it: the agent's own words (its last stderr lines, its error's details),
 * the likely cause and next step, and the buttons (see process/startFailure for the diagnosis).
 */
import { AgentRequestError } from '../../acp/errors';
import { AgentStartError, describeStartFailure } from '../../process/startFailure';
import type { ErrorAction } from '../../shared/chatModel';

export interface ExplainedFailure {
  readonly said: readonly string[];
  readonly advice: string | undefined;
  readonly actions: ErrorAction[];
}

/** Whether there is more to say about this error than its message (the agent answered or failed to start). */
export function isExplainable(error: unknown): boolean {
  return error instanceof AgentRequestError || error instanceof AgentStartError;
}

/**
 * The explanation of an error of `agent`: `stderr` is its recent stderr (an {@link AgentStartError} carries
 * its own); `actions` are the chat's own ways forward, put after the diagnosis's. `remote`: the agent runs
 * elsewhere (no stderr here, and a refused token is set, not signed in).
 */
export function explainFailure(agent: string, error: unknown, stderr: readonly string[], actions: readonly ErrorAction[], remote = false): ExplainedFailure {
  const failure = describeStartFailure({ agent, error, stderr: error instanceof AgentStartError ? error.stderr : stderr, remote });
  const all: ErrorAction[] = [...failure.actions];
  for (const action of actions) if (!all.includes(action)) all.push(action);
  return { said: failure.agentWords, advice: failure.advice, actions: all };
}
