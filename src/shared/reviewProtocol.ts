/**
 * The Review Changes panel's protocol with the extension host, validated with zod on receipt on both sides.
 * The host keeps the session's pending changes (what the agent changed and the user has not accepted or
 * rejected yet) and sends them whole when they change (`state`, with a growing `version`); each action the
 * webview sends names the version it saw, and the host ignores an action on a version that is no longer
 * current (a hunk index means nothing once the file changed) and sends the current state instead.
 */
import * as z from 'zod/mini';

export const ReviewHunk = z.object({
  /** `@@ -oldStart,oldLines +newStart,newLines @@` as numbers (1-based; the new side is the file now). */
  oldStart: z.int().check(z.nonnegative()),
  oldLines: z.int().check(z.nonnegative()),
  newStart: z.int().check(z.nonnegative()),
  newLines: z.int().check(z.nonnegative()),
  /** Unified-diff lines, each starting with ' ', '+' or '-' (at most a few hundred are sent per hunk). */
  lines: z.array(z.string()),
  /** Lines left out of `lines` to keep the message small. */
  omitted: z.optional(z.int().check(z.nonnegative())),
});
export type ReviewHunk = z.output<typeof ReviewHunk>;

export const ReviewFile = z.object({
  /** Stable while the file is pending: the root's real path and the relative path. */
  key: z.string(),
  /** The folder's name and real path. */
  root: z.string(),
  rootPath: z.string(),
  /** Relative to the folder, `/`-separated; `oldPath` for a rename. */
  path: z.string(),
  oldPath: z.optional(z.string()),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  added: z.int().check(z.nonnegative()),
  removed: z.int().check(z.nonnegative()),
  binary: z.boolean(),
  /** Per-hunk review is offered for text files of reasonable size; otherwise only the whole file. */
  hunks: z.optional(z.array(ReviewHunk)),
  /** Why there are no hunks (binary, too large, a symbolic link…). */
  noHunks: z.optional(z.string()),
  /** The user changed the lines the agent changed: the hunks show their edits too (it is not rejected whole). */
  mixed: z.optional(z.boolean()),
});
export type ReviewFile = z.output<typeof ReviewFile>;

/** A turn of the session with a checkpoint before it: what it changed, and whether it can be undone or redone. */
export const ReviewTurn = z.object({
  n: z.int().check(z.positive()),
  /** `undone`: restored to before it (Redo offered); `unavailable`: its checkpoint was removed. */
  state: z.enum(['done', 'undone', 'unavailable']),
  files: z.int().check(z.nonnegative()),
  added: z.int().check(z.nonnegative()),
  removed: z.int().check(z.nonnegative()),
});
export type ReviewTurn = z.output<typeof ReviewTurn>;

export const ReviewState = z.object({
  version: z.int().check(z.nonnegative()),
  /** The session's title and agent, for the panel's heading. */
  title: z.string(),
  /** Files still to review, grouped by folder in this order. */
  files: z.array(ReviewFile),
  /** The session's turns, oldest first (undo a turn and every later one; redo an undone one). */
  turns: z.array(ReviewTurn),
  /** Checkpoints kept, and how many were removed to stay within the storage limit. */
  checkpoints: z.int().check(z.nonnegative()),
  evicted: z.int().check(z.nonnegative()),
  /** The last action's outcome in words (e.g. which files conflict with the user's edits). */
  message: z.optional(z.object({ severity: z.enum(['info', 'warning', 'error']), text: z.string() })),
  /** Checkpoints are off for this session, and why (e.g. Git is missing); the panel says so. */
  unavailable: z.optional(z.string()),
});
export type ReviewState = z.output<typeof ReviewState>;

/** Which session a review tab shows: the webview keeps it for a window reload, which gives it back to the host. */
export const ReviewTab = z.object({ agentName: z.string().check(z.minLength(1)), sessionId: z.string().check(z.minLength(1)), title: z.string() });
export type ReviewTab = z.output<typeof ReviewTab>;

export const HostToReview = z.discriminatedUnion('type', [z.object({ type: z.literal('state'), state: ReviewState, tab: z.optional(ReviewTab) })]);
export type HostToReview = z.output<typeof HostToReview>;

export const ReviewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Accept (keep) or reject (restore) a whole file, or one of its hunks by index. */
  z.object({ type: z.literal('accept'), version: z.int(), key: z.string(), hunk: z.optional(z.int().check(z.nonnegative())) }),
  z.object({ type: z.literal('reject'), version: z.int(), key: z.string(), hunk: z.optional(z.int().check(z.nonnegative())) }),
  z.object({ type: z.literal('acceptAll'), version: z.int() }),
  z.object({ type: z.literal('rejectAll'), version: z.int() }),
  /** Restore the checkpoint before turn `turn` (undoing it and every later turn), or redo it; asked first. */
  z.object({ type: z.literal('undo'), version: z.int(), turn: z.int().check(z.positive()) }),
  z.object({ type: z.literal('redo'), version: z.int(), turn: z.int().check(z.positive()) }),
  /** VS Code's diff editor for the file: before the session (its review base) ↔ now. */
  z.object({ type: z.literal('openDiff'), key: z.string() }),
  z.object({ type: z.literal('openFile'), key: z.string() }),
]);
export type ReviewToHost = z.output<typeof ReviewToHost>;
