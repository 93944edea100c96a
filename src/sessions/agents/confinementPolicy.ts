/**
 * What a confined agent may touch (`acpWorkspace.sandbox`), worked out from what it works on: the folders it
 * may work in now, its state folders, its installation. Real paths; plain functions, tested without VS Code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentCommand } from '../../process/command';
import { findProgram } from '../../process/programPath';
import type { ConfinementPolicy, SandboxMode } from '../../process/confinement/types';

export interface PolicyInput {
  readonly mode: Exclude<SandboxMode, 'off'>;
  /** The folders the agent may work in now (granted, primary folders of its sessions), any order. */
  readonly folders: readonly string[];
  /** Its state folders and the entry's `writablePaths`, expanded (see `resolveAgentWritablePaths`). */
  readonly statePaths: readonly string[];
  /** The command line it runs, variables expanded. */
  readonly command: AgentCommand;
  /** The user's home folder (`~/.npm` for agents started with npx). */
  readonly home: string;
  /** The environment the command is looked up in (its PATH). */
  readonly env: NodeJS.ProcessEnv;
  /** This extension's folder: readable in strict mode when the agent runs from it (`${extensionPath}`). */
  readonly extensionPath?: string;
  /** The entry's `readablePaths`, expanded: readable in strict mode. */
  readonly readablePaths?: readonly string[];
  /** The entry lets the agent write editor settings (`.vscode`, `.idea`) in its folders. */
  readonly editorSettings?: boolean;
}

/** How the file system is asked (replaceable in tests). */
export interface PolicyFs {
  realpath(p: string): string;
  isFile(p: string): boolean;
}

const nodeFs: PolicyFs = {
  realpath: (p) => fs.realpathSync.native(p),
  isFile: (p) => {
    try {
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  },
};

/**
 * The policy for one launch. `writable`: the folders, the state paths, `~/.npm` for an agent started with
 * npx (npx writes its cache there). `folders`: the folders, whose own configuration the mechanism protects
 * (unless `editorSettings` lets the agent write its editor settings). `readable` (strict only): the agent's
 * installation (for its program and each absolute path among its arguments, the package it belongs to — the
 * nearest folder up with a `package.json`, and the whole `node_modules` tree it lies in, where Node finds its
 * dependencies — else its folder, a `bin` folder's parent), Node's when it runs on Node (npx, `${node}`), this
 * extension's folder when it runs from it, and the entry's `readablePaths`. Paths are real paths; one that does
 * not exist yet is the real path of its nearest existing parent plus the rest. Nothing is listed twice, nor
 * inside another writable path.
 */
export function buildPolicy(input: PolicyInput, fsys: PolicyFs = nodeFs): ConfinementPolicy {
  const real = (p: string) => realPath(p, fsys);
  const program = findProgram(input.command.command, input.env, (p) => fsys.isFile(p));
  const programName = path.basename(program ?? input.command.command).replace(/\.(cmd|exe|bat)$/i, '');
  const viaNpx = programName === 'npx' || programName === 'npm' || programName === 'pnpx' || programName === 'bunx';
  const writable = distinct([...input.folders, ...input.statePaths, ...(viaNpx ? [path.join(input.home, '.npm')] : [])].map(real));
  const protection = { folders: distinct(input.folders.map(real)), editorSettings: input.editorSettings === true };
  if (input.mode === 'writes') return { mode: input.mode, writable: minimal(writable), readable: [], ...protection };

  const installs: string[] = [];
  const addInstall = (file: string | undefined) => {
    if (!file) return;
    const realFile = real(file);
    const dir = path.dirname(realFile);
    installs.push(path.basename(dir) === 'bin' ? path.dirname(dir) : dir);
    installs.push(...packageOf(realFile, real(input.home), fsys));
  };
  addInstall(program);
  for (const arg of input.command.args) if (path.isAbsolute(arg) && fsys.isFile(arg)) addInstall(arg);
  const runsOnNode = viaNpx || programName === 'node' || /^electron/i.test(programName) || input.command.env['ELECTRON_RUN_AS_NODE'] === '1';
  if (runsOnNode) addInstall(findProgram('node', input.env, (p) => fsys.isFile(p)));
  if (input.extensionPath && [input.command.command, ...input.command.args].some((part) => inside(part, input.extensionPath!))) {
    installs.push(real(input.extensionPath));
  }
  installs.push(...(input.readablePaths ?? []).map(real));
  const writableSet = minimal(writable);
  const readable = minimal(distinct(installs)).filter((p) => !writableSet.some((w) => inside(p, w)));
  return { mode: input.mode, writable: writableSet, readable, ...protection };
}

/**
 * What Node needs to run `file` as part of a package: the package (the nearest folder up with a
 * `package.json`: its `type`, `exports`, its own `node_modules`) and, when it lies in a `node_modules` tree, the
 * whole tree (dependencies are often hoisted to its top). Nothing when no such folder is found, or only one
 * at or above the user's home folder (a `package.json` there would open the whole home).
 */
export function packageOf(file: string, home: string, fsys: PolicyFs = nodeFs): string[] {
  let root: string | undefined;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (dir === home || inside(home, dir)) break;
    if (fsys.isFile(path.join(dir, 'package.json'))) {
      root = dir;
      break;
    }
    if (path.dirname(dir) === dir) break;
  }
  if (!root) return [];
  const parts = root.split(path.sep);
  const top = parts.indexOf('node_modules');
  const tree = top > 0 ? parts.slice(0, top + 1).join(path.sep) : undefined;
  return tree && !inside(home, tree) ? [root, tree] : [root];
}

/**
 * `p` (a real path) with the home folder written `~` (`~`, `~/…`), whether `home` is given as it is or through a
 * link (policies hold real paths); otherwise `p` itself.
 */
export function homeAbbreviated(p: string, home: string, fsys: PolicyFs = nodeFs): string {
  for (const base of distinct([home, realPath(home, fsys)])) {
    if (p === base) return '~';
    if (p.startsWith(base.endsWith('/') ? base : `${base}/`)) return `~/${p.slice(base.length).replace(/^\/+/, '')}`;
  }
  return p;
}

/** Whether the policy lets the agent write every one of these folders (real paths). */
export function coversFolders(policy: Pick<ConfinementPolicy, 'writable'>, folders: readonly string[]): boolean {
  return uncoveredFolders(policy, folders).length === 0;
}

/** The folders the policy does not let the agent write. */
export function uncoveredFolders(policy: Pick<ConfinementPolicy, 'writable'>, folders: readonly string[]): string[] {
  return folders.filter((folder) => !policy.writable.some((w) => inside(folder, w)));
}

/** `child` is `parent` or below it. */
export function inside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The real path; for a path that does not exist, its nearest existing parent's real path plus the rest. */
export function realPath(p: string, fsys: PolicyFs = nodeFs): string {
  const absolute = path.resolve(p);
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(fsys.realpath(current), ...rest);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}

function distinct(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** Without paths that lie inside another one of the list (first occurrence order kept). */
function minimal(paths: readonly string[]): string[] {
  return paths.filter((p, i) => !paths.some((other, j) => j !== i && other !== p && inside(p, other)));
}
