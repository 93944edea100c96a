/**
 * Paces patches to a webview: at most one patch in flight, the next only after the webview acknowledged
 * rendering the last one (it renders patches in animation frames), so the webview gets at most one
 * post per animation frame whatever the agent's rate; everything that changed meanwhile is coalesced into
 * the next patch. A change too large for one message (a replayed history) goes in pieces, one per
 * acknowledgement, each saying how many pieces follow (see patchPieces.ts). If an acknowledgement does not
 * come in time (a dropped frame), the next patch goes anyway; if that one is not acknowledged either, the view
 * is not rendering (its connection gone with an extension host that lost its window, its frames stopped) and
 * nothing more is posted, nor said, until it acknowledges or starts again.
 */
import type { ChatOp } from '../shared/chatModel';
import { PIECE_CHARS, Pieces } from './patchPieces';

export interface PatchPacerOptions {
  /** The changes since the last call, coalesced (see {@link Thread.takeOps}). */
  readonly takeOps: () => ChatOp[];
  readonly hasChanges: () => boolean;
  /** `more`: about how many pieces of the same change are still to come (0: the change is complete with this patch). */
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
  /** Patches sent since the last acknowledgement (or start). */
  private unanswered = 0;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly ackTimeoutMs: number;
  /** The pieces of a change still to send, before anything that changed since. */
  private pieces: Pieces | undefined;

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
  start(rest?: Pieces): void {
    this.ready = true;
    this.inFlight = undefined;
    this.unanswered = 0;
    clearTimeout(this.timer);
    this.options.takeOps();
    this.pieces = rest;
  }

  /** The webview went away (hidden webviews are torn down); nothing is sent until {@link start}. */
  stop(): void {
    this.ready = false;
    this.inFlight = undefined;
    this.unanswered = 0;
    this.pieces = undefined;
    clearTimeout(this.timer);
  }

  /** Something changed: send a patch now if none is in flight, else once the webview catches up. */
  schedule(): void {
    if (!this.ready || (!this.piecesLeft && !this.options.hasChanges())) return;
    if (this.inFlight !== undefined) {
      if (Date.now() - this.inFlightSince < this.ackTimeoutMs) return;
      // A late patch went already and is not acknowledged either: wait for the view (see above).
      if (this.unanswered >= 2) return;
      this.options.onLate?.();
    }
    if (!this.piecesLeft) this.pieces = Pieces.of(this.options.takeOps(), this.options.pieceChars ?? PIECE_CHARS);
    const pieces = this.pieces!;
    const ops = pieces.next();
    this.inFlight = ++this.seq;
    this.inFlightSince = Date.now();
    this.unanswered++;
    this.options.send(this.inFlight, ops, pieces.left);
    clearTimeout(this.timer);
    if (this.unanswered < 2) this.timer = setTimeout(() => this.schedule(), this.ackTimeoutMs + 10);
  }

  /** The webview rendered patch `seq`: send what changed since (or the next piece), if anything. */
  acknowledge(seq: number): void {
    if (seq !== this.inFlight) return;
    this.inFlight = undefined;
    this.unanswered = 0;
    clearTimeout(this.timer);
    if (this.piecesLeft || this.options.hasChanges()) this.schedule();
  }

  private get piecesLeft(): boolean {
    return this.pieces !== undefined && !this.pieces.done;
  }

  dispose(): void {
    this.stop();
  }
}
