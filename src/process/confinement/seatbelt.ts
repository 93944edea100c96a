/**
 * macOS confinement with Seatbelt: `sandbox-exec -p <profile> -D NAME=path… <file> <args…>`, the profile
 * generated from the policy.
 *
 * - `writes`: `(allow default)`, `(deny file-write*)`, then writes allowed under each writable path, the
 *   private temporary folder and the few devices every program writes (`/dev/null`, terminals, `/dev/fd`),
 *   then denied again under the protected paths (later rules win in SBPL): what {@link folderProtection} lists
 *   in the folders (existing or not: path rules need no placeholder, and a link is denied at both ends) and
 *   `policy.readOnly`, and by name anywhere in the folders ({@link protectedNameRules}: a `.git` entry itself,
 *   so no repository can be made or swapped, a git directory's configuration, hooks and `info`, and editor
 *   settings unless the entry opted in).
 * - signals: only to processes in the same sandbox (`(deny signal)`, `(allow signal (target same-sandbox))`);
 *   the extension host and everything else stay out of reach. (Seatbelt has no PID namespace: a daemon that
 *   leaves the process group is not ended with the agent on macOS.)
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
import * as fs from 'node:fs';
import { isInside, openedPaths, nodePreloads, programPaths, protectedPaths, withPrivateTemp } from './paths';
import { folderProtection } from './protectedPaths';
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

/**
 * What stays read-only by name anywhere inside the folders (SBPL regular expressions on real paths; no path of
 * the user's in them): the `.git` entry itself, a git directory's (also a submodule's or linked worktree's)
 * configuration and what redirects it, its hooks and `info`; then editor settings.
 */
export const GIT_NAME_RULES: readonly string[] = [
  String.raw`/\.git$`,
  String.raw`/\.git/((modules|worktrees)/.+/)?(config|config\.worktree|commondir)$`,
  String.raw`/\.git/((modules|worktrees)/.+/)?(hooks|info)(/.*)?$`,
];
export const EDITOR_NAME_RULES: readonly string[] = [String.raw`/\.(vscode|idea)(/.*)?$`, String.raw`\.code-workspace$`];

/** The regular expressions {@link GIT_NAME_RULES} and, unless the entry opted in, {@link EDITOR_NAME_RULES}. */
export function protectedNameRules(policy: Pick<ConfinementPolicy, 'editorSettings'>): string[] {
  return [...GIT_NAME_RULES, ...(policy.editorSettings ? [] : EDITOR_NAME_RULES)];
}

/** Devices any program writes: the null device, terminals, its own descriptors. */
const DEVICE_WRITES =
  '(literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$") (subpath "/dev/fd")';

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
    policy.mode === 'strict'
      ? [...programPaths(file, env, cwd), ...nodePreloads(env), ...(cwd ? [cwd] : [])].filter(
          (p) => !SEATBELT_SYSTEM_PATHS.some((system) => isInside(p, system)),
        )
      : [];
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
  const protection = folderProtection(policy);
  const kept = [...new Set([...protection.readOnly.map((p) => p.path), ...protection.links.flatMap((l) => [l.path, l.target]), ...protectedPaths(policy)])].map(
    (p) => name('READ_ONLY', p),
  );
  if (kept.length > 0) lines.push(`(deny file-write* ${kept.join(' ')})`);
  const folders = [...new Set((policy.folders ?? []).map(realPathOr))].map((p) => name('FOLDER', p));
  if (folders.length > 0) {
    const rules = protectedNameRules(policy).map((rule) => `(regex #"${rule}")`);
    lines.push(`(deny file-write* (require-all (require-any ${folders.join(' ')}) (require-any ${rules.join(' ')})))`);
  }
  lines.push('(deny signal)', '(allow signal (target same-sandbox))');
  return { profile: lines.join('\n') + '\n', parameters };
}

/** An SBPL (Scheme) string literal: backslash and double quote escaped. Only for constants; paths go as parameters. */
export function sbplString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function realPathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
