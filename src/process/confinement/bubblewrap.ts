/**
 * Linux confinement with bubblewrap (`bwrap`): a mount namespace in which only the policy's paths are
 * writable (and, in `strict`, only the system's and the policy's are there at all). The recipe follows
 * Codex's linux-sandbox and `@anthropic-ai/sandbox-runtime`, and docs/confinement.md as verified here:
 *
 * - `writes`: `--ro-bind / /`, a fresh `/dev` and `/proc`, then `--bind p p` for each writable path and the
 *   private temporary folder, then `--ro-bind` again over the re-protected paths (`policy.readOnly`).
 *   The host's `/tmp` is there but read-only; TMPDIR points at the private folder (a tool that insists on
 *   `/tmp` itself fails with EROFS, which is the point).
 * - `strict`: the system folders that exist ({@link STRICT_SYSTEM_PATHS}; a merged-/usr symlink such as
 *   `/bin -> usr/bin` is recreated as the same symlink), `/dev`, `/proc`, then the readable and writable
 *   paths parents first (plus what it takes to start the program and its cwd, read-only), the re-protected
 *   ones, and `--remount-ro /` so the sandbox's own root (a tmpfs) takes no writes either: nothing else of
 *   the host, not even `/tmp` or `$HOME`, is visible.
 *
 * Missing writable paths are created (as folders) first; see {@link openedPaths}. Every path is an argv
 * element (no shell): spaces and quotes need nothing.
 *
 * Deliberately not used:
 * - `--die-with-parent`: bwrap dies at once on the SIGTERM a stop sends the process group, and would then
 *   SIGKILL the agent before it had its grace period (measured with bubblewrap 0.8.0: a TERM trap never ran).
 *   Without it the agent gets the same SIGTERM and its grace; ending with the extension host is the job of
 *   spawnGroup's watchdog, which ends the whole process group (bwrap, the agent and everything it started).
 * - `--new-session`: it would move the agent out of the process group the watchdog and stops signal. The
 *   agent has no controlling terminal to inject input into anyway (spawnGroup starts it in a new session).
 * - `--unshare-net`: network is not restricted; `--unshare-pid`: stops signal the group, not a pid namespace.
 */
import * as fs from 'node:fs';
import { openedPaths, isInside, nodePreloads, programPaths, protectedPaths, withPrivateTemp } from './paths';
import type { ConfinedCommand, ConfinementPolicy, Confiner } from './types';

/** What `strict` shows of the system (those that exist): programs, libraries, configuration, DNS. */
export const STRICT_SYSTEM_PATHS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/run/systemd/resolve'];

export class Bubblewrap implements Confiner {
  readonly mechanism = 'bubblewrap';

  /**
   * @param description in words for the UI, e.g. "bubblewrap 0.8.0".
   * @param program the `bwrap` to run (a path, or a name looked up on the command's PATH).
   */
  constructor(
    readonly description = 'bubblewrap',
    private readonly program = 'bwrap',
  ) {}

  wrap(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string | undefined, policy: ConfinementPolicy): ConfinedCommand {
    return withPrivateTemp(this.program, env, (temp) => bubblewrapArgs(file, args, env, cwd, policy, temp));
  }
}

/** bwrap's arguments to run `file args` in `cwd` confined by `policy`, with `temp` as the private temporary folder. */
export function bubblewrapArgs(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string | undefined, policy: ConfinementPolicy, temp: string): string[] {
  const result: string[] = [];
  if (policy.mode === 'writes') {
    result.push('--ro-bind', '/', '/');
  } else {
    for (const system of STRICT_SYSTEM_PATHS) {
      let stats: fs.Stats;
      try {
        stats = fs.lstatSync(system);
      } catch {
        continue;
      }
      if (stats.isSymbolicLink()) result.push('--symlink', fs.readlinkSync(system), system);
      else result.push('--ro-bind', system, system);
    }
  }
  result.push('--dev', '/dev', '--proc', '/proc');
  // In strict mode the program and the cwd must be there to start at all (read-only unless the policy opens them).
  const reachable = policy.mode === 'strict' ? [...programPaths(file, env, cwd), ...nodePreloads(env), ...(cwd ? [cwd] : [])].filter((p) => !STRICT_SYSTEM_PATHS.some((s) => isInside(p, s))) : [];
  for (const opened of [...openedPaths(policy, reachable), { path: temp, writable: true }]) {
    result.push(opened.writable ? '--bind' : '--ro-bind', opened.path, opened.path);
  }
  for (const kept of protectedPaths(policy)) result.push('--ro-bind', kept, kept);
  if (policy.mode === 'strict') result.push('--remount-ro', '/');
  // In strict mode only real paths exist inside (a symlinked cwd's link is not there).
  if (cwd) result.push('--chdir', policy.mode === 'strict' ? realPathOr(cwd) : cwd);
  result.push('--', file, ...args);
  return result;
}

function realPathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
