/**
 * Undo and redo of turns: which changes each takes back, and the plan in between (restorePlan.ts decides file
 * by file). An undo takes back the agent's turns, latest first, each on the files it changed; a redo takes
 * back the undos since, each on the files it wrote. A plan is checked again when it is carried out: if the
 * session moved on meanwhile (another turn, undo or redo), or a planned file changed on disk, nothing is written.
 */
import * as l10n from '@vscode/l10n';
import {
  applyRestore,
  changedPaths,
  computeRestore,
  type PlannedWrite,
  type RestoreFile,
  type RestorePlan,
  type RestoreProblem,
  type RestoreStep,
} from './restorePlan';
import type { TurnRecord, UndoRecord } from './reviewRecord';
import type { CheckpointStore, ReviewFs, SkippedFile } from './types';

export type { RestorePlan } from './restorePlan';

/** The outcome of an undo or redo. */
export type RestoreOutcome =
  | {
      readonly ok: true;
      readonly written: readonly RestoreFile[];
      /** Files too large to have been captured, folders not captured: left as they are. */
      readonly cannotRestore: readonly RestoreProblem[];
      /** Files whose write failed (the others were written). */
      readonly failed: readonly RestoreProblem[];
      /** The checkpoint that now stands for the session's state (what the next plan is checked against). */
      readonly head: string;
      /** For an undo: the checkpoint "Before undo of turn n" (what a redo goes back to)… */
      readonly beforeUndo: string;
      /** …and "After undo of turn n" (what the undo wrote is what differs between the two). */
      readonly afterUndo?: string;
    }
  | {
      readonly ok: false;
      /** The files that conflict (nothing was written); empty when the whole restore was refused. */
      readonly conflicts: readonly RestoreProblem[];
      readonly message: string;
    };

interface PlanInternals {
  readonly writes: readonly PlannedWrite[];
  /** The session's state the plan was made over, and the checkpoint that stands for it after a redo. */
  readonly head: string | undefined;
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
    const kept = (t: TurnRecord) => this.store.get(t.before) !== undefined && this.store.get(t.after) !== undefined;
    const blocked =
      turn === undefined
        ? l10n.t('There is no turn {0}.', n)
        : turn.state === 'undone'
          ? l10n.t('Turn {0} is already undone.', n)
          : turn.state === 'unavailable' || !undone.every(kept)
            ? l10n.t('Turn {0} can no longer be undone: its checkpoint was removed to save space.', n)
            : undefined;
    const numbers = undone.map((t) => t.n);
    if (blocked !== undefined || turn === undefined) return refused('undo', n, numbers, blocked ?? l10n.t('Its checkpoint is no longer kept.'));
    // The agent's turns, latest first, each on what it changed: never what the user did between them.
    const steps: RestoreStep[] = [...undone]
      .sort((a, b) => b.n - a.n)
      .map((t) => ({ from: this.store.get(t.after)!, to: this.store.get(t.before)!, paths: changedPaths(t.files) }));
    return this.plan(
      'undo',
      n,
      numbers,
      steps,
      undone.flatMap((t) => t.skipped),
      head,
      turn.before,
    );
  }

  async planRedo(n: number, turns: readonly TurnRecord[], undos: readonly UndoRecord[], head: string | undefined): Promise<RestorePlan> {
    const index = undos.findIndex((u) => u.turns.includes(n));
    const redone = index === -1 ? [] : turns.filter((t) => undos.slice(index).some((u) => u.turns.includes(t.n)));
    const undo = undos[index];
    const numbers = redone.map((t) => t.n);
    const since = undos.slice(index);
    const blocked =
      turns.find((t) => t.n === n)?.state !== 'undone'
        ? l10n.t('Turn {0} is not undone.', n)
        : undo === undefined
          ? l10n.t('Turn {0} can no longer be redone: the agent changed files since it was undone.', n)
          : since.some((u) => this.store.get(u.checkpoint) === undefined || (u.after !== undefined && this.store.get(u.after) === undefined))
            ? l10n.t('Turn {0} can no longer be redone: its checkpoint was removed to save space.', n)
            : undefined;
    if (blocked !== undefined || undo === undefined) return refused('redo', n, numbers, blocked ?? l10n.t('Its checkpoint is no longer kept.'));
    let steps: RestoreStep[];
    if (since.every((u) => u.after !== undefined)) {
      // Each undo since, latest first, on what it wrote: edits the user made after it stay.
      steps = [];
      for (const u of [...since].reverse()) {
        const from = this.store.get(u.after!)!;
        const to = this.store.get(u.checkpoint)!;
        steps.push({ from, to, paths: changedPaths(await this.store.changes(from, to)) });
      }
    } else {
      // An undo recorded before "After undo" was kept: the state the last undo left is the head.
      const problem = this.headProblem(head);
      if (problem !== undefined) return refused('redo', n, numbers, problem);
      const from = this.store.get(head!)!;
      const to = this.store.get(undo.checkpoint)!;
      steps = [{ from, to, paths: changedPaths(await this.store.changes(from, to)) }];
    }
    const skipped = [
      ...redone.flatMap((t) => t.skipped),
      ...steps.flatMap((s) => [...s.from.skipped, ...s.to.skipped].filter((x) => x.reason === 'too-large')),
    ];
    return this.plan('redo', n, numbers, steps, skipped, head, undo.checkpoint);
  }

  /** Carries out an undo plan: "Before undo of turn n" is taken first, the files are written, then "After undo of turn n". */
  async undo(plan: RestorePlan, head: string | undefined): Promise<RestoreOutcome> {
    const internals = this.check(plan, 'undo', head);
    if ('ok' in internals) return internals;
    const beforeUndo = await this.store.take(`Before undo of turn ${plan.turn}`);
    const outcome = await this.apply(plan, internals, beforeUndo.id);
    if (!outcome.ok) return outcome;
    const afterUndo = await this.store.take(`After undo of turn ${plan.turn}`);
    return { ...outcome, head: afterUndo.id, afterUndo: afterUndo.id };
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
    turns: readonly number[],
    steps: readonly RestoreStep[],
    skipped: readonly SkippedFile[],
    head: string | undefined,
    target: string,
  ): Promise<RestorePlan> {
    const computed = await computeRestore(this.store, this.fs, steps, skipped);
    const plan: RestorePlan = { kind, turn: n, turns, files: computed.files, conflicts: computed.conflicts, cannotRestore: computed.cannotRestore };
    this.plans.set(plan, { writes: computed.writes, head, target });
    return plan;
  }

  private headProblem(head: string | undefined): string | undefined {
    if (head === undefined || this.store.get(head) === undefined)
      return l10n.t('The state the agent left is no longer kept (its checkpoint was removed to save space).');
    return undefined;
  }

  private check(plan: RestorePlan, kind: 'undo' | 'redo', head: string | undefined): PlanInternals | RestoreOutcome {
    const internals = this.plans.get(plan);
    if (plan.blocked !== undefined) return { ok: false, conflicts: [], message: plan.blocked };
    if (internals === undefined || plan.kind !== kind) {
      return {
        ok: false,
        conflicts: [],
        message: kind === 'undo' ? l10n.t('This is not an undo plan of this session.') : l10n.t('This is not a redo plan of this session.'),
      };
    }
    if (internals.head !== head)
      return { ok: false, conflicts: [], message: l10n.t('The session changed since this was planned; nothing was written. Try again.') };
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

function refused(kind: 'undo' | 'redo', n: number, turns: readonly number[], blocked: string): RestorePlan {
  return { kind, turn: n, turns, files: [], conflicts: [], cannotRestore: [], blocked };
}

function conflictMessage(kind: 'undo' | 'redo', n: number, conflicts: readonly RestoreProblem[]): string {
  const names = conflicts.map((c) => c.path).join(', ');
  return kind === 'undo'
    ? conflicts.length === 1
      ? l10n.t('Turn {0} was not undone: this file conflicts with your edits: {1}. Nothing was written.', n, names)
      : l10n.t('Turn {0} was not undone: these files conflict with your edits: {1}. Nothing was written.', n, names)
    : conflicts.length === 1
      ? l10n.t('Turn {0} was not redone: this file conflicts with your edits: {1}. Nothing was written.', n, names)
      : l10n.t('Turn {0} was not redone: these files conflict with your edits: {1}. Nothing was written.', n, names);
}
