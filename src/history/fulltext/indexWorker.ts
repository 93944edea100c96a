/**
 * What the transcript index worker does (worker.ts starts it in a `worker_threads` Worker): keeps a
 * {@link TextIndex} of the history's text files, answers searches and snippets, and saves the index.
 *
 * - Start: the saved index is loaded (a missing, damaged or outdated one is reported and the index starts
 *   empty); queries are answered from it at once, marked incomplete until the host's list of documents has been
 *   compared with the text files: a document whose file is gone is dropped, a file that is newer than its
 *   document (or was never indexed: the window closed between a text write and an index save) is read again in
 *   the background, in batches, while queries keep being answered.
 * - Changes: `put` (a text file was written; its text and stamp come with the message) and `remove` apply at
 *   once; merges run in steps between messages; the index is saved a while after the last change.
 * - Cancellation: a search checks its slot in the shared table between pieces of work and stops early.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import { textFileName } from '../textFileName';
import { IndexFileError, IndexFiles } from './indexFiles';
import { snippetOf } from './snippets';
import { SearchCancelled, TextIndex, type TextStamp } from './textIndex';
import { queryTerms, SHORT_PREFIX_CHARS } from './tokens';
import { CANCEL_SLOTS, FromWorker, MAX_DOCUMENTS, MAX_TEXT_CHARS, ToWorker, WorkerOptions } from './workerProtocol';
import { assertNever, errorMessage } from '../../common/errors';

/** Documents read from text files per batch (one segment each), and their text at most. */
const BATCH_DOCUMENTS = 256;
const BATCH_CHARS = 8 * 1024 * 1024;
/** Files stat'ed at once while comparing with the text files. */
const STAT_BATCH = 64;
/** A text file larger than this is not one the history wrote: it is skipped. */
const MAX_FILE_BYTES = 1024 * 1024;
/** During a rebuild, progress is saved at least this often. */
const REBUILD_SAVE_MS = 30_000;
const STATE_INTERVAL_MS = 250;

type Send = (message: FromWorker) => void;

/** Serves the host on `port`: the start options validated, every message handed to an {@link IndexWorker}. */
export function serveIndex(port: MessagePort, data: unknown): IndexWorker {
  const options = WorkerOptions.parse(data);
  // The host's language: the messages this worker sends are logged there.
  if (options.l10n) l10n.config({ contents: options.l10n });
  const worker = new IndexWorker(options, (message) => {
    const checked = FromWorker.parse(message);
    // A result's handles move to the host without a copy.
    port.postMessage(checked, checked.type === 'found' ? [checked.handles.buffer as ArrayBuffer] : []);
  });
  port.on('message', (message: unknown) => worker.receive(message));
  port.on('close', () => worker.close());
  return worker;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class IndexWorker {
  private index = new TextIndex();
  private readonly files: IndexFiles;
  private readonly cancel: Int32Array;
  private readonly loaded: Promise<void>;
  /** Resolves once the saved index's word blocks are loaded (or it was given up). */
  private words: Promise<void> = Promise.resolve();
  /** The keys the host says have text (complete once the last batch came), kept current by put/remove. */
  private expected: Set<string> | undefined;
  private receiving = new Set<string>();
  /** The host's handle for each key it named. */
  private readonly handles = new Map<string, number>();
  /** Keys to read from their text files. */
  private pending: string[] = [];
  /** Keys taken from `pending` by the batch being read, not indexed yet. */
  private reading = 0;
  /** Keys put or removed by the host since the comparison with the text files began: the host's word wins. */
  private touched = new Set<string>();
  private comparing = false;
  private working = false;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> = Promise.resolve();
  private savedVersion = -1;
  private lastSave = Date.now();
  private lastState = '';
  private stateTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly options: WorkerOptions,
    private readonly send: Send,
  ) {
    this.files = new IndexFiles(options.indexDir);
    this.cancel = new Int32Array(options.cancel);
    this.loaded = this.load();
  }

  /** Handles one message from the host (validated here). */
  receive(raw: unknown): void {
    const parsed = ToWorker.safeParse(raw);
    if (!parsed.success) {
      this.send({ type: 'problem', message: l10n.t('The transcript index received a message it cannot read: {0}', parsed.error.message.slice(0, 1000)) });
      const id =
        typeof raw === 'object' && raw !== null && 'id' in raw && typeof raw.id === 'number' && Number.isInteger(raw.id) && raw.id >= 1 ? raw.id : undefined;
      if (id !== undefined) this.send({ type: 'failed', id, message: l10n.t('The request was not valid.') });
      return;
    }
    void this.loaded.then(() => this.handle(parsed.data));
  }

  /** Stops timers (the worker is closing). */
  close(): void {
    this.closed = true;
    clearTimeout(this.saveTimer);
    clearTimeout(this.stateTimer);
  }

  /** Loads the saved index's short-prefix blocks (then queries are answered); the word blocks follow. */
  private async load(): Promise<void> {
    if (!IndexFiles.supported) return;
    try {
      const loaded = await this.files.load();
      this.index = loaded.index;
      this.savedVersion = this.index.version;
      this.words = loaded.loadWords().then(
        () => this.work(),
        (error: unknown) => this.startAfresh(error),
      );
    } catch (error) {
      await this.startAfresh(error);
    }
    this.reportState(true);
  }

  /** The saved index cannot be used: an empty one, rebuilt from the text files once the host's list is known. */
  private async startAfresh(error: unknown): Promise<void> {
    const reason = errorMessage(error);
    if (!(error instanceof IndexFileError && error.missing))
      this.send({ type: 'problem', message: l10n.t('The transcript index is rebuilt from the text files: {0}.', reason) });
    await this.files.clear().catch(() => undefined);
    this.index = new TextIndex();
    this.savedVersion = this.index.version; // nothing worth saving yet
    this.reportState(true);
  }

  private handle(message: ToWorker): void {
    switch (message.type) {
      case 'documents':
        message.keys.forEach((key, i) => {
          this.receiving.add(key);
          this.handles.set(key, message.first + i);
        });
        if (message.last) {
          this.expected = this.receiving;
          this.receiving = new Set();
          this.touched = new Set();
          void this.compareWithFiles();
        }
        return;
      case 'put':
        this.handles.set(message.key, message.handle);
        this.touched.add(message.key);
        this.expected?.add(message.key);
        if (!this.index.has(message.key) && this.index.documentCount >= MAX_DOCUMENTS) {
          this.send({ type: 'problem', message: l10n.t('The transcript index holds {0} documents already; a new one is not indexed.', MAX_DOCUMENTS) });
          return;
        }
        this.index.put(message.key, message.text, message.stamp);
        this.changed();
        return;
      case 'remove':
        this.touched.add(message.key);
        this.expected?.delete(message.key);
        if (this.index.remove(message.key)) this.changed();
        return;
      case 'search':
        void this.search(message.id, message.query);
        return;
      case 'snippets':
        void this.snippets(message.id, message.query, message.keys);
        return;
      case 'save':
        void this.save().then(() => this.send({ type: 'saved', id: message.id }));
        return;
    }
    assertNever(message, 'message to the transcript index worker');
  }

  private cancelled(id: number): boolean {
    return Atomics.load(this.cancel, id % CANCEL_SLOTS) === id;
  }

  private get complete(): boolean {
    return this.expected !== undefined && !this.comparing && this.pending.length === 0 && this.reading === 0;
  }

  private async search(id: number, query: string): Promise<void> {
    const words = queryTerms(query);
    // One- to three-letter words need only the short-prefix blocks, which are loaded first.
    if (!this.index.wordsLoaded && words.some((w) => w.length > SHORT_PREFIX_CHARS)) await this.words;
    if (this.cancelled(id)) {
      this.send({ type: 'cancelled', id });
      return;
    }
    try {
      const keys = this.index.search(words, () => this.cancelled(id));
      const handles = new Uint32Array(keys.length);
      let count = 0;
      for (const key of keys) {
        const handle = this.handles.get(key);
        if (handle !== undefined) handles[count++] = handle;
      }
      this.send({ type: 'found', id, handles: handles.subarray(0, count), searched: this.index.documentCount, complete: this.complete });
    } catch (error) {
      if (error instanceof SearchCancelled) this.send({ type: 'cancelled', id });
      else this.send({ type: 'failed', id, message: (error as Error).message });
    }
  }

  private async snippets(id: number, query: string, keys: readonly string[]): Promise<void> {
    const words = queryTerms(query);
    const snippets: Array<{ key: string; text: string; highlights: Array<[number, number]> }> = [];
    for (const key of keys) {
      if (this.cancelled(id)) {
        this.send({ type: 'cancelled', id });
        return;
      }
      const text = await this.readText(key).catch(() => undefined);
      const snippet = text && snippetOf(text.text, words);
      if (snippet) snippets.push({ key, text: snippet.text, highlights: snippet.highlights.map(([s, e]) => [s, e]) });
    }
    this.send({ type: 'snippets', id, snippets });
  }

  /** A session's text and the stamp of the file it was read from (one open file, so they agree). */
  private async readText(key: string): Promise<{ text: string; stamp: TextStamp } | undefined> {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(path.join(this.options.textDir, textFileName(key)), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (stat.size > MAX_FILE_BYTES) throw new Error(l10n.t('its text file is {0} bytes, more than the history writes', stat.size));
      const text = (await handle.readFile('utf8')).slice(0, MAX_TEXT_CHARS);
      return { text, stamp: { mtimeMs: stat.mtimeMs, size: stat.size } };
    } finally {
      await handle.close();
    }
  }

  /** Compares the index with the host's list and the text files, then reads what changed, in the background. */
  private async compareWithFiles(): Promise<void> {
    const expected = this.expected!;
    this.comparing = true;
    this.pending = [];
    this.reportState(true);
    await this.words;
    if (this.expected !== expected) return;
    for (const { key } of this.index.documents()) if (!expected.has(key)) this.index.remove(key);
    const keys = [...expected];
    for (let i = 0; i < keys.length && !this.closed; i += STAT_BATCH) {
      if (this.expected !== expected) return; // a newer list superseded this one
      await Promise.all(
        keys.slice(i, i + STAT_BATCH).map(async (key) => {
          if (this.touched.has(key)) return;
          let stat: fs.Stats | undefined;
          try {
            stat = await fs.promises.stat(path.join(this.options.textDir, textFileName(key)));
          } catch {
            stat = undefined;
          }
          if (this.touched.has(key)) return;
          const stamp = this.index.stampOf(key);
          if (!stat) {
            if (this.index.remove(key)) this.changed();
          } else if (!stamp || stamp.mtimeMs !== stat.mtimeMs || stamp.size !== stat.size) this.pending.push(key);
        }),
      );
      this.reportState();
    }
    this.comparing = false;
    this.reportState(true);
    this.work();
  }

  /** Runs background work (reading changed text files, merges) until there is none, one piece per turn. */
  private work(): void {
    if (this.working || this.closed) return;
    this.working = true;
    void (async () => {
      try {
        for (;;) {
          await nextTurn();
          if (this.closed) return;
          if (this.pending.length > 0) await this.indexBatch();
          else if (this.index.needsRenumber) this.index.renumber();
          else {
            const merge = this.index.nextMerge();
            if (!merge) break;
            let step = merge.steps.next();
            while (!step.done) {
              await nextTurn();
              if (this.closed) return;
              step = merge.steps.next();
            }
            this.index.finishMerge(merge, step.value);
          }
          this.reportState();
          if (this.pending.length > 0 && Date.now() - this.lastSave > REBUILD_SAVE_MS) void this.save();
        }
      } catch (error) {
        this.send({ type: 'problem', message: l10n.t('The transcript index stopped its background work: {0}', (error as Error).message) });
      } finally {
        this.working = false;
      }
      this.reportState(true);
      this.scheduleSave();
    })();
  }

  private async indexBatch(): Promise<void> {
    const batch: Array<{ key: string; text: string; stamp: TextStamp }> = [];
    let chars = 0;
    try {
      while (this.pending.length > 0 && batch.length < BATCH_DOCUMENTS && chars < BATCH_CHARS) {
        const key = this.pending.pop()!;
        this.reading++;
        await this.readIntoBatch(key, batch).then((added) => (chars += added));
      }
      const room = MAX_DOCUMENTS - this.index.documentCount;
      this.index.putMany(batch.slice(0, Math.max(0, room)));
    } finally {
      this.reading = 0;
    }
  }

  /** Reads one key's text into `batch` (unless the host's word came meanwhile); returns its length. */
  private async readIntoBatch(key: string, batch: Array<{ key: string; text: string; stamp: TextStamp }>): Promise<number> {
    if (this.touched.has(key) || !this.expected?.has(key)) return 0;
    try {
      const text = await this.readText(key);
      if (this.touched.has(key)) return 0; // the host's put or remove came while the file was read
      if (!text) {
        this.index.remove(key);
        return 0;
      }
      batch.push({ key, ...text });
      return text.text.length;
    } catch (error) {
      this.send({ type: 'problem', message: l10n.t('A transcript could not be indexed: {0}', (error as Error).message) });
      return 0;
    }
  }

  private changed(): void {
    this.reportState();
    this.scheduleSave();
    this.work();
  }

  private scheduleSave(): void {
    clearTimeout(this.saveTimer);
    if (this.closed || this.index.version === this.savedVersion) return;
    this.saveTimer = setTimeout(() => void this.save(), this.options.saveDelayMs);
  }

  private save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      if (!IndexFiles.supported || this.index.version === this.savedVersion) return;
      const version = this.index.version;
      this.lastSave = Date.now();
      try {
        await this.files.save(this.index);
        this.savedVersion = version;
      } catch (error) {
        this.send({ type: 'problem', message: l10n.t('The transcript index could not be saved in {0}: {1}', this.options.indexDir, (error as Error).message) });
      }
    });
    return this.saving;
  }

  /** Tells the host how far the index is (at most every {@link STATE_INTERVAL_MS}, unless `now`). */
  private reportState(now = false): void {
    if (this.closed) return;
    const send = () => {
      this.stateTimer = undefined;
      const state = {
        type: 'state' as const,
        version: this.index.version,
        indexed: this.index.documentCount,
        pending: this.pending.length + this.reading,
        complete: this.complete,
      };
      const text = JSON.stringify(state);
      if (text === this.lastState) return;
      this.lastState = text;
      this.send(state);
    };
    if (now) {
      clearTimeout(this.stateTimer);
      send();
    } else this.stateTimer ??= setTimeout(send, STATE_INTERVAL_MS);
  }
}
