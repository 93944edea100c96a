/**
 * A pending file as the review shows it: what the agent changed, told apart from what the user changed. Its
 * record holds the file without the agent's changes (`base`) and as the agent left it (`agent`); the disk now
 * may differ from `agent` by the user's edits, which a three-way merge moves onto the base ("the file without
 * the agent, with the user"), so the review compares that with the disk and shows only the agent's changes.
 * When the user edited the very lines the agent changed (or a side cannot be merged: binary, a link, absent),
 * they cannot be told apart: the file is `mixed`, shows both, and is never rejected whole over the user's lines.
 */
import * as l10n from '@vscode/l10n';
import type { ReviewHunk } from '../shared/reviewProtocol';
import { keyOf, sameState, stateHash } from './fileStates';
import { fileHunks } from './hunks';
import { relativePathProblem } from './relativePath';
import type { BaseRef, PendingEntry, TurnRecord } from './reviewRecord';
import { threeWay } from './threeWay';
import type { Checkpoint, ChangeStatus, CheckpointStore, FileChange, FileState, ReviewFs } from './types';
import { assertNever } from '../common/errors';

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
  /** The user changed the lines the agent changed too: the hunks show both (see pendingFiles.ts). */
  readonly mixed?: true;
}

/** The states of a pending entry. `lost`: its base is no longer kept by the store. */
export interface Inspection {
  readonly entry: PendingEntry;
  /** The recorded base: the file without the agent's changes, up to the agent's last turn. */
  readonly base: FileState | undefined;
  readonly lost: boolean;
  readonly current: FileState | undefined;
  /** For a rename: what is at the old path now. */
  readonly atOldPath: FileState | undefined;
  /** What the review compares the disk with: the base with the user's edits since the agent moved onto it. */
  readonly without: FileState | undefined;
  /** The user's edits and the agent's could not be told apart (`without` is then the recorded base). */
  readonly mixed: boolean;
  /** {@link PendingFile.shown}. */
  readonly shown: string;
  /** Nothing of the agent's is left (the user reverted it, the agent wrote the same bytes back, or accepted up to here). */
  readonly atBase: boolean;
}

const lostNote = (): string =>
  l10n.t('Its content before the agent changed it is no longer kept (old checkpoints were removed to save space); it can only be accepted.');

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
  }
  return assertNever(ref, 'review base');
}

/** Reads the sides of a pending entry from the store and the disk, and tells the user's edits apart. */
export async function inspect(store: CheckpointStore, fs: ReviewFs, entry: PendingEntry): Promise<Inspection> {
  const [{ state: base, lost }, agent, current, atOldPath] = await Promise.all([
    readBase(store, entry.base),
    entry.agent === undefined ? Promise.resolve(undefined) : readBase(store, entry.agent),
    fs.read(entry.root, entry.path),
    entry.oldPath === undefined ? Promise.resolve(undefined) : fs.read(entry.root, entry.oldPath),
  ]);
  const shown = entry.oldPath === undefined ? stateHash(current) : `${stateHash(current)}|${stateHash(atOldPath)}`;
  let without = base;
  let mixed = entry.mixed === true;
  // Without what the agent left (an older record, or its checkpoint removed), the disk counts as the agent's.
  const userEdited = !lost && agent !== undefined && !agent.lost && !sameState(current, agent.state);
  if (userEdited && entry.oldPath === undefined) {
    if (sameState(base, agent.state))
      without = current; // nothing of the agent's is left
    else {
      const moved = await threeWay(store, agent.state, current, base);
      if (moved !== undefined) without = moved;
      else mixed = true;
    }
  } else if (userEdited) mixed = true; // a renamed file the user edited: shown and rejected as it is
  const atBase = !lost && (entry.oldPath === undefined ? sameState(without, current) : current === undefined && sameState(atOldPath, base));
  return { entry, base, lost, current, atOldPath, without, mixed, shown, atBase };
}

/** The review's view of an inspected entry. */
export function toPendingFile(inspection: Inspection): PendingFile {
  const { entry, without, current, lost } = inspection;
  const key = keyOf(entry.root, entry.path);
  const renamedAway = entry.oldPath !== undefined && current === undefined;
  const status: ChangeStatus =
    entry.oldPath !== undefined
      ? renamedAway
        ? 'deleted'
        : 'renamed'
      : without === undefined && !lost
        ? 'added'
        : current === undefined
          ? 'deleted'
          : 'modified';
  const where = renamedAway ? { path: entry.oldPath! } : { path: entry.path, ...(entry.oldPath === undefined ? {} : { oldPath: entry.oldPath }) };
  if (lost) return { key, root: entry.root, ...where, status, added: 0, removed: 0, binary: false, noHunks: lostNote(), shown: inspection.shown };
  const hunks = fileHunks(without, current);
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
    ...(inspection.mixed ? { mixed: true as const } : {}),
  };
}

/**
 * Files a turn changed become pending, their base the content before the turn and `agent` what the turn left;
 * unsafe paths are skipped. A file pending from an earlier turn keeps its base, with whatever the user changed
 * since the agent's earlier turn (the turn's "Before" against what the agent left) moved onto it, so the
 * user's edits between turns never count as the agent's.
 */
export async function addTurnToPending(store: CheckpointStore, entries: Map<string, PendingEntry>, turn: TurnRecord): Promise<void> {
  const before = store.get(turn.before);
  for (const change of turn.files) {
    // A path the review would never touch (`..`, absolute…) is not reviewable; the turn still lists it.
    if (relativePathProblem(change.path) !== undefined || (change.oldPath !== undefined && relativePathProblem(change.oldPath) !== undefined)) continue;
    const key = keyOf(change.root, change.path);
    const agent: BaseRef = { kind: 'checkpoint', checkpoint: turn.after, root: change.root, path: change.path };
    if (change.status === 'renamed' && change.oldPath !== undefined) {
      const oldKey = keyOf(change.root, change.oldPath);
      const earlier = entries.get(oldKey);
      entries.delete(oldKey);
      if (earlier !== undefined) {
        // Renamed again, or created then renamed: the base stays what it was before the agent's first change.
        const first = earlier.base.kind === 'absent' ? undefined : (earlier.oldPath ?? change.oldPath);
        const oldPath = first === change.path ? undefined : first; // renamed back where it was
        const folded = await withUserEdits(store, earlier, before, change.root, change.oldPath);
        entries.set(key, { root: change.root, path: change.path, ...(oldPath === undefined ? {} : { oldPath }), ...folded, agent });
      } else {
        entries.set(key, {
          root: change.root,
          path: change.path,
          oldPath: change.oldPath,
          base: { kind: 'checkpoint', checkpoint: turn.before, root: change.root, path: change.oldPath },
          agent,
        });
      }
      continue;
    }
    const earlier = entries.get(key);
    if (earlier !== undefined) {
      entries.set(key, { ...earlier, ...(await withUserEdits(store, earlier, before, change.root, change.path)), agent });
      continue;
    }
    const base =
      change.status === 'added'
        ? ({ kind: 'absent' } as const)
        : ({ kind: 'checkpoint', checkpoint: turn.before, root: change.root, path: change.path } as const);
    entries.set(key, { root: change.root, path: change.path, base, agent });
  }
}

/**
 * The base of a file pending from an earlier turn, with what the user changed between that turn and this one
 * (what the agent left ↔ this turn's "Before", at `path`) moved onto it; `mixed` when that cannot be told apart.
 */
async function withUserEdits(
  store: CheckpointStore,
  earlier: PendingEntry,
  before: Checkpoint | undefined,
  root: string,
  path: string,
): Promise<Pick<PendingEntry, 'base' | 'mixed'>> {
  const kept = { base: earlier.base, ...(earlier.mixed ? { mixed: true as const } : {}) };
  if (earlier.agent === undefined || before === undefined) return kept;
  const [agent, base, now] = await Promise.all([readBase(store, earlier.agent), readBase(store, earlier.base), store.read(before, root, path)]);
  if (agent.lost || base.lost || sameState(agent.state, now)) return kept;
  const moved = await threeWay(store, agent.state, now, base.state);
  if (moved === undefined) return { base: earlier.base, mixed: true };
  if (sameState(moved, base.state)) return kept;
  return { base: { kind: 'kept', id: await store.keep(moved) }, ...(earlier.mixed ? { mixed: true as const } : {}) };
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
