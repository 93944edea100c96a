/**
 * Three-way merges of file states (through the store's `git merge-file`): what tells the user's edits apart
 * from the agent's. Only text can be merged; a link, a binary file or a side that is absent cannot.
 */
import { decodeText, isBinary } from './hunks';
import type { CheckpointStore, FileState } from './types';

/** Text that a three-way merge can take (not a link, not binary, valid UTF-8). */
export function mergeable(state: FileState | undefined): state is FileState {
  return state !== undefined && state.mode !== 'symlink' && !isBinary(state.bytes) && decodeText(state.bytes) !== undefined;
}

/**
 * `ours` with the change from `base` to `theirs` applied, when both sides merge cleanly; `undefined` when
 * they cannot (a conflict, or a side that cannot be merged). The mode is `theirs`' where it changed it, else `ours`'.
 */
export async function threeWay(
  store: CheckpointStore,
  base: FileState | undefined,
  ours: FileState | undefined,
  theirs: FileState | undefined,
): Promise<FileState | undefined> {
  if (!mergeable(base) || !mergeable(ours) || !mergeable(theirs)) return undefined;
  const merged = await store.merge(base.bytes, ours.bytes, theirs.bytes);
  if (!merged.clean) return undefined;
  return { bytes: merged.bytes, mode: theirs.mode !== base.mode ? theirs.mode : ours.mode };
}
