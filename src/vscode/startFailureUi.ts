/**
 * An agent that failed to start a session says why: what failed, its own last stderr lines and error details,
 * the likely cause and the next step, with the actions that apply (Sign In, Set Token… for a remote agent whose
 * server refused the token, Show Log, Restart Agent, Open Settings). The log gets the whole stderr tail. Integration tests replace the notification (TestApi).
 */
import * as vscode from 'vscode';
import { isRemoteAgent } from '../agents/agentConfig';
import type { AgentRegistry } from '../agents/agentRegistry';
import { describeStartFailure, startFailureText, type FailureAction, type StartFailure } from '../process/startFailure';

/** Lines of the agent's words in a notification. */
const NOTIFICATION_LINES = 3;

/** Shows a failure and resolves with the action the user chose. */
export interface StartFailureUi {
  show(failure: StartFailure): Promise<FailureAction | undefined>;
}

/** The button of each action (a function: t() runs after activate() set the bundle). */
export const actionLabels = (): Record<FailureAction, string> => ({
  signIn: vscode.l10n.t('Sign In'),
  setToken: vscode.l10n.t('Set Token…'),
  showLog: vscode.l10n.t('Show Log'),
  restart: vscode.l10n.t('Restart Agent'),
  openSettings: vscode.l10n.t('Open Settings'),
});

/** The notification: what failed, the agent's last words, the likely cause and next step, and the buttons. */
export const vscodeStartFailureUi: StartFailureUi = {
  async show(failure) {
    // A notification shows one paragraph: the last few lines of the agent's words (the log has them all).
    const message = startFailureText(failure, NOTIFICATION_LINES);
    const label = actionLabels();
    const choice = await vscode.window.showErrorMessage(message, ...failure.actions.map((action) => label[action]));
    return failure.actions.find((action) => label[action] === choice);
  },
};

/** What is known about a failure of the agent's start or session start, the agent's stderr tail included. */
export function startFailureOf(agents: AgentRegistry, error: unknown, fallbackAgent: string | undefined): StartFailure | undefined {
  const agent = agentOf(error) ?? fallbackAgent;
  if (!agent) return undefined;
  const status = agents.find(agent);
  const stderr = status?.process?.recentStderr ?? stderrOf(error);
  const remote = status !== undefined && isRemoteAgent(status.definition);
  const failure = describeStartFailure({
    agent,
    error,
    stderr,
    remote,
    command: status && !isRemoteAgent(status.definition) ? status.definition.command : undefined,
  });
  // A guess at signing in is offered only when the agent offers a way to (an agent that asked for it says so itself).
  const canSignIn = failure.cause === 'auth' || (status?.process?.caps?.authMethods.length ?? 0) > 0;
  return canSignIn ? failure : { ...failure, actions: failure.actions.filter((action) => action !== 'signIn') };
}

/** Logs the failure with the whole stderr tail. */
export function logStartFailure(log: vscode.LogOutputChannel, failure: StartFailure, stderr: readonly string[]): void {
  log.error(startFailureText(failure));
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
