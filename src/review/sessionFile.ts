/**
 * A session's record in the checkpoint store (`<storageDir>/sessions/<sessionKey>.json`): its checkpoints,
 * what its last capture of each root left (so the next one is incremental), and the contents it keeps.
 * Read back with zod; written atomically (a temporary file renamed over it).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import type { Checkpoint } from './types';
import type { TreeState } from './capture';

const treeState: z.ZodType<TreeState> = z.lazy(() =>
  z.object({
    base: z.string(),
    tree: z.string(),
    nested: z.record(z.string(), treeState),
  }),
);

const checkpointSchema = z.object({
  id: z.string(),
  label: z.string(),
  takenAt: z.number(),
  trees: z.record(z.string(), z.string()),
  skipped: z.array(
    z.object({
      root: z.string(),
      path: z.string(),
      reason: z.enum(['too-large', 'nested-repository', 'too-many-files', 'root-unavailable']),
    }),
  ),
  large: z.record(z.string(), z.array(z.string())).optional(),
});

/** What the session's last capture of a root left. */
export interface RootHead {
  /** The tree of the newest checkpoint that captured the root. */
  readonly tree: string;
  readonly state: TreeState;
  /** Files over the size cap seen then (path → size:mtime), so they are reported once per change. */
  readonly large: Readonly<Record<string, string>>;
}

const rootHead = z.object({ tree: z.string(), state: treeState, large: z.record(z.string(), z.string()) });

const sessionSchema = z.object({
  version: z.literal(1),
  /** The number in the next checkpoint id (`c<n>`): ids are never reused in a session. */
  nextId: z.number().int().nonnegative(),
  checkpoints: z.array(checkpointSchema),
  /** Root real path → its head. */
  heads: z.record(z.string(), rootHead),
  /** Kept contents (`<mode>:<oid>` ids). */
  kept: z.array(z.string()),
});

export interface SessionRecord {
  nextId: number;
  checkpoints: Checkpoint[];
  heads: Record<string, RootHead>;
  kept: string[];
}

export function emptySession(): SessionRecord {
  return { nextId: 1, checkpoints: [], heads: {}, kept: [] };
}

export function sessionFilePath(storageDir: string, sessionKey: string): string {
  return path.join(storageDir, 'sessions', `${sessionKey}.json`);
}

/**
 * Reads a session's record: undefined when the file is missing, or unreadable or invalid, which is also
 * reported through `onProblem` (never thrown: checkpoints are a convenience, not a reason for a turn to
 * fail; the caller starts with an empty record).
 */
export async function readSession(file: string, onProblem: (message: string) => void): Promise<SessionRecord | undefined> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onProblem(`Cannot read the checkpoint list ${file}: ${(error as Error).message}`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    onProblem(`The checkpoint list ${file} is not valid JSON (${(error as Error).message}); starting with no checkpoints.`);
    return undefined;
  }
  const parsed = sessionSchema.safeParse(json);
  if (!parsed.success) {
    onProblem(`The checkpoint list ${file} is not in the expected form (${z.prettifyError(parsed.error)}); starting with no checkpoints.`);
    return undefined;
  }
  return {
    nextId: parsed.data.nextId,
    checkpoints: parsed.data.checkpoints,
    heads: parsed.data.heads,
    kept: parsed.data.kept,
  };
}

let tmpCounter = 0;

/** Writes a session's record atomically (a reader sees the old or the new file, never a part). */
export async function writeSession(file: string, record: SessionRecord): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${++tmpCounter}.tmp`;
  const body = { version: 1, ...record };
  try {
    await fs.promises.writeFile(tmp, JSON.stringify(body));
    await fs.promises.rename(tmp, file);
  } catch (error) {
    await fs.promises.rm(tmp, { force: true });
    throw error;
  }
}

/** Every session record in the store (key → record), for eviction across sessions. */
export async function readAllSessions(storageDir: string, onProblem: (message: string) => void): Promise<Map<string, SessionRecord>> {
  const dir = path.join(storageDir, 'sessions');
  const sessions = new Map<string, SessionRecord>();
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return sessions;
  }
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const record = await readSession(path.join(dir, name), onProblem);
    if (record) sessions.set(name.slice(0, -5), record);
  }
  return sessions;
}
