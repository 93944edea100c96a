/**
 * macOS confinement with Seatbelt: `sandbox-exec -p <profile> -D NAME=path… <file> <args…>`, the profile
 * generated from the policy.
 *
 * - `writes`: `(allow default)`, `(deny file-write*)`, then writes allowed under each writable path, the
 *   private temporary folder and the few devices every program writes (`/dev/null`, terminals, `/dev/fd`),
 *   then denied again under the re-protected paths (`policy.readOnly`; later rules win in SBPL).
 * - `strict`: also `(deny file-read*)`, with reads allowed of the system ({@link SEATBELT_SYSTEM_PATHS}),
 *   `/dev`, the readable and writable paths, and what it takes to start the program and its cwd; metadata
 *   (stat, following a path) stays allowed everywhere, contents and listings do not.
 *
 * Paths never appear in the profile text: each is passed with `-D NAME=path` and named `(param "NAME")`, so a
 * path needs no SBPL quoting (quotes, backslashes, newlines are all just bytes of a parameter). Seatbelt
 * matches real paths (`/tmp` is `/private/tmp`), so every path is resolved first.
 *
 * Not run by the unit tests (they run on Linux): they check the profile text and the parameters only.
 */
import { isInside, openedPaths, nodePreloads, programPaths, protectedPaths, withPrivateTemp } from './paths';
import type { ConfinedCommand, ConfinementPolicy, Confiner } from './types';

/** What `strict` lets every program read (subpaths): the OS, developer tools, Homebrew, configuration, zoneinfo. */
export const SEATBELT_SYSTEM_PATHS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/System',
  '/Library',
  '/Applications/Xcode.app',
  '/opt/homebrew',
  '/private/etc',
  '/private/var/db/timezone',
  '/private/var/db/dyld',
  '/private/var/select',
  '/dev',
];

/** Devices any program writes: the null device, terminals, its own descriptors. */
const DEVICE_WRITES = '(literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$") (subpath "/dev/fd")';

export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

export class Seatbelt implements Confiner {
  readonly mechanism = 'seatbelt';

  constructor(
    readonly description = 'Seatbelt (sandbox-exec)',
    private readonly program = SANDBOX_EXEC,
  ) {}

  wrap(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string | undefined, policy: ConfinementPolicy): ConfinedCommand {
    return withPrivateTemp(this.program, env, (temp) => {
      const { profile, parameters } = seatbeltProfile(file, env, cwd, policy, temp);
      return ['-p', profile, ...Object.entries(parameters).flatMap(([name, value]) => ['-D', `${name}=${value}`]), file, ...args];
    });
  }
}

/** The SBPL profile for `policy` and the `-D` parameters it names (see the module note). */
export function seatbeltProfile(
  file: string,
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  policy: ConfinementPolicy,
  temp: string,
): { profile: string; parameters: Record<string, string> } {
  const parameters: Record<string, string> = {};
  const name = (prefix: string, value: string): string => {
    const key = `${prefix}_${Object.keys(parameters).filter((k) => k.startsWith(`${prefix}_`)).length}`;
    parameters[key] = value;
    return `(subpath (param ${sbplString(key)}))`;
  };
  const reachable =
    policy.mode === 'strict' ? [...programPaths(file, env, cwd), ...nodePreloads(env), ...(cwd ? [cwd] : [])].filter((p) => !SEATBELT_SYSTEM_PATHS.some((system) => isInside(p, system))) : [];
  const opened = openedPaths(policy, reachable);
  const writable = [...opened.filter((p) => p.writable).map((p) => p.path), temp].map((p) => name('WRITABLE', p));
  const lines = ['(version 1)', '(allow default)'];
  if (policy.mode === 'strict') {
    const readable = opened.filter((p) => !p.writable).map((p) => name('READABLE', p.path));
    lines.push(
      '(deny file-read*)',
      '(allow file-read-metadata)',
      `(allow file-read* (literal "/") ${SEATBELT_SYSTEM_PATHS.map((p) => `(subpath ${sbplString(p)})`).join(' ')})`,
      ...(readable.length > 0 ? [`(allow file-read* ${readable.join(' ')})`] : []),
      `(allow file-read* ${writable.join(' ')})`,
    );
  }
  lines.push('(deny file-write*)', `(allow file-write* ${writable.join(' ')} ${DEVICE_WRITES})`);
  const kept = protectedPaths(policy).map((p) => name('READ_ONLY', p));
  if (kept.length > 0) lines.push(`(deny file-write* ${kept.join(' ')})`);
  return { profile: lines.join('\n') + '\n', parameters };
}

/** An SBPL (Scheme) string literal: backslash and double quote escaped. Only for constants; paths go as parameters. */
export function sbplString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
