/**
 * Spawning a program that must not outlive the extension host, however the host ends (a crash, `kill -9`,
 * code-server's process group killed). On POSIX the program leads its own process group (so stopping it can
 * signal everything it started) and a watchdog shares that group: a background `sh` that blocks reading a
 * pipe whose only writer is the host. When the host is gone for any reason the kernel closes that pipe, the
 * read sees its end, and the watchdog ends the whole group (SIGTERM; SIGKILL once the program exited, or after
 * two seconds). It costs nothing
 * while the host lives (no polling). Once the program has exited and its output pipes have closed (nothing it
 * started still writes to them) the host sends the watchdog one line, and it leaves quietly: a watchdog never
 * outlives what it watches, and stopping a group waits only for the program's own processes. The program
 * itself keeps the group leader's pid (`exec`), so its pid, exit code and signal are what callers see.
 *
 * Why not something else: Node cannot set `PR_SET_PDEATHSIG`, cannot put a new child into an existing
 * process group, and a Node watchdog process would cost tens of megabytes per program. On Windows there are no
 * process groups to join; programs are spawned as before (cross-spawn for `.cmd` shims) and end with the
 * host's job only when Windows ends them.
 */
import { spawn, type ChildProcess, type StdioNull, type StdioPipe } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import crossSpawn from 'cross-spawn';
import { envValue } from './environment';

/**
 * Runs as `sh -c WATCHDOG acp-workspace <program> <args…>`: the arguments are positional parameters, never
 * part of the script text. fd 3 is the pipe from the host: a line read means "released", the end of the pipe
 * means the host is gone. The watchdog ignores SIGTERM (the one sent to the group on a stop, and the one it
 * sends its own group), gives the program up to two seconds to exit (`$$`, the shell's pid, is the program's
 * after `exec`), then ends what is left of the group; the program is exec'd without fd 3.
 */
const WATCHDOG = `(trap '' TERM; read -r _ <&3 || { kill -TERM 0 2>/dev/null; n=0; while [ $n -lt 20 ] && kill -0 $$ 2>/dev/null; do sleep 0.1; n=$((n+1)); done; kill -KILL 0 2>/dev/null; }) </dev/null >/dev/null 2>&1 &
exec "$@" 3<&-`;

export interface GroupSpawnOptions {
  readonly cwd: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  /** stdin, stdout, stderr. */
  readonly stdio: readonly [StdioPipe | StdioNull, StdioPipe | StdioNull, StdioPipe | StdioNull];
  /** Windows: pass `args` to the program unquoted (a cmd.exe line). */
  readonly windowsVerbatimArguments?: boolean;
  /** Windows: the program is already cmd.exe with its own command line (no cross-spawn shim lookup). */
  readonly shell?: boolean;
}

/** Spawns `file` with `args` in its own process group, watched (see the module note). */
export function spawnGroup(file: string, args: readonly string[], options: GroupSpawnOptions, platform: NodeJS.Platform = process.platform): ChildProcess {
  if (platform === 'win32') {
    const windowsOptions = {
      cwd: options.cwd,
      env: options.env,
      stdio: [...options.stdio],
      windowsHide: true,
      windowsVerbatimArguments: options.windowsVerbatimArguments,
    };
    // cross-spawn finds Windows .cmd/.bat shims; a shell line is already cmd.exe's own command line.
    return options.shell ? spawn(file, [...args], windowsOptions) : crossSpawn(file, [...args], windowsOptions);
  }
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'acp-workspace', file, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: [...options.stdio, 'pipe'],
    detached: true,
  });
  releaseWatchdogWhenDone(child);
  return child;
}

/** Sends the watchdog its line once the program exited and its stdout and stderr pipes closed. */
function releaseWatchdogWhenDone(child: ChildProcess): void {
  const watch = child.stdio[3] as Writable | null | undefined;
  if (!watch) return;
  // The watchdog may be gone already (killed with its group): writing then fails with EPIPE, harmlessly.
  watch.on('error', () => undefined);
  const outputs = [child.stdout, child.stderr].filter((stream): stream is Readable => stream !== null);
  let waiting = outputs.length + 1;
  const done = (): void => {
    if (--waiting === 0) watch.end('\n');
  };
  child.once('exit', done);
  child.once('error', () => watch.destroy());
  for (const output of outputs) output.once('close', done);
}

/**
 * Why `file` could not be started here, as the error a direct spawn would report (`ENOENT` when it is not
 * found on the PATH or at its path, `EACCES` when it is not executable), or undefined when it can be. A
 * watched program is started by a shell, which would only exit 127; callers check first to say it in words.
 */
export function executableProblem(
  file: string,
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  platform: NodeJS.Platform = process.platform,
): NodeJS.ErrnoException | undefined {
  if (platform === 'win32') return undefined; // cross-spawn and Windows report it themselves
  const problem = (code: 'ENOENT' | 'EACCES') => Object.assign(new Error(`spawn ${file} ${code}`), { code, path: file });
  const candidates = file.includes('/')
    ? [path.resolve(cwd ?? process.cwd(), file)]
    : (envValue(env, 'PATH', platform) ?? '').split(':').map((dir) => path.join(dir === '' ? '.' : dir, file));
  let found = false;
  for (const candidate of candidates) {
    let stats: fs.Stats;
    try {
      stats = fs.statSync(candidate);
    } catch {
      continue;
    }
    if (!stats.isFile()) continue;
    found = true;
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return undefined;
    } catch {
      // Not executable here; a later PATH entry may be.
    }
  }
  return problem(found ? 'EACCES' : 'ENOENT');
}
