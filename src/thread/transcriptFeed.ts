/**
 * What a chat view gets of its thread: a snapshot whenever the view (re)starts, then patches paced by its
 * acknowledgements ({@link PatchPacer}); a transcript too large for one message goes in pieces, the snapshot
 * carrying the first and saying how many follow (see patchPieces.ts). ChatPanel posts these to its webview;
 * the benchmarks post them to the chat bundle in Chromium.
 */
import type { HostToChat } from '../shared/chatProtocol';
import { cutSnapshot, PIECE_CHARS } from './patchPieces';
import { PatchPacer } from './patchPacer';
import type { Thread } from './thread';

export type FeedMessage = Extract<HostToChat, { type: 'snapshot' | 'patch' }>;
type Snapshot = Extract<FeedMessage, { type: 'snapshot' }>;

export interface TranscriptFeedOptions {
  /** An acknowledgement did not come in time and the next patch went anyway. */
  readonly onLate?: () => void;
  /** About how many characters one message carries at most (default {@link PIECE_CHARS}). */
  readonly pieceChars?: number;
}

export class TranscriptFeed {
  private readonly pacer: PatchPacer;
  private readonly pieceChars: number;

  constructor(
    private readonly thread: Thread,
    private readonly post: (message: FeedMessage) => void,
    options: TranscriptFeedOptions = {},
  ) {
    this.pieceChars = options.pieceChars ?? PIECE_CHARS;
    this.pacer = new PatchPacer({
      takeOps: () => thread.takeOps(),
      hasChanges: () => thread.hasChanges,
      send: (seq, ops, more) => post({ type: 'patch', seq, ops, ...(more > 0 ? { more } : {}) }),
      onLate: options.onLate,
      pieceChars: this.pieceChars,
    });
  }

  /** Whether a patch waits for its acknowledgement. */
  get waiting(): boolean {
    return this.pacer.waiting;
  }

  /**
   * The view (re)started: it gets the whole state, with `extra` (what the panel keeps besides the thread);
   * the rest of a long transcript follows as patches, each after the view acknowledged the previous one.
   */
  start(extra: Partial<Pick<Snapshot, 'draft' | 'queue'>> = {}): void {
    const { session, entries } = this.thread.snapshot();
    const { first, rest } = cutSnapshot(entries, this.pieceChars);
    this.pacer.start(rest);
    this.post({ type: 'snapshot', session, entries: first, ...extra, ...(rest.done ? {} : { more: rest.left }) });
    this.pacer.schedule();
  }

  /** The thread changed: a patch now, or once the view caught up. */
  changed(): void {
    this.pacer.schedule();
  }

  /** The view rendered patch `seq`. */
  acknowledge(seq: number): void {
    this.pacer.acknowledge(seq);
  }

  /** The view went away (a hidden webview is torn down): nothing is sent until it starts again. */
  stop(): void {
    this.pacer.stop();
  }

  dispose(): void {
    this.pacer.dispose();
  }
}
