/**
 * What to spawn for `terminal/create`'s `command` + `args`.
 *
 * ACP says `command` is "the command to execute" and `args` its arguments, but many agents send a whole
 * shell line as `command` and no `args` (`"npm test && echo done"`, `"ls -la | head"`). So:
 *
 * - `args` given (even with shell characters in them): the command is run directly, without a shell,
 *   with exactly those arguments (cross-spawn finds `.cmd`/`.bat` shims on Windows).
 * - no `args`, and `command` contains whitespace or a character the platform shell gives a meaning to
 *   (POSIX: `| & ; < > ( ) $ \` \\ " ' * ? [ ] # ~ { } !`; Windows: `& | < > ^ ( ) % ! "`): it is run as a
 *   shell line, `/bin/sh -c <command>` on POSIX, `%ComSpec% /d /s /c "<command>"` on Windows (what Node's
 *   own `shell: true` does). One exception: when `command` is the path of an existing file (an
 *   executable under a folder with a space in its name, say), it is run directly.
 * - otherwise (a bare program name or path): run directly.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { envValue } from '../process/environment';

/** How to start the command. */
export interface CommandPlan {
  /** The program to spawn. */
  readonly file: string;
  readonly args: readonly string[];
  /** True when `command` is run as a shell line. */
  readonly shell: boolean;
  /** Pass `args` to Windows unquoted (cmd.exe's own quoting rules apply to the line). */
  readonly windowsVerbatimArguments: boolean;
  /** The command as a person would type it, for display. */
  readonly display: string;
}

const POSIX_SHELL_SYNTAX = /[\s|&;<>()$`\\"'*?[\]#~{}!]/;
const WINDOWS_SHELL_SYNTAX = /[\s&|<>^()%!"]/;

/** Whether a `command` without `args` has to go through the platform shell (see the module note). */
export function looksLikeShellLine(command: string, platform: NodeJS.Platform = process.platform): boolean {
  return (platform === 'win32' ? WINDOWS_SHELL_SYNTAX : POSIX_SHELL_SYNTAX).test(command);
}

/**
 * Decides how to run `command` + `args` in `cwd` (see the module note).
 * @param env the environment the command will get (for `ComSpec` on Windows).
 */
export async function planCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<CommandPlan> {
  const direct: CommandPlan = { file: command, args, shell: false, windowsVerbatimArguments: false, display: displayLine(command, args) };
  if (args.length > 0 || !looksLikeShellLine(command, platform)) return direct;
  if (await isExistingFile(command, cwd, platform)) return direct;
  if (platform === 'win32') {
    const comSpec = envValue(env, 'ComSpec', platform) ?? 'cmd.exe';
    return { file: comSpec, args: ['/d', '/s', '/c', `"${command}"`], shell: true, windowsVerbatimArguments: true, display: command };
  }
  return { file: '/bin/sh', args: ['-c', command], shell: true, windowsVerbatimArguments: false, display: command };
}

/** `command` and `args` joined for display, arguments with spaces or quotes quoted. */
export function displayLine(command: string, args: readonly string[]): string {
  return [command, ...args].map((part) => (part === '' || /[\s"'\\$`]/.test(part) ? JSON.stringify(part) : part)).join(' ');
}

/** Whether `command` names an existing file by path (absolute, or relative to `cwd` with a separator in it). */
async function isExistingFile(command: string, cwd: string, platform: NodeJS.Platform): Promise<boolean> {
  const separators = platform === 'win32' ? /[\\/]/ : /\//;
  if (!separators.test(command)) return false;
  const pathApi = platform === 'win32' ? path.win32 : path.posix;
  try {
    return (await fs.promises.stat(pathApi.resolve(cwd, command))).isFile();
  } catch {
    return false;
  }
}
