/** What went wrong with a program, in words: a spawn that failed, an exit and its last output. */
import * as l10n from '@vscode/l10n';
import type { AgentCommand } from './command';
import { errorMessage } from '../common/errors';

/** Words for a failed spawn: "not found" and "not executable" are the common ones. */
export function describeSpawnError(command: AgentCommand, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') {
    return l10n.t(
      'Could not start {0}: the command "{1}" was not found. Install it, or set its full path in the acpWorkspace.agents setting.',
      command.name,
      command.command,
    );
  }
  if (code === 'EACCES') {
    return l10n.t('Could not start {0}: "{1}" is not executable (permission denied).', command.name, command.command);
  }
  return l10n.t('Could not start {0}: {1}', command.name, errorMessage(error));
}

/** Words for an exit: when, how, and the last lines the agent wrote to stderr. */
export function describeExit(
  name: string,
  code: number | null,
  signal: NodeJS.Signals | null,
  duringInitialize: boolean,
  stderrTail: readonly string[],
): string {
  const how = code === 127 || code === 9009 ? l10n.t('exit code {0}: a command it runs was not found', code) : exitSummary(code, signal);
  const exited = duringInitialize ? l10n.t('{0} exited while starting ({1}).', name, how) : l10n.t('{0} exited ({1}).', name, how);
  return stderrTail.length > 0 ? l10n.t('{0} Its last output: {1}', exited, stderrTail.slice(-3).join(' | ')) : exited;
}

export function exitSummary(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return l10n.t('stopped by signal {0}', signal);
  return code === null ? l10n.t('exit code unknown') : l10n.t('exit code {0}', code);
}
