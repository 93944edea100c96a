/**
 * Undo and redo without losing the user's own edits: a restore is a list of steps, each taking one change of
 * the agent's back (undo: a turn, "After turn n" → "Before turn n") or one undo back (redo: "After undo" →
 * "Before undo"), on the paths that change touched and nothing else. Each path starts from the disk and goes
 * through the steps that touch it, latest first: where it is as the step left it, it becomes what the step
 * goes back to; where it already is that, it stays; otherwise the user changed it since, and a three-way
 * merge (base = as the step left it, ours = now, theirs = what it goes back to) keeps their edits when clean,
 * else the file is a conflict (also when it is binary, a link, absent on a side, or open with unsaved changes).
 * What the user did between turns, or after the last one, is never in a step: a file they created, a line
 * they edited, a file the agent never touched are left alone. Nothing is written while any file conflicts.
 */
import * as l10n from '@vscode/l10n';
import { sameState, stateHash } from './fileStates';
import { relativePathProblem } from './relativePath';
import { mergeable, threeWay } from './threeWay';
import type { Checkpoint, CheckpointStore, FileChange, FileState, ReviewFs, SkippedFile, SkipReason } from './types';
import { errorMessage } from '../common/errors';

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
  /** `''`: the whole folder. */
  readonly path: string;
  readonly reason: string;
  /** For what a checkpoint could not capture: why. */
  readonly skipped?: SkipReason;
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

/** One change a restore takes back, on the paths it touched: `from` is as it left them, `to` what they go back to. */
export interface RestoreStep {
  readonly from: Checkpoint;
  readonly to: Checkpoint;
  readonly paths: readonly { readonly root: string; readonly path: string }[];
}

/** The paths of changes (a rename as both its paths). */
export function changedPaths(changes: readonly FileChange[]): { root: string; path: string }[] {
  return changes.flatMap((c) => (c.oldPath === undefined ? [c.path] : [c.oldPath, c.path]).map((p) => ({ root: c.root, path: p })));
}

/** Works out what taking `steps` back (in order: the latest change first) writes, given the disk now. Writes nothing. */
export async function computeRestore(
  store: CheckpointStore,
  fs: ReviewFs,
  steps: readonly RestoreStep[],
  skipped: readonly SkippedFile[],
): Promise<ComputedRestore> {
  const result: ComputedRestore = { files: [], conflicts: [], cannotRestore: [], writes: [] };
  const key = (root: string, path: string) => `${root}\u0000${path}`;
  const notCaptured = new Map<string, SkippedFile>();
  for (const s of skipped) if (!notCaptured.has(key(s.root, s.path))) notCaptured.set(key(s.root, s.path), s);
  for (const s of notCaptured.values()) result.cannotRestore.push({ root: s.root, path: s.path, reason: notCapturedReason(s), skipped: s.reason });
  const paths = new Map<string, { root: string; path: string }>();
  const touched = steps.map((step) => new Set(step.paths.map((p) => key(p.root, p.path))));
  // A file too large to capture is left as it is. (A folder a turn could not capture has no paths in that
  // turn's step: its checkpoints were not compared there; another turn's changes to it are restored.)
  for (const step of steps) for (const p of step.paths) if (!notCaptured.has(key(p.root, p.path))) paths.set(key(p.root, p.path), p);
  // By folder, then path (as the store lists changes), whatever the order of the steps that touched them.
  const ordered = [...paths].sort(([, a], [, b]) => (a.root < b.root ? -1 : a.root > b.root ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const [at, { root, path }] of ordered) {
    const problem = relativePathProblem(path);
    if (problem !== undefined) {
      result.conflicts.push({ root, path, reason: l10n.t('It was not touched: {0}', problem) });
      continue;
    }
    const actual = await fs.read(root, path);
    let state = actual;
    let merged = false;
    let conflict: string | undefined;
    for (let i = 0; i < steps.length && conflict === undefined; i++) {
      if (!touched[i]!.has(at)) continue;
      const step = steps[i]!;
      const [was, want] = await Promise.all([store.read(step.from, root, path), store.read(step.to, root, path)]);
      if (sameState(state, was)) state = want;
      else if (!sameState(state, want)) {
        // Changed since by the user: their edits stay, merged with what the step takes back.
        const kept = await threeWay(store, was, state, want);
        if (kept === undefined) conflict = conflictReason(was, state, want);
        else {
          state = kept;
          merged = true;
        }
      }
    }
    if (conflict !== undefined) {
      result.conflicts.push({ root, path, reason: conflict });
      continue;
    }
    if (sameState(actual, state)) continue;
    if (fs.isDirty(root, path)) {
      result.conflicts.push({ root, path, reason: l10n.t('It has unsaved changes in an editor; save or revert them first.') });
      continue;
    }
    const change = state === undefined ? 'remove' : actual === undefined ? 'create' : 'restore';
    result.files.push({ root, path, change, merged });
    result.writes.push({ root, path, state, actualHash: stateHash(actual) });
  }
  return result;
}

/** Why a file or folder a checkpoint did not capture cannot be restored, in words. */
function notCapturedReason(skip: SkippedFile): string {
  switch (skip.reason) {
    case 'too-large':
      return l10n.t('It was too large to be captured, so it cannot be restored.');
    case 'nested-repository':
      return l10n.t('It is a Git repository nested too deep to be captured, so what changed in it cannot be restored.');
    case 'too-many-files':
      return l10n.t('The folder held more files than checkpoints keep, so what changed in it is not known and cannot be restored.');
    case 'root-unavailable':
      return l10n.t('The folder could not be read, so what changed in it is not known and cannot be restored.');
  }
}

/**
 * Writes a plan's files, after checking that each is still as planned (unchanged, no unsaved editor);
 * when any is not, nothing is written and those files are returned as conflicts.
 */
export async function applyRestore(fs: ReviewFs, writes: readonly PlannedWrite[]): Promise<{ conflicts: RestoreProblem[]; failed: RestoreProblem[] }> {
  const conflicts: RestoreProblem[] = [];
  for (const w of writes) {
    if (fs.isDirty(w.root, w.path))
      conflicts.push({ root: w.root, path: w.path, reason: l10n.t('It has unsaved changes in an editor; save or revert them first.') });
    else if (stateHash(await fs.read(w.root, w.path)) !== w.actualHash)
      conflicts.push({ root: w.root, path: w.path, reason: l10n.t('It changed since the restore was planned.') });
  }
  if (conflicts.length > 0) return { conflicts, failed: [] };
  const failed: RestoreProblem[] = [];
  for (const w of writes) {
    try {
      await fs.write(w.root, w.path, w.state);
    } catch (error) {
      failed.push({ root: w.root, path: w.path, reason: errorMessage(error) });
    }
  }
  return { conflicts, failed };
}

function conflictReason(base: FileState | undefined, ours: FileState | undefined, theirs: FileState | undefined): string {
  if (ours === undefined) return l10n.t('You deleted it after the agent changed it.');
  if (theirs === undefined || base === undefined) return l10n.t('You changed it after the agent did, and restoring would remove or replace your version.');
  if (!mergeable(base) || !mergeable(ours) || !mergeable(theirs))
    return l10n.t('You changed it after the agent did, and it cannot be merged (binary, a link or not UTF-8 text).');
  return l10n.t('You changed the same lines after the agent did.');
}
