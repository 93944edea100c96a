/**
 * How the checkpoint store lets checkpoints go: which refs protect a session's checkpoints, how a session's
 * record and refs change when some of its checkpoints are evicted, and how big the store is.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Checkpoint } from './types';
import type { Git } from './git';
import { hash16, ShadowRepo } from './shadowRepo';
import type { SessionRecord } from './sessionFile';

/** The shadow repository of a root (by its real path), shared by every session. */
export function repoFor(git: Git, storageDir: string, root: string): ShadowRepo {
  return new ShadowRepo(git, path.join(storageDir, 'repos', hash16(root)));
}

/** Where kept contents live (one repository for the store; each session protects its own with a ref). */
export function keptRepo(git: Git, storageDir: string): ShadowRepo {
  return new ShadowRepo(git, path.join(storageDir, 'repos', 'kept'));
}

export function refPrefix(sessionKey: string): string {
  return `refs/acp/${sessionKey}/`;
}

/**
 * The refs that keep a session's captures of `root`: `refs/acp/<sessionKey>/<checkpointId>` for the oldest
 * checkpoint holding each distinct tree (an unchanged root reuses its tree without a new ref).
 */
export function refsFor(sessionKey: string, checkpoints: readonly Checkpoint[], root: string): Map<string, string> {
  const refs = new Map<string, string>();
  const seen = new Set<string>();
  for (const checkpoint of checkpoints) {
    const tree = checkpoint.trees[root];
    if (!tree || seen.has(tree)) continue;
    seen.add(tree);
    refs.set(`${refPrefix(sessionKey)}${checkpoint.id}`, tree);
  }
  return refs;
}

/** Ref changes (oid, or undefined to delete) that turn `before` into `after`. */
export function refChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): Map<string, string | undefined> {
  const changes = new Map<string, string | undefined>();
  for (const ref of before.keys()) if (!after.has(ref)) changes.set(ref, undefined);
  for (const [ref, oid] of after) if (before.get(ref) !== oid) changes.set(ref, oid);
  return changes;
}

/** Every root any of `checkpoints` captured. */
export function rootsOf(checkpoints: readonly Checkpoint[]): Set<string> {
  return new Set(checkpoints.flatMap((c) => Object.keys(c.trees)));
}

/**
 * Removes `ids` from a session's record and its refs in every repository concerned. A root whose last
 * capture is gone loses its head and its index files (their objects may be pruned next), so the session's
 * next capture of it starts afresh. Returns the repositories touched (to collect garbage in) and the ids
 * really removed.
 */
export async function evictFromRecord(
  git: Git,
  storageDir: string,
  sessionKey: string,
  record: SessionRecord,
  ids: ReadonlySet<string>,
): Promise<{ repos: ShadowRepo[]; removed: string[] }> {
  const removed = record.checkpoints.filter((c) => ids.has(c.id));
  if (removed.length === 0) return { repos: [], removed: [] };
  const before = record.checkpoints;
  const after = before.filter((c) => !ids.has(c.id));
  record.checkpoints = after;
  const repos: ShadowRepo[] = [];
  for (const root of rootsOf(removed)) {
    const repo = repoFor(git, storageDir, root);
    repos.push(repo);
    const changes = refChanges(refsFor(sessionKey, before, root), refsFor(sessionKey, after, root));
    const head = record.heads[root];
    const headGone = head !== undefined && !after.some((c) => c.trees[root] === head.tree);
    if (headGone) delete record.heads[root];
    await repo.exclusive(async () => {
      if (fs.existsSync(repo.dir)) await repo.updateRefs(changes);
      if (headGone) await removeIndexFiles(repo.dir, sessionKey);
    });
  }
  return { repos, removed: removed.map((c) => c.id) };
}

/** The session's index files in a repository (`index-<key>` and its nested ones). */
export async function removeIndexFiles(repoDir: string, sessionKey: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.promises.readdir(repoDir);
  } catch {
    return;
  }
  const own = `index-${sessionKey}`;
  await Promise.all(names.filter((n) => n === own || n.startsWith(`${own}.`)).map((n) => fs.promises.rm(path.join(repoDir, n), { force: true })));
}

/** The bytes of every file under `dir` (lstat sizes; links are not followed). */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    const files: string[] = [];
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else files.push(full);
    }
    const stats = await Promise.all(files.map((f) => fs.promises.lstat(f).catch(() => undefined)));
    for (const stat of stats) total += stat?.size ?? 0;
  }
  return total;
}
