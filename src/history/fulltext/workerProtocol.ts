/**
 * The messages between the extension host ({@link TranscriptIndexClient}) and the transcript index worker
 * (worker.ts), validated with zod on both sides. Every size is bounded: a message that does not validate is
 * reported and dropped, never acted on. `zod/mini` (the same validation, tree-shaken): the worker bundle is
 * 30 KB instead of 120 KB, which the worker's start — the cold first keystroke — pays for.
 */
import * as z from 'zod/mini';

/** Transcript text per session (LocalSessionIndex's MAX_TEXT_CHARS), with room for the cut's marker. */
export const MAX_TEXT_CHARS = 32 * 1024 + 16;
export const MAX_KEY_CHARS = 4096;
/** Keys per `documents` message (the list is sent in batches). */
export const MAX_KEYS_PER_MESSAGE = 2000;
/** Documents the worker indexes at most (LocalSessionIndex keeps 20,000). */
export const MAX_DOCUMENTS = 50_000;
export const MAX_QUERY_CHARS = 1000;
/** Snippets per request (only the rows shown ask). */
export const MAX_SNIPPET_KEYS = 200;
/** Slots of the shared cancellation table (request id modulo this). */
export const CANCEL_SLOTS = 256;

const Key = z.string().check(z.minLength(1), z.maxLength(MAX_KEY_CHARS));
const RequestId = z.int().check(z.minimum(1), z.maximum(2 ** 31 - 1));
const Count = z.int().check(z.minimum(0));
/** The host's number for a record key (results carry handles, not keys). */
const Handle = z.int().check(z.minimum(0), z.maximum(2 ** 32 - 1));
const Handles = z.instanceof(Uint32Array).check(z.refine((a) => a.length <= MAX_DOCUMENTS, 'too many'));
const Stamp = z.object({ mtimeMs: z.number(), size: Count });

/** What the worker is started with. */
export const WorkerOptions = z.object({
  /** The folder of the index's own files. */
  indexDir: z.string().check(z.minLength(1)),
  /** The folder of the history's text files (`<hash>.txt`). */
  textDir: z.string().check(z.minLength(1)),
  /** Int32 slots: the host writes a request's id into its slot to cancel it. */
  cancel: z.instanceof(SharedArrayBuffer).check(z.refine((b) => b.byteLength === 4 * CANCEL_SLOTS, 'wrong size')),
  /** The host's localized strings (@vscode/l10n's bundle), for the messages the worker sends. */
  l10n: z.optional(z.record(z.string(), z.string())),
  /** How long after the last change the index is saved (ms). */
  saveDelayMs: z.int().check(z.minimum(0), z.maximum(600_000)),
});
export type WorkerOptions = z.infer<typeof WorkerOptions>;

/** Host → worker. */
export const ToWorker = z.discriminatedUnion('type', [
  /**
   * The sessions that have text (from the record store), in batches; `last` on the final one. A key's handle is
   * its place in the whole list (`first + i` for `keys[i]`): results name documents by handle.
   */
  z.object({ type: z.literal('documents'), keys: z.array(Key).check(z.maxLength(MAX_KEYS_PER_MESSAGE)), first: Handle, last: z.boolean() }),
  /** A session's text file was written: index this text, read from the file with this stamp. */
  z.object({ type: z.literal('put'), key: Key, handle: Handle, text: z.string().check(z.maxLength(MAX_TEXT_CHARS)), stamp: Stamp }),
  /** A session's text is gone. */
  z.object({ type: z.literal('remove'), key: Key }),
  z.object({ type: z.literal('search'), id: RequestId, query: z.string().check(z.maxLength(MAX_QUERY_CHARS)) }),
  z.object({
    type: z.literal('snippets'),
    id: RequestId,
    query: z.string().check(z.maxLength(MAX_QUERY_CHARS)),
    keys: z.array(Key).check(z.maxLength(MAX_SNIPPET_KEYS)),
  }),
  /** Save now and answer `saved` (before closing; tests). */
  z.object({ type: z.literal('save'), id: RequestId }),
]);
export type ToWorker = z.infer<typeof ToWorker>;

const Range = z.tuple([Count, Count]);

/** Worker → host. */
export const FromWorker = z.discriminatedUnion('type', [
  /** How far the index is: its version (bumped by every change), documents indexed, documents still to (re)index, whether it matches the text files. */
  z.object({ type: z.literal('state'), version: Count, indexed: Count, pending: Count, complete: z.boolean() }),
  /** The handles of the matching documents (a transferred array: no per-key copy or check on the host). */
  z.object({ type: z.literal('found'), id: RequestId, handles: Handles, searched: Count, complete: z.boolean() }),
  z.object({
    type: z.literal('snippets'),
    id: RequestId,
    snippets: z
      .array(z.object({ key: Key, text: z.string().check(z.maxLength(4096)), highlights: z.array(Range).check(z.maxLength(64)) }))
      .check(z.maxLength(MAX_SNIPPET_KEYS)),
  }),
  z.object({ type: z.literal('cancelled'), id: RequestId }),
  z.object({ type: z.literal('failed'), id: RequestId, message: z.string().check(z.maxLength(4096)) }),
  z.object({ type: z.literal('saved'), id: RequestId }),
  /** Something the log should say (a saved index that could not be used, a text file that could not be read). */
  z.object({ type: z.literal('problem'), message: z.string().check(z.maxLength(4096)) }),
]);
export type FromWorker = z.infer<typeof FromWorker>;
