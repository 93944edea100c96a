/**
 * An agent that failed to start a session says why: what failed, its own last stderr lines and error details,
 * the likely cause and the next step, with the actions that apply (Sign In, Show Log, Restart Agent, Open
 * Settings). The log gets the whole stderr tail. Integration tests replace the notification (TestApi).
 */
import * as vscode from 'vscode';
import type { AgentRegistry } from '../agents/agentRegistry';
import { describeStartFailure, type FailureAction, type StartFailure } from '../process/startFailure';

/** Shows a failure and resolves with the action the user chose. */
export interface StartFailureUi {
  show(failure: StartFailure): Promise<FailureAction | undefined>;
}

export const ACTION_LABELS: Record<FailureAction, string> = {
  signIn: 'Sign In',
  showLog: 'Show Log',
  restart: 'Restart Agent',
  openSettings: 'Open Settings',
};

/** The notification: the summary as its message, the agent's words and the advice as its detail. */
export const vscodeStartFailureUi: StartFailureUi = {
  async show(failure) {
    const said = failure.agentWords.length > 0 ? `${failure.agent} said:\n${failure.agentWords.join('\n')}` : undefined;
    const message = [failure.summary, said, failure.advice].filter((part) => part !== undefined).join('\n\n');
    const labels = failure.actions.map((action) => ACTION_LABELS[action]);
    const choice = await vscode.window.showErrorMessage(message, ...labels);
    return failure.actions.find((action) => ACTION_LABELS[action] === choice);
  },
};

/** What is known about a failure of the agent's start or session start, the agent's stderr tail included. */
export function startFailureOf(agents: AgentRegistry, error: unknown, fallbackAgent: string | undefined): StartFailure | undefined {
  const agent = agentOf(error) ?? fallbackAgent;
  if (!agent) return undefined;
  const status = agents.find(agent);
  const stderr = status?.process?.recentStderr ?? stderrOf(error);
  return describeStartFailure({ agent, error, stderr, command: status?.definition.command });
}

/** Logs the failure with the whole stderr tail. */
export function logStartFailure(log: vscode.LogOutputChannel, failure: StartFailure, stderr: readonly string[]): void {
  log.error(`${failure.summary}${failure.advice ? ` ${failure.advice}` : ''}`);
  if (stderr.length > 0) log.error(`${failure.agent}'s last stderr lines:\n  ${stderr.join('\n  ')}`);
}

function agentOf(error: unknown): string | undefined {
  const agent = typeof error === 'object' && error !== null ? (error as { agent?: unknown }).agent : undefined;
  return typeof agent === 'string' ? agent : undefined;
}

function stderrOf(error: unknown): readonly string[] {
  const stderr = typeof error === 'object' && error !== null ? (error as { stderr?: unknown }).stderr : undefined;
  return Array.isArray(stderr) ? stderr.filter((line): line is string => typeof line === 'string') : [];
}
