/**
 * Undo and redo of turns: which checkpoint each restores, over which state, and the plan in between
 * (restorePlan.ts decides file by file). A plan is checked again when it is carried out: if the session
 * moved on meanwhile (another turn, undo or redo), or a planned file changed on disk, nothing is written.
 */
import * as l10n from '@vscode/l10n';
import { applyRestore, computeRestore, type PlannedWrite, type RestoreFile, type RestorePlan, type RestoreProblem } from './restorePlan';
import type { TurnRecord, UndoRecord } from './reviewRecord';
import type { CheckpointStore, ReviewFs, SkippedFile } from './types';

export type { RestorePlan } from './restorePlan';

/** The outcome of an undo or redo. */
export type RestoreOutcome =
  | {
      readonly ok: true;
      readonly written: readonly RestoreFile[];
      /** Files too large to have been captured: left as they are. */
      readonly cannotRestore: readonly RestoreProblem[];
      /** Files whose write failed (the others were written). */
      readonly failed: readonly RestoreProblem[];
      /** The checkpoint the roots are now at. */
      readonly head: string;
      /** For an undo: the checkpoint "Before undo of turn n" (what a redo restores). */
      readonly beforeUndo: string;
    }
  | {
      readonly ok: false;
      /** The files that conflict (nothing was written); empty when the whole restore was refused. */
      readonly conflicts: readonly RestoreProblem[];
      readonly message: string;
    };

interface PlanInternals {
  readonly writes: readonly PlannedWrite[];
  /** The head the plan was made over, and the checkpoint it restores. */
  readonly head: string;
  readonly target: string;
}

export class TurnRestorer {
  private readonly plans = new WeakMap<RestorePlan, PlanInternals>();

  constructor(
    private readonly store: CheckpointStore,
    private readonly fs: ReviewFs,
  ) {}

  async planUndo(n: number, turns: readonly TurnRecord[], head: string | undefined): Promise<RestorePlan> {
    const turn = turns.find((t) => t.n === n);
    const undone = turns.filter((t) => t.n >= n && t.state !== 'undone');
    const blocked =
      turn === undefined
        ? l10n.t('There is no turn {0}.', n)
        : turn.state === 'undone'
          ? l10n.t('Turn {0} is already undone.', n)
          : turn.state === 'unavailable' || this.store.get(turn.before) === undefined
            ? l10n.t('Turn {0} can no longer be undone: its checkpoint was removed to save space.', n)
            : undefined;
    return this.plan('undo', n, undone, blocked ?? this.headProblem(head), turn?.before, head);
  }

  async planRedo(n: number, turns: readonly TurnRecord[], undos: readonly UndoRecord[], head: string | undefined): Promise<RestorePlan> {
    const index = undos.findIndex((u) => u.turns.includes(n));
    const redone = index === -1 ? [] : turns.filter((t) => undos.slice(index).some((u) => u.turns.includes(t.n)));
    const undo = undos[index];
    const blocked =
      turns.find((t) => t.n === n)?.state !== 'undone'
        ? `Turn ${n} is not undone.`
        : undo === undefined
          ? `Turn ${n} can no longer be redone: the agent changed files since it was undone.`
          : this.store.get(undo.checkpoint) === undefined
            ? `Turn ${n} can no longer be redone: its checkpoint was removed to save space.`
            : undefined;
    return this.plan('redo', n, redone, blocked ?? this.headProblem(head), undo?.checkpoint, head);
  }

  /** Carries out an undo plan: "Before undo of turn n" is taken first, then the files are written. */
  async undo(plan: RestorePlan, head: string | undefined): Promise<RestoreOutcome> {
    const internals = this.check(plan, 'undo', head);
    if ('ok' in internals) return internals;
    const beforeUndo = await this.store.take(`Before undo of turn ${plan.turn}`);
    return this.apply(plan, internals, beforeUndo.id);
  }

  /** Carries out a redo plan. */
  async redo(plan: RestorePlan, head: string | undefined): Promise<RestoreOutcome> {
    const internals = this.check(plan, 'redo', head);
    if ('ok' in internals) return internals;
    return this.apply(plan, internals, '');
  }

  private async plan(
    kind: 'undo' | 'redo',
    n: number,
    turns: readonly TurnRecord[],
    blocked: string | undefined,
    targetId: string | undefined,
    head: string | undefined,
  ): Promise<RestorePlan> {
    const target = targetId === undefined ? undefined : this.store.get(targetId);
    const expected = head === undefined ? undefined : this.store.get(head);
    const numbers = turns.map((t) => t.n);
    if (blocked !== undefined || target === undefined || expected === undefined || head === undefined) {
      return { kind, turn: n, turns: numbers, files: [], conflicts: [], cannotRestore: [], blocked: blocked ?? l10n.t('Its checkpoint is no longer kept.') };
    }
    const skipped: SkippedFile[] = turns.flatMap((t) => t.skipped);
    const computed = await computeRestore(this.store, this.fs, target, expected, skipped);
    const plan: RestorePlan = { kind, turn: n, turns: numbers, files: computed.files, conflicts: computed.conflicts, cannotRestore: computed.cannotRestore };
    this.plans.set(plan, { writes: computed.writes, head, target: target.id });
    return plan;
  }

  private headProblem(head: string | undefined): string | undefined {
    if (head === undefined || this.store.get(head) === undefined) return l10n.t('The state the agent left is no longer kept (its checkpoint was removed to save space).');
    return undefined;
  }

  private check(plan: RestorePlan, kind: 'undo' | 'redo', head: string | undefined): PlanInternals | RestoreOutcome {
    const internals = this.plans.get(plan);
    if (plan.blocked !== undefined) return { ok: false, conflicts: [], message: plan.blocked };
    if (internals === undefined || plan.kind !== kind) return { ok: false, conflicts: [], message: l10n.t('This is not a {0} plan of this session.', kind) };
    if (internals.head !== head) return { ok: false, conflicts: [], message: l10n.t('The session changed since this was planned; nothing was written. Try again.') };
    if (plan.conflicts.length > 0) return { ok: false, conflicts: plan.conflicts, message: conflictMessage(kind, plan.turn, plan.conflicts) };
    return internals;
  }

  private async apply(plan: RestorePlan, internals: PlanInternals, beforeUndo: string): Promise<RestoreOutcome> {
    const { conflicts, failed } = await applyRestore(this.fs, internals.writes);
    if (conflicts.length > 0) return { ok: false, conflicts, message: conflictMessage(plan.kind, plan.turn, conflicts) };
    const written = plan.files.filter((f) => !failed.some((x) => x.root === f.root && x.path === f.path));
    return { ok: true, written, cannotRestore: plan.cannotRestore, failed, head: internals.target, beforeUndo };
  }
}

function conflictMessage(kind: 'undo' | 'redo', n: number, conflicts: readonly RestoreProblem[]): string {
  const names = conflicts.map((c) => c.path).join(', ');
  return (kind === 'undo' ? (conflicts.length === 1 ? l10n.t('Turn {0} was not undone: this file conflicts with your edits: {1}. Nothing was written.', n, names) : l10n.t('Turn {0} was not undone: these files conflict with your edits: {1}. Nothing was written.', n, names)) : (conflicts.length === 1 ? l10n.t('Turn {0} was not redone: this file conflicts with your edits: {1}. Nothing was written.', n, names) : l10n.t('Turn {0} was not redone: these files conflict with your edits: {1}. Nothing was written.', n, names)));
}
