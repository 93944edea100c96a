/**
 * Running a package tool once before an agent is first started (`npx --yes --package <pkg@ver> -- node
 * --version`: npm downloads the pinned package into its cache and runs nothing of it): in its own process
 * group (stopping it stops npm's children too), in the extension's storage folder (never the workspace, so no
 * workspace `.npmrc` applies), bounded in time, cancellable; a failure says what the tool wrote last.
 */
import type { ChildProcess } from 'node:child_process';
import * as l10n from '@vscode/l10n';
import { groupGone, killTree } from '../../../process/processTree';
import { executableProblem, spawnGroup } from '../../../process/spawnGroup';
import { StderrLines } from '../../../process/stderrLines';
import { StderrTail } from '../../../process/stderrTail';

/** Ten minutes: a large agent over a slow connection. */
export const DEFAULT_WARM_UP_TIMEOUT_MS = 10 * 60_000;

export interface WarmUpOptions {
  readonly cwd: string;
  /** The whole environment of the process. */
  readonly env: NodeJS.ProcessEnv;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/** Runs a command to completion; how the installer warms a package up (replaceable in tests). */
export type CommandRunner = (command: string, args: readonly string[], options: WarmUpOptions) => Promise<void>;

/** Resolves when the command exited with 0; rejects in words otherwise (its last stderr lines included). */
export const runCommand: CommandRunner = async (command, args, options) => {
  const problem = executableProblem(command, options.env, options.cwd);
  if (problem) throw new Error(l10n.t('{0} could not be started ({1}).', command, problem.code ?? problem.message));
  const tail = new StderrTail();
  const lines = new StderrLines((line) => tail.push(line));
  const child = spawnGroup(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => lines.push(text));
  const timeoutMs = options.timeoutMs ?? DEFAULT_WARM_UP_TIMEOUT_MS;
  let stopped: 'timeout' | 'cancel' | undefined;
  const stop = (why: 'timeout' | 'cancel') => {
    if (stopped) return;
    stopped = why;
    void stopGroup(child);
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = () => stop('cancel');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
    });
    lines.end();
    const said = tail.lines().slice(-8).join('\n');
    const shown = [command, ...args].join(' ');
    if (stopped === 'cancel') throw new Error(l10n.t('Cancelled: {0}', shown));
    if (stopped === 'timeout') throw new Error(l10n.t('{0} did not finish within {1} minutes.', shown, Math.round(timeoutMs / 60_000)));
    if (code !== 0) {
      const how = code !== null ? l10n.t('exit code {0}', code) : l10n.t('signal {0}', signal ?? '?');
      throw new Error(said ? l10n.t('{0} failed ({1}):\n{2}', shown, how, said) : l10n.t('{0} failed ({1}).', shown, how));
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // npm may leave children behind when it is interrupted; none outlives the install.
    if (stopped) await stopGroup(child);
  }
};

async function stopGroup(child: ChildProcess): Promise<void> {
  killTree(child, 'SIGTERM');
  if (!(await groupGone(child, Date.now() + 3000))) killTree(child, 'SIGKILL');
}
