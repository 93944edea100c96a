/**
 * Placeholders: what holds a protected path that does not exist yet (`.git` in a folder that is not a
 * repository, a missing `.vscode`, `.git/commondir`), so that a read-only mount can sit on it and the agent
 * cannot create it. A mount needs something to sit on, on the host: the placeholder is made in the user's folder
 * before the sandbox starts, and removed again once no confined command needs it any more — if it is still what
 * was made (an empty folder, a file with the same content): whatever the user put there meanwhile stays.
 *
 * Several confined commands (an agent and its terminals, other agents, other windows) may need the same
 * placeholder at once, and removing it under a running sandbox would take the protection out of that sandbox.
 * The bookkeeping is in the system's temporary folder, outside every sandbox (`acp-workspace-placeholders-<uid>`):
 * `leases/<pid>-<n>` lists the placeholders one command holds, `made/<hash>` marks one that we made (its path and
 * what it was made as). The last command to let go of a placeholder we made removes it; a command whose
 * process died (an extension host that was killed) counts as gone, and the next process that confines something
 * sweeps what it left. Two windows starting and ending confined commands in the same instant may leave an
 * empty placeholder behind unmarked, which errs on the side of the user's files.
 */
import * as l10n from '@vscode/l10n';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfinementUnavailableError, type Placeholder, type ProtectedPath } from './types';

/** The placeholders one confined command holds; {@link release} once it is done (idempotent). */
export interface PlaceholderLease {
  /** Holds each path (making a placeholder where it does not exist and it can be made). */
  hold(paths: readonly ProtectedPath[]): void;
  release(): void;
}

const live = new Set<number>();
let nextLease = 1;
let swept = false;

/** What `made/<hash>` holds. */
interface Made {
  readonly path: string;
  readonly placeholder: Placeholder;
}

/** A lease for one confined command; sweeps leftovers of dead processes the first time in this process. */
export function placeholderLease(): PlaceholderLease {
  const id = nextLease++;
  live.add(id);
  const held: string[] = [];
  let registry: string | undefined;
  let released = false;
  return {
    hold: (paths) => {
      const holding = paths.filter((p) => p.placeholder !== undefined);
      if (holding.length === 0) return;
      registry ??= registryFolder();
      if (!swept) {
        swept = true;
        sweepPlaceholders(registry);
      }
      held.push(...holding.map((p) => p.path));
      // Listed before any is made, so that another command letting go meanwhile sees this one holds them.
      fs.writeFileSync(path.join(registry, 'leases', leaseName(process.pid, id)), JSON.stringify(held));
      for (const { path: target, placeholder } of holding) {
        if (placeholder && make(target, placeholder))
          fs.writeFileSync(madeFile(registry, target), JSON.stringify({ path: target, placeholder } satisfies Made));
      }
    },
    release: () => {
      if (released) return;
      released = true;
      live.delete(id);
      if (!registry) return;
      rm(path.join(registry, 'leases', leaseName(process.pid, id)));
      settle(registry, held);
    },
  };
}

/** Lets go of the placeholders no living command holds (their process died): what a killed host left. */
export function sweepPlaceholders(registry = registryFolder(false)): void {
  if (!registry) return;
  let names: string[];
  try {
    names = fs.readdirSync(path.join(registry, 'made'));
  } catch {
    return;
  }
  const paths = names.flatMap((name) => {
    const made = readMade(path.join(registry, 'made', name));
    return made ? [made.path] : [];
  });
  settle(registry, paths);
}

/**
 * Removes those of `paths` that we made and no living command holds, if they are still as made (deeper ones
 * first: a placeholder inside another goes before it); forgets the leases of dead processes on the way.
 */
function settle(registry: string, paths: readonly string[]): void {
  const holding = new Set<string>();
  const leases = path.join(registry, 'leases');
  let names: string[] = [];
  try {
    names = fs.readdirSync(leases);
  } catch {
    // none
  }
  for (const name of names) {
    const lease = /^(\d+)-(\d+)$/.exec(name);
    if (!lease) continue;
    const pid = Number(lease[1]);
    if (!(pid === process.pid ? live.has(Number(lease[2])) : processExists(pid))) {
      rm(path.join(leases, name));
      continue;
    }
    try {
      for (const held of JSON.parse(fs.readFileSync(path.join(leases, name), 'utf8')) as unknown[]) if (typeof held === 'string') holding.add(held);
    } catch {
      // Being written: it holds what it lists once written; its own check comes after.
    }
  }
  for (const target of [...new Set(paths)].sort((a, b) => depth(b) - depth(a))) {
    if (holding.has(target)) continue;
    const file = madeFile(registry, target);
    const made = readMade(file);
    if (!made) continue;
    removeIfUnchanged(target, made.placeholder);
    rm(file);
  }
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
    for (const folder of [dir, path.join(dir, 'leases'), path.join(dir, 'made')]) {
      try {
        fs.mkdirSync(folder, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
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
      l10n.t(
        '{0} is not a private folder of this user (another user’s, a link, or open to others), so the folders of a confined agent cannot be protected safely.',
        dir,
      ),
      l10n.t('Remove it (or set acpWorkspace.sandbox to "off").'),
    );
  }
  return dir;
}

function madeFile(registry: string, p: string): string {
  return path.join(registry, 'made', createHash('sha256').update(p).digest('hex').slice(0, 32));
}

function leaseName(pid: number, lease: number): string {
  return `${pid}-${lease}`;
}

function readMade(file: string): Made | undefined {
  try {
    const made = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Made>;
    const placeholder = made.placeholder as Partial<Placeholder> | undefined;
    if (typeof made.path !== 'string' || !path.isAbsolute(made.path)) return undefined;
    if (placeholder?.kind === 'folder') return { path: made.path, placeholder: { kind: 'folder' } };
    if (placeholder?.kind === 'file' && typeof placeholder.content === 'string')
      return { path: made.path, placeholder: { kind: 'file', content: placeholder.content } };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes the placeholder where nothing is; false when something is there already (the user's, or another
 * command's placeholder) or it cannot be made (a folder the user cannot write: the agent cannot either).
 */
function make(target: string, placeholder: Placeholder): boolean {
  try {
    if (placeholder.kind === 'folder') fs.mkdirSync(target);
    else fs.writeFileSync(target, placeholder.content, { flag: 'wx' });
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return false;
    throw error;
  }
}

function removeIfUnchanged(target: string, placeholder: Placeholder): void {
  try {
    const stats = fs.lstatSync(target);
    if (placeholder.kind === 'folder' && stats.isDirectory())
      fs.rmdirSync(target); // only when still empty
    else if (
      placeholder.kind === 'file' &&
      stats.isFile() &&
      stats.size === Buffer.byteLength(placeholder.content) &&
      fs.readFileSync(target, 'utf8') === placeholder.content
    )
      fs.unlinkSync(target);
  } catch {
    // Gone, not empty, changed, or unreadable: it is the user's now.
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
