/**
 * Checkpoints around every turn of every chat: before the prompt goes out, the state of each of the
 * session's folders is captured; once the turn ended, what differs in those same folders (whoever wrote it:
 * the client for the agent, the agent's own tools, a command it ran; a folder taken back meanwhile included)
 * is shown in the chat as a `changes` entry and becomes pending in the session's review. One
 * {@link SessionReview} per agent and session, kept under the extension's storage, so the checkpoints survive
 * a window reload and reopening the session; a chat the agent replays the conversation into gets each turn's
 * `changes` entry back after its turn (the agent's record has none).
 */
import * as l10n from '@vscode/l10n';
import * as path from 'node:path';
import { Emitter, type Event } from '../../common/events';
import type { Logger } from '../../common/logger';
import { GitCheckpointStore } from '../../review/checkpointStore';
import { Git } from '../../review/git';
import { GuardedReviewFs } from '../../review/reviewFs';
import { keyOf } from '../../review/fileStates';
import { SessionReview, type TurnRecord, type TurnStart } from '../../review/sessionReview';
import type { CheckpointRoot, FileChange, FileState, ReviewFs, SkippedFile, SkipReason } from '../../review/types';
import type { ViewChangedFile, ViewEntryOf } from '../../shared/chatModel';
import { lastPromptAnchor } from '../../thread/replayMerge';
import type { AgentSession } from '../routing/agentSession';
import type { SessionController, TurnHooks } from '../turns/sessionController';
import { errorMessage } from '../../common/errors';

export interface CheckpointSettings {
  readonly enabled: boolean;
  /** Files larger than this are listed when they change, not kept. */
  readonly maxFileBytes: number;
  /** All sessions' checkpoints together; the oldest go first beyond it. */
  readonly maxStoreBytes: number;
  /** The Git program (VS Code's `git.path`, else `git` on the PATH). */
  readonly git: string | undefined;
  /** A folder with more files than this is not captured (default 100,000; no setting: lowered by tests). */
  readonly maxFiles?: number;
}

export interface CheckpointsOptions {
  /** Where the shadow repositories and review records live (the extension's global storage). */
  readonly storageDir: string;
  readonly settings: () => CheckpointSettings;
  /** An editor holds unsaved changes to this file (absolute path). */
  readonly isDirty: (file: string) => boolean;
  readonly logger: Logger;
}

/** A session's review, or why there is none. */
export type OpenedReview =
  | {
      readonly review: SessionReview;
      readonly store: GitCheckpointStore;
      /** The session's folders: real path → name. */
      readonly roots: () => ReadonlyMap<string, string>;
      /** Checkpoints removed so far to stay within the storage limit. */
      readonly evicted: () => number;
    }
  | { readonly unavailable: string };

/** Which session's review changed. */
export interface ReviewChanged {
  readonly agentName: string;
  readonly sessionId: string;
}

export class Checkpoints implements TurnHooks {
  private readonly reviews = new Map<string, Promise<OpenedReview>>();
  /** Sessions whose review was asked for while not open (a review tab restored before its chat): told when it opens. */
  private readonly missed = new Set<string>();
  /** Per chat: its `changes` entries and the turn each shows. */
  private readonly entries = new WeakMap<SessionController, Map<string, number>>();
  /** Per chat: what it was told checkpoints do not cover. */
  private readonly uncovered = new WeakMap<SessionController, Set<string>>();
  /** Chats already told that checkpoints are off. */
  private readonly told = new WeakSet<SessionController>();
  private readonly chats = new Set<SessionController>();
  private found: { readonly executable: string | undefined; readonly git: Promise<Git> } | undefined;
  /** The session object each review's writes are checked against (it follows reopening). */
  private readonly sessions = new Map<string, AgentSession>();
  private readonly changeEmitter = new Emitter<ReviewChanged>();
  /** A session's review changed (a turn ended or was undone, a file accepted…). */
  readonly onDidChange: Event<ReviewChanged> = this.changeEmitter.event;

  constructor(private readonly options: CheckpointsOptions) {}

  /** The review of a session (opened on first use). */
  review(session: AgentSession): Promise<OpenedReview> {
    const key = reviewKey(session.agentName, session.sessionId);
    this.sessions.set(key, session);
    let opened = this.reviews.get(key);
    if (!opened) {
      opened = this.openReview(session);
      this.reviews.set(key, opened);
      // A review tab that asked for this session before it was open (one restored after a reload before its chat
      // reopened the session) shows its changes now. Only then: a change event moves the review's version on.
      if (this.missed.delete(key)) {
        const changed = { agentName: session.agentName, sessionId: session.sessionId };
        void opened.then(
          () => this.changeEmitter.fire(changed),
          () => undefined,
        );
      }
    }
    return opened;
  }

  /** A chat opened: its session's baseline is captured now, so the first turn does not wait for it. */
  warmUp(chat: SessionController): void {
    this.chats.add(chat);
    if (!this.options.settings().enabled) return;
    void this.review(chat.session)
      .then(async (opened) => {
        if ('unavailable' in opened) return;
        this.showTurns(chat, opened.review);
        // The roots later checkpoints take by default (a turn under way keeps its own).
        opened.store.setRoots(rootsOf(chat.session));
        // The first capture of a folder is the costly one (every file is read once); later ones are incremental.
        await opened.store.take('Session opened');
      })
      .catch((error: unknown) => this.options.logger.warn(`Checkpoints of ${chat.session.sessionId}: ${String(error)}`));
  }

  /**
   * A chat opened on a session that had turns (reopened after a reload, or from the Sessions view): once the
   * agent's replay is in it, each turn's `changes` entry goes back after its turn.
   */
  private showTurns(chat: SessionController, review: SessionReview): void {
    const place = () => {
      if (!this.chats.has(chat)) return;
      const shown = new Set(this.entries.get(chat)?.values() ?? []);
      const turns = review.turns().filter((turn) => turn.prompt !== undefined && !shown.has(turn.n) && shows(turn));
      const ids = chat.thread.addChangesAfterTurns(turns.map((turn) => ({ anchor: turn.prompt!, changes: changesEntry(turn, chat.session) })));
      ids.forEach((id, i) => {
        if (id !== undefined) this.entriesOf(chat).set(id, turns[i]!.n);
      });
    };
    if (!chat.thread.replaying) {
      place();
      return;
    }
    const once = chat.thread.onDidEndReplay(() => {
      once.dispose();
      place();
    });
  }

  private entriesOf(chat: SessionController): Map<string, number> {
    let entries = this.entries.get(chat);
    if (!entries) this.entries.set(chat, (entries = new Map()));
    return entries;
  }

  /** The review of a session opened before (by one of its chats), if any. */
  find(agentName: string, sessionId: string): Promise<OpenedReview> | undefined {
    const key = reviewKey(agentName, sessionId);
    const found = this.reviews.get(key);
    if (!found) this.missed.add(key);
    return found;
  }

  /**
   * A chat closed. When no other chat shows its session, the review is let go once the chat's last turn
   * is over (its record is on disk; reopening the session reads it again).
   */
  forget(chat: SessionController): void {
    this.chats.delete(chat);
    const { agentName, sessionId } = chat.session;
    const key = reviewKey(agentName, sessionId);
    void chat.whenIdle().then(async () => {
      if ([...this.chats].some((other) => reviewKey(other.session.agentName, other.session.sessionId) === key)) return;
      const opened = this.reviews.get(key);
      this.reviews.delete(key);
      this.sessions.delete(key);
      const o = await opened?.catch(() => undefined);
      if (o && !('unavailable' in o)) {
        o.review.dispose();
        o.store.dispose();
      }
    });
  }

  async before(chat: SessionController): Promise<TurnStart | undefined> {
    if (!this.options.settings().enabled) return undefined;
    const opened = await this.review(chat.session);
    if ('unavailable' in opened) {
      if (!this.told.has(chat)) chat.thread.addInfo(l10n.t('Checkpoints are off for this session: {0}', opened.unavailable));
      this.told.add(chat);
      return undefined;
    }
    opened.store.setRoots(rootsOf(chat.session));
    // The first capture of a large folder takes a while (every file is stored once): the header says why.
    chat.thread.setSession({ statusDetail: l10n.t('Taking a checkpoint of the folders…') });
    try {
      // Where the turn's prompt is in the chat, to put its changes entry back after it in a replayed chat.
      return await opened.review.beginTurn(lastPromptAnchor(chat.thread.snapshot().entries));
    } catch (error) {
      this.options.logger.warn(`Checkpoint before a turn of ${chat.session.sessionId}: ${String(error)}`);
      chat.thread.addInfo(l10n.t('No checkpoint was taken before this turn, so it cannot be undone: {0}', errorMessage(error)));
      return undefined;
    } finally {
      if (chat.thread.session.statusDetail === l10n.t('Taking a checkpoint of the folders…')) chat.thread.setSession({ statusDetail: undefined });
    }
  }

  async after(chat: SessionController, before: unknown): Promise<void> {
    const start = before as TurnStart | undefined;
    if (!start) return;
    const opened = await this.review(chat.session);
    if ('unavailable' in opened) return;
    try {
      const turn = await opened.review.endTurn(start);
      this.noteUncovered(chat, turn.skipped);
      if (!shows(turn)) return;
      this.entriesOf(chat).set(chat.thread.addChanges(changesEntry(turn, chat.session)), turn.n);
    } catch (error) {
      this.options.logger.warn(`Checkpoint after a turn of ${chat.session.sessionId}: ${String(error)}`);
      chat.thread.addInfo(l10n.t('What this turn changed could not be worked out: {0}', errorMessage(error)));
    }
  }

  /** What checkpoints do not cover (a folder that is gone or too big, repositories nested too deep), said once per chat. */
  private noteUncovered(chat: SessionController, skipped: readonly SkippedFile[]): void {
    let told = this.uncovered.get(chat);
    if (!told) this.uncovered.set(chat, (told = new Set()));
    for (const skip of skipped) {
      if (skip.reason === 'too-large') continue;
      const key = `${skip.reason}\u0000${skip.root}\u0000${skip.path}`;
      if (told.has(key)) continue;
      told.add(key);
      const where = skip.path ? `${path.join(skip.root, skip.path)}` : skip.root;
      chat.thread.addInfo(
        l10n.t(
          'Checkpoints do not cover {0}: {1} What the agent changes there is not listed and cannot be undone.',
          where,
          uncovered(skip.reason, this.options.settings().maxFiles ?? DEFAULT_MAX_FILES),
        ),
      );
    }
  }

  /** The turn a chat's `changes` entry shows. */
  turnOf(chat: SessionController, entryId: string): number | undefined {
    return this.entries.get(chat)?.get(entryId);
  }

  dispose(): void {
    this.changeEmitter.dispose();
    for (const opened of this.reviews.values()) void opened.then((o) => ('unavailable' in o ? undefined : (o.review.dispose(), o.store.dispose())));
    this.reviews.clear();
  }

  /** Git, found and its version checked once per program the settings name. */
  private git(executable: string | undefined): Promise<Git> {
    const found = this.found !== undefined && this.found.executable === executable ? this.found : { executable, git: Git.find(executable) };
    this.found = found;
    return found.git;
  }

  private async openReview(session: AgentSession): Promise<OpenedReview> {
    const settings = this.options.settings();
    let git: Git;
    try {
      git = await this.git(settings.git);
    } catch (error) {
      return { unavailable: errorMessage(error) };
    }
    const sessionKey = GitCheckpointStore.sessionKey(session.agentName, session.sessionId);
    const store = await GitCheckpointStore.open({
      storageDir: this.options.storageDir,
      sessionKey,
      roots: rootsOf(session),
      git,
      maxFileBytes: settings.maxFileBytes,
      maxStoreBytes: settings.maxStoreBytes,
      ...(settings.maxFiles === undefined ? {} : { maxFiles: settings.maxFiles }),
      logger: this.options.logger,
    });
    const key = reviewKey(session.agentName, session.sessionId);
    // Every write is checked against the session's folders as they are at that moment.
    const guarded = () =>
      new GuardedReviewFs(this.sessions.get(key)?.guard ?? session.guard, (root, file) => this.options.isDirty(path.join(root, ...file.split('/'))));
    const fs: ReviewFs = {
      read: (root, file) => guarded().read(root, file),
      write: (root, file, state: FileState | undefined) => guarded().write(root, file, state),
      isDirty: (root, file) => guarded().isDirty(root, file),
    };
    const review = await SessionReview.open({
      store,
      fs,
      file: path.join(this.options.storageDir, 'reviews', `${sessionKey}.json`),
      logger: this.options.logger,
    });
    let evicted = 0;
    store.onDidEvict((ids: readonly string[]) => (evicted += ids.length));
    review.onDidChange(() => {
      this.syncEntries(review, key);
      this.changeEmitter.fire({ agentName: session.agentName, sessionId: session.sessionId });
    });
    const roots = () => {
      const current = this.sessions.get(key) ?? session;
      return new Map([current.rootSet.cwd, ...current.rootSet.additionalDirectories].map((root) => [root.path, root.name]));
    };
    return { review, store, roots, evicted: () => evicted };
  }

  /**
   * The chat's `changes` entries follow their turns (undone, redone, checkpoint removed) and the review: a file
   * counts the lines its turn changed less those the user rejected since (a hunk or the whole file), in the
   * latest turn that changed it; accepting takes nothing away (the change stays).
   */
  private syncEntries(review: SessionReview, key: string): void {
    // Turn numbers are the session's own: only the chats of this review's session follow it.
    const chats = [...this.chats].filter((chat) => reviewKey(chat.session.agentName, chat.session.sessionId) === key);
    const turns = review.turns();
    const states = new Map(turns.map((turn) => [turn.n, turn.state]));
    const latest = new Map<string, FileChange>();
    const turnOf = new Map<FileChange, number>();
    for (const turn of turns) {
      if (turn.state !== 'done') continue;
      for (const file of turn.files) {
        latest.set(keyOf(file.root, file.path), file);
        turnOf.set(file, turn.n);
      }
    }
    for (const chat of chats) {
      for (const [entryId, n] of this.entries.get(chat) ?? []) {
        const state = states.get(n);
        if (state) chat.thread.setChangesState(entryId, state);
        if (state !== 'done') continue;
        chat.thread.setChangesCounts(entryId, (file) => {
          const fileKey = keyOf(file.rootPath, file.path);
          const change = latest.get(fileKey);
          if (change === undefined || turnOf.get(change) !== n || change.binary) return undefined;
          const rejected = review.rejected(fileKey);
          return { added: Math.max(0, change.added - rejected.added), removed: Math.max(0, change.removed - rejected.removed) };
        });
      }
    }
  }
}

/** The store's default file cap (see {@link CheckpointSettings.maxFiles}). */
const DEFAULT_MAX_FILES = 100_000;

/** Whether a turn gets a `changes` entry: it changed files (or files too large to keep). */
function shows(turn: TurnRecord): boolean {
  return turn.files.length > 0 || turn.skipped.some((s) => s.reason === 'too-large');
}

/** A turn's `changes` entry (its state as the review has it). */
function changesEntry(turn: TurnRecord, session: AgentSession): Omit<ViewEntryOf<'changes'>, 'kind' | 'id'> {
  const tooLarge = turn.skipped.filter((s) => s.reason === 'too-large').length;
  return { checkpointId: turn.before, files: viewFiles(turn.files, session), state: turn.state, ...(tooLarge > 0 ? { skipped: tooLarge } : {}) };
}

/** Why checkpoints skip a folder, in words (a function: the text is made in the configured language). */
function uncovered(reason: Exclude<SkipReason, 'too-large'>, maxFiles: number): string {
  switch (reason) {
    case 'root-unavailable':
      return l10n.t('the folder could not be read.');
    case 'too-many-files':
      // Before the turn or after it: a folder captured on one side only is not compared.
      return l10n.t('it held more files than checkpoints keep ({0}).', maxFiles.toLocaleString());
    case 'nested-repository':
      return l10n.t('it is a Git repository nested too deep inside the folder.');
  }
}

export function reviewKey(agentName: string, sessionId: string): string {
  return `${agentName}\u0000${sessionId}`;
}

/** The folders a session's checkpoints capture: those it was given and still has. */
export function rootsOf(session: AgentSession): CheckpointRoot[] {
  const withdrawn = new Set(session.withdrawn);
  return [session.rootSet.cwd, ...session.rootSet.additionalDirectories]
    .filter((root) => !withdrawn.has(root.path))
    .map((root) => ({ name: root.name, path: root.path }));
}

/** A turn's files for the chat, folders in the session's order, paths sorted within each. */
function viewFiles(files: readonly FileChange[], session: AgentSession): ViewChangedFile[] {
  const roots = [session.rootSet.cwd, ...session.rootSet.additionalDirectories];
  const names = new Map(roots.map((root) => [root.path, root.name]));
  const order = (root: string) => {
    const at = roots.findIndex((r) => r.path === root);
    return at === -1 ? roots.length : at;
  };
  const sorted = [...files].sort((a, b) => order(a.root) - order(b.root) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return sorted.map((file) => viewChangedFile(file, names));
}

/** A changed file as the chat and the review show it: its folder by name and path. */
export function viewChangedFile(file: FileChange, names: ReadonlyMap<string, string>): ViewChangedFile {
  return {
    root: names.get(file.root) ?? path.basename(file.root),
    rootPath: file.root,
    path: file.path,
    ...(file.oldPath !== undefined ? { oldPath: file.oldPath } : {}),
    status: file.status,
    added: file.added,
    removed: file.removed,
    binary: file.binary,
  };
}
