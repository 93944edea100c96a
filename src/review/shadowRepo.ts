/**
 * One bare shadow repository of the checkpoint store: the objects of every session's captures of one folder
 * (they deduplicate), never a user's repository. The folder is given per call as the work tree, so the
 * repository's config holds no `core.worktree`. Operations on one repository are serialized in the process.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangeStatus, FileChange, FileMode, FileState } from './types';
import { type Git, type GitTarget, splitNul } from './git';

/** Git's empty tree (SHA-1; the store creates its repositories with SHA-1). */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** Excluded from every capture besides the folder's own ignore rules. */
export const DEFAULT_EXCLUDES = ['.git/', 'node_modules/'];

/**
 * Stored byte-exactly whatever the folder's `.gitattributes` say: no eol conversion (`-text`, `-eol`; `crlf`
 * is the legacy `text` and yields to it), no clean filter such as LFS (`-filter`), no `$Id$` collapsing
 * (`-ident`), no re-encoding (`-working-tree-encoding`). `diff` goes back to unspecified so a folder's
 * `-diff` does not turn text into "binary" in line counts (real binary files are still detected).
 */
export const ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding !diff !merge\n';

/** `<first 16 hex of sha256(text)>`: names derived from paths and keys. */
export function hash16(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** One file that differs between two trees, as git reports it (paths relative to the captured folder). */
export type RawChange = Omit<FileChange, 'root'>;

const queues = new Map<string, Promise<unknown>>();
const initialised = new Map<string, Promise<void>>();

const MODES: Readonly<Record<string, FileMode>> = { '100644': 'file', '100755': 'executable', '120000': 'symlink' };
const MODE_BITS: Readonly<Record<FileMode, string>> = { file: '100644', executable: '100755', symlink: '120000' };

export class ShadowRepo {
  constructor(
    readonly git: Git,
    /** The bare repository's folder. */
    readonly dir: string,
  ) {}

  /** A target for object-only commands. */
  get objects(): GitTarget {
    return { gitDir: this.dir };
  }

  /**
   * Runs `task` after every task queued before on this repository in this process (another session's
   * capture, a gc), so they never contend for the repository's locks.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const previous = queues.get(this.dir) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(this.dir, settled);
    void settled.then(() => {
      if (queues.get(this.dir) === settled) queues.delete(this.dir);
    });
    return next;
  }

  /** Creates the repository and its exclude/attributes files once (idempotent, also across processes). */
  ensure(): Promise<void> {
    let done = initialised.get(this.dir);
    if (!done) {
      done = this.init();
      initialised.set(this.dir, done);
      done.catch(() => initialised.delete(this.dir));
    }
    return done;
  }

  private async init(): Promise<void> {
    if (!fs.existsSync(path.join(this.dir, 'HEAD'))) {
      await fs.promises.mkdir(this.dir, { recursive: true });
      await this.git.run(this.objects, ['init', '--quiet', '--bare', '--object-format=sha1']);
    }
    const info = path.join(this.dir, 'info');
    await fs.promises.mkdir(info, { recursive: true });
    await fs.promises.writeFile(path.join(info, 'exclude'), `${DEFAULT_EXCLUDES.join('\n')}\n`);
    await fs.promises.writeFile(path.join(info, 'attributes'), ATTRIBUTES);
  }

  /**
   * Creates (oid) and deletes (undefined) refs. New refs are written as loose ref files (git's own format,
   * written whole then renamed into place), which spares a git run on every checkpoint; deletions go
   * through `update-ref` in one transaction (a ref may also sit in packed-refs after a gc).
   */
  async updateRefs(updates: ReadonlyMap<string, string | undefined>): Promise<void> {
    const deletions = new Map<string, string | undefined>();
    for (const [ref, oid] of updates) {
      if (oid && /^refs\/acp\/[\w.-]+\/[\w.-]+$/.test(ref) && /^[0-9a-f]{40}$/.test(oid)) await this.writeLooseRef(ref, oid);
      else deletions.set(ref, oid);
    }
    await this.transaction(deletions);
  }

  private async writeLooseRef(ref: string, oid: string): Promise<void> {
    const file = path.join(this.dir, ...ref.split('/'));
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.lock`;
    await fs.promises.writeFile(temporary, `${oid}\n`);
    await fs.promises.rename(temporary, file);
  }

  private async transaction(updates: ReadonlyMap<string, string | undefined>): Promise<void> {
    if (updates.size === 0) return;
    const lines = [...updates].map(([ref, oid]) => (oid ? `update ${ref}\0${oid}\0\0` : `delete ${ref}\0\0`));
    await this.git.run(this.objects, ['update-ref', '--no-deref', '-z', '--stdin'], { input: lines.join('') });
  }

  /** The refs under `prefix` (e.g. `refs/acp/<key>/`), name → oid. */
  async refs(prefix: string): Promise<Map<string, string>> {
    const result = await this.git.run(this.objects, ['for-each-ref', '--format=%(objectname) %(refname)', prefix]);
    const refs = new Map<string, string>();
    for (const line of result.stdout.toString('utf8').split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
    }
    return refs;
  }

  /** Files that differ from `from` to `to` (trees; {@link EMPTY_TREE} for "nothing"), renames detected. */
  async diff(from: string, to: string): Promise<RawChange[]> {
    const result = await this.git.run(this.objects, ['diff-tree', '-r', '-z', '-M', '--raw', '--numstat', '--no-ext-diff', '--no-textconv', from, to]);
    return parseRawNumstat(splitNul(result.stdout));
  }

  /** The file at `file` in `tree` (a blob: file, executable or link), or undefined. */
  async read(tree: string, file: string): Promise<FileState | undefined> {
    const listed = await this.git.run(this.objects, ['ls-tree', '-z', '--full-tree', tree, '--', file]);
    for (const record of splitNul(listed.stdout)) {
      const tab = record.indexOf('\t');
      const [mode = '', type, oid = ''] = record.slice(0, tab).split(' ');
      const fileMode = MODES[mode];
      if (record.slice(tab + 1) !== file || type !== 'blob' || !fileMode) continue;
      return { bytes: await this.blob(oid), mode: fileMode };
    }
    return undefined;
  }

  async blob(oid: string): Promise<Uint8Array> {
    const result = await this.git.run(this.objects, ['cat-file', 'blob', oid]);
    return new Uint8Array(result.stdout.buffer, result.stdout.byteOffset, result.stdout.length);
  }

  /** Stores bytes as a blob; returns its oid. */
  async hashObject(bytes: Uint8Array): Promise<string> {
    const result = await this.git.run(this.objects, ['hash-object', '-w', '--stdin', '--no-filters'], { input: bytes });
    return result.stdout.toString('utf8').trim();
  }

  /** Whether an object exists in the repository. */
  async has(oid: string): Promise<boolean> {
    const result = await this.git.run(this.objects, ['cat-file', '-e', oid], { okCodes: () => true });
    return result.exitCode === 0;
  }

  /** A tree listing `blobs` (mode + oid), named by oid: what keeps kept contents reachable. */
  async treeOf(blobs: readonly { readonly mode: FileMode; readonly oid: string }[]): Promise<string> {
    const unique = new Map(blobs.map((b) => [`${MODE_BITS[b.mode]}-${b.oid}`, b]));
    const input = [...unique].map(([name, b]) => `${MODE_BITS[b.mode]} blob ${b.oid}\t${name}\0`).join('');
    const result = await this.git.run(this.objects, ['mktree', '-z'], { input });
    return result.stdout.toString('utf8').trim();
  }

  /** Drops unreachable objects now (after refs were deleted): what frees the space of evicted checkpoints. */
  async collectGarbage(): Promise<void> {
    await this.git.run(this.objects, ['reflog', 'expire', '--expire=now', '--all']);
    await this.git.run(this.objects, ['gc', '--prune=now', '--quiet']);
  }
}

/** Parses `diff-tree -z --raw --numstat` output: every raw record, then a numstat record per raw record, in order. */
export function parseRawNumstat(records: readonly string[]): RawChange[] {
  const raws: { status: ChangeStatus; path: string; oldPath?: string }[] = [];
  let i = 0;
  while (i < records.length && records[i]!.startsWith(':')) {
    const letter = records[i]!.split(' ')[4]?.charAt(0) ?? 'M';
    if (letter === 'R' || letter === 'C') {
      const oldPath = records[i + 1] ?? '';
      const newPath = records[i + 2] ?? '';
      raws.push(letter === 'R' ? { status: 'renamed', path: newPath, oldPath } : { status: 'added', path: newPath });
      i += 3;
    } else {
      const status: ChangeStatus = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
      raws.push({ status, path: records[i + 1] ?? '' });
      i += 2;
    }
  }
  const changes: RawChange[] = [];
  for (const raw of raws) {
    // numstat: "added\tremoved\tpath", or for a rename "added\tremoved\t" then old and new path records.
    const head = records[i] ?? '';
    const [added = '0', removed = '0', rest] = head.split('\t');
    i += rest === '' ? 3 : 1;
    const binary = added === '-';
    changes.push({ ...raw, added: binary ? 0 : Number(added), removed: binary ? 0 : Number(removed), binary });
  }
  return changes;
}
