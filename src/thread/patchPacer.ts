/**
 * Paces patches to a webview: at most one patch in flight, the next only after the webview acknowledged
 * rendering the last one (it renders patches in animation frames), so the webview gets at most one
 * post per animation frame whatever the agent's rate; everything that changed meanwhile is coalesced into
 * the next patch. A change too large for one message (a replayed history) goes in pieces, one per
 * acknowledgement, each saying how many pieces follow (see patchPieces.ts). If an acknowledgement never
 * comes (a broken frame), patches resume after a timeout.
 */
import type { ChatOp } from '../shared/chatModel';
import { cutOps, PIECE_CHARS } from './patchPieces';

export interface PatchPacerOptions {
  /** The changes since the last call, coalesced (see {@link Thread.takeOps}). */
  readonly takeOps: () => ChatOp[];
  readonly hasChanges: () => boolean;
  /** `more`: pieces of the same change still to come (0: the change is complete with this patch). */
  readonly send: (seq: number, ops: ChatOp[], more: number) => void;
  /** Called when an acknowledgement did not come in time and the next patch goes anyway. */
  readonly onLate?: () => void;
  readonly ackTimeoutMs?: number;
  /** About how many characters one patch carries at most (default {@link PIECE_CHARS}). */
  readonly pieceChars?: number;
}

export class PatchPacer {
  private ready = false;
  private inFlight: number | undefined;
  private inFlightSince = 0;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly ackTimeoutMs: number;
  /** The pieces of a change still to send, before anything that changed since. */
  private pieces: ChatOp[][] = [];

  constructor(private readonly options: PatchPacerOptions) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 1000;
  }

  /** Whether a patch is waiting for its acknowledgement. */
  get waiting(): boolean {
    return this.inFlight !== undefined;
  }

  /**
   * The webview (re)started and is about to get a snapshot, which contains every pending change: drop
   * them and start pacing from there. `rest`: the pieces of a snapshot too large for one message, sent
   * first (the next {@link schedule} sends the first of them).
   */
  start(rest: readonly ChatOp[][] = []): void {
    this.ready = true;
    this.inFlight = undefined;
    clearTimeout(this.timer);
    this.options.takeOps();
    this.pieces = [...rest];
  }

  /** The webview went away (hidden webviews are torn down); nothing is sent until {@link start}. */
  stop(): void {
    this.ready = false;
    this.inFlight = undefined;
    this.pieces = [];
    clearTimeout(this.timer);
  }

  /** Something changed: send a patch now if none is in flight, else once the webview catches up. */
  schedule(): void {
    if (!this.ready || (this.pieces.length === 0 && !this.options.hasChanges())) return;
    if (this.inFlight !== undefined) {
      if (Date.now() - this.inFlightSince < this.ackTimeoutMs) return;
      this.options.onLate?.();
    }
    if (this.pieces.length === 0) this.pieces = cutOps(this.options.takeOps(), this.options.pieceChars ?? PIECE_CHARS);
    const ops = this.pieces.shift()!;
    this.inFlight = ++this.seq;
    this.inFlightSince = Date.now();
    this.options.send(this.inFlight, ops, this.pieces.length);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.schedule(), this.ackTimeoutMs + 10);
  }

  /** The webview rendered patch `seq`: send what changed since (or the next piece), if anything. */
  acknowledge(seq: number): void {
    if (seq !== this.inFlight) return;
    this.inFlight = undefined;
    clearTimeout(this.timer);
    if (this.pieces.length > 0 || this.options.hasChanges()) this.schedule();
  }

  dispose(): void {
    this.stop();
  }
}
