/**
 * What a session's review remembers across window reloads, and how it is stored: one JSON file per session
 * (`{ version: 1, nextTurn, head?, turns, pending, undos }`), written atomically (a temporary file renamed
 * over it) and validated with zod when read back. A missing file is an empty record; an unreadable or
 * invalid one is an empty record too, with the problem reported (never thrown). Everything the live review
 * acts on is in it (each turn's checkpoints and where its prompt is in the chat, each pending file's content
 * without the agent and as the agent left it, each undo's checkpoints around it), so a reloaded window
 * reviews, undoes and redoes exactly as the window before it would have.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { codeOf } from '../roots/rootGuard';
import { relativePathProblem } from './relativePath';
import type { FileChange, SkippedFile } from './types';

/** Where a turn stands: its changes are on disk (`done`), were undone, or can no longer be undone (evicted). */
export type TurnState = 'done' | 'undone' | 'unavailable';

/**
 * Where a turn's prompt is in its chat, to put the turn's `changes` entry back after it when the agent
 * replays the conversation into a new chat (see thread/replayMerge.ts `TurnAnchor`).
 */
export interface PromptAnchor {
  /** The prompt's text as a key (its length and hashes, whitespace runs as one). */
  readonly key: string;
  /** How many earlier prompts of the chat had the same text. */
  readonly occurrence: number;
  /** How many prompts the chat showed before it. */
  readonly ordinal: number;
}

/** One agent turn: the checkpoints around it and what it changed. */
export interface TurnRecord {
  /** 1, 2, 3… within the session. */
  readonly n: number;
  /** Checkpoint ids "Before turn n" and "After turn n". */
  readonly before: string;
  readonly after: string;
  /** What differs between them, in the folders both captured: what the agent changed. */
  readonly files: readonly FileChange[];
  /**
   * What the turn's checkpoints could not capture: changed files too large (listed, not restorable), and
   * folders "Before" or "After" did not capture (`path` `''`; nothing of them is listed or restorable).
   */
  readonly skipped: readonly SkippedFile[];
  readonly state: TurnState;
  /** Where its prompt is in the chat (absent for turns recorded before this was kept). */
  readonly prompt?: PromptAnchor;
}

/** A file's content before the agent changed it, by reference: absent, in a checkpoint, or kept on its own. */
export type BaseRef =
  | { readonly kind: 'absent' }
  | { readonly kind: 'checkpoint'; readonly checkpoint: string; readonly root: string; readonly path: string }
  | { readonly kind: 'kept'; readonly id: string };

/**
 * A file the user has not accepted or rejected yet. What the agent changed is `agent` against `base`; what
 * differs between `agent` and the disk is the user's (told apart by a three-way merge when it is shown).
 */
export interface PendingEntry {
  /** Root real path and the file's path now (relative, `/`-separated). */
  readonly root: string;
  readonly path: string;
  /** Where the file was before the agent renamed it (its base is that path's content). */
  readonly oldPath?: string;
  /** The file without the agent's changes: before its first change, with the user's edits between turns. */
  readonly base: BaseRef;
  /**
   * The file as the agent last left it (after its last turn that changed it, or as accepted up to a hunk).
   * Absent in records written before it was kept: the disk then counts as the agent's.
   */
  readonly agent?: BaseRef;
  /** The user's edits between turns touched the agent's lines: they could not be told apart, and show with its changes. */
  readonly mixed?: true;
}

/** One undo, kept so that it can be redone: the checkpoints taken just before and after it and the turns it undid. */
export interface UndoRecord {
  /** "Before undo of turn n". */
  readonly checkpoint: string;
  /** "After undo of turn n": what it wrote is what differs between the two (absent in older records). */
  readonly after?: string;
  readonly turns: readonly number[];
}

export interface ReviewRecord {
  readonly version: 1;
  readonly nextTurn: number;
  /** The checkpoint of the state the agent or the last undo/redo left the roots in (what a restore expects). */
  readonly head?: string;
  readonly turns: readonly TurnRecord[];
  readonly pending: readonly PendingEntry[];
  /** Undos that can still be redone, oldest first. */
  readonly undos: readonly UndoRecord[];
}

export const emptyRecord: ReviewRecord = { version: 1, nextTurn: 1, turns: [], pending: [], undos: [] };

const RelativePath = z.string().refine((p) => relativePathProblem(p) === undefined, { message: 'not a safe relative path' });
const BaseRefSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('absent') }),
  z.object({ kind: z.literal('checkpoint'), checkpoint: z.string().min(1), root: z.string().min(1), path: RelativePath }),
  z.object({ kind: z.literal('kept'), id: z.string().min(1) }),
]);
// A turn lists what the store reported, whatever its paths; only pending files (which are written) must be safe.
const FileChangeSchema = z.object({
  root: z.string().min(1),
  path: z.string(),
  oldPath: z.string().optional(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  binary: z.boolean(),
});
const RecordSchema = z.object({
  version: z.literal(1),
  nextTurn: z.number().int().positive(),
  head: z.string().min(1).optional(),
  turns: z.array(
    z.object({
      n: z.number().int().positive(),
      before: z.string().min(1),
      after: z.string().min(1),
      files: z.array(FileChangeSchema),
      // Every reason a checkpoint gives (a turn with a folder that was gone must read back like any other).
      skipped: z.array(
        z.object({ root: z.string().min(1), path: z.string(), reason: z.enum(['too-large', 'nested-repository', 'too-many-files', 'root-unavailable']) }),
      ),
      state: z.enum(['done', 'undone', 'unavailable']),
      prompt: z.object({ key: z.string().min(1).max(200), occurrence: z.number().int().nonnegative(), ordinal: z.number().int().nonnegative() }).optional(),
    }),
  ),
  pending: z.array(
    z.object({
      root: z.string().min(1),
      path: RelativePath,
      oldPath: RelativePath.optional(),
      base: BaseRefSchema,
      agent: BaseRefSchema.optional(),
      mixed: z.literal(true).optional(),
    }),
  ),
  undos: z.array(z.object({ checkpoint: z.string().min(1), after: z.string().min(1).optional(), turns: z.array(z.number().int().positive()) })),
});

/** Reads the record; a missing file gives an empty one, an unreadable or invalid one too (with `onProblem`). */
export async function loadRecord(file: string, onProblem: (message: string) => void): Promise<ReviewRecord> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') onProblem(`The review record ${file} could not be read (${codeOf(error) ?? String(error)}); starting with none.`);
    return emptyRecord;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    onProblem(`The review record ${file} is not JSON; starting with none.`);
    return emptyRecord;
  }
  const parsed = RecordSchema.safeParse(json);
  if (!parsed.success) {
    onProblem(`The review record ${file} is not valid (${parsed.error.issues[0]?.message ?? 'unknown problem'}); starting with none.`);
    return emptyRecord;
  }
  return parsed.data;
}

/** Writes the record atomically (a temporary file in the same folder, renamed over it). */
export async function saveRecord(file: string, record: ReviewRecord): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.promises.writeFile(temp, JSON.stringify(record));
  try {
    await fs.promises.rename(temp, file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}
