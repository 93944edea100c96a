/**
 * The client's own record of the sessions it created or opened, per agent: roots, title, times, the user's
 * local changes (rename, pin, hide) and the text of the transcript this client has seen, for search. It is
 * the session history of agents without `session/list`, the fallback for a session's roots when the agent
 * does not list them, and the only place full-text search can look.
 *
 * Stored in a folder (the extension's global storage): `index.json` (zod-validated when read; a file that
 * cannot be read is kept aside, never deleted, and a new history starts) and `text/<hash>.txt` per session.
 * Writes are debounced and atomic (temp file + rename). Bounded: at most {@link MAX_RECORDS} sessions and
 * {@link MAX_TEXT_CHARS} characters of text per session; the least recently updated unpinned ones go first.
 */
import * as l10n from '@vscode/l10n';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { writeAtomically } from '../common/atomicWrite';
import { ChangeJournal } from './changeJournal';
import type { ForkOrigin } from './sessionTitle';
import { textFileName } from './textFileName';

export const MAX_RECORDS = 20_000;
/** Text kept per session: its beginning (where the task is stated) and its most recent part. */
export const MAX_TEXT_CHARS = 32 * 1024;
const TEXT_HEAD_CHARS = 8 * 1024;
const TEXT_GAP = '\n…\n';
const WRITE_DELAY_MS = 300;
const FORMAT_VERSION = 1;

export interface LocalRecord {
  readonly agentName: string;
  readonly sessionId: string;
  readonly cwd: string;
  /** The complete ordered list of the session's other roots, as last sent by this client. */
  readonly additionalDirectories: readonly string[];
  /** The agent's title (from session/list or session_info_update). */
  readonly title?: string;
  /** The user's own name for the session (ACP has no rename). */
  readonly localTitle?: string;
  /** The title the first prompt gives it (its first line, cleaned and bounded; see history/sessionTitle.ts). */
  readonly promptTitle?: string;
  /** The session it was forked from in this client. */
  readonly forkOf?: ForkOrigin;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly pinned?: boolean;
  readonly hidden?: boolean;
  /** Whether transcript text is stored for it. */
  readonly hasText?: boolean;
  /**
   * The folders (`[cwd, ...others]`) the user chose to keep the session with ("Keep Current Folders") when the
   * workspace's changed: a chat restored after a window reload reopens with them without asking again.
   * Forgotten once the session is reopened with other folders.
   */
  readonly keptRoots?: readonly string[];
}

const RecordSchema = z.object({
  agentName: z.string().min(1),
  sessionId: z.string().min(1),
  cwd: z.string().min(1),
  additionalDirectories: z.array(z.string()),
  title: z.string().optional(),
  localTitle: z.string().optional(),
  promptTitle: z.string().optional(),
  forkOf: z.object({ sessionId: z.string(), title: z.string(), agentTitle: z.string().optional() }).optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
  pinned: z.boolean().optional(),
  hidden: z.boolean().optional(),
  hasText: z.boolean().optional(),
  keptRoots: z.array(z.string().min(1)).min(1).optional(),
});

const FileSchema = z.object({ version: z.literal(FORMAT_VERSION), sessions: z.array(z.unknown()) });

/** What a caller records about a session; everything but the ids is optional (unchanged when absent). */
export interface RecordUpdate {
  readonly agentName: string;
  readonly sessionId: string;
  readonly cwd?: string;
  readonly additionalDirectories?: readonly string[];
  readonly title?: string | null;
  /** The title of its first prompt; kept once known (the first prompt does not change). */
  readonly promptTitle?: string;
  /** The session it was forked from; kept once known. */
  readonly forkOf?: ForkOrigin;
  /** Epoch ms of the activity; default now. */
  readonly at?: number;
}

export interface LocalChanges {
  readonly localTitle?: string | null;
  readonly pinned?: boolean;
  readonly hidden?: boolean;
}

export interface LocalIndexOptions {
  readonly now?: () => number;
  readonly writeDelayMs?: number;
  /** Told about a problem reading or writing (the caller logs it and may show it). */
  readonly onProblem?: (message: string) => void;
}

/**
 * A session's stored text changed on disk: its text file was `written` (with the text it holds and the file's
 * stamp after the write), or its text was `dropped` (removed, trimmed away; told at once, before the file goes).
 * The full-text index follows these.
 */
export type TextChange =
  | { readonly kind: 'written'; readonly key: string; readonly text: string; readonly stamp: { readonly mtimeMs: number; readonly size: number } }
  | { readonly kind: 'dropped'; readonly key: string };

export function recordKey(agentName: string, sessionId: string): string {
  return `${agentName}\u0000${sessionId}`;
}

/** Keeps the beginning and the most recent part of a long transcript. */
export function capText(text: string): string {
  if (text.length <= MAX_TEXT_CHARS) return text;
  const tail = MAX_TEXT_CHARS - TEXT_HEAD_CHARS - TEXT_GAP.length;
  return text.slice(0, TEXT_HEAD_CHARS) + TEXT_GAP + text.slice(text.length - tail);
}

export class LocalSessionIndex {
  private readonly records = new Map<string, LocalRecord>();
  /** Texts waiting to be written (dropped from memory once on disk: 20,000 × 32 KiB would not fit). */
  private readonly texts = new Map<string, string>();
  /** A digest of each text set in this window, so an unchanged text is not written (and indexed) again. */
  private readonly textDigests = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private readonly textListeners = new Set<(change: TextChange) => void>();
  private readonly now: () => number;
  private readonly writeDelayMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly dirtyTexts = new Set<string>();
  private readonly removedTexts = new Set<string>();
  private indexDirty = false;
  /** Why the stored history could not be read, if it could not. */
  readonly loadProblem: string | undefined;
  /** Bumped when a record changes (not when only transcript text does); views memoize on it. */
  version = 0;
  /**
   * The keys ({@link recordKey}) of records added, changed or removed, for readers that follow the index
   * incrementally. (A record gaining `hasText` is not noted: only {@link version} says so.)
   */
  readonly recordChanges = new ChangeJournal<string>(() => this.records.size);
  /** Bumped when transcript text changes; search memoizes on it. */
  textVersion = 0;

  constructor(
    private readonly dir: string,
    private readonly options: LocalIndexOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.writeDelayMs = options.writeDelayMs ?? WRITE_DELAY_MS;
    this.loadProblem = this.load();
    if (this.loadProblem) options.onProblem?.(this.loadProblem);
  }

  get size(): number {
    return this.records.size;
  }

  get(agentName: string, sessionId: string): LocalRecord | undefined {
    return this.records.get(recordKey(agentName, sessionId));
  }

  all(): LocalRecord[] {
    return [...this.records.values()];
  }

  forAgent(agentName: string): LocalRecord[] {
    return this.all().filter((record) => record.agentName === agentName);
  }

  /** Creates or updates a record (the client created, opened or forked the session, or learnt its title). */
  record(update: RecordUpdate): LocalRecord | undefined {
    const key = recordKey(update.agentName, update.sessionId);
    const existing = this.records.get(key);
    const at = update.at ?? this.now();
    const cwd = update.cwd ?? existing?.cwd;
    if (!cwd) return undefined; // nothing known about where it ran: not worth a record
    const title = update.title === null ? undefined : (update.title ?? existing?.title);
    const next: LocalRecord = {
      ...existing,
      agentName: update.agentName,
      sessionId: update.sessionId,
      cwd,
      additionalDirectories: [...(update.additionalDirectories ?? existing?.additionalDirectories ?? [])],
      createdAt: existing?.createdAt ?? at,
      updatedAt: Math.max(existing?.updatedAt ?? 0, at),
    };
    if (title === undefined) delete (next as { title?: string }).title;
    else (next as { title?: string }).title = title;
    if (update.promptTitle !== undefined && existing?.promptTitle === undefined) (next as { promptTitle?: string }).promptTitle = update.promptTitle;
    if (update.forkOf !== undefined && existing?.forkOf === undefined) (next as { forkOf?: ForkOrigin }).forkOf = { ...update.forkOf };
    // Reopened with other folders: the folders the user chose to keep are no longer the session's.
    if (existing?.keptRoots && !sameList([existing.cwd, ...existing.additionalDirectories], [next.cwd, ...next.additionalDirectories])) {
      if (!sameList(existing.keptRoots, [next.cwd, ...next.additionalDirectories])) delete (next as { keptRoots?: readonly string[] }).keptRoots;
    }
    if (existing && sameRecord(existing, next)) return existing;
    this.records.set(key, next);
    this.recordChanges.note(key);
    this.trim();
    this.changed();
    return next;
  }

  /** The user's rename, pin or hide. */
  setLocal(agentName: string, sessionId: string, changes: LocalChanges): boolean {
    const key = recordKey(agentName, sessionId);
    const existing = this.records.get(key);
    if (!existing) return false;
    const next: { -readonly [K in keyof LocalRecord]: LocalRecord[K] } = { ...existing };
    if (changes.localTitle !== undefined) {
      const title = changes.localTitle?.trim();
      if (title) next.localTitle = title;
      else delete next.localTitle;
    }
    if (changes.pinned !== undefined) {
      if (changes.pinned) next.pinned = true;
      else delete next.pinned;
    }
    if (changes.hidden !== undefined) {
      if (changes.hidden) next.hidden = true;
      else delete next.hidden;
    }
    this.records.set(key, next);
    this.recordChanges.note(key);
    this.changed();
    return true;
  }

  /** The folders the user chose to keep the session with (see {@link LocalRecord.keptRoots}); false without a record. */
  setKeptRoots(agentName: string, sessionId: string, roots: readonly string[]): boolean {
    const key = recordKey(agentName, sessionId);
    const existing = this.records.get(key);
    if (!existing || roots.length === 0) return false;
    if (existing.keptRoots && sameList(existing.keptRoots, roots)) return true;
    this.records.set(key, { ...existing, keptRoots: [...roots] });
    this.recordChanges.note(key);
    this.changed();
    return true;
  }

  /** Forgets a session (it was deleted), with its text. */
  remove(agentName: string, sessionId: string): void {
    const key = recordKey(agentName, sessionId);
    const record = this.records.get(key);
    if (!record) return;
    this.records.delete(key);
    this.recordChanges.note(key);
    this.dropText(key, record.hasText === true);
    this.changed();
  }

  /** Stores the transcript text of a session (capped); the record must exist. */
  setText(agentName: string, sessionId: string, text: string): void {
    const key = recordKey(agentName, sessionId);
    const existing = this.records.get(key);
    if (!existing) return;
    const capped = capText(text);
    const digest = createHash('sha1').update(capped).digest('base64');
    if (this.textDigests.get(key) === digest) return;
    this.textDigests.set(key, digest);
    this.texts.set(key, capped);
    this.dirtyTexts.add(key);
    this.removedTexts.delete(key);
    this.textVersion++;
    if (!existing.hasText) {
      this.records.set(key, { ...existing, hasText: true });
      this.changed();
    } else {
      this.scheduleWrite();
      for (const listener of [...this.listeners]) listener();
    }
  }

  /** The stored transcript text of a session, if any (the one not written yet, else read from disk; not kept). */
  text(agentName: string, sessionId: string): string | undefined {
    const key = recordKey(agentName, sessionId);
    const pending = this.texts.get(key);
    if (pending !== undefined) return pending;
    if (!this.records.get(key)?.hasText) return undefined;
    try {
      return fs.readFileSync(this.textFile(key), 'utf8');
    } catch {
      return undefined;
    }
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Tells `listener` when a text file was written or a text dropped (see {@link TextChange}). */
  onDidChangeText(listener: (change: TextChange) => void): { dispose(): void } {
    this.textListeners.add(listener);
    return { dispose: () => this.textListeners.delete(listener) };
  }

  /** The record keys of the sessions that have stored text. */
  textKeys(): string[] {
    const keys: string[] = [];
    for (const [key, record] of this.records) if (record.hasText) keys.push(key);
    return keys;
  }

  /** Writes what changed now (and waits for it). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.write();
  }

  async dispose(): Promise<void> {
    await this.flush();
    this.listeners.clear();
    this.textListeners.clear();
  }

  // ---- storage ------------------------------------------------------------------------------------

  private get indexFile(): string {
    return path.join(this.dir, 'index.json');
  }

  private textFile(key: string): string {
    return path.join(this.dir, 'text', textFileName(key));
  }

  private load(): string | undefined {
    let raw: string;
    try {
      raw = fs.readFileSync(this.indexFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return l10n.t(
        'The local session history ({0}) could not be read: {1}. Sessions opened from now on are recorded in memory only until it can be written.',
        this.indexFile,
        (error as Error).message,
      );
    }
    let parsed: z.output<typeof FileSchema>;
    try {
      parsed = FileSchema.parse(JSON.parse(raw));
    } catch (error) {
      const kept = `${this.indexFile}.unreadable-${this.now()}`;
      const reason = error instanceof z.ZodError ? l10n.t('it is not a session history of this version') : (error as Error).message;
      try {
        fs.renameSync(this.indexFile, kept);
      } catch (renameError) {
        return l10n.t(
          'The local session history could not be read ({0}); it could not be moved aside either ({1}), and a new history was started.',
          reason,
          (renameError as Error).message,
        );
      }
      return l10n.t('The local session history could not be read ({0}); it was kept as {1}, and a new history was started.', reason, kept);
    }
    let skipped = 0;
    for (const item of parsed.sessions) {
      const record = RecordSchema.safeParse(item);
      if (!record.success) {
        skipped++;
        continue;
      }
      this.records.set(recordKey(record.data.agentName, record.data.sessionId), record.data);
    }
    if (skipped === 0) return undefined;
    return skipped === 1
      ? l10n.t('One unreadable entry of the local session history was skipped.')
      : l10n.t('{0} unreadable entries of the local session history were skipped.', skipped);
  }

  private changed(): void {
    this.version++;
    this.indexDirty = true;
    this.scheduleWrite();
    for (const listener of [...this.listeners]) listener();
  }

  private scheduleWrite(): void {
    if (this.timer === undefined) this.timer = setTimeout(() => ((this.timer = undefined), void this.write()), this.writeDelayMs);
  }

  private write(): Promise<void> {
    this.writing = this.writing
      .then(() => this.writeNow())
      .catch((error: unknown) => {
        this.options.onProblem?.(l10n.t('The local session history could not be saved in {0}: {1}', this.dir, (error as Error).message));
      });
    return this.writing;
  }

  private async writeNow(): Promise<void> {
    const texts = [...this.dirtyTexts];
    const removed = [...this.removedTexts];
    const writeIndex = this.indexDirty;
    this.dirtyTexts.clear();
    this.removedTexts.clear();
    this.indexDirty = false;
    if (texts.length === 0 && removed.length === 0 && !writeIndex) return;
    await fs.promises.mkdir(path.join(this.dir, 'text'), { recursive: true });
    for (const key of texts) {
      const text = this.texts.get(key);
      if (text === undefined) continue;
      const file = this.textFile(key);
      await writeAtomically(file, text);
      // Not if it was dropped (or changed again) while it was written: that change is told in its turn.
      if (this.texts.get(key) !== text || this.removedTexts.has(key)) continue;
      if (this.textListeners.size > 0) {
        const stat = await fs.promises.stat(file);
        this.tellText({ kind: 'written', key, text, stamp: { mtimeMs: stat.mtimeMs, size: stat.size } });
      }
      // On disk now: memory keeps only texts waiting to be written.
      if (this.texts.get(key) === text && !this.dirtyTexts.has(key)) this.texts.delete(key);
    }
    for (const key of removed) await fs.promises.rm(this.textFile(key), { force: true });
    if (writeIndex) await writeAtomically(this.indexFile, JSON.stringify({ version: FORMAT_VERSION, sessions: this.all() }));
  }

  private tellText(change: TextChange): void {
    for (const listener of [...this.textListeners]) listener(change);
  }

  private dropText(key: string, hadText: boolean): void {
    if (hadText || this.texts.has(key)) this.tellText({ kind: 'dropped', key });
    this.textVersion++;
    this.texts.delete(key);
    this.textDigests.delete(key);
    this.dirtyTexts.delete(key);
    this.removedTexts.add(key);
  }

  /** Keeps the index bounded: the least recently updated unpinned sessions go first. */
  private trim(): void {
    if (this.records.size <= MAX_RECORDS) return;
    const candidates = [...this.records.entries()].filter(([, r]) => !r.pinned).sort((a, b) => a[1].updatedAt - b[1].updatedAt);
    for (const [key, record] of candidates.slice(0, this.records.size - MAX_RECORDS)) {
      this.records.delete(key);
      this.recordChanges.note(key);
      this.dropText(key, record.hasText === true);
    }
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function sameRecord(a: LocalRecord, b: LocalRecord): boolean {
  return (
    a.keptRoots === b.keptRoots &&
    a.cwd === b.cwd &&
    a.title === b.title &&
    a.promptTitle === b.promptTitle &&
    a.forkOf === b.forkOf &&
    a.updatedAt === b.updatedAt &&
    a.additionalDirectories.length === b.additionalDirectories.length &&
    a.additionalDirectories.every((d, i) => d === b.additionalDirectories[i])
  );
}
