/**
 * The extension host's side of the transcript index: starts the worker (worker.ts), tells it what the local
 * index stores and drops, and implements {@link TranscriptSearch} by asking it. On the host each call only
 * posts a message or validates an answer.
 *
 * - A superseded request is cancelled through a shared table the worker checks while it works, and its
 *   promise rejects at once with an `AbortError`.
 * - A worker that crashes or reports an error is logged; what was waiting on it is answered "text search is
 *   unavailable"; it is restarted (at most {@link TranscriptIndexOptions.maxRestarts} times) and given the list
 *   of documents again, so it catches up from the text files. Past the cap, every search says unavailable.
 * - `dispose` asks the worker to save, then ends it.
 */
import * as l10n from '@vscode/l10n';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Emitter, type Event } from '../../common/events';
import type { Logger } from '../../common/logger';
import type { Range, Snippet } from '../search';
import type { TranscriptSearchResult, TranscriptSearch } from '../transcriptSearch';
import { HandleTable, MatchedKeys } from './matchedKeys';
import type { TextStamp } from './textIndex';
import { CANCEL_SLOTS, FromWorker, MAX_KEYS_PER_MESSAGE, MAX_SNIPPET_KEYS, MAX_TEXT_CHARS, type ToWorker, type WorkerOptions } from './workerProtocol';
import { assertNever } from '../../common/errors';

export interface TranscriptIndexOptions {
  /** The worker's script (`dist/transcript-worker.js` in the extension). */
  readonly workerFile: string;
  /** The history's folder: text files in `text/`, the index in `transcript-index/`. */
  readonly historyDir: string;
  /** The record keys of the sessions that have text now (asked at every worker start). */
  readonly documents: () => readonly string[];
  readonly logger: Logger;
  /** How long after the last change the worker saves the index (default 5 s). */
  readonly saveDelayMs?: number;
  /** The localized strings (VS Code's `l10n.bundle`), so the worker's messages are in the user's language. */
  readonly l10nBundle?: Record<string, string>;
  /** Restarts after a crash before giving up (default 3). */
  readonly maxRestarts?: number;
}

type Pending =
  | { readonly kind: 'search'; readonly resolve: (matches: TranscriptSearchResult) => void; readonly reject: (error: Error) => void }
  | { readonly kind: 'snippets'; readonly resolve: (snippets: ReadonlyMap<string, Snippet>) => void; readonly reject: (error: Error) => void }
  | { readonly kind: 'save'; readonly resolve: () => void; readonly reject: (error: Error) => void };

/** How far the worker's index is, as it last said. */
export interface IndexState {
  readonly indexed: number;
  readonly pending: number;
  readonly complete: boolean;
}

const CLOSE_GRACE_MS = 3000;

function abortError(): Error {
  return new DOMException('The request was superseded.', 'AbortError');
}

export class TranscriptIndexClient implements TranscriptSearch {
  private worker: Worker | undefined;
  private readonly requests = new Map<number, Pending>();
  private nextId = 1;
  private readonly cancelBuffer = new SharedArrayBuffer(4 * CANCEL_SLOTS);
  private readonly cancelSlots = new Int32Array(this.cancelBuffer);
  private readonly changeEmitter = new Emitter<void>();
  private readonly stateEmitter = new Emitter<IndexState>();
  private restarts = 0;
  private failure: string | undefined;
  private disposed = false;
  private workerVersion = -1;
  /** Record keys by handle (the documents list of the worker's start, then keys put since): results name sessions by handle. */
  private handles = new HandleTable([]);
  /** The worker's last state. */
  state: IndexState = { indexed: 0, pending: 0, complete: false };
  version = 0;

  readonly onDidChange: Event<void> = this.changeEmitter.event;
  /** The worker said how far it is (tests, progress). */
  readonly onDidChangeState: Event<IndexState> = this.stateEmitter.event;

  constructor(private readonly options: TranscriptIndexOptions) {
    this.start();
  }

  /** A session's text file was written (`text` is what it holds, `stamp` its stat). */
  put(key: string, text: string, stamp: TextStamp): void {
    this.bump();
    this.post({ type: 'put', key, handle: this.handles.handleOf(key), text: text.slice(0, MAX_TEXT_CHARS), stamp });
  }

  /** A session's text was dropped. */
  remove(key: string): void {
    this.bump();
    this.post({ type: 'remove', key });
  }

  search(query: string, signal?: AbortSignal): Promise<TranscriptSearchResult> {
    if (this.failure !== undefined) return Promise.resolve(this.unavailable(this.failure));
    return this.request<TranscriptSearchResult>('search', signal, (id) => ({ type: 'search', id, query: query.slice(0, 1000) }));
  }

  snippets(query: string, keys: readonly string[], signal?: AbortSignal): Promise<ReadonlyMap<string, Snippet>> {
    if (this.failure !== undefined || keys.length === 0) return Promise.resolve(new Map());
    return this.request<ReadonlyMap<string, Snippet>>('snippets', signal, (id) => ({
      type: 'snippets',
      id,
      query: query.slice(0, 1000),
      keys: keys.slice(0, MAX_SNIPPET_KEYS),
    }));
  }

  /** Has the worker save the index now (resolves once it is written). */
  save(): Promise<void> {
    if (this.failure !== undefined) return Promise.resolve();
    return this.request<void>('save', undefined, (id) => ({ type: 'save', id }));
  }

  /** Saves, then ends the worker (after {@link CLOSE_GRACE_MS} at most). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    const worker = this.worker;
    const saved = worker && this.failure === undefined ? this.save().catch(() => undefined) : undefined;
    this.disposed = true;
    if (saved) await Promise.race([saved, new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
    this.worker = undefined;
    await worker?.terminate();
    this.settleAll(l10n.t('The transcript index was closed.'));
    this.changeEmitter.dispose();
    this.stateEmitter.dispose();
  }

  private start(): void {
    const options: WorkerOptions = {
      indexDir: path.join(this.options.historyDir, 'transcript-index'),
      textDir: path.join(this.options.historyDir, 'text'),
      cancel: this.cancelBuffer,
      saveDelayMs: this.options.saveDelayMs ?? 5000,
      ...(this.options.l10nBundle ? { l10n: this.options.l10nBundle } : {}),
    };
    let worker: Worker;
    try {
      worker = new Worker(this.options.workerFile, { workerData: options, stdout: false, stderr: false });
    } catch (error) {
      this.failed(l10n.t('the transcript index could not start: {0}', (error as Error).message), false);
      return;
    }
    this.worker = worker;
    this.workerVersion = -1;
    worker.unref();
    worker.on('message', (message: unknown) => worker === this.worker && this.receive(message));
    worker.on('error', (error) => worker === this.worker && this.failed(l10n.t('the transcript index failed: {0}', error.message), true));
    worker.on('exit', (code) => worker === this.worker && !this.disposed && this.failed(l10n.t('the transcript index stopped (exit code {0})', code), true));
    // The sessions that have text, in bounded batches: the worker compares them with its index and the text
    // files. A key's handle is its place in this list (no per-key work here: 20,000 keys are one copy).
    const keys = this.options.documents();
    this.handles = new HandleTable([...keys]);
    for (let i = 0; i < keys.length || i === 0; i += MAX_KEYS_PER_MESSAGE) {
      this.post({ type: 'documents', keys: keys.slice(i, i + MAX_KEYS_PER_MESSAGE), first: i, last: i + MAX_KEYS_PER_MESSAGE >= keys.length });
    }
  }

  private failed(reason: string, restart: boolean): void {
    if (this.disposed) return;
    this.options.logger.error(reason);
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
    this.settleAll(reason);
    this.state = { indexed: 0, pending: 0, complete: false };
    if (restart && this.restarts < (this.options.maxRestarts ?? 3)) {
      this.restarts++;
      this.options.logger.info(l10n.t('Restarting the transcript index (attempt {0}).', this.restarts));
      this.start();
    } else {
      this.failure = reason;
    }
    this.bump();
  }

  /** Answers everything waiting: searches as unavailable, snippets empty, saves done. */
  private settleAll(reason: string): void {
    const waiting = [...this.requests.values()];
    this.requests.clear();
    for (const pending of waiting) {
      switch (pending.kind) {
        case 'search':
          pending.resolve(this.unavailable(reason));
          continue;
        case 'snippets':
          pending.resolve(new Map());
          continue;
        case 'save':
          pending.resolve();
          continue;
      }
      assertNever(pending, 'pending request');
    }
  }

  private unavailable(reason: string): TranscriptSearchResult {
    return { keys: new Set(), searched: 0, complete: false, unavailable: l10n.t('Text search is unavailable: {0}.', reason) };
  }

  private request<T>(kind: Pending['kind'], signal: AbortSignal | undefined, message: (id: number) => ToWorker): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortError());
    if (this.disposed) return Promise.reject(new Error(l10n.t('The transcript index was closed.')));
    const id = this.nextId++;
    if (this.nextId > 2 ** 31 - 1) this.nextId = 1;
    return new Promise<T>((resolve, reject) => {
      this.requests.set(id, { kind, resolve, reject } as unknown as Pending);
      signal?.addEventListener(
        'abort',
        () => {
          if (!this.requests.delete(id)) return;
          // The worker checks this slot while it works and stops.
          Atomics.store(this.cancelSlots, id % CANCEL_SLOTS, id);
          reject(abortError());
        },
        { once: true },
      );
      this.post(message(id));
    });
  }

  private post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private receive(raw: unknown): void {
    const parsed = FromWorker.safeParse(raw);
    if (!parsed.success) {
      this.options.logger.warn(l10n.t('The transcript index sent a message that is not valid: {0}', parsed.error.message.slice(0, 500)));
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'state': {
        this.state = { indexed: message.indexed, pending: message.pending, complete: message.complete };
        if (message.version !== this.workerVersion) {
          this.workerVersion = message.version;
          this.bump();
        }
        this.stateEmitter.fire(this.state);
        return;
      }
      case 'problem':
        this.options.logger.warn(message.message);
        return;
      case 'found': {
        const pending = this.take(message.id, 'search');
        pending?.resolve({ keys: new MatchedKeys(message.handles, this.handles), searched: message.searched, complete: message.complete });
        return;
      }
      case 'snippets': {
        const pending = this.take(message.id, 'snippets');
        pending?.resolve(new Map(message.snippets.map((s) => [s.key, { text: s.text, highlights: s.highlights.map(([a, b]) => [a, b] as Range) }])));
        return;
      }
      case 'saved':
        this.take(message.id, 'save')?.resolve();
        return;
      case 'cancelled':
        // Already rejected when it was aborted.
        this.requests.delete(message.id);
        return;
      case 'failed': {
        const pending = this.requests.get(message.id);
        this.requests.delete(message.id);
        if (pending?.kind === 'search') pending.resolve(this.unavailable(message.message));
        else if (pending?.kind === 'snippets') pending.resolve(new Map());
        else pending?.resolve();
        return;
      }
    }
    assertNever(message, 'message from the transcript index worker');
  }

  private take<K extends Pending['kind']>(id: number, kind: K): Extract<Pending, { kind: K }> | undefined {
    const pending = this.requests.get(id);
    if (!pending || pending.kind !== kind) return undefined;
    this.requests.delete(id);
    return pending as Extract<Pending, { kind: K }>;
  }

  private bump(): void {
    this.version++;
    if (!this.disposed) this.changeEmitter.fire();
  }
}
