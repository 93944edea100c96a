/**
 * What the user does with what an agent changed: the review of a session (pending files with hunks, accept
 * or reject per file, per hunk or all), a file's diff before a turn or before the session ↔ now, and undo or
 * redo of a turn after a confirmation that lists every file it writes. The logic of these is
 * {@link SessionReview}'s; this turns it into what the chat and the Review Changes tab show, in words.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Emitter, type Event } from '../../common/events';
import type { PendingFile, RestorePlan, SessionReview, TurnRecord } from '../../review/sessionReview';
import type { FileState } from '../../review/types';
import type { ReviewFile, ReviewState, ReviewToHost, ReviewTurn } from '../../shared/reviewProtocol';
import { viewChangedFile, type Checkpoints } from './checkpoints';
import type { ContentSource } from './contentSource';
import type { ReviewUi } from '../ports';
import type { SessionController } from '../turns/sessionController';

/** Whose review: a session of an agent, and its title for headings. */
export interface ReviewTarget {
  readonly agentName: string;
  readonly sessionId: string;
  readonly title: string;
}

/** A diff to open: the left side, and the file on disk (or nothing when it does not exist). */
export interface DiffSides {
  readonly before: ContentSource;
  readonly root: string;
  readonly path: string;
  readonly exists: boolean;
  /** "before turn 3", "without the agent's changes". */
  readonly label: string;
}

type Message = ReviewState['message'];

/** What the review asks of the open chats: is this session's turn running (`Chats` keeps it). */
export interface RunningChats {
  find(agentName: string, sessionId: string): { readonly isRunning: boolean } | undefined;
}

export class ChangeReview {
  private readonly changeEmitter = new Emitter<Pick<ReviewTarget, 'agentName' | 'sessionId'>>();
  /** A session's review changed: its tab shows it again. */
  readonly onDidChange: Event<Pick<ReviewTarget, 'agentName' | 'sessionId'>> = this.changeEmitter.event;
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly checkpoints: Checkpoints,
    /** The open chats, asked whether a session's turn is running. */
    private readonly chats: RunningChats,
    private readonly ui: () => ReviewUi,
  ) {
    this.subscription = checkpoints.onDidChange((changed) => this.changeEmitter.fire(changed));
  }

  /** What the Review Changes tab shows. */
  async view(target: ReviewTarget, version: number, message: Message): Promise<ReviewState> {
    const opened = await this.checkpoints.find(target.agentName, target.sessionId);
    const base = { version, title: target.title, files: [], turns: [], checkpoints: 0, evicted: 0, ...(message ? { message } : {}) };
    // Its checkpoints are read when its chat opens the session (a review tab restored after a reload can come first).
    if (!opened)
      return { ...base, unavailable: l10n.t('The changes of this session show once it is open: open its chat, or reopen it from the Sessions view.') };
    if ('unavailable' in opened) return { ...base, unavailable: l10n.t('Checkpoints are off for this session: {0}', opened.unavailable) };
    const { review, store, roots, evicted } = opened;
    const files = await review.pending();
    const names = roots();
    return {
      ...base,
      files: files.map((file) => reviewFile(file, names)),
      turns: review.turns().map(reviewTurn),
      checkpoints: store.list().length,
      evicted: evicted(),
    };
  }

  /** An accept or reject from the tab; what happened, in words, when it was not simply done. */
  async perform(
    target: ReviewTarget,
    message: Extract<ReviewToHost, { type: 'accept' | 'reject' | 'acceptAll' | 'rejectAll' | 'undo' | 'redo' }>,
  ): Promise<Message> {
    const opened = await this.checkpoints.find(target.agentName, target.sessionId);
    if (!opened || 'unavailable' in opened) return { severity: 'error', text: l10n.t('This session has no checkpoints.') };
    const { review } = opened;
    switch (message.type) {
      case 'accept':
      case 'reject': {
        const outcome = message.type === 'accept' ? await review.accept(message.key, message.hunk) : await review.reject(message.key, message.hunk);
        return outcome.ok ? undefined : { severity: 'warning', text: outcome.message };
      }
      case 'acceptAll':
      case 'rejectAll': {
        const outcome = message.type === 'acceptAll' ? await review.acceptAll() : await review.rejectAll();
        if (outcome.problems.length === 0) return undefined;
        const problems = outcome.problems.map((p) => p.message).join(' ');
        const text =
          message.type === 'acceptAll'
            ? l10n.t('Files accepted: {0}; not done: {1}', outcome.done.length, problems)
            : l10n.t('Files rejected: {0}; not done: {1}', outcome.done.length, problems);
        return { severity: 'warning', text };
      }
      case 'undo':
      case 'redo':
        return this.restore(target, review, message.type, message.turn);
    }
  }

  /** A pending file's diff, as the review showed it: the file without the agent's changes (the user's edits kept) ↔ now. */
  diffOf(target: Pick<ReviewTarget, 'agentName' | 'sessionId'>, file: Pick<ReviewFile, 'key' | 'rootPath' | 'path' | 'oldPath' | 'status'>): DiffSides {
    const { agentName, sessionId } = target;
    return {
      before: { kind: 'base', agentName, sessionId, key: file.key, root: file.rootPath, path: file.oldPath ?? file.path },
      root: file.rootPath,
      path: file.path,
      exists: file.status !== 'deleted',
      label: l10n.t('without the agent’s changes'),
    };
  }

  /** A file of a chat's `changes` entry: before that turn ↔ now. */
  async turnDiff(chat: SessionController, entryId: string, index: number): Promise<DiffSides | undefined> {
    const entry = chat.thread.entry(entryId);
    const n = this.checkpoints.turnOf(chat, entryId);
    if (entry?.kind !== 'changes' || n === undefined) return undefined;
    const file = entry.files[index];
    if (!file) return undefined;
    const { agentName, sessionId } = chat.session;
    const before: ContentSource =
      file.status === 'added'
        ? { kind: 'absent', agentName, sessionId, root: file.rootPath, path: file.path }
        : { kind: 'checkpoint', agentName, sessionId, checkpointId: entry.checkpointId, root: file.rootPath, path: file.oldPath ?? file.path };
    const exists = await this.exists(file.rootPath, file.path);
    return { before, root: file.rootPath, path: file.path, exists, label: `before turn ${n}` };
  }

  /** The text of one side of a diff (binary files and links described, not shown). */
  async text(source: ContentSource): Promise<string> {
    if (source.kind === 'absent') return '';
    const opened = await this.checkpoints.find(source.agentName, source.sessionId);
    if (!opened || 'unavailable' in opened) return '';
    const state =
      source.kind === 'base' ? await opened.review.baseOf(source.key) : await opened.review.contentAt(source.checkpointId, source.root, source.path);
    return describe(state);
  }

  /** Undo of a chat's turn (its `changes` entry's button), after the confirmation. */
  async undo(chat: SessionController, entryId: string): Promise<void> {
    const n = this.checkpoints.turnOf(chat, entryId);
    if (n !== undefined) await this.restoreFromChat(chat, 'undo', n);
  }

  async redo(chat: SessionController, entryId: string): Promise<void> {
    const n = this.checkpoints.turnOf(chat, entryId);
    if (n !== undefined) await this.restoreFromChat(chat, 'redo', n);
  }

  /** Undo Last Turn: the latest turn of the chat's session that is done and changed something. */
  async undoLast(chat: SessionController): Promise<void> {
    const opened = await this.checkpoints.review(chat.session);
    if ('unavailable' in opened) {
      chat.thread.addInfo(l10n.t('Nothing can be undone: checkpoints are off for this session ({0}).', opened.unavailable));
      return;
    }
    const last = [...opened.review.turns()].reverse().find((t) => t.state === 'done' && t.files.length > 0);
    if (!last) {
      chat.thread.addInfo(l10n.t('No turn of this session changed files that can still be undone.'));
      return;
    }
    await this.restoreFromChat(chat, 'undo', last.n);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
  }

  private async restoreFromChat(chat: SessionController, kind: 'undo' | 'redo', n: number): Promise<void> {
    const opened = await this.checkpoints.review(chat.session);
    if ('unavailable' in opened) return;
    const target = { agentName: chat.session.agentName, sessionId: chat.session.sessionId, title: '' };
    const message = await this.restore(target, opened.review, kind, n);
    if (message) chat.thread.addInfo(message.text);
  }

  /** Plans an undo or redo, asks with the list of files, and does it; the outcome in words. */
  private async restore(target: ReviewTarget, review: SessionReview, kind: 'undo' | 'redo', n: number): Promise<Message> {
    const Verb = kind === 'undo' ? l10n.t('Undo') : l10n.t('Redo');
    if (this.chats.find(target.agentName, target.sessionId)?.isRunning) {
      return {
        severity: 'warning',
        text:
          kind === 'undo'
            ? l10n.t("Undo waits until the agent's turn has ended: stop it or wait.")
            : l10n.t("Redo waits until the agent's turn has ended: stop it or wait."),
      };
    }
    const plan = kind === 'undo' ? await review.planUndo(n) : await review.planRedo(n);
    const what = turnsText(plan);
    if (plan.blocked)
      return {
        severity: 'warning',
        text: kind === 'undo' ? l10n.t('Cannot undo {0}: {1}', what, plan.blocked) : l10n.t('Cannot redo {0}: {1}', what, plan.blocked),
      };
    if (plan.conflicts.length > 0) return { severity: 'error', text: conflictText(plan, kind) };
    if (plan.files.length === 0) {
      const text =
        kind === 'undo'
          ? l10n.t('Undo of {0}: the files are already as they would be; nothing to write.', what)
          : l10n.t('Redo of {0}: the files are already as they would be; nothing to write.', what);
      return { severity: 'info', text };
    }
    const merged = plan.files.filter((f) => f.merged).length;
    const tooLarge = plan.cannotRestore.filter((p) => p.skipped === undefined || p.skipped === 'too-large');
    const folders = plan.cannotRestore.filter((p) => !tooLarge.includes(p));
    const where = (p: { root: string; path: string }) => (p.path === '' ? path.basename(p.root) : `${path.basename(p.root)}/${p.path}`);
    const notes = [
      merged === 1
        ? l10n.t('1 file you edited since will keep your edits (merged).')
        : merged > 1
          ? l10n.t('{0} files you edited since will keep your edits (merged).', merged)
          : '',
      tooLarge.length > 0 ? l10n.t('Not restored (too large to keep in a checkpoint): {0}.', tooLarge.map((p) => p.path).join(', ')) : '',
      folders.length > 0
        ? l10n.t('Not restored (checkpoints could not capture it, so what changed there is not known): {0}.', folders.map(where).join(', '))
        : '',
    ].filter(Boolean);
    const confirmed = await this.ui().confirmRestore({
      title: restoreTitle(kind, what, plan.files.length),
      files: plan.files.map((f) => restoreLine(f.change, `${path.basename(f.root)}/${f.path}`, f.merged)),
      action: Verb,
      ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
    });
    if (!confirmed) return undefined;
    const outcome = kind === 'undo' ? await review.undo(plan) : await review.redo(plan);
    if (!outcome.ok)
      return { severity: 'error', text: outcome.conflicts.length > 0 ? conflictText({ ...plan, conflicts: outcome.conflicts }, kind) : outcome.message };
    const written = outcome.written.length;
    if (outcome.failed.length === 0)
      return {
        severity: 'info',
        text: kind === 'undo' ? l10n.t('Undid {0}: files written: {1}.', what, written) : l10n.t('Redid {0}: files written: {1}.', what, written),
      };
    const failed = outcome.failed.map((f) => `${f.path} (${f.reason})`).join(', ');
    return {
      severity: 'warning',
      text:
        kind === 'undo'
          ? l10n.t('Undid {0}: files written: {1}. Not written: {2}.', what, written, failed)
          : l10n.t('Redid {0}: files written: {1}. Not written: {2}.', what, written, failed),
    };
  }

  private exists(root: string, file: string): Promise<boolean> {
    return fs.lstat(path.join(root, ...file.split('/'))).then(
      () => true,
      () => false,
    );
  }
}

function reviewFile(file: PendingFile, roots: ReadonlyMap<string, string>): ReviewState['files'][number] {
  return {
    key: file.key,
    ...viewChangedFile(file, roots),
    ...(file.hunks ? { hunks: file.hunks } : {}),
    ...(file.noHunks ? { noHunks: file.noHunks } : {}),
    ...(file.mixed ? { mixed: true } : {}),
  };
}

function reviewTurn(turn: TurnRecord): ReviewTurn {
  return {
    n: turn.n,
    state: turn.state,
    files: turn.files.length,
    added: turn.files.reduce((sum, f) => sum + f.added, 0),
    removed: turn.files.reduce((sum, f) => sum + f.removed, 0),
  };
}

/** The turns an undo or redo covers, as the object of a sentence ("Undo {0}?", "Cannot redo {0}: …"), never its start. */
function turnsText(plan: RestorePlan): string {
  const later = plan.turns.filter((t) => t !== plan.turn).length;
  if (later === 0) return l10n.t('turn {0}', plan.turn);
  return later === 1 ? l10n.t('turn {0} and the turn after it', plan.turn) : l10n.t('turn {0} and the {1} turns after it', plan.turn, later);
}

function conflictText(plan: Pick<RestorePlan, 'conflicts' | 'turn' | 'turns'>, kind: 'undo' | 'redo'): string {
  const files = plan.conflicts.map((c) => `${c.path} (${c.reason})`).join(', ');
  const one = plan.conflicts.length === 1;
  if (kind === 'undo') {
    return one
      ? l10n.t(
          'Nothing was undone: 1 file changed since the agent wrote it in a way that cannot be merged: {0}. Resolve or revert those edits, then try again.',
          files,
        )
      : l10n.t(
          'Nothing was undone: {0} files changed since the agent wrote them in a way that cannot be merged: {1}. Resolve or revert those edits, then try again.',
          plan.conflicts.length,
          files,
        );
  }
  return one
    ? l10n.t(
        'Nothing was redone: 1 file changed since the agent wrote it in a way that cannot be merged: {0}. Resolve or revert those edits, then try again.',
        files,
      )
    : l10n.t(
        'Nothing was redone: {0} files changed since the agent wrote them in a way that cannot be merged: {1}. Resolve or revert those edits, then try again.',
        plan.conflicts.length,
        files,
      );
}

function describe(state: FileState | undefined): string {
  if (!state) return '';
  if (state.mode === 'symlink') return l10n.t('Symbolic link to {0}', Buffer.from(state.bytes).toString('utf8'));
  const head = state.bytes.subarray(0, 8192);
  if (head.includes(0)) return l10n.t('Binary file ({0} bytes)', state.bytes.length);
  return Buffer.from(state.bytes).toString('utf8');
}

/** The question before an undo or redo: "Undo turn 3? 4 files will change." */
function restoreTitle(kind: 'undo' | 'redo', what: string, files: number): string {
  if (kind === 'undo') return files === 1 ? l10n.t('Undo {0}? 1 file will change.', what) : l10n.t('Undo {0}? {1} files will change.', what, files);
  return files === 1 ? l10n.t('Redo {0}? 1 file will change.', what) : l10n.t('Redo {0}? {1} files will change.', what, files);
}

/** One line of the list of files an undo or redo writes: "restore app/src/a.ts". */
function restoreLine(change: string, file: string, merged: boolean | undefined): string {
  if (change === 'create') return merged ? l10n.t('create {0} (merged with your edits)', file) : l10n.t('create {0}', file);
  if (change === 'remove') return merged ? l10n.t('remove {0} (merged with your edits)', file) : l10n.t('remove {0}', file);
  return merged ? l10n.t('restore {0} (merged with your edits)', file) : l10n.t('restore {0}', file);
}
