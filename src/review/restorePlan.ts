/**
 * Restoring the roots to a checkpoint (undo and redo of turns) without losing the user's own edits. For each
 * file that differs between the state the agent last left (`expected`) and the `target` checkpoint, the file
 * on disk (`actual`) decides: unchanged since (`actual = expected`) → the target is written; changed by the
 * user → a three-way merge (base = expected, ours = actual, theirs = target) is written when clean, and the
 * file is a conflict otherwise (also when it is binary, a link, absent on a side, or open with unsaved
 * changes). Nothing is written while any file conflicts.
 */
import * as l10n from '@vscode/l10n';
import { decodeText, isBinary } from './hunks';
import { sameState, stateHash } from './fileStates';
import { relativePathProblem } from './relativePath';
import type { Checkpoint, CheckpointStore, FileState, ReviewFs, SkippedFile } from './types';

/** One file a restore writes. */
export interface RestoreFile {
  readonly root: string;
  readonly path: string;
  /** `create`: absent now; `remove`: absent in the target; `restore`: replaced. */
  readonly change: 'restore' | 'create' | 'remove';
  /** The user's edits since the agent were merged into the target. */
  readonly merged: boolean;
}

/** A file a restore cannot write, and why in words. */
export interface RestoreProblem {
  readonly root: string;
  readonly path: string;
  readonly reason: string;
}

/** What {@link SessionReview.undo}/{@link SessionReview.redo} would do; inspect it, then pass it back. */
export interface RestorePlan {
  readonly kind: 'undo' | 'redo';
  /** The turn asked for. */
  readonly turn: number;
  /** Every turn the restore changes the state of. */
  readonly turns: readonly number[];
  readonly files: readonly RestoreFile[];
  /** Files the user changed in a way that cannot be merged; while there are any, nothing is written. */
  readonly conflicts: readonly RestoreProblem[];
  /** Files too large to have been captured: they stay as they are. */
  readonly cannotRestore: readonly RestoreProblem[];
  /** Why the restore cannot be done at all (the turn is not done, its checkpoint was removed…). */
  readonly blocked?: string;
}

/** A file write of a plan, with the state on disk it was planned against. */
export interface PlannedWrite {
  readonly root: string;
  readonly path: string;
  readonly state: FileState | undefined;
  readonly actualHash: string;
}

export interface ComputedRestore {
  readonly files: RestoreFile[];
  readonly conflicts: RestoreProblem[];
  readonly cannotRestore: RestoreProblem[];
  readonly writes: PlannedWrite[];
}

/** Works out what restoring `target` over `expected` writes, given the disk now. Writes nothing. */
export async function computeRestore(
  store: CheckpointStore,
  fs: ReviewFs,
  target: Checkpoint,
  expected: Checkpoint,
  skipped: readonly SkippedFile[],
): Promise<ComputedRestore> {
  const result: ComputedRestore = { files: [], conflicts: [], cannotRestore: [], writes: [] };
  const tooLarge = new Set([...skipped, ...target.skipped, ...expected.skipped].map((s) => `${s.root}\u0000${s.path}`));
  const paths = new Map<string, { root: string; path: string }>();
  for (const change of await store.changes(target, expected)) {
    for (const p of change.oldPath === undefined ? [change.path] : [change.oldPath, change.path]) paths.set(`${change.root}\u0000${p}`, { root: change.root, path: p });
  }
  for (const s of tooLarge) {
    const [root, path] = s.split('\u0000') as [string, string];
    result.cannotRestore.push({ root, path, reason: l10n.t('It was too large to be captured, so it cannot be restored.') });
    paths.delete(s);
  }
  for (const { root, path } of paths.values()) {
    const problem = relativePathProblem(path);
    if (problem !== undefined) {
      result.conflicts.push({ root, path, reason: l10n.t('It was not touched: {0}', problem) });
      continue;
    }
    const [want, was, actual] = await Promise.all([store.read(target, root, path), store.read(expected, root, path), fs.read(root, path)]);
    if (sameState(actual, want)) continue;
    if (fs.isDirty(root, path)) {
      result.conflicts.push({ root, path, reason: l10n.t('It has unsaved changes in an editor; save or revert them first.') });
      continue;
    }
    const change = want === undefined ? 'remove' : actual === undefined ? 'create' : 'restore';
    if (sameState(actual, was)) {
      result.files.push({ root, path, change, merged: false });
      result.writes.push({ root, path, state: want, actualHash: stateHash(actual) });
      continue;
    }
    const merged = await mergeEdits(store, was, actual, want);
    if (merged === undefined) {
      result.conflicts.push({ root, path, reason: conflictReason(was, actual, want) });
      continue;
    }
    result.files.push({ root, path, change: 'restore', merged: true });
    result.writes.push({ root, path, state: merged, actualHash: stateHash(actual) });
  }
  return result;
}

/**
 * Writes a plan's files, after checking that each is still as planned (unchanged, no unsaved editor);
 * when any is not, nothing is written and those files are returned as conflicts.
 */
export async function applyRestore(fs: ReviewFs, writes: readonly PlannedWrite[]): Promise<{ conflicts: RestoreProblem[]; failed: RestoreProblem[] }> {
  const conflicts: RestoreProblem[] = [];
  for (const w of writes) {
    if (fs.isDirty(w.root, w.path)) conflicts.push({ root: w.root, path: w.path, reason: l10n.t('It has unsaved changes in an editor; save or revert them first.') });
    else if (stateHash(await fs.read(w.root, w.path)) !== w.actualHash) conflicts.push({ root: w.root, path: w.path, reason: l10n.t('It changed since the restore was planned.') });
  }
  if (conflicts.length > 0) return { conflicts, failed: [] };
  const failed: RestoreProblem[] = [];
  for (const w of writes) {
    try {
      await fs.write(w.root, w.path, w.state);
    } catch (error) {
      failed.push({ root: w.root, path: w.path, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { conflicts, failed };
}

function mergeable(state: FileState | undefined): state is FileState {
  return state !== undefined && state.mode !== 'symlink' && !isBinary(state.bytes) && decodeText(state.bytes) !== undefined;
}

async function mergeEdits(store: CheckpointStore, base: FileState | undefined, ours: FileState | undefined, theirs: FileState | undefined): Promise<FileState | undefined> {
  if (!mergeable(base) || !mergeable(ours) || !mergeable(theirs)) return undefined;
  const merged = await store.merge(base.bytes, ours.bytes, theirs.bytes);
  if (!merged.clean) return undefined;
  // The target's mode where the agent changed it, else the user's.
  return { bytes: merged.bytes, mode: theirs.mode !== base.mode ? theirs.mode : ours.mode };
}

function conflictReason(base: FileState | undefined, ours: FileState | undefined, theirs: FileState | undefined): string {
  if (ours === undefined) return l10n.t('You deleted it after the agent changed it.');
  if (theirs === undefined || base === undefined) return l10n.t('You changed it after the agent did, and restoring would remove or replace your version.');
  if (!mergeable(base) || !mergeable(ours) || !mergeable(theirs)) return l10n.t('You changed it after the agent did, and it cannot be merged (binary, a link or not UTF-8 text).');
  return l10n.t('You changed the same lines after the agent did.');
}
