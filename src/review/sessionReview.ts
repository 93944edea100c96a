/**
 * SessionReview: one chat session's checkpoints and review. Each agent turn is bracketed by checkpoints of
 * the same folders; what a turn changed becomes pending until the user accepts or rejects it, whole or hunk
 * by hunk, and only what the agent changed is shown (the user's edits, between turns or since, are told
 * apart: pendingFiles.ts). A turn can be undone (its changes and every later turn's taken back, each on the
 * files it changed: restorePlan.ts) and redone, never touching what the user did (their edits merged when
 * clean, listed as conflicts otherwise). Every write goes through {@link ReviewFs}; the record is saved after
 * each change and holds all of this (see reviewRecord.ts), so a reloaded window acts as the one before it.
 * Operations run one at a time, in call order.
 */
import * as l10n from '@vscode/l10n';
import { Emitter, type Event } from '../common/events';
import { type Logger, silentLogger } from '../common/logger';
import { keyOf } from './fileStates';
import { acceptHunk, decodeText, encodeText, fileHunks, rejectHunk } from './hunks';
import { addTurnToPending, byRootThenPath, type Inspection, inspect, type PendingFile, toPendingFile } from './pendingFiles';
import { relativePathProblem } from './relativePath';
import { type ReviewOutcome, reviewProblem } from './reviewOutcome';
import { loadRecord, type PendingEntry, type PromptAnchor, type ReviewRecord, saveRecord, type TurnRecord, type UndoRecord } from './reviewRecord';
import { TurnRestorer } from './turnRestorer';
import type { RestoreOutcome, RestorePlan } from './turnRestorer';
import type { Checkpoint, CheckpointRoot, CheckpointStore, FileState, ReviewFs, SkippedFile } from './types';
import { errorMessage } from '../common/errors';

export type { PendingFile } from './pendingFiles';
export type { PromptAnchor, TurnRecord, TurnState } from './reviewRecord';
export type { RestoreFile, RestorePlan, RestoreProblem } from './restorePlan';
export type { ReviewOutcome } from './reviewOutcome';
export type { RestoreOutcome } from './turnRestorer';

/** What {@link SessionReview.open} needs. */
export interface SessionReviewOptions {
  readonly store: CheckpointStore;
  readonly fs: ReviewFs;
  /** Where the review record is kept (JSON; created when missing). */
  readonly file: string;
  readonly logger?: Logger;
  /** A problem with the record (unreadable, invalid, could not be saved), in words. */
  readonly onProblem?: (message: string) => void;
}

/** A turn under way: its number, the checkpoint taken before it and the folders it captured. */
export interface TurnStart {
  readonly n: number;
  readonly before: Checkpoint;
  /** "After turn n" captures these too, whatever happens to the session's folders meanwhile. */
  readonly roots: readonly CheckpointRoot[];
  readonly prompt?: PromptAnchor;
}

/** What a turn changed, as recorded (the chat's `changes` entry shows it). */
export type TurnChanges = TurnRecord;

/** The outcome of `acceptAll`/`rejectAll`: the keys done and the files that could not be. */
export interface BatchOutcome {
  readonly done: readonly string[];
  readonly problems: readonly Extract<ReviewOutcome, { ok: false }>[];
}

/** One chat session's checkpoints, pending changes, undo and redo. */
export class SessionReview {
  private readonly changed = new Emitter<void>();
  /** Fires when turns' states or the pending files change. */
  readonly onDidChange: Event<void> = this.changed.event;
  private turnList: TurnRecord[];
  /** By key, in the order they became pending. */
  private readonly entries = new Map<string, PendingEntry>();
  private nextTurn: number;
  private head: string | undefined;
  private undos: UndoRecord[];
  /** What `pending()` last showed of each file (its fingerprint), checked before acting on it. */
  private readonly shown = new Map<string, string>();
  /**
   * By key: the agent's lines the user rejected since the last turn that changed the file (hunk by hunk or
   * whole), so what a turn changed can be told net of them; accepting takes nothing away. Not kept across a reload.
   */
  private readonly rejectedLines = new Map<string, { added: number; removed: number }>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly restorer: TurnRestorer;
  private readonly evictions: { dispose(): void };
  private readonly logger: Logger;

  /** Opens the review of a session, reading its record (a missing or corrupt record → an empty one). */
  static async open(options: SessionReviewOptions): Promise<SessionReview> {
    const logger = options.logger ?? silentLogger;
    const record = await loadRecord(options.file, (message) => {
      logger.warn(message);
      options.onProblem?.(message);
    });
    return new SessionReview(options, record, logger);
  }

  private constructor(
    private readonly options: SessionReviewOptions,
    record: ReviewRecord,
    logger: Logger,
  ) {
    this.logger = logger;
    this.nextTurn = record.nextTurn;
    this.head = record.head;
    this.undos = [...record.undos];
    for (const entry of record.pending) this.entries.set(keyOf(entry.root, entry.path), entry);
    // Checkpoints removed while the window was closed.
    this.turnList = record.turns.map((t) => (t.state === 'done' && options.store.get(t.before) === undefined ? { ...t, state: 'unavailable' } : t));
    this.restorer = new TurnRestorer(options.store, options.fs);
    this.evictions = options.store.onDidEvict((ids) => void this.exclusive(() => this.evicted(ids)));
  }

  /** The agent's lines rejected in `key` since the last turn that changed it (none: zero). */
  rejected(key: string): { readonly added: number; readonly removed: number } {
    return this.rejectedLines.get(key) ?? { added: 0, removed: 0 };
  }

  /** The session's turns, oldest first. */
  turns(): readonly TurnRecord[] {
    return this.turnList;
  }

  /**
   * Takes the checkpoint "Before turn n" of the store's roots (call before sending the prompt; turns do not
   * overlap); `prompt` says where the turn's prompt is in the chat.
   */
  beginTurn(prompt?: PromptAnchor): Promise<TurnStart> {
    return this.exclusive(async () => {
      const n = this.nextTurn++;
      const roots = [...this.options.store.roots()];
      const before = await this.options.store.take(`Before turn ${n}`, roots);
      await this.save();
      return { n, before, roots, ...(prompt === undefined ? {} : { prompt }) };
    });
  }

  /**
   * Takes "After turn n" of the folders "Before turn n" took (a folder taken back meanwhile included: what
   * the agent wrote there before it lost it is the turn's too), records what the turn changed, and makes
   * those files pending.
   */
  endTurn(start: TurnStart): Promise<TurnChanges> {
    return this.exclusive(async () => {
      const store = this.options.store;
      const after = await store.take(`After turn ${start.n}`, start.roots);
      const files = await store.changes(start.before, after);
      const turn: TurnRecord = {
        n: start.n,
        before: start.before.id,
        after: after.id,
        files,
        skipped: turnSkipped(start.before, after),
        state: store.get(start.before.id) === undefined ? 'unavailable' : 'done',
        ...(start.prompt === undefined ? {} : { prompt: start.prompt }),
      };
      this.turnList = [...this.turnList.filter((t) => t.n !== turn.n), turn].sort((a, b) => a.n - b.n);
      // Rejections counted against an earlier turn's change do not apply to this one's.
      for (const file of files) this.rejectedLines.delete(keyOf(file.root, file.path));
      await addTurnToPending(store, this.entries, turn);
      this.head = after.id;
      this.undos = []; // the state moved on: what was undone can no longer be redone
      await this.changedAndSaved();
      return turn;
    });
  }

  /**
   * The files still to review, by root (in the checkpoints' root order) then path. Files back at their
   * base (reverted by hand, or written back unchanged) drop out here.
   */
  pending(): Promise<PendingFile[]> {
    return this.exclusive(() => this.pendingNow());
  }

  /**
   * A pending file without the agent's changes (what the review compares the disk with: before the agent
   * changed it, with the user's edits since); `undefined` when absent or not pending.
   */
  baseOf(key: string): Promise<FileState | undefined> {
    return this.exclusive(async () => {
      const entry = this.entries.get(key);
      return entry === undefined ? undefined : (await this.inspectSafely(entry)).without;
    });
  }

  /** A file as a checkpoint has it (for diffs); `undefined` when absent, unknown or not a safe path. */
  async contentAt(checkpointId: string, root: string, path: string): Promise<FileState | undefined> {
    const checkpoint = this.options.store.get(checkpointId);
    if (checkpoint === undefined || relativePathProblem(path) !== undefined) return undefined;
    return this.options.store.read(checkpoint, root, path);
  }

  /**
   * Accepts the file (it leaves the review) or one hunk of it (the base takes that hunk; the file stays
   * pending while other hunks remain). `shown` defaults to what `pending()` last showed: when the file
   * changed since, nothing happens and the outcome says so.
   */
  accept(key: string, hunk?: number, shown?: string): Promise<ReviewOutcome> {
    return this.exclusive(() => this.acceptNow(key, hunk, shown));
  }

  /**
   * Rejects the file (its base is written back: a created file removed, a deleted one restored, a rename
   * undone) or one hunk of it (that hunk reverted on disk). Refused, writing nothing, when the file changed
   * since it was shown or an editor holds unsaved changes to it.
   */
  reject(key: string, hunk?: number, shown?: string): Promise<ReviewOutcome> {
    return this.exclusive(() => this.rejectNow(key, hunk, shown));
  }

  acceptAll(): Promise<BatchOutcome> {
    return this.exclusive(() => this.all((key) => this.acceptNow(key)));
  }

  rejectAll(): Promise<BatchOutcome> {
    return this.exclusive(() => this.all((key) => this.rejectNow(key)));
  }

  /** What undoing turn `n` (and every later turn) would write; `blocked` says when it cannot be done. */
  planUndo(n: number): Promise<RestorePlan> {
    return this.exclusive(() => this.restorer.planUndo(n, this.turnList, this.head));
  }

  /**
   * Undoes as planned: when any file conflicts nothing is written and the conflicts are returned;
   * otherwise the checkpoint "Before undo of turn n" is taken (for redo), the files are written, and the
   * turns become `undone`.
   */
  undo(plan: RestorePlan): Promise<RestoreOutcome> {
    return this.exclusive(async () => {
      const outcome = await this.restorer.undo(plan, this.head);
      if (!outcome.ok) return outcome;
      this.turnList = this.turnList.map((t) => (plan.turns.includes(t.n) ? { ...t, state: 'undone' } : t));
      this.undos = [
        ...this.undos,
        { checkpoint: outcome.beforeUndo, ...(outcome.afterUndo === undefined ? {} : { after: outcome.afterUndo }), turns: plan.turns },
      ];
      this.head = outcome.head;
      await this.pendingNow();
      await this.changedAndSaved();
      return outcome;
    });
  }

  /** What redoing turn `n` would write (it restores the checkpoint taken before it was undone). */
  planRedo(n: number): Promise<RestorePlan> {
    return this.exclusive(() => this.restorer.planRedo(n, this.turnList, this.undos, this.head));
  }

  /** Redoes as planned (same conflict rules as {@link undo}); the turns are `done` again and pending again. */
  redo(plan: RestorePlan): Promise<RestoreOutcome> {
    return this.exclusive(async () => {
      const index = this.undos.findIndex((u) => u.turns.includes(plan.turn));
      const outcome = await this.restorer.redo(plan, this.head);
      if (!outcome.ok || index === -1) return outcome;
      const store = this.options.store;
      this.turnList = this.turnList.map((t) => (plan.turns.includes(t.n) ? { ...t, state: store.get(t.before) === undefined ? 'unavailable' : 'done' } : t));
      for (const turn of this.turnList) if (plan.turns.includes(turn.n)) await addTurnToPending(store, this.entries, turn);
      this.undos = this.undos.slice(0, index);
      this.head = outcome.head;
      await this.pendingNow();
      await this.changedAndSaved();
      return outcome;
    });
  }

  dispose(): void {
    this.evictions.dispose();
    this.changed.dispose();
  }

  // -------------------------------------------------------------------------------------------------

  private async pendingNow(): Promise<PendingFile[]> {
    const inspections = await Promise.all([...this.entries.values()].map((entry) => this.inspectSafely(entry)));
    const files: PendingFile[] = [];
    let dropped = false;
    for (const inspection of inspections) {
      const key = keyOf(inspection.entry.root, inspection.entry.path);
      if (inspection.atBase) {
        this.entries.delete(key);
        this.shown.delete(key);
        dropped = true;
        continue;
      }
      this.shown.set(key, inspection.shown);
      files.push(toPendingFile(inspection));
    }
    if (dropped) await this.changedAndSaved();
    const latest = this.options.store.list().at(-1);
    return files.sort(byRootThenPath(latest === undefined ? [] : Object.keys(latest.trees)));
  }

  private async inspectSafely(entry: PendingEntry): Promise<Inspection> {
    try {
      return await inspect(this.options.store, this.options.fs, entry);
    } catch (error) {
      this.logger.warn(`Review: ${entry.path} could not be read: ${errorMessage(error)}`);
      return {
        entry,
        base: undefined,
        lost: true,
        current: undefined,
        atOldPath: undefined,
        without: undefined,
        mixed: false,
        shown: 'unreadable',
        atBase: false,
      };
    }
  }

  /** The entry, read now, if it is what was shown; otherwise the outcome saying why not. */
  private async current(key: string, shown: string | undefined): Promise<Inspection | ReviewOutcome> {
    const entry = this.entries.get(key);
    if (entry === undefined) return reviewProblem(key, 'not-pending', 'This file is no longer pending review.');
    const inspection = await this.inspectSafely(entry);
    const expected = shown ?? this.shown.get(key);
    if (inspection.shown === 'unreadable') return reviewProblem(key, 'failed', `${entry.path} could not be read.`);
    if (expected !== undefined && expected !== inspection.shown) {
      return reviewProblem(key, 'changed', `${entry.path} changed since the review showed it; nothing was done. Look at it again.`);
    }
    return inspection;
  }

  private async acceptNow(key: string, hunk?: number, shown?: string): Promise<ReviewOutcome> {
    const inspection = await this.current(key, shown);
    if ('ok' in inspection) return inspection;
    if (hunk !== undefined) {
      const texts = this.hunkTexts(key, inspection, hunk);
      if ('ok' in texts) return texts;
      const base = acceptHunk(texts.base, texts.current, hunk);
      if (base !== texts.current) {
        // The hunk becomes part of the base; the file as it is now is what the agent left (the user's edits
        // since are in both, so they stay told apart; a mixed file stays mixed).
        const store = this.options.store;
        const mode = inspection.without?.mode ?? inspection.current?.mode ?? 'file';
        const id = await store.keep({ bytes: encodeText(base), mode });
        const agent = inspection.current === undefined ? ({ kind: 'absent' } as const) : ({ kind: 'kept', id: await store.keep(inspection.current) } as const);
        const { root, path, oldPath } = inspection.entry;
        this.entries.set(key, {
          root,
          path,
          ...(oldPath === undefined ? {} : { oldPath }),
          base: { kind: 'kept', id },
          agent,
          ...(inspection.mixed ? { mixed: true as const } : {}),
        });
        await this.changedAndSaved();
        return { ok: true, key };
      }
    }
    this.entries.delete(key);
    this.shown.delete(key);
    await this.changedAndSaved();
    return { ok: true, key };
  }

  private async rejectNow(key: string, hunk?: number, shown?: string): Promise<ReviewOutcome> {
    const inspection = await this.current(key, shown);
    if ('ok' in inspection) return inspection;
    const { entry, base, without, current } = inspection;
    if (inspection.lost) return reviewProblem(key, 'unavailable', `${entry.path} cannot be restored: ${toPendingFile(inspection).noHunks ?? ''}`);
    const paths = entry.oldPath === undefined ? [entry.path] : [entry.path, entry.oldPath];
    if (paths.some((p) => this.options.fs.isDirty(entry.root, p))) {
      return reviewProblem(key, 'dirty', `${entry.path} has unsaved changes in an editor; save or revert them before rejecting.`);
    }
    if (hunk === undefined && inspection.mixed) {
      return reviewProblem(
        key,
        'mixed',
        l10n.t(
          '{0}: you changed it where the agent did too, so rejecting it whole would undo your edits as well; nothing was done. Reject its hunks one by one, or edit it by hand.',
          entry.path,
        ),
      );
    }
    let write: { path: string; state: FileState | undefined }[];
    if (hunk !== undefined) {
      const texts = this.hunkTexts(key, inspection, hunk);
      if ('ok' in texts) return texts;
      const text = rejectHunk(texts.base, texts.current, hunk);
      write = text === texts.base ? [] : [{ path: entry.path, state: { bytes: encodeText(text), mode: current?.mode ?? without?.mode ?? 'file' } }];
    } else write = [];
    if (write.length === 0) {
      if (entry.oldPath !== undefined && inspection.atOldPath !== undefined) {
        return reviewProblem(key, 'changed', `${entry.oldPath} exists again; ${entry.path} was not renamed back.`);
      }
      // The file without the agent's changes: the user's edits since stay.
      write =
        entry.oldPath === undefined
          ? [{ path: entry.path, state: without }]
          : [
              { path: entry.oldPath, state: base },
              { path: entry.path, state: undefined },
            ];
    }
    try {
      for (const w of write) await this.options.fs.write(entry.root, w.path, w.state);
    } catch (error) {
      return reviewProblem(key, 'failed', `${entry.path} was not restored: ${errorMessage(error)}`);
    }
    // What this took away of the agent's change: its lines before, less those left now.
    const left = write.find((w) => w.path === entry.path);
    const now = fileHunks(without, left === undefined ? current : left.state);
    const was = fileHunks(without, current);
    const sum = this.rejectedLines.get(key) ?? { added: 0, removed: 0 };
    this.rejectedLines.set(key, { added: sum.added + Math.max(0, was.added - now.added), removed: sum.removed + Math.max(0, was.removed - now.removed) });
    await this.pendingNow();
    await this.changedAndSaved();
    return { ok: true, key };
  }

  /** Both sides as text, when the file has hunk `index`. */
  private hunkTexts(key: string, inspection: Inspection, index: number): { base: string; current: string } | ReviewOutcome {
    if (inspection.lost) return reviewProblem(key, 'unavailable', toPendingFile(inspection).noHunks ?? 'Its base is gone.');
    const hunks = fileHunks(inspection.without, inspection.current);
    if (hunks.hunks === undefined) return reviewProblem(key, 'no-such-hunk', hunks.noHunks ?? 'It has no hunks.');
    if (index < 0 || index >= hunks.hunks.length) return reviewProblem(key, 'no-such-hunk', `${inspection.entry.path} has no hunk ${index + 1}.`);
    const text = (s: FileState | undefined) => (s === undefined ? '' : (decodeText(s.bytes) ?? ''));
    return { base: text(inspection.without), current: text(inspection.current) };
  }

  private async all(action: (key: string) => Promise<ReviewOutcome>): Promise<BatchOutcome> {
    const done: string[] = [];
    const problems: Extract<ReviewOutcome, { ok: false }>[] = [];
    for (const key of [...this.entries.keys()]) {
      const outcome = await action(key);
      if (outcome.ok) done.push(key);
      else if (outcome.reason !== 'not-pending') problems.push(outcome);
    }
    return { done, problems };
  }

  private async evicted(ids: readonly string[]): Promise<void> {
    const gone = new Set(ids);
    let changed = false;
    this.turnList = this.turnList.map((t) => {
      if (t.state !== 'done' || !gone.has(t.before)) return t;
      changed = true;
      return { ...t, state: 'unavailable' };
    });
    if (changed) await this.changedAndSaved();
  }

  private async changedAndSaved(): Promise<void> {
    this.changed.fire();
    await this.save();
  }

  private async save(): Promise<void> {
    const record: ReviewRecord = {
      version: 1,
      nextTurn: this.nextTurn,
      ...(this.head === undefined ? {} : { head: this.head }),
      turns: this.turnList,
      pending: [...this.entries.values()],
      undos: this.undos,
    };
    try {
      await saveRecord(this.options.file, record);
    } catch (error) {
      const message = `The review record ${this.options.file} could not be saved: ${errorMessage(error)}`;
      this.logger.error(message);
      this.options.onProblem?.(message);
    }
  }

  /** Runs operations one at a time, in call order; a failure does not stop the ones after it. */
  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation, operation);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * What a turn's checkpoints did not capture: what "After" skipped (files too large among them), what
 * "Before" could not capture (a folder over the file cap, gone, a repository nested too deep; its own list
 * of files too large is the user's doing, not the agent's), and files over the size cap before the turn and
 * not after it. A folder only one of them captured is not compared, nor such a file, so nothing of them is
 * claimed: they are named here instead.
 */
function turnSkipped(before: Checkpoint, after: Checkpoint): SkippedFile[] {
  const seen = new Set<string>();
  const all: SkippedFile[] = [];
  // A file over the size cap before the turn and not after (shrunk or removed): what the agent did to it is not known.
  const shrunk = Object.entries(before.large ?? {}).flatMap(([root, paths]) => {
    const still = new Set(after.large?.[root] ?? []);
    return after.trees[root] === undefined ? [] : paths.filter((p) => !still.has(p)).map((p): SkippedFile => ({ root, path: p, reason: 'too-large' }));
  });
  for (const skip of [...before.skipped.filter((s) => s.reason !== 'too-large'), ...after.skipped, ...shrunk]) {
    const key = `${skip.root}\u0000${skip.path}\u0000${skip.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    all.push(skip);
  }
  return all.sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
