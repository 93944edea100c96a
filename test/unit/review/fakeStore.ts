/**
 * An in-memory {@link CheckpointStore} for the review's unit tests: `take()` snapshots the roots' files from
 * disk (real temp folders; links read, not followed; `.git` skipped), keeps every snapshot and kept content in
 * memory, and detects a rename as a file deleted and another added with the same bytes. Files over `maxBytes`
 * are not captured (listed in `skipped` of every checkpoint while they exist). `merge` shells out to
 * `git merge-file -p` on temp files, like the real store. `evict(ids)` stands in for the storage limit.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileHunks } from '../../../src/review/hunks';
import type { Checkpoint, CheckpointRoot, CheckpointStore, FileChange, FileState, SkippedFile } from '../../../src/review/types';

type Entry = FileState | { readonly tooLarge: string };
type Snapshot = Map<string, Map<string, Entry>>;

export class FakeStore implements CheckpointStore {
  private rootList: readonly CheckpointRoot[] = [];
  private readonly checkpoints: Checkpoint[] = [];
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly kept = new Map<string, FileState>();
  private readonly listeners = new Set<(ids: readonly string[]) => void>();
  private counter = 0;
  /** Labels of every checkpoint taken, in order. */
  readonly labels: string[] = [];

  constructor(private readonly maxBytes = Infinity) {}

  setRoots(roots: readonly CheckpointRoot[]): void {
    this.rootList = roots;
  }

  roots(): readonly CheckpointRoot[] {
    return this.rootList;
  }

  take(label: string, roots: readonly CheckpointRoot[] = this.rootList): Promise<Checkpoint> {
    const id = `c${++this.counter}`;
    const snapshot: Snapshot = new Map();
    const skipped: SkippedFile[] = [];
    for (const root of roots) {
      const files = new Map<string, Entry>();
      this.walk(root.path, '', files);
      for (const [p, e] of files) if ('tooLarge' in e) skipped.push({ root: root.path, path: p, reason: 'too-large' });
      snapshot.set(root.path, files);
    }
    const checkpoint: Checkpoint = { id, label, takenAt: Date.now(), trees: Object.fromEntries(roots.map((r) => [r.path, `tree-${id}`])), skipped };
    this.checkpoints.push(checkpoint);
    this.snapshots.set(id, snapshot);
    this.labels.push(label);
    return Promise.resolve(checkpoint);
  }

  list(): readonly Checkpoint[] {
    return this.checkpoints;
  }

  get(id: string): Checkpoint | undefined {
    return this.checkpoints.find((c) => c.id === id);
  }

  changes(from: Checkpoint, to: Checkpoint): Promise<FileChange[]> {
    const a = this.snapshots.get(from.id)!;
    const b = this.snapshots.get(to.id)!;
    const result: FileChange[] = [];
    // Like the real store: only roots both captured.
    for (const root of [...a.keys()].filter((r) => b.has(r))) {
      const before = a.get(root)!;
      const after = b.get(root)!;
      const added: string[] = [];
      const deleted: string[] = [];
      for (const p of new Set([...before.keys(), ...after.keys()])) {
        const x = before.get(p);
        const y = after.get(p);
        if (x !== undefined && y !== undefined && fingerprint(x) === fingerprint(y)) continue;
        if (x === undefined) added.push(p);
        else if (y === undefined) deleted.push(p);
        else result.push(change(root, p, 'modified', x, y));
      }
      for (const p of added) {
        const y = after.get(p)!;
        const from = deleted.find((d) => fingerprint(before.get(d)!) === fingerprint(y));
        if (from !== undefined) {
          deleted.splice(deleted.indexOf(from), 1);
          result.push({ ...change(root, p, 'renamed', before.get(from), y), oldPath: from });
        } else result.push(change(root, p, 'added', undefined, y));
      }
      for (const p of deleted) result.push(change(root, p, 'deleted', before.get(p), undefined));
    }
    return Promise.resolve(result);
  }

  read(checkpoint: Checkpoint, root: string, p: string): Promise<FileState | undefined> {
    const entry = this.snapshots.get(checkpoint.id)?.get(root)?.get(p);
    return Promise.resolve(entry === undefined || 'tooLarge' in entry ? undefined : entry);
  }

  keep(state: FileState): Promise<string> {
    const id = `k${++this.counter}`;
    this.kept.set(id, state);
    return Promise.resolve(id);
  }

  readKept(id: string): Promise<FileState | undefined> {
    return Promise.resolve(this.kept.get(id));
  }

  merge(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array): Promise<{ readonly clean: boolean; readonly bytes: Uint8Array }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-merge-'));
    try {
      const files = ['ours', 'base', 'theirs'].map((name) => path.join(dir, name));
      [ours, base, theirs].forEach((bytes, i) => fs.writeFileSync(files[i]!, bytes));
      const result = spawnSync('git', ['merge-file', '-p', ...files]);
      if (result.status === null || result.status < 0 || result.status > 127) throw new Error(`git merge-file failed: ${result.stderr.toString()}`);
      return Promise.resolve({ clean: result.status === 0, bytes: new Uint8Array(result.stdout) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  onDidEvict(listener: (ids: readonly string[]) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Removes checkpoints as the storage limit would, and says so. */
  evict(ids: readonly string[]): void {
    for (const id of ids) {
      this.snapshots.delete(id);
      const i = this.checkpoints.findIndex((c) => c.id === id);
      if (i !== -1) this.checkpoints.splice(i, 1);
    }
    for (const listener of this.listeners) listener(ids);
  }

  dispose(): void {
    this.listeners.clear();
  }

  private walk(root: string, prefix: string, files: Map<string, Entry>): void {
    for (const name of fs.readdirSync(path.join(root, prefix))) {
      if (prefix === '' && name === '.git') continue;
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      const abs = path.join(root, rel);
      const stats = fs.lstatSync(abs);
      if (stats.isDirectory()) this.walk(root, rel, files);
      else if (stats.isSymbolicLink()) files.set(rel, { bytes: new Uint8Array(fs.readlinkSync(abs, { encoding: 'buffer' })), mode: 'symlink' });
      else if (stats.size > this.maxBytes) files.set(rel, { tooLarge: createHash('sha256').update(fs.readFileSync(abs)).digest('hex') });
      else files.set(rel, { bytes: new Uint8Array(fs.readFileSync(abs)), mode: (stats.mode & 0o111) !== 0 ? 'executable' : 'file' });
    }
  }
}

function fingerprint(entry: Entry): string {
  return 'tooLarge' in entry ? `large:${entry.tooLarge}` : `${entry.mode}:${createHash('sha256').update(entry.bytes).digest('hex')}`;
}

function change(root: string, p: string, status: FileChange['status'], x: Entry | undefined, y: Entry | undefined): FileChange {
  const state = (e: Entry | undefined) => (e === undefined || 'tooLarge' in e ? undefined : e);
  const counts = fileHunks(state(x), state(y));
  return { root, path: p, status, added: counts.added, removed: counts.removed, binary: counts.binary };
}
