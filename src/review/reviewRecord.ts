/**
 * What a session's review remembers across window reloads, and how it is stored: one JSON file per session
 * (`{ version: 1, nextTurn, head?, turns, pending, undos }`), written atomically (a temporary file renamed
 * over it) and validated with zod when read back. A missing file is an empty record; an unreadable or
 * invalid one is an empty record too, with the problem reported (never thrown).
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

/** One agent turn: the checkpoints around it and what it changed. */
export interface TurnRecord {
  /** 1, 2, 3… within the session. */
  readonly n: number;
  /** Checkpoint ids "Before turn n" and "After turn n". */
  readonly before: string;
  readonly after: string;
  readonly files: readonly FileChange[];
  /** Changed files too large to capture (listed, not restorable). */
  readonly skipped: readonly SkippedFile[];
  readonly state: TurnState;
}

/** A file's content before the agent changed it, by reference: absent, in a checkpoint, or kept on its own. */
export type BaseRef =
  | { readonly kind: 'absent' }
  | { readonly kind: 'checkpoint'; readonly checkpoint: string; readonly root: string; readonly path: string }
  | { readonly kind: 'kept'; readonly id: string };

/** A file the user has not accepted or rejected yet. */
export interface PendingEntry {
  /** Root real path and the file's path now (relative, `/`-separated). */
  readonly root: string;
  readonly path: string;
  /** Where the file was before the agent renamed it (its base is that path's content). */
  readonly oldPath?: string;
  readonly base: BaseRef;
}

/** One undo, kept so that it can be redone: the checkpoint taken just before it and the turns it undid. */
export interface UndoRecord {
  /** "Before undo of turn n". */
  readonly checkpoint: string;
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
      skipped: z.array(z.object({ root: z.string().min(1), path: z.string(), reason: z.literal('too-large') })),
      state: z.enum(['done', 'undone', 'unavailable']),
    }),
  ),
  pending: z.array(
    z.object({
      root: z.string().min(1),
      path: RelativePath,
      oldPath: RelativePath.optional(),
      base: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('absent') }),
        z.object({ kind: z.literal('checkpoint'), checkpoint: z.string().min(1), root: z.string().min(1), path: RelativePath }),
        z.object({ kind: z.literal('kept'), id: z.string().min(1) }),
      ]),
    }),
  ),
  undos: z.array(z.object({ checkpoint: z.string().min(1), turns: z.array(z.number().int().positive()) })),
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
