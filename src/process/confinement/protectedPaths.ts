/**
 * What a confined agent must not change in the folders it works in, because other programs obey it without
 * asking anyone: the next `git status` outside the sandbox (VS Code's git extension runs one by itself) runs a
 * repository's `core.fsmonitor`, filters and hooks unconfined; VS Code runs `.vscode` tasks, starts
 * `.vscode/mcp.json` servers and applies workspace settings that name programs; JetBrains IDEs run `.idea`
 * run configurations. CONTRIBUTING.md ("Confinement") says why each is on the list and what is not.
 *
 * In each folder (`policy.folders`):
 * - its repository: `.git` stays where it is (pinned: a mount point cannot be renamed or removed, so it cannot
 *   be swapped for one of the agent's) and writable, so the agent still commits; in it `config`, `hooks`,
 *   `info`, `commondir` (it would redirect git to another configuration) and `config.worktree` (when
 *   `extensions.worktreeConfig` makes git read it) stay read-only, the same in each linked worktree's git
 *   directory under `worktrees/`, and the files a config includes; its submodules' git directories (`modules/`)
 *   are read-only as a whole. A `.git` file (a worktree or submodule) stays read-only and the git directory it
 *   names is protected the same way. Where there is no `.git`, none can be made (`git init` fails).
 * - `.vscode`, `.idea` and `*.code-workspace` files at its top, unless the agent's entry opted in
 *   (`policy.editorSettings`); where `.vscode` or `.idea` does not exist, it cannot be made.
 * - `.gitconfig` and the shell's startup files at its top, when they exist (a folder may be a home folder).
 * - the repositories nested in it, found to a depth of {@link NESTED_DEPTH} (not in `node_modules`): their `.git`
 *   read-only as a whole (as Codex protects every `.git`; the agent commits in the folder's own repository).
 *
 * Each protected path that exists or is held is one more mount, and bwrap takes about a millisecond per mount
 * (bench/confinement.bench.ts), so nothing is listed twice or inside a path read-only as a whole.
 *
 * A missing path that must not be created is held by a placeholder (an empty folder; for `commondir` a file
 * saying `.`, which git reads as "this directory", so git outside works unchanged), see placeholders.ts.
 * Protected names that are symbolic links are listed apart: a mount cannot hold a link in place.
 *
 * Limits (mounts act on names that exist): a repository the agent creates deeper inside a folder later
 * (`mkdir x && git init x`) cannot be refused; Seatbelt's profile refuses it by name (seatbelt.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from './paths';
import type { ConfinementPolicy, Placeholder, ProtectedPath } from './types';

export interface Protection {
  /** Folders that stay where they are (cannot be renamed or removed) while their contents stay writable. */
  readonly pinned: readonly string[];
  readonly readOnly: readonly ProtectedPath[];
  /** Protected names that are symbolic links (the link and where it points). */
  readonly links: readonly { readonly path: string; readonly target: string }[];
}

/** Editor settings: VS Code's and JetBrains'. */
export const EDITOR_FOLDERS: readonly string[] = ['.vscode', '.idea'];
/** Read by git or a shell that starts in the folder when it is a home folder. */
export const STARTUP_FILES: readonly string[] = [
  '.gitconfig',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
];
/** How deep below a folder nested repositories are looked for, and how many folders at most. */
export const NESTED_DEPTH = 3;
export const NESTED_VISITS = 5000;
/** What `commondir` says in a placeholder: the git directory itself, as if the file were not there. */
export const COMMONDIR_PLACEHOLDER = '.\n';

const FOLDER: Placeholder = { kind: 'folder' };

/** What stays read-only or in place in `policy.folders` (real paths), for the policy's writable paths. */
export function folderProtection(policy: Pick<ConfinementPolicy, 'writable' | 'folders' | 'editorSettings'>): Protection {
  const collector = new Collector(policy.writable.map(realOr));
  for (const folder of policy.folders ?? []) {
    const real = realOr(folder);
    if (!collector.writable(real)) continue;
    collector.repository(path.join(real, '.git'), true);
    if (!policy.editorSettings) {
      for (const name of EDITOR_FOLDERS) collector.entry(path.join(real, name), FOLDER);
      for (const name of names(real)) if (name.endsWith('.code-workspace')) collector.entry(path.join(real, name));
    }
    for (const name of STARTUP_FILES) collector.entry(path.join(real, name));
    for (const dir of nestedFolders(real)) if (lstat(path.join(dir, '.git'))) collector.repository(path.join(dir, '.git'), false);
  }
  return collector.result();
}

class Collector {
  private readonly pins = new Set<string>();
  private readonly readOnly = new Map<string, ProtectedPath>();
  private readonly links = new Map<string, string>();
  private readonly gitDirs = new Set<string>();

  constructor(private readonly writablePaths: readonly string[]) {}

  writable(p: string): boolean {
    return this.writablePaths.some((w) => isInside(p, w));
  }

  /** What to mount: nothing twice, nothing inside a path that is read-only as a whole (each mount costs bwrap about a millisecond). */
  result(): Protection {
    const readOnly: ProtectedPath[] = [];
    for (const entry of [...this.readOnly.values()].sort((a, b) => depth(a.path) - depth(b.path))) {
      if (!readOnly.some((kept) => isInside(entry.path, kept.path))) readOnly.push(entry);
    }
    const pinned = [...this.pins].filter((p) => !readOnly.some((kept) => isInside(p, kept.path)));
    return { pinned, readOnly, links: [...this.links].map(([p, target]) => ({ path: p, target })) };
  }

  /**
   * `p` stays read-only (held by `placeholder` while it does not exist; when its folder does not exist either,
   * the first missing folder on the way is held instead); a link is listed apart.
   */
  entry(p: string, placeholder?: Placeholder): void {
    if (placeholder && !lstat(path.dirname(p))) {
      const parent = path.dirname(p);
      if (parent !== p) this.entry(parent, FOLDER);
      return;
    }
    if (!this.writable(path.dirname(p))) return;
    const stats = lstat(p);
    if (stats?.isSymbolicLink()) {
      this.links.set(p, realOr(p));
      return;
    }
    if (!stats && !placeholder) return;
    // The placeholder is kept when something is there: it may be one another command made and still needs.
    this.readOnly.set(p, placeholder ? { path: p, placeholder } : { path: p });
  }

  /**
   * A `.git` (folder or file) at the top of a folder (`top`: the agent keeps committing there) or of a
   * repository nested in it (read-only as a whole, and so is the git directory a `.git` file names).
   */
  repository(dotGit: string, top: boolean): void {
    const stats = lstat(dotGit);
    if (!stats) {
      if (top) this.entry(dotGit, FOLDER);
    } else if (stats.isSymbolicLink()) {
      this.entry(dotGit);
    } else if (stats.isDirectory()) {
      // Without a HEAD it is no git directory (git looks further up): read-only as a whole, as a placeholder is.
      if (top && lstat(path.join(dotGit, 'HEAD'))) this.gitDir(dotGit);
      else this.entry(dotGit, FOLDER);
    } else if (stats.isFile()) {
      this.entry(dotGit);
      const target = pointedGitDir(dotGit);
      if (target && top) this.gitDir(target);
      else if (target) this.entry(target);
    }
  }

  /**
   * A git directory: pinned (with the folders between it and the `.git` it lies in, for those under
   * `worktrees/`), what redirects or extends git's configuration read-only, its submodules' git directories
   * (`modules/`) read-only as a whole, its linked worktrees' git directories likewise pinned and protected.
   */
  private gitDir(dir: string): void {
    if (this.gitDirs.has(dir) || !this.writable(dir)) return;
    this.gitDirs.add(dir);
    for (let current = dir; this.writable(current); current = path.dirname(current)) {
      this.pins.add(current);
      if (path.basename(current) === '.git' || !current.split(path.sep).includes('.git')) break;
    }
    // Linked when `commondir` names another git directory. One naming this one (our placeholder, which another
    // confined command holds) is not a link: this command must hold it too, and protect what it would protect.
    const common = lstat(path.join(dir, 'commondir'))?.isFile() === true ? pointedCommonDir(dir) : undefined;
    const linked = common !== undefined;
    this.entry(path.join(dir, 'commondir'), linked ? undefined : { kind: 'file', content: COMMONDIR_PLACEHOLDER });
    const worktreeConfig = worktreeConfigOn(path.join(dir, 'config')) || (common !== undefined && worktreeConfigOn(path.join(common, 'config')));
    this.entry(path.join(dir, 'config.worktree'), worktreeConfig ? { kind: 'file', content: '' } : undefined);
    if (!linked) {
      this.entry(path.join(dir, 'config'));
      this.entry(path.join(dir, 'hooks'), FOLDER);
      this.entry(path.join(dir, 'info'), FOLDER);
      // An included file that does not exist yet would be read once the agent made it.
      for (const included of includedFiles(path.join(dir, 'config'))) this.entry(included, { kind: 'file', content: '' });
    }
    if (common) this.gitDir(common);
    if (lstat(path.join(dir, 'modules'))?.isDirectory()) this.entry(path.join(dir, 'modules'));
    const worktrees = path.join(dir, 'worktrees');
    if (lstat(worktrees)?.isDirectory()) for (const found of gitDirsUnder(worktrees)) this.gitDir(found);
  }
}

/** The real path, or the path itself when it does not exist. */
function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function lstat(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

function names(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function readSmall(file: string, limit = 64 * 1024): string | undefined {
  try {
    const stats = fs.lstatSync(file);
    if (!stats.isFile() || stats.size > limit) return undefined;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The git directory a `.git` file names (`gitdir: <path>`, relative to the file's folder), real. */
function pointedGitDir(file: string): string | undefined {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(file, 4096) ?? '');
  if (!match) return undefined;
  const target = realOr(path.resolve(path.dirname(file), match[1]!));
  return lstat(target)?.isDirectory() ? target : undefined;
}

/** The common directory a linked worktree's git directory names in `commondir`, real. */
function pointedCommonDir(dir: string): string | undefined {
  const text = readSmall(path.join(dir, 'commondir'), 4096)?.trim();
  if (!text) return undefined;
  const target = realOr(path.resolve(dir, text));
  return target !== dir && lstat(target)?.isDirectory() ? target : undefined;
}

/** Whether a git config turns on `extensions.worktreeConfig` (then git reads `config.worktree`). */
function worktreeConfigOn(config: string): boolean {
  return /^\s*worktreeconfig\s*=\s*(true|yes|on|1)\s*$/im.test(readSmall(config) ?? '');
}

/** The files a git config includes (`[include]` and `[includeIf …]` sections' `path`), absolute. */
function includedFiles(config: string): string[] {
  const text = readSmall(config);
  if (!text) return [];
  const files: string[] = [];
  let including = false;
  for (const line of text.split(/\r?\n/)) {
    const section = /^\s*\[\s*([^\]\s"]+)/.exec(line);
    if (section) including = /^include(if)?$/i.test(section[1]!);
    const value = including ? /^\s*path\s*=\s*"?([^"]*?)"?\s*$/i.exec(line)?.[1] : undefined;
    if (!value) continue;
    if (value.startsWith('~/')) continue; // the user's own configuration, outside the folders
    files.push(realOr(path.resolve(path.dirname(config), value)));
  }
  return files;
}

/** Git directories (folders holding a `HEAD`) under `worktrees/`, a few levels deep. */
function gitDirsUnder(dir: string, depth = 0): string[] {
  if (depth > 4) return [];
  const found: string[] = [];
  for (const name of names(dir)) {
    const child = path.join(dir, name);
    if (!lstat(child)?.isDirectory()) continue;
    if (lstat(path.join(child, 'HEAD'))?.isFile()) found.push(child);
    else found.push(...gitDirsUnder(child, depth + 1));
  }
  return found;
}

/** Folders below `root` to {@link NESTED_DEPTH} levels, not following links, not into `.git` or `node_modules`. */
function depth(p: string): number {
  return p.split(path.sep).filter(Boolean).length;
}

function nestedFolders(root: string): string[] {
  const found: string[] = [];
  let level = [root];
  let visits = 0;
  for (let depth = 1; depth <= NESTED_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (!entry.isDirectory() || entry.name === '.git' || entry.name === 'node_modules') continue;
        if (++visits > NESTED_VISITS) return found;
        const child = path.join(dir, entry.name);
        found.push(child);
        next.push(child);
      }
    }
    level = next;
  }
  return found;
}
