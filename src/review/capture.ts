/**
 * One capture of a folder into a shadow repository, incremental: `git ls-files` against the session's own
 * index says what changed since the session's last capture, only those paths are updated in the index,
 * and the index becomes a tree. Git repositories nested in the folder are captured the same way with
 * an index of their own and grafted into the folder's tree at their path, so every path stays relative to
 * the root and nothing special is needed to diff or read them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SkipReason } from './types';
import { joinNul, splitNul } from './git';
import { EMPTY_TREE, hash16, type ShadowRepo } from './shadowRepo';

/** How deep nested repositories are followed (a repository inside a repository inside the root…). */
const MAX_NESTING = 4;

/** What a capture produced for a folder, remembered to make the next capture cheap. */
export interface TreeState {
  /** The folder's own files (its index as a tree). */
  readonly base: string;
  /** `base` with the nested repositories grafted in: what the checkpoint holds. */
  readonly tree: string;
  /** Nested repository path (relative to this folder) → its state. */
  readonly nested: Readonly<Record<string, TreeState>>;
}

export interface CaptureLimits {
  readonly maxFileBytes: number;
  readonly maxFiles: number;
}

export interface CaptureInput {
  readonly repo: ShadowRepo;
  /** The folder (absolute). */
  readonly workTree: string;
  /** The session's index for this folder. */
  readonly indexFile: string;
  readonly limits: CaptureLimits;
  /**
   * The state the previous capture of this session left, when the index is known to match it (then an
   * unchanged folder costs only `git ls-files`).
   */
  readonly previous?: TreeState;
  /** Path (relative to the root) → size/mtime of files over the size cap seen before: reported only when they change. */
  readonly largeSeen: Readonly<Record<string, string>>;
}

export interface CaptureSkip {
  /** Relative to the root. */
  readonly path: string;
  readonly reason: SkipReason;
}

export type CaptureResult =
  | { readonly captured: true; readonly state: TreeState; readonly skipped: readonly CaptureSkip[]; readonly large: Record<string, string> }
  | { readonly captured: false; readonly skipped: readonly CaptureSkip[] };

/** Captures `input.workTree`; runs inside the repository's exclusive section. */
export async function capture(input: CaptureInput): Promise<CaptureResult> {
  const skipped: CaptureSkip[] = [];
  const large: Record<string, string> = {};
  const state = await captureFolder(input, '', 0, skipped, large);
  return state ? { captured: true, state, skipped, large } : { captured: false, skipped };
}

async function captureFolder(
  input: CaptureInput,
  prefix: string,
  depth: number,
  skipped: CaptureSkip[],
  large: Record<string, string>,
): Promise<TreeState | undefined> {
  const { repo, limits } = input;
  const workTree = prefix ? path.join(input.workTree, prefix) : input.workTree;
  const indexFile = prefix ? `${input.indexFile}.${hash16(prefix)}` : input.indexFile;
  const previous = prefix ? input.previous?.nested[prefix] : input.previous;
  const target = { gitDir: repo.dir, workTree, indexFile };
  await seedIndex(indexFile);

  // What differs from the session's index: modified and deleted files (-m -d) and untracked ones (-o), the
  // ignore rules applied. Unlike `git status` it does not also compare the index with HEAD (unborn here, so
  // that would list every captured file on every take).
  const listed = await repo.git.run(target, ['ls-files', '-z', '-t', '-m', '-d', '-o', '--exclude-standard']);
  const paths: string[] = [];
  const nestedDirs: string[] = [];
  const seen = new Set<string>();
  let untracked = 0;
  for (const record of splitNul(listed.stdout)) {
    const tag = record.charAt(0);
    const file = record.slice(2);
    if (!file || seen.has(file)) continue; // a deleted file is listed as removed and as modified
    seen.add(file);
    if (tag === '?') {
      // Untracked files are listed one by one; only a nested repository shows as a folder.
      if (file.endsWith('/')) nestedDirs.push(file.slice(0, -1));
      else {
        untracked++;
        paths.push(file);
      }
    } else paths.push(file);
  }
  const full = (p: string): string => (prefix ? `${prefix}/${p}` : p);

  if ((await indexEntries(indexFile)) + untracked > limits.maxFiles) {
    skipped.push({ path: prefix, reason: 'too-many-files' });
    return undefined;
  }

  const { add, tooLarge } = await sortBySize(workTree, paths, limits.maxFileBytes);
  let largeChanged = false;
  for (const [file, signature] of tooLarge) {
    large[full(file)] = signature;
    if (input.largeSeen[full(file)] === signature) continue;
    largeChanged = true;
    skipped.push({ path: full(file), reason: 'too-large' });
  }

  let base = previous?.base;
  // An untracked file over the cap is listed on every take; unchanged, it needs no index update.
  if (add.length > 0 || largeChanged || !base) {
    if (add.length > 0) {
      // --remove: a path that vanished (or vanishes now) leaves the index; --replace: a file became a folder.
      await repo.git.run(target, ['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], { input: joinNul(add) });
    }
    if (tooLarge.size > 0) {
      // A file captured while small is dropped rather than kept at a stale version.
      await repo.git.run(target, ['update-index', '--force-remove', '-z', '--stdin'], { input: joinNul([...tooLarge.keys()]) });
    }
    base = (await repo.git.run(target, ['write-tree'])).stdout.toString('utf8').trim();
  }

  const nested: Record<string, TreeState> = {};
  for (const dir of nestedDirs.sort()) {
    if (depth >= MAX_NESTING) {
      skipped.push({ path: full(dir), reason: 'nested-repository' });
      continue;
    }
    const state = await captureFolder(input, full(dir), depth + 1, skipped, large);
    if (state) nested[dir] = state;
  }

  const tree = await graft(repo, workTree, indexFile, base, nested, previous);
  return { base, tree, nested };
}

/**
 * The first capture of a session starts from the most recent index another session left for the same
 * folder (when there is one): it holds the same paths with fresh stat data, so `git ls-files` only looks at
 * what changed since instead of hashing the whole folder again. Safe because what the index says is
 * checked against the files by `git ls-files` anyway; if its objects were pruned, the caller retries empty.
 */
async function seedIndex(indexFile: string): Promise<void> {
  if (fs.existsSync(indexFile)) return;
  const dir = path.dirname(indexFile);
  const suffix = path.basename(indexFile).replace(/^index-[0-9a-f]+/, '');
  let best: { file: string; mtime: number } | undefined;
  for (const name of await fs.promises.readdir(dir)) {
    if (!/^index-[0-9a-f]+/.test(name) || name.replace(/^index-[0-9a-f]+/, '') !== suffix) continue;
    try {
      const stat = await fs.promises.stat(path.join(dir, name));
      if (!best || stat.mtimeMs > best.mtime) best = { file: path.join(dir, name), mtime: stat.mtimeMs };
    } catch {
      // removed meanwhile
    }
  }
  if (!best) return;
  try {
    await fs.promises.copyFile(best.file, indexFile);
  } catch {
    await fs.promises.rm(indexFile, { force: true });
  }
}

/** The number of entries an index holds (its header), 0 when there is no index yet. */
async function indexEntries(indexFile: string): Promise<number> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(indexFile, 'r');
    const header = Buffer.alloc(12);
    const { bytesRead } = await handle.read(header, 0, 12, 0);
    return bytesRead === 12 && header.toString('latin1', 0, 4) === 'DIRC' ? header.readUInt32BE(8) : 0;
  } catch {
    return 0;
  } finally {
    await handle?.close();
  }
}

/** Splits paths into those to update in the index and regular files over the cap (with a size/mtime signature). */
async function sortBySize(workTree: string, paths: readonly string[], maxFileBytes: number): Promise<{ add: string[]; tooLarge: Map<string, string> }> {
  const add: string[] = [];
  const tooLarge = new Map<string, string>();
  const chunk = 256;
  for (let i = 0; i < paths.length; i += chunk) {
    const slice = paths.slice(i, i + chunk);
    const stats = await Promise.all(slice.map((p) => fs.promises.lstat(path.join(workTree, p)).catch(() => undefined)));
    slice.forEach((p, j) => {
      const stat = stats[j];
      if (stat?.isFile() && stat.size > maxFileBytes) tooLarge.set(p, `${stat.size}:${Math.trunc(stat.mtimeMs)}`);
      else add.push(p);
    });
  }
  return { add, tooLarge };
}

/** `base` with each nested repository's tree at its path (a temporary index; skipped when nothing changed). */
async function graft(
  repo: ShadowRepo,
  workTree: string,
  indexFile: string,
  base: string,
  nested: Readonly<Record<string, TreeState>>,
  previous: TreeState | undefined,
): Promise<string> {
  const dirs = Object.keys(nested);
  if (dirs.length === 0) return base;
  if (previous && previous.base === base && sameNested(previous.nested, nested)) return previous.tree;
  const graftIndex = `${indexFile}.graft`;
  // read-tree insists on a work tree even when it only fills an index (no -u: the folder is not touched).
  const target = { gitDir: repo.dir, workTree, indexFile: graftIndex };
  try {
    await repo.git.run(target, base === EMPTY_TREE ? ['read-tree', '--empty'] : ['read-tree', base]);
    // A folder that became a repository after it was captured as plain files: its old entries make way.
    const stale = await repo.git.run(target, ['ls-files', '-z', '--', ...dirs.map((d) => `${d}/`)]);
    const stalePaths = splitNul(stale.stdout);
    if (stalePaths.length > 0) await repo.git.run(target, ['update-index', '--force-remove', '-z', '--stdin'], { input: joinNul(stalePaths) });
    for (const dir of dirs) {
      const tree = nested[dir]!.tree;
      if (tree !== EMPTY_TREE) await repo.git.run(target, ['read-tree', `--prefix=${dir}/`, tree]);
    }
    return (await repo.git.run(target, ['write-tree'])).stdout.toString('utf8').trim();
  } finally {
    await fs.promises.rm(graftIndex, { force: true });
  }
}

function sameNested(a: Readonly<Record<string, TreeState>>, b: Readonly<Record<string, TreeState>>): boolean {
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((k) => a[k]?.tree === b[k]!.tree);
}
