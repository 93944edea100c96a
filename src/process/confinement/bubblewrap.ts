/**
 * Linux confinement with bubblewrap (`bwrap`): new user, PID and mount namespaces in which only the policy's
 * paths are writable (and, in `strict`, only the system's and the policy's are there at all), without
 * capabilities, seeing no process of the host. The recipe follows Codex's linux-sandbox and
 * `@anthropic-ai/sandbox-runtime`, and docs/confinement.md as verified here:
 *
 * - `writes`: `--ro-bind / /`, a fresh `/dev` and `/proc`, then `--bind p p` for each writable path and the
 *   private temporary folder, then what stays in place (`--bind p p` again: a mount point cannot be renamed or
 *   removed) and what stays read-only (`--ro-bind`) in the folders ({@link folderProtection}) and
 *   `policy.readOnly`. The host's `/tmp` is there but read-only; TMPDIR points at the private folder (a tool
 *   that insists on `/tmp` itself fails with EROFS, which is the point).
 * - `strict`: the system folders that exist ({@link STRICT_SYSTEM_PATHS}; a merged-/usr symlink such as
 *   `/bin -> usr/bin` is recreated as the same symlink), `/dev`, `/proc`, then the readable and writable
 *   paths parents first (plus what it takes to start the program and its cwd, read-only), the protected ones,
 *   and `--remount-ro /` so the sandbox's own root (a tmpfs) takes no writes either: nothing else of the host,
 *   not even `/tmp` or `$HOME`, is visible.
 *
 * Missing writable paths are created (as folders) first; see {@link openedPaths}. Protected paths that do not
 * exist yet are held by placeholders (placeholders.ts). Every path is an argv element (no shell): spaces and
 * quotes need nothing.
 *
 * Root (containers, code-server) is the case that matters: without a user namespace bwrap leaves root's
 * capabilities to the sandbox (remount `/` writable, `nsenter` into the host's mount namespace), and without a
 * PID namespace `/proc/<host pid>/root` is the host's whole file system. So always `--unshare-user --cap-drop
 * ALL` (no capabilities, whoever starts it) and `--unshare-pid` with a fresh `/proc` (no host process to
 * reach or signal).
 *
 * Process lifetime: the sandbox's PID 1 is {@link SUPERVISOR}, a shell that stays in the process group the
 * extension signals (so a stop's SIGTERM and the watchdog's signals reach it) and starts the program in a
 * session of its own (`setsid`): nothing the agent runs can signal that group (the watchdog, bwrap) or leave
 * the sandbox's lifetime. It forwards SIGTERM to the program's group and exits with the program's status;
 * when PID 1 exits the kernel ends every process left in the namespace, so a daemon that left the program's
 * group (`setsid … &`) ends with the agent, on its own exit, a stop, or the host's death. bwrap itself ends
 * at a stop's SIGTERM (it has no handler); the sandbox does not depend on it, and the stop waits for the
 * group (the supervisor) to be gone, so the agent keeps its grace period.
 *
 * Deliberately not used:
 * - `--die-with-parent`: bwrap dies at once on the SIGTERM a stop sends the process group, and would then
 *   SIGKILL the sandbox before the agent had its grace period (measured with bubblewrap 0.8.0: a TERM trap
 *   never ran). Ending with the extension host is the job of spawnGroup's watchdog, which signals the whole
 *   group (the supervisor with it).
 * - `--new-session`: it would move the supervisor out of the process group the watchdog and stops signal; the
 *   program gets its own session from the supervisor instead. No terminal is involved either way.
 * - bwrap's own PID 1 (without `--as-pid-1`): it waits for every process in the namespace, so a daemon would
 *   keep the sandbox alive after the agent exited.
 * - `--disable-userns`: an agent that sandboxes its own commands (codex-acp runs its own bwrap) needs user
 *   namespaces inside ours. Mounts made by us are locked for a namespace inside: it cannot uncover them.
 * - `--unshare-net`: the network is not restricted.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import { openedPaths, isInside, nodePreloads, programPaths, protectedPaths, withPrivateTemp } from './paths';
import type { PlaceholderLease } from './placeholders';
import { folderProtection } from './protectedPaths';
import { ConfinementUnavailableError, type ConfinedCommand, type ConfinementPolicy, type Confiner } from './types';

/** What `strict` shows of the system (those that exist): programs, libraries, configuration, DNS. */
export const STRICT_SYSTEM_PATHS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/run/systemd/resolve'];

/** Namespaces and capabilities, whoever starts bwrap (see the module note). */
export const NAMESPACE_ARGS: readonly string[] = ['--unshare-user', '--unshare-pid', '--as-pid-1', '--cap-drop', 'ALL'];

/**
 * The sandbox's PID 1, `sh -c SUPERVISOR acp-workspace-sandbox <setsid> <program> <args…>`: starts the program
 * in a session of its own with the supervisor's stdin (an asynchronous command would get /dev/null), passes a
 * SIGTERM on to the program's group (also one that came before the program started), and exits with the
 * program's status once it has exited.
 */
export const SUPERVISOR = `s=$1; shift; t=; c=
trap 't=1; [ -z "$c" ] || kill -TERM -"$c" 2>/dev/null' TERM
exec 9<&0
"$s" -- "$@" <&9 9<&- &
c=$!
exec 9<&-
[ -z "$t" ] || kill -TERM -"$c" 2>/dev/null
while :; do wait "$c"; r=$?; kill -0 "$c" 2>/dev/null || exit "$r"; done`;

/** Where util-linux's `setsid` usually is. */
export const SETSID_CANDIDATES: readonly string[] = ['/usr/bin/setsid', '/bin/setsid', '/usr/local/bin/setsid'];

/** The first `setsid` that exists, or undefined. */
export function findSetsid(): string | undefined {
  return SETSID_CANDIDATES.find((candidate) => {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export class Bubblewrap implements Confiner {
  readonly mechanism = 'bubblewrap';

  /**
   * @param description in words for the UI, e.g. "bubblewrap 0.8.0".
   * @param program the `bwrap` to run (a path, or a name looked up on the command's PATH).
   * @param setsid util-linux's `setsid` (found when left out).
   */
  constructor(
    readonly description = 'bubblewrap',
    private readonly program = 'bwrap',
    private readonly setsid = findSetsid(),
  ) {}

  wrap(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string | undefined, policy: ConfinementPolicy): ConfinedCommand {
    const setsid = this.setsid;
    if (!setsid) throw setsidMissing();
    return withPrivateTemp(this.program, env, (temp, placeholders) => bubblewrapArgs(file, args, env, cwd, policy, temp, placeholders, setsid));
  }
}

/** Made when thrown, so its text is in the language the bundle was configured with. */
export function setsidMissing(): ConfinementUnavailableError {
  return new ConfinementUnavailableError(
    l10n.t('setsid (util-linux), which confinement needs to end everything an agent starts with it, was not found in {0}.', SETSID_CANDIDATES.join(', ')),
    l10n.t('Install util-linux (it is part of every common Linux distribution), or set acpWorkspace.sandbox to "off" to run agents unconfined.'),
  );
}

/**
 * bwrap's arguments to run `file args` in `cwd` confined by `policy`, with `temp` as the private temporary
 * folder; `placeholders` holds what protects paths that do not exist yet (none are made without it).
 */
export function bubblewrapArgs(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  policy: ConfinementPolicy,
  temp: string,
  placeholders?: PlaceholderLease,
  setsid = '/usr/bin/setsid',
): string[] {
  const result: string[] = [...NAMESPACE_ARGS];
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
  const reachable =
    policy.mode === 'strict'
      ? [...programPaths(file, env, cwd), ...nodePreloads(env), ...(cwd ? [cwd] : [])].filter((p) => !STRICT_SYSTEM_PATHS.some((s) => isInside(p, s)))
      : [];
  const opened = openedPaths(policy, reachable);
  for (const path of [...opened, { path: temp, writable: true }]) {
    result.push(path.writable ? '--bind' : '--ro-bind', path.path, path.path);
  }
  for (const kept of protectedMounts(policy, placeholders)) result.push(kept.writable ? '--bind' : '--ro-bind', kept.path, kept.path);
  if (policy.mode === 'strict') result.push('--remount-ro', '/');
  // In strict mode only real paths exist inside (a symlinked cwd's link is not there).
  if (cwd) result.push('--chdir', policy.mode === 'strict' ? realPathOr(cwd) : cwd);
  result.push('--', '/bin/sh', '-c', SUPERVISOR, 'acp-workspace-sandbox', setsid, file, ...args);
  return result;
}

/**
 * The mounts that keep the folders' protected paths in place (writable) or read-only, parents first, after
 * their placeholders are held. A protected name that is a symbolic link fails the start: a mount cannot hold a
 * link in place, so the agent could swap it for something of its own.
 */
function protectedMounts(policy: ConfinementPolicy, placeholders: PlaceholderLease | undefined): { path: string; writable: boolean }[] {
  const protection = folderProtection(policy);
  const link = protection.links[0];
  if (link) {
    throw new ConfinementUnavailableError(
      l10n.t(
        '{0} is a symbolic link (to {1}), which confinement cannot hold in place: the agent could replace it with something of its own that other programs then obey.',
        link.path,
        link.target,
      ),
      l10n.t('Replace the link with what it points to, or set acpWorkspace.sandbox to "off" to run agents unconfined.'),
    );
  }
  // Held whether they exist or not: one another command made must stay while this one runs.
  placeholders?.hold(protection.readOnly.filter((p) => p.placeholder));
  const readOnly = [...protection.readOnly.filter((p) => exists(p.path)).map((p) => p.path), ...protectedPaths(policy)];
  // A writable mount inside a read-only one would open it again.
  const pinned = protection.pinned.filter((p) => !readOnly.some((r) => isInside(p, r)));
  const mounts = [...pinned.map((p) => ({ path: p, writable: true })), ...readOnly.map((p) => ({ path: p, writable: false }))];
  return mounts.sort((a, b) => depth(a.path) - depth(b.path) || Number(b.writable) - Number(a.writable) || a.path.localeCompare(b.path));
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function depth(p: string): number {
  return p.split('/').filter(Boolean).length;
}

function realPathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
