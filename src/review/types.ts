/**
 * Checkpoints and review of what an agent changed, across every folder of a session: the contracts between
 * the checkpoint store (a shadow git object store outside the workspace, {@link CheckpointStore}), the
 * review model (pending changes, hunks, accept/reject, restore/redo) and the file system it writes to
 * ({@link ReviewFs}). Plain Node; no `vscode`.
 */

/** A folder of a session whose state checkpoints capture. */
export interface CheckpointRoot {
  /** Shown to the user (the workspace folder's name). */
  readonly name: string;
  /** Real, absolute path. */
  readonly path: string;
}

/** How a file is kept: its bytes, and whether it is executable or a symbolic link (bytes = link target). */
export type FileMode = 'file' | 'executable' | 'symlink';

export interface FileState {
  readonly bytes: Uint8Array;
  readonly mode: FileMode;
}

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed';

/** One file that differs between two states of a root. */
export interface FileChange {
  /** The root's real path. */
  readonly root: string;
  /** Relative to the root, `/`-separated. */
  readonly path: string;
  /** For a rename: where it was. */
  readonly oldPath?: string;
  readonly status: ChangeStatus;
  /** Lines added and removed (0 for binary files). */
  readonly added: number;
  readonly removed: number;
  readonly binary: boolean;
}

/**
 * Why something was not captured:
 * - `too-large`: the file is over the store's size cap (listed when it changes);
 * - `nested-repository`: a git repository nested too deep inside the root (its files are not captured);
 * - `too-many-files`: the root (or the nested repository at `path`) holds more files than the store's cap,
 *   so none of it was captured;
 * - `root-unavailable`: the root folder does not exist (or cannot be read) any more (`path` is `''`).
 */
export type SkipReason = 'too-large' | 'nested-repository' | 'too-many-files' | 'root-unavailable';

/**
 * A file checkpoints do not capture, and why (it is still listed when it changes; it cannot be restored).
 * `path` is `''` when the whole root is meant.
 */
export interface SkippedFile {
  readonly root: string;
  readonly path: string;
  readonly reason: SkipReason;
}

/** The state of every root of a session at one moment. */
export interface Checkpoint {
  /** Unique within the session, e.g. `c12`. */
  readonly id: string;
  /** In words, e.g. "Before turn 3". */
  readonly label: string;
  /** Epoch milliseconds. */
  readonly takenAt: number;
  /** Root real path → the store's id of that root's state (a tree in its shadow repository, kept by a ref). */
  readonly trees: Readonly<Record<string, string>>;
  /** Files that changed but were not captured (over the size cap). */
  readonly skipped: readonly SkippedFile[];
  /**
   * Root real path → every file over the size cap then (in no tree: nothing is known of its content), so a
   * file shrunk below the cap or removed is never claimed added or deleted. Absent in older records.
   */
  readonly large?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Where a session's checkpoints live: a shadow git repository per root under the extension's storage, never
 * the user's own repository (index, stash, branches, hooks and config untouched). Honours the root's ignore
 * rules and a per-file size cap, keeps binary files and symbolic links, and bounds its storage (the oldest
 * checkpoints go first; {@link onDidEvict} says which).
 */
export interface CheckpointStore {
  /** The roots the next checkpoint captures by default (they follow the session's folders). */
  setRoots(roots: readonly CheckpointRoot[]): void;
  /** The roots set last. */
  roots(): readonly CheckpointRoot[];
  /**
   * Captures the state of every root now (incremental: costs about what `git status` does); `roots` (default:
   * those set last) names them, so a turn's "After" captures exactly what its "Before" did.
   */
  take(label: string, roots?: readonly CheckpointRoot[]): Promise<Checkpoint>;
  /** The checkpoints still kept, oldest first. */
  list(): readonly Checkpoint[];
  get(id: string): Checkpoint | undefined;
  /**
   * What differs between two checkpoints, in every root both captured (renames detected); a root only one
   * of them captured is not compared (nothing is known of it on the other side).
   */
  changes(from: Checkpoint, to: Checkpoint): Promise<FileChange[]>;
  /** A file as a checkpoint has it; `undefined` when it did not exist there (or the root was not captured). */
  read(checkpoint: Checkpoint, root: string, path: string): Promise<FileState | undefined>;
  /** Keeps content that no checkpoint has (a review base after accepting a hunk); returns its id. */
  keep(state: FileState): Promise<string>;
  readKept(id: string): Promise<FileState | undefined>;
  /** A three-way merge of text (`git merge-file`): `ours` and `theirs` both changed `base`. */
  merge(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array): Promise<{ readonly clean: boolean; readonly bytes: Uint8Array }>;
  /** The checkpoints removed to stay within the storage limit (ids). */
  onDidEvict(listener: (ids: readonly string[]) => void): { dispose(): void };
  dispose(): void;
}

/**
 * The file system the review writes to: every path is checked against the session's roots at the moment
 * of writing (real paths; a symbolic link that leads outside is refused), so nothing outside them is
 * ever written.
 */
export interface ReviewFs {
  /** The file now (`undefined` when absent). */
  read(root: string, path: string): Promise<FileState | undefined>;
  /** Writes it exactly (creating folders inside the root); `undefined` removes the file. */
  write(root: string, path: string, state: FileState | undefined): Promise<void>;
  /** An editor holds unsaved changes to the file (a restore must not overwrite them silently). */
  isDirty(root: string, path: string): boolean;
}
