/**
 * Path work shared by the mechanisms: which paths a policy opens (real paths, missing writable folders
 * created), what must be readable for a program to start (its file, what a symlink points at, the interpreter
 * of a `#!` script), and the private temporary directory every confined command gets.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { envValue } from '../environment';
import { placeholderLease, sweepPlaceholders, type PlaceholderLease } from './placeholders';
import type { ConfinedCommand, ConfinementPolicy } from './types';

/** One path opened inside the confinement. */
export interface OpenedPath {
  readonly path: string;
  readonly writable: boolean;
}

/**
 * The paths `policy` opens, as real paths, parents before children (a child bound after its parent stays as
 * the child says), a path both readable and writable listed once as writable. `extraReadable` are added to
 * `policy.readable` (the program, the cwd). Missing writable paths are created as folders first (an agent
 * would create its state folder, e.g. `~/.claude`, itself; a path that cannot be created is left out, so
 * stays closed), except a missing file (a name with an extension, e.g. `~/.claude.json`), which is left out
 * rather than made a folder; missing readable ones are left out.
 */
export function openedPaths(policy: ConfinementPolicy, extraReadable: readonly string[] = []): OpenedPath[] {
  const byPath = new Map<string, OpenedPath>();
  for (const wanted of policy.writable) {
    const real = existingRealPath(wanted, true);
    if (real) byPath.set(real, { path: real, writable: true });
  }
  if (policy.mode === 'strict') {
    for (const wanted of [...policy.readable, ...extraReadable]) {
      const real = existingRealPath(wanted, false);
      if (real && !byPath.has(real)) byPath.set(real, { path: real, writable: false });
    }
  }
  return [...byPath.values()].sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
}

/** `policy.readOnly` as real paths that exist (only existing paths can be protected), parents first. */
export function protectedPaths(policy: ConfinementPolicy): string[] {
  const result = new Set<string>();
  for (const wanted of policy.readOnly ?? []) {
    const real = existingRealPath(wanted, false);
    if (real) result.add(real);
  }
  return [...result].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b));
}

/**
 * What must be readable to start `file` (as spawn would find it: a path relative to `cwd`, or a name looked
 * up on `env.PATH`): the folder it was found in, the folder it really lives in (a symlink's target), and for a
 * `#!` script its interpreter's (with `/usr/bin/env node`, node's on the PATH). Empty when it is not found
 * (the command then fails inside as it would outside).
 */
export function programPaths(file: string, env: NodeJS.ProcessEnv, cwd: string | undefined, seen = new Set<string>()): string[] {
  const found = findProgram(file, env, cwd);
  if (!found || seen.has(found)) return [];
  seen.add(found);
  const result = [path.dirname(found)];
  let real = found;
  try {
    real = fs.realpathSync(found);
  } catch {
    // A dangling symlink: nothing more to open.
  }
  if (real !== found) result.push(path.dirname(real));
  const interpreter = shebang(real);
  if (interpreter) {
    result.push(...programPaths(interpreter.program, env, cwd, seen));
    if (path.basename(interpreter.program) === 'env' && interpreter.argument) result.push(...programPaths(interpreter.argument, env, cwd, seen));
  }
  return result;
}

/**
 * Files `NODE_OPTIONS` tells every Node program to load (`--require`/`-r`, `--import`, `--loader`,
 * `--experimental-loader`): code the user chose to run in each Node process, so a Node agent confined in strict
 * mode must still be able to read it, or it would not start.
 */
export function nodePreloads(env: NodeJS.ProcessEnv): string[] {
  const words = (envValue(env, 'NODE_OPTIONS', 'linux') ?? '').split(/\s+/).filter(Boolean);
  const flags = new Set(['--require', '-r', '--import', '--loader', '--experimental-loader']);
  const files: string[] = [];
  words.forEach((word, i) => {
    const eq = word.indexOf('=');
    const [flag, value] = eq > 0 ? [word.slice(0, eq), word.slice(eq + 1)] : [word, words[i + 1]];
    if (flags.has(flag) && value && path.isAbsolute(value.replace(/^file:\/\//, ''))) files.push(value.replace(/^file:\/\//, ''));
  });
  return files;
}

const TEMP_PREFIX = 'acp-workspace-sandbox-';
let swept = false;

/**
 * A fresh private temporary folder (real path) for one confined command; TMPDIR points at it. Named after
 * this process (`acp-workspace-sandbox-<pid>-…`): the first call also removes the folders left by processes of
 * ours that are gone (an extension host that was killed could not dispose of them).
 */
export function makePrivateTemp(): string {
  if (!swept) {
    swept = true;
    sweepLeftovers();
  }
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-`)));
}

function sweepLeftovers(): void {
  try {
    sweepPlaceholders();
  } catch {
    // A registry that is not ours fails the next start that needs it, with the reason.
  }
  let names: string[];
  try {
    names = fs.readdirSync(os.tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^acp-workspace-sandbox-(\d+)-/.exec(name)?.[1];
    if (!pid || processExists(Number(pid))) continue;
    const dir = path.join(os.tmpdir(), name);
    try {
      if (fs.lstatSync(dir).uid !== process.getuid?.()) continue;
    } catch {
      continue;
    }
    removePrivateTemp(dir);
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes a private temporary folder and what the command left in it (idempotent, never throws). */
export function removePrivateTemp(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    // Best effort: a leftover under the system's temporary folder is cleaned by the system.
  }
}

/** Whether `child` is `parent` or inside it. */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function existingRealPath(wanted: string, create: boolean): string | undefined {
  if (!path.isAbsolute(wanted)) throw new TypeError(l10n.t('A confinement path must be absolute: {0}', JSON.stringify(wanted)));
  try {
    return fs.realpathSync(wanted);
  } catch {
    if (!create) return undefined;
  }
  // A state file (a name with an extension, e.g. ~/.claude.json) cannot be bound before it exists, and must not
  // become a folder: it stays closed until it exists.
  if (path.extname(wanted) !== '') return undefined;
  try {
    fs.mkdirSync(wanted, { recursive: true, mode: 0o700 });
    return fs.realpathSync(wanted);
  } catch {
    return undefined;
  }
}

function depth(p: string): number {
  return p.split('/').filter(Boolean).length;
}

function findProgram(file: string, env: NodeJS.ProcessEnv, cwd: string | undefined): string | undefined {
  const candidates = file.includes('/')
    ? [path.resolve(cwd ?? process.cwd(), file)]
    : (envValue(env, 'PATH', 'linux') ?? '').split(':').map((dir) => path.resolve(cwd ?? process.cwd(), dir === '' ? '.' : dir, file));
  for (const candidate of candidates) {
    try {
      if (!fs.statSync(candidate).isFile()) continue;
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** `#!/usr/bin/env node` → `{ program: '/usr/bin/env', argument: 'node' }` (`env -S …` too). */
function shebang(file: string): { program: string; argument?: string } | undefined {
  let head: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('latin1');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (!head.startsWith('#!')) return undefined;
  const words = head
    .slice(2)
    .split('\n', 1)[0]!
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '' && word !== '-S');
  const [program, argument] = words;
  if (!program || !path.isAbsolute(program)) return undefined;
  return { program, argument };
}

/**
 * A confined command line built around a fresh private temporary folder (TMPDIR) and the placeholders it holds
 * (see placeholders.ts), which `dispose()` removes and lets go of (once); at once when building the arguments
 * fails.
 */
export function withPrivateTemp(program: string, env: NodeJS.ProcessEnv, build: (temp: string, placeholders: PlaceholderLease) => string[]): ConfinedCommand {
  const temp = makePrivateTemp();
  const placeholders = placeholderLease();
  const done = (): void => {
    removePrivateTemp(temp);
    placeholders.release();
  };
  try {
    const args = build(temp, placeholders);
    let disposed = false;
    return {
      file: program,
      args,
      env: { ...env, TMPDIR: temp },
      dispose: () => {
        if (disposed) return;
        disposed = true;
        done();
      },
    };
  } catch (error) {
    done();
    throw error;
  }
}
