/** What went wrong with a program, in words: a spawn that failed, an exit and its last output. */
import type { AgentCommand } from './command';

/** Words for a failed spawn: "not found" and "not executable" are the common ones. */
export function describeSpawnError(command: AgentCommand, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') {
    return `Could not start ${command.name}: the command "${command.command}" was not found. Install it, or set its full path in the acpWorkspace.agents setting.`;
  }
  if (code === 'EACCES') {
    return `Could not start ${command.name}: "${command.command}" is not executable (permission denied).`;
  }
  return `Could not start ${command.name}: ${error instanceof Error ? error.message : String(error)}`;
}

/** Words for an exit: when, how, and the last lines the agent wrote to stderr. */
export function describeExit(
  name: string,
  code: number | null,
  signal: NodeJS.Signals | null,
  duringInitialize: boolean,
  stderrTail: readonly string[],
): string {
  const when = duringInitialize ? `${name} exited while starting` : `${name} exited`;
  let how = ` (${exitSummary(code, signal)})`;
  if (code === 127 || code === 9009) how = ` (exit code ${code}: a command it runs was not found)`;
  const tail = stderrTail.length > 0 ? ` Its last output: ${stderrTail.slice(-3).join(' | ')}` : '';
  return `${when}${how}.${tail}`;
}

export function exitSummary(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `stopped by signal ${signal}`;
  return `exit code ${code ?? 'unknown'}`;
}
