/**
 * Placeholders: what holds a protected path that does not exist yet (`.git` in a folder that is not a
 * repository, a missing `.vscode`, `.git/commondir`), so that a read-only mount can sit on it and the agent
 * cannot create it. A mount needs something to sit on, on the host: the placeholder is made in the user's folder
 * before the sandbox starts, and removed again once no confined command needs it any more — if it is still what
 * was made (an empty folder, a file with the same content): whatever the user put there meanwhile stays.
 *
 * Several confined commands (an agent and its terminals, other agents, other windows) may need the same
 * placeholder at once, and removing it under a running sandbox would take the protection out of that sandbox.
 * The bookkeeping is in the system's temporary folder, outside every sandbox: a folder per placeholder
 * (`acp-workspace-placeholders-<uid>/<hash>/`) holding its path, `made` when one of ours made it, and a file per
 * command that needs it (`h-<pid>-<n>`). The last one to let go removes it; a command whose process died (an
 * extension host that was killed) counts as gone, and the next process that confines something sweeps what it
 * left. Two windows starting and ending confined commands in the same instant may leave an empty placeholder
 * behind; the next sweep does not remove it (it was not marked as made), which errs on the side of the user's
 * files.
 */
import * as l10n from '@vscode/l10n';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfinementUnavailableError, type ProtectedPath } from './types';

/** The placeholders one confined command holds; {@link release} once it is done (idempotent). */
export interface PlaceholderLease {
  /** Holds each path (making a placeholder where it does not exist and it can be made). */
  hold(paths: readonly ProtectedPath[]): void;
  release(): void;
}

const live = new Set<number>();
let nextLease = 1;
let swept = false;

/** A lease for one confined command; sweeps leftovers of dead processes the first time in this process. */
export function placeholderLease(): PlaceholderLease {
  const id = nextLease++;
  live.add(id);
  const held = new Map<string, string>();
  let released = false;
  return {
    hold: (paths) => {
      const holding = paths.filter((p) => p.placeholder !== undefined);
      if (holding.length === 0) return;
      const registry = registryFolder();
      if (!swept) {
        swept = true;
        sweepPlaceholders(registry);
      }
      for (const protectedPath of holding) {
        const entry = path.join(registry, keyOf(protectedPath.path));
        fs.mkdirSync(entry, { recursive: true, mode: 0o700 });
        fs.writeFileSync(path.join(entry, 'path'), protectedPath.path);
        fs.writeFileSync(path.join(entry, holderName(process.pid, id)), '');
        held.set(protectedPath.path, entry);
        if (make(protectedPath)) fs.writeFileSync(path.join(entry, 'made'), JSON.stringify(protectedPath.placeholder));
      }
    },
    release: () => {
      if (released) return;
      released = true;
      live.delete(id);
      // Deeper ones first: a placeholder inside another (a folder another command made) goes before it.
      for (const [, entry] of [...held].sort(([a], [b]) => depth(b) - depth(a))) {
        rm(path.join(entry, holderName(process.pid, id)));
        settle(entry);
      }
    },
  };
}

/** Lets go of the placeholders whose every holder is gone (their process died): what a killed host left. */
export function sweepPlaceholders(registry = registryFolder(false)): void {
  if (!registry) return;
  let keys: string[];
  try {
    keys = fs.readdirSync(registry);
  } catch {
    return;
  }
  const entries = keys.map((key) => path.join(registry, key)).map((entry) => ({ entry, depth: depth(read(path.join(entry, 'path')) ?? '') }));
  for (const { entry } of entries.sort((a, b) => b.depth - a.depth)) settle(entry);
}

function depth(p: string): number {
  return p.split(path.sep).filter(Boolean).length;
}

/**
 * The bookkeeping folder, made if needed (only this user may use it). A folder with that name that is not
 * ours (another user's, a link) fails the start: it could be made to point our clean-up anywhere.
 */
function registryFolder(create?: true): string;
function registryFolder(create: false): string | undefined;
function registryFolder(create = true): string | undefined {
  const uid = process.getuid?.() ?? 0;
  const dir = path.join(os.tmpdir(), `acp-workspace-placeholders-${uid}`);
  if (create) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(dir);
  } catch {
    return undefined;
  }
  if (!stats.isDirectory() || stats.uid !== uid || (stats.mode & 0o077) !== 0) {
    throw new ConfinementUnavailableError(
      l10n.t('{0} is not a private folder of this user (another user’s, a link, or open to others), so the folders of a confined agent cannot be protected safely.', dir),
      l10n.t('Remove it (or set acpWorkspace.sandbox to "off").'),
    );
  }
  return dir;
}

function keyOf(p: string): string {
  return createHash('sha256').update(p).digest('hex').slice(0, 32);
}

function holderName(pid: number, lease: number): string {
  return `h-${pid}-${lease}`;
}

/**
 * Makes the placeholder where nothing is; false when something is there already (the user's, or another
 * command's placeholder) or it cannot be made (a folder the user cannot write: the agent cannot either).
 */
function make(protectedPath: ProtectedPath): boolean {
  const { placeholder } = protectedPath;
  if (!placeholder) return false;
  try {
    if (placeholder.kind === 'folder') fs.mkdirSync(protectedPath.path);
    else fs.writeFileSync(protectedPath.path, placeholder.content, { flag: 'wx' });
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return false;
    throw error;
  }
}

/** When no holder of the placeholder is alive: removes it if one of ours made it and it is still as made. */
function settle(entry: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(entry);
  } catch {
    return;
  }
  let holders = 0;
  for (const name of names) {
    const holder = /^h-(\d+)-(\d+)$/.exec(name);
    if (!holder) continue;
    const pid = Number(holder[1]);
    if (pid === process.pid ? live.has(Number(holder[2])) : processExists(pid)) holders++;
    else rm(path.join(entry, name));
  }
  if (holders > 0) return;
  const target = read(path.join(entry, 'path'));
  const made = read(path.join(entry, 'made'));
  if (target && made) removeIfUnchanged(target, made);
  fs.rmSync(entry, { recursive: true, force: true });
}

function removeIfUnchanged(target: string, made: string): void {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(target);
  } catch {
    return;
  }
  try {
    const placeholder = JSON.parse(made) as { kind?: unknown; content?: unknown };
    if (placeholder.kind === 'folder' && stats.isDirectory()) fs.rmdirSync(target); // only when still empty
    else if (placeholder.kind === 'file' && stats.isFile() && typeof placeholder.content === 'string' && fs.readFileSync(target, 'utf8') === placeholder.content) fs.unlinkSync(target);
  } catch {
    // Not empty, changed, or unreadable: it is the user's now.
  }
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function rm(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // gone already
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
