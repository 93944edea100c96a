/**
 * {@link GitCheckpointStore}: the checkpoint store on shadow git repositories outside the workspace, one per
 * root folder under `<storageDir>/repos/`, shared by every session (objects deduplicate); each session has
 * its own index per root (sessions never contend), its refs `refs/acp/<sessionKey>/…` and its record
 * `<storageDir>/sessions/<sessionKey>.json`.
 */
import * as l10n from '@vscode/l10n';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Emitter } from '../common/events';
import type { Logger } from '../common/logger';
import type { Checkpoint, CheckpointRoot, CheckpointStore, FileChange, FileMode, FileState, SkippedFile } from './types';
import { Git, GitCommandError } from './git';
import { capture } from './capture';
import type { ShadowRepo } from './shadowRepo';
import { emptySession, readAllSessions, readSession, type SessionRecord, sessionFilePath, writeSession } from './sessionFile';
import { directoryBytes, evictFromRecord, keptRepo, refPrefix, refsFor, refChanges, repoFor } from './eviction';

/** Options of {@link GitCheckpointStore.open}. */
export interface CheckpointStoreOptions {
  /** The extension's storage folder for checkpoints (created when missing); never inside a root. */
  readonly storageDir: string;
  /** The session's key ({@link GitCheckpointStore.sessionKey}); the same key reopens the same checkpoints. */
  readonly sessionKey: string;
  readonly roots: readonly CheckpointRoot[];
  /** A checked {@link Git}, or the git executable to use (default `git` on PATH). */
  readonly git?: Git | string;
  /** Files larger than this are not captured (default 5 MiB). */
  readonly maxFileBytes?: number;
  /** Checkpoints kept per session; the oldest go first (default 100). */
  readonly maxCheckpoints?: number;
  /** The whole store's size (all sessions); the oldest checkpoints of any session go first (default 1 GiB). */
  readonly maxStoreBytes?: number;
  /** A root (or nested repository) with more files than this is not captured (default 100,000). */
  readonly maxFiles?: number;
  /** The store's size is measured after this many takes (and after 5 minutes), not on every take (default 20). */
  readonly measureEveryTakes?: number;
  /** Problems that do not fail an operation (an unreadable record, a root that is gone) are logged here. */
  readonly logger?: Logger;
}

const MiB = 1024 * 1024;
const MEASURE_INTERVAL_MS = 5 * 60 * 1000;
/** Stores alive in this process by `<storageDir>\0<sessionKey>`: eviction by another session updates them directly. */
const openStores = new Map<string, GitCheckpointStore>();

/**
 * A {@link CheckpointStore} on shadow git repositories. Open it with {@link GitCheckpointStore.open}.
 * Files over the size cap are left out of the capture (a file captured while small is dropped from the
 * capture rather than kept at a stale version) and reported in {@link Checkpoint.skipped} when they change.
 * Git repositories nested in a root are captured too, their paths relative to the root.
 */
export class GitCheckpointStore implements CheckpointStore {
  private rootList: readonly CheckpointRoot[];
  private record: SessionRecord;
  /** Roots whose index is known to match the head (this process wrote both). */
  private readonly verified = new Set<string>();
  private readonly evicted = new Emitter<readonly string[]>();
  private background: Promise<void> = Promise.resolve();
  private takesSinceMeasure = 0;
  private takes: Promise<void> = Promise.resolve();
  /** The record as this store last wrote it (reloading is skipped while the file is still that). */
  private written: { readonly mtimeMs: number; readonly size: number } | undefined;
  private lastMeasured = 0;
  private disposed = false;
  private readonly file: string;
  private readonly maxFileBytes: number;
  private readonly maxCheckpoints: number;
  private readonly maxStoreBytes: number;
  private readonly maxFiles: number;
  private readonly measureEveryTakes: number;

  private constructor(
    private readonly git: Git,
    private readonly options: CheckpointStoreOptions,
    record: SessionRecord,
  ) {
    this.rootList = options.roots;
    this.record = record;
    this.file = sessionFilePath(options.storageDir, options.sessionKey);
    this.maxFileBytes = options.maxFileBytes ?? 5 * MiB;
    this.maxCheckpoints = Math.max(1, options.maxCheckpoints ?? 100);
    this.maxStoreBytes = options.maxStoreBytes ?? 1024 * MiB;
    this.maxFiles = options.maxFiles ?? 100_000;
    this.measureEveryTakes = options.measureEveryTakes ?? 20;
  }

  /**
   * Opens the store of a session: finds and checks git, reads the session's record (an invalid one is
   * reported and treated as empty).
   * @throws GitUnavailableError when git is missing or older than 2.32.
   */
  static async open(options: CheckpointStoreOptions): Promise<GitCheckpointStore> {
    const git = options.git instanceof Git ? options.git : await Git.find(options.git);
    await fs.promises.mkdir(options.storageDir, { recursive: true });
    const record = (await readSession(sessionFilePath(options.storageDir, options.sessionKey), (m) => options.logger?.warn(m))) ?? emptySession();
    const store = new GitCheckpointStore(git, options, record);
    openStores.set(store.registryKey, store);
    return store;
  }

  /** The key of a session's checkpoints: a hash of the agent's name and the session id (hex, safe in file and ref names). */
  static sessionKey(agentName: string, sessionId: string): string {
    return createHash('sha256').update(`${agentName}\0${sessionId}`).digest('hex').slice(0, 24);
  }

  private get registryKey(): string {
    return `${this.options.storageDir}\0${this.options.sessionKey}`;
  }

  private get key(): string {
    return this.options.sessionKey;
  }

  setRoots(roots: readonly CheckpointRoot[]): void {
    this.rootList = [...roots];
  }

  roots(): readonly CheckpointRoot[] {
    return this.rootList;
  }

  list(): readonly Checkpoint[] {
    return this.record.checkpoints;
  }

  get(id: string): Checkpoint | undefined {
    return this.record.checkpoints.find((c) => c.id === id);
  }

  /** Takes run one after another (each numbers its checkpoint from the record it read). */
  take(label: string, roots: readonly CheckpointRoot[] = this.rootList): Promise<Checkpoint> {
    const run = this.takes.then(() => this.takeNow(label, [...roots]));
    this.takes = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async takeNow(label: string, roots: readonly CheckpointRoot[]): Promise<Checkpoint> {
    this.assertOpen();
    await this.reload();
    const id = `c${this.record.nextId}`;
    const trees: Record<string, string> = {};
    const skipped: SkippedFile[] = [];
    const large: Record<string, string[]> = {};
    const results = await Promise.all(roots.map((root) => this.captureRoot(root)));
    // In the session's folder order (the review lists folders in it).
    roots.forEach((root, i) => {
      const result = results[i]!;
      skipped.push(...result.skipped);
      if (result.tree) trees[root.path] = result.tree;
      if (result.large && result.large.length > 0) large[root.path] = result.large;
    });
    const checkpoint: Checkpoint = {
      id,
      label,
      takenAt: Date.now(),
      trees,
      skipped: sortSkipped(skipped),
      ...(Object.keys(large).length > 0 ? { large } : {}),
    };
    const before = this.record.checkpoints;
    this.record.nextId++;
    this.record.checkpoints = [...before, checkpoint];
    // A checkpoint whose tree is new to the session gets a ref (an unchanged root is protected already).
    await Promise.all(
      Object.keys(trees).map((root) => {
        const repo = repoFor(this.git, this.options.storageDir, root);
        const changes = refChanges(refsFor(this.key, before, root), refsFor(this.key, this.record.checkpoints, root));
        return repo.exclusive(() => repo.updateRefs(changes));
      }),
    );
    await this.save();
    if (this.record.checkpoints.length > this.maxCheckpoints) {
      const oldest = this.record.checkpoints.slice(0, this.record.checkpoints.length - this.maxCheckpoints);
      await this.evict(new Set(oldest.map((c) => c.id)));
    }
    this.scheduleMeasure();
    return checkpoint;
  }

  /** Captures one root (a missing root, or one over the file cap, is skipped with a notice). */
  private async captureRoot(root: CheckpointRoot): Promise<{ tree?: string; skipped: SkippedFile[]; large?: string[] }> {
    const stat = await fs.promises.stat(root.path).catch(() => undefined);
    if (!stat?.isDirectory()) {
      this.options.logger?.warn(`Checkpoint: the folder ${root.path} is not available; it is not captured.`);
      return { skipped: [{ root: root.path, path: '', reason: 'root-unavailable' }] };
    }
    const repo = repoFor(this.git, this.options.storageDir, root.path);
    return repo.exclusive(async () => {
      await repo.ensure();
      const indexFile = path.join(repo.dir, `index-${this.key}`);
      const head = this.record.heads[root.path];
      const attempt = (fresh: boolean) =>
        capture({
          repo,
          workTree: root.path,
          indexFile,
          limits: { maxFileBytes: this.maxFileBytes, maxFiles: this.maxFiles },
          previous: !fresh && this.verified.has(root.path) ? head?.state : undefined,
          largeSeen: head?.large ?? {},
        });
      let result;
      try {
        result = await attempt(false);
      } catch (error) {
        if (!(error instanceof GitCommandError)) throw error;
        // An index whose objects were pruned (its session's checkpoints evicted meanwhile): start afresh.
        this.options.logger?.warn(`Checkpoint: capturing ${root.path} failed (${error.message}); capturing it afresh.`);
        this.verified.delete(root.path);
        await fs.promises.rm(indexFile, { force: true });
        result = await attempt(true);
      }
      const skipped = result.skipped.map((s) => ({ root: root.path, path: s.path, reason: s.reason }));
      if (!result.captured) {
        this.options.logger?.warn(`Checkpoint: ${root.path} holds more than ${this.maxFiles} files; it is not captured.`);
        return { skipped };
      }
      // The checkpoint holds the tree itself (a ref keeps it): a commit around it would cost one more git run.
      const tree = result.state.tree;
      this.record.heads[root.path] = { tree, state: result.state, large: result.large };
      this.verified.add(root.path);
      return { tree, skipped, large: Object.keys(result.large).sort() };
    });
  }

  async changes(from: Checkpoint, to: Checkpoint): Promise<FileChange[]> {
    this.assertOpen();
    // Only roots both captured: a root missing on one side (not captured, or not in the list then) is unknown
    // there, and comparing it with nothing would claim every file of it added or deleted.
    const roots = Object.keys(from.trees)
      .filter((root) => to.trees[root] !== undefined)
      .sort();
    const all = await Promise.all(
      roots.map(async (root) => {
        const a = from.trees[root]!;
        const b = to.trees[root]!;
        if (a === b) return [];
        const repo = repoFor(this.git, this.options.storageDir, root);
        const raw = await repo.exclusive(() => repo.diff(a, b));
        // A file over the size cap on one side is in no tree there: it was not added or deleted, it is unknown.
        const largeBefore = new Set(from.large?.[root] ?? []);
        const largeAfter = new Set(to.large?.[root] ?? []);
        return raw
          .filter((c) => !(c.status === 'added' && largeBefore.has(c.path)) && !(c.status === 'deleted' && largeAfter.has(c.path)))
          .map((c): FileChange => ({ root, ...c }));
      }),
    );
    return all.flat().sort((x, y) => compare(x.root, y.root) || compare(x.path, y.path));
  }

  async read(checkpoint: Checkpoint, root: string, file: string): Promise<FileState | undefined> {
    this.assertOpen();
    const tree = checkpoint.trees[root];
    const relative = cleanPath(file);
    if (!tree || relative === undefined) return undefined;
    const repo = repoFor(this.git, this.options.storageDir, root);
    return repo.exclusive(() => repo.read(tree, relative));
  }

  async keep(state: FileState): Promise<string> {
    this.assertOpen();
    const repo = keptRepo(this.git, this.options.storageDir);
    return repo.exclusive(async () => {
      await repo.ensure();
      const oid = await repo.hashObject(state.bytes);
      const id = `${state.mode}:${oid}`;
      if (!this.record.kept.includes(id)) {
        this.record.kept = [...this.record.kept, id];
        // One tree of everything the session keeps, under its ref: gc never prunes what a session still uses.
        const tree = await repo.treeOf(this.record.kept.map(parseKept).filter((k) => k !== undefined));
        await repo.updateRefs(new Map([[`${refPrefix(this.key)}kept`, tree]]));
        await this.save();
      }
      return id;
    });
  }

  async readKept(id: string): Promise<FileState | undefined> {
    this.assertOpen();
    const kept = parseKept(id);
    if (!kept) return undefined;
    const repo = keptRepo(this.git, this.options.storageDir);
    if (!fs.existsSync(repo.dir)) return undefined;
    return repo.exclusive(async () => ((await repo.has(kept.oid)) ? { bytes: await repo.blob(kept.oid), mode: kept.mode } : undefined));
  }

  async merge(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array): Promise<{ readonly clean: boolean; readonly bytes: Uint8Array }> {
    this.assertOpen();
    const dir = path.join(this.options.storageDir, 'tmp', `merge-${randomBytes(8).toString('hex')}`);
    await fs.promises.mkdir(dir, { recursive: true });
    try {
      const files = { ours: path.join(dir, 'ours'), base: path.join(dir, 'base'), theirs: path.join(dir, 'theirs') };
      await Promise.all([fs.promises.writeFile(files.ours, ours), fs.promises.writeFile(files.base, base), fs.promises.writeFile(files.theirs, theirs)]);
      // Exit code: 0 clean, 1..127 the number of conflicts; git reports an error as a negative code (≥ 128 here).
      const result = await this.git.run(
        { gitDir: dir },
        ['merge-file', '-p', '-L', 'ours', '-L', 'base', '-L', 'theirs', files.ours, files.base, files.theirs],
        {
          okCodes: (code) => code >= 0 && code < 128,
        },
      );
      return { clean: result.exitCode === 0, bytes: new Uint8Array(result.stdout.buffer, result.stdout.byteOffset, result.stdout.length) };
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }

  onDidEvict(listener: (ids: readonly string[]) => void): { dispose(): void } {
    return this.evicted.event(listener);
  }

  /** Resolves when background work (measuring the store, evicting, collecting garbage) has finished. */
  async flush(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.background;
      await current;
    } while (current !== this.background);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (openStores.get(this.registryKey) === this) openStores.delete(this.registryKey);
    this.evicted.dispose();
  }

  private assertOpen(): void {
    if (this.disposed) throw new Error(l10n.t('The checkpoint store is disposed.'));
  }

  /** The record on disk wins: another window may have evicted checkpoints of this session meanwhile. */
  private async reload(): Promise<void> {
    // Unchanged since this store wrote it: nothing to learn (another window's eviction rewrites it).
    const stat = await fs.promises.stat(this.file).catch(() => undefined);
    if (stat && this.written && stat.mtimeMs === this.written.mtimeMs && stat.size === this.written.size) return;
    const disk = await readSession(this.file, (m) => this.options.logger?.warn(m));
    if (!disk) return;
    const kept = new Set(disk.checkpoints.map((c) => c.id));
    const gone = this.record.checkpoints.filter((c) => !kept.has(c.id)).map((c) => c.id);
    for (const [root, head] of Object.entries(this.record.heads)) {
      if (disk.heads[root]?.tree !== head.tree) this.verified.delete(root);
    }
    this.record = { ...disk, nextId: Math.max(disk.nextId, this.record.nextId) };
    if (gone.length > 0) this.evicted.fire(gone);
  }

  private async save(): Promise<void> {
    await writeSession(this.file, this.record);
    const stat = await fs.promises.stat(this.file).catch(() => undefined);
    this.written = stat && { mtimeMs: stat.mtimeMs, size: stat.size };
  }

  /** Removes checkpoints of this session (refs, record) and says so. */
  private async evict(ids: ReadonlySet<string>): Promise<ShadowRepo[]> {
    const { repos, removed } = await evictFromRecord(this.git, this.options.storageDir, this.key, this.record, ids);
    for (const root of [...this.verified]) if (!this.record.heads[root]) this.verified.delete(root);
    if (removed.length === 0) return [];
    await this.save();
    this.evicted.fire(removed);
    return repos;
  }

  private scheduleMeasure(): void {
    this.takesSinceMeasure++;
    const due = this.lastMeasured === 0 || this.takesSinceMeasure >= this.measureEveryTakes || Date.now() - this.lastMeasured > MEASURE_INTERVAL_MS;
    if (!due) return;
    this.takesSinceMeasure = 0;
    this.lastMeasured = Date.now();
    this.background = this.background
      .then(() => this.enforceStoreLimit())
      .catch((error: unknown) => this.options.logger?.error(`Checkpoint: keeping the store within its size failed: ${(error as Error).message}`));
  }

  /**
   * Evicts the oldest checkpoints of any session until the store is within `maxStoreBytes`, collecting
   * garbage in the repositories concerned after each round (this session's newest checkpoint stays).
   */
  private async enforceStoreLimit(): Promise<void> {
    for (let round = 0; round < 10 && !this.disposed; round++) {
      const size = await directoryBytes(this.options.storageDir);
      if (size <= this.maxStoreBytes) return;
      const sessions = await readAllSessions(this.options.storageDir, (m) => this.options.logger?.warn(m));
      sessions.set(this.key, this.record);
      const newest = this.record.checkpoints.at(-1);
      const candidates = [...sessions]
        .flatMap(([key, record]) => record.checkpoints.map((checkpoint) => ({ key, checkpoint })))
        .filter((c) => c.checkpoint !== newest)
        .sort((a, b) => a.checkpoint.takenAt - b.checkpoint.takenAt);
      if (candidates.length === 0) {
        this.options.logger?.warn(`Checkpoint: the store (${size} bytes) is over its limit with nothing left to evict.`);
        return;
      }
      // Drop a share of the checkpoints in proportion to the excess (at least one), aiming a little below the limit.
      const share = Math.min(1, (size - this.maxStoreBytes * 0.9) / size);
      const victims = new Map<string, Set<string>>();
      for (const { key, checkpoint } of candidates.slice(0, Math.max(1, Math.ceil(candidates.length * share)))) {
        victims.set(key, (victims.get(key) ?? new Set()).add(checkpoint.id));
      }
      const repos = new Map<string, ShadowRepo>();
      for (const [key, ids] of victims) {
        for (const repo of await this.evictSession(key, sessions.get(key)!, ids)) repos.set(repo.dir, repo);
      }
      for (const repo of repos.values()) await repo.exclusive(() => repo.collectGarbage());
    }
  }

  /** Evicts from any session: this one, another open in this process, or one only on disk. */
  private async evictSession(key: string, record: SessionRecord, ids: ReadonlySet<string>): Promise<ShadowRepo[]> {
    const open = openStores.get(`${this.options.storageDir}\0${key}`);
    if (open) return open.evict(ids);
    const { repos, removed } = await evictFromRecord(this.git, this.options.storageDir, key, record, ids);
    if (removed.length > 0) await writeSession(sessionFilePath(this.options.storageDir, key), record);
    return repos;
  }
}

const FILE_MODES: readonly FileMode[] = ['file', 'executable', 'symlink'];

function parseKept(id: string): { mode: FileMode; oid: string } | undefined {
  const match = /^(file|executable|symlink):([0-9a-f]{40}|[0-9a-f]{64})$/.exec(id);
  const mode = FILE_MODES.find((m) => m === match?.[1]);
  return mode && match ? { mode, oid: match[2]! } : undefined;
}

/** A root-relative path in git's form, or undefined when it could name something outside the root. */
function cleanPath(file: string): string | undefined {
  const parts = file.replace(/\\/g, '/').split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0'))) return undefined;
  return parts.join('/');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortSkipped(skipped: SkippedFile[]): SkippedFile[] {
  return skipped.sort((a, b) => compare(a.root, b.root) || compare(a.path, b.path));
}
