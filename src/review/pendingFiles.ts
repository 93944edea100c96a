/**
 * A pending file as the review shows it: its base (by reference) and the disk now, compared. Pure apart
 * from reading the two states.
 */
import * as l10n from '@vscode/l10n';
import type { ReviewHunk } from '../shared/reviewProtocol';
import { keyOf, sameState, stateHash } from './fileStates';
import { fileHunks } from './hunks';
import { relativePathProblem } from './relativePath';
import type { BaseRef, PendingEntry, TurnRecord } from './reviewRecord';
import type { ChangeStatus, CheckpointStore, FileChange, FileState, ReviewFs } from './types';

/** A file still to review, compared with its base now. */
export interface PendingFile extends FileChange {
  /** `${root}\u0000${path}`: stable while the file is pending. (`path` is the file's path now; for a file
   * renamed and then deleted, where it was before.) */
  readonly key: string;
  /** Present when per-hunk review is offered; indices are what `accept`/`reject` take. */
  readonly hunks?: ReviewHunk[];
  /** Why only the whole file can be reviewed, in words. */
  readonly noHunks?: string;
  /** Fingerprint of the disk state shown; pass it back to `accept`/`reject` to act only on what was shown. */
  readonly shown: string;
}

/** The base and disk states of a pending entry. `lost`: its base is no longer kept by the store. */
export interface Inspection {
  readonly entry: PendingEntry;
  readonly base: FileState | undefined;
  readonly lost: boolean;
  readonly current: FileState | undefined;
  /** For a rename: what is at the old path now. */
  readonly atOldPath: FileState | undefined;
  /** {@link PendingFile.shown}. */
  readonly shown: string;
  /** The file is back at its base (the user reverted it, or the agent wrote the same bytes back). */
  readonly atBase: boolean;
}

const lostNote = (): string => l10n.t('Its content before the agent changed it is no longer kept (old checkpoints were removed to save space); it can only be accepted.');

/** Reads a base; `lost` when the checkpoint or kept content it refers to is gone. */
export async function readBase(store: CheckpointStore, ref: BaseRef): Promise<{ state: FileState | undefined; lost: boolean }> {
  switch (ref.kind) {
    case 'absent':
      return { state: undefined, lost: false };
    case 'checkpoint': {
      const checkpoint = store.get(ref.checkpoint);
      if (checkpoint === undefined) return { state: undefined, lost: true };
      return { state: await store.read(checkpoint, ref.root, ref.path), lost: false };
    }
    case 'kept': {
      const state = await store.readKept(ref.id);
      return { state, lost: state === undefined };
    }
    default:
      return { state: undefined, lost: true };
  }
}

/** Reads both sides of a pending entry from the store and the disk. */
export async function inspect(store: CheckpointStore, fs: ReviewFs, entry: PendingEntry): Promise<Inspection> {
  const [{ state: base, lost }, current, atOldPath] = await Promise.all([
    readBase(store, entry.base),
    fs.read(entry.root, entry.path),
    entry.oldPath === undefined ? Promise.resolve(undefined) : fs.read(entry.root, entry.oldPath),
  ]);
  const shown = entry.oldPath === undefined ? stateHash(current) : `${stateHash(current)}|${stateHash(atOldPath)}`;
  const atBase = !lost && (entry.oldPath === undefined ? sameState(base, current) : current === undefined && sameState(atOldPath, base));
  return { entry, base, lost, current, atOldPath, shown, atBase };
}

/** The review's view of an inspected entry. */
export function toPendingFile(inspection: Inspection): PendingFile {
  const { entry, base, current, lost } = inspection;
  const key = keyOf(entry.root, entry.path);
  const renamedAway = entry.oldPath !== undefined && current === undefined;
  const status: ChangeStatus =
    entry.oldPath !== undefined ? (renamedAway ? 'deleted' : 'renamed') : base === undefined && !lost ? 'added' : current === undefined ? 'deleted' : 'modified';
  const where = renamedAway ? { path: entry.oldPath! } : { path: entry.path, ...(entry.oldPath === undefined ? {} : { oldPath: entry.oldPath }) };
  if (lost) return { key, root: entry.root, ...where, status, added: 0, removed: 0, binary: false, noHunks: lostNote(), shown: inspection.shown };
  const hunks = fileHunks(base, current);
  return {
    key,
    root: entry.root,
    ...where,
    status,
    added: hunks.added,
    removed: hunks.removed,
    binary: hunks.binary,
    ...(hunks.hunks === undefined ? {} : { hunks: hunks.hunks }),
    ...(hunks.noHunks === undefined ? {} : { noHunks: hunks.noHunks }),
    shown: inspection.shown,
  };
}

/** Files a turn changed become pending (if not already), their base the content before the turn; unsafe paths are skipped. */
export function addTurnToPending(entries: Map<string, PendingEntry>, turn: TurnRecord): void {
  for (const change of turn.files) {
    // A path the review would never touch (`..`, absolute…) is not reviewable; the turn still lists it.
    if (relativePathProblem(change.path) !== undefined || (change.oldPath !== undefined && relativePathProblem(change.oldPath) !== undefined)) continue;
    const key = keyOf(change.root, change.path);
    if (change.status === 'renamed' && change.oldPath !== undefined) {
      const oldKey = keyOf(change.root, change.oldPath);
      const earlier = entries.get(oldKey);
      entries.delete(oldKey);
      if (earlier !== undefined) {
        // Renamed again, or created then renamed: the base stays what it was before the agent's first change.
        const first = earlier.base.kind === 'absent' ? undefined : (earlier.oldPath ?? change.oldPath);
        const oldPath = first === change.path ? undefined : first; // renamed back where it was
        entries.set(key, { root: change.root, path: change.path, ...(oldPath === undefined ? {} : { oldPath }), base: earlier.base });
      } else {
        entries.set(key, { root: change.root, path: change.path, oldPath: change.oldPath, base: { kind: 'checkpoint', checkpoint: turn.before, root: change.root, path: change.oldPath } });
      }
      continue;
    }
    if (entries.has(key)) continue;
    const base = change.status === 'added' ? ({ kind: 'absent' } as const) : ({ kind: 'checkpoint', checkpoint: turn.before, root: change.root, path: change.path } as const);
    entries.set(key, { root: change.root, path: change.path, base });
  }
}

/** Sorts by root (in `rootOrder`, unknown roots after, by name), then by path. */
export function byRootThenPath(rootOrder: readonly string[]): (a: PendingFile, b: PendingFile) => number {
  const rank = (root: string) => {
    const i = rootOrder.indexOf(root);
    return i === -1 ? rootOrder.length : i;
  };
  return (a, b) => rank(a.root) - rank(b.root) || compare(a.root, b.root) || compare(a.path, b.path);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
