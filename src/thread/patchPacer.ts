/**
 * Paces patches to a webview: at most one patch in flight, the next only after the webview acknowledged
 * rendering the last one (it renders patches in animation frames), so the webview gets at most one
 * post per animation frame whatever the agent's rate; everything that changed meanwhile is coalesced into
 * the next patch. If an acknowledgement never comes (a broken frame), patches resume after a timeout.
 */
import type { ChatOp } from '../shared/chatModel';

export interface PatchPacerOptions {
  /** The changes since the last call, coalesced (see {@link Thread.takeOps}). */
  readonly takeOps: () => ChatOp[];
  readonly hasChanges: () => boolean;
  readonly send: (seq: number, ops: ChatOp[]) => void;
  /** Called when an acknowledgement did not come in time and the next patch goes anyway. */
  readonly onLate?: () => void;
  readonly ackTimeoutMs?: number;
}

export class PatchPacer {
  private ready = false;
  private inFlight: number | undefined;
  private inFlightSince = 0;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly ackTimeoutMs: number;

  constructor(private readonly options: PatchPacerOptions) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 1000;
  }

  /** Whether a patch is waiting for its acknowledgement. */
  get waiting(): boolean {
    return this.inFlight !== undefined;
  }

  /**
   * The webview (re)started and is about to get a snapshot, which contains every pending change: drop
   * them and start pacing from there.
   */
  start(): void {
    this.ready = true;
    this.inFlight = undefined;
    clearTimeout(this.timer);
    this.options.takeOps();
  }

  /** The webview went away (hidden webviews are torn down); nothing is sent until {@link start}. */
  stop(): void {
    this.ready = false;
    this.inFlight = undefined;
    clearTimeout(this.timer);
  }

  /** Something changed: send a patch now if none is in flight, else once the webview catches up. */
  schedule(): void {
    if (!this.ready || !this.options.hasChanges()) return;
    if (this.inFlight !== undefined) {
      if (Date.now() - this.inFlightSince < this.ackTimeoutMs) return;
      this.options.onLate?.();
    }
    const ops = this.options.takeOps();
    this.inFlight = ++this.seq;
    this.inFlightSince = Date.now();
    this.options.send(this.inFlight, ops);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.schedule(), this.ackTimeoutMs + 10);
  }

  /** The webview rendered patch `seq`: send what changed since, if anything. */
  acknowledge(seq: number): void {
    if (seq !== this.inFlight) return;
    this.inFlight = undefined;
    clearTimeout(this.timer);
    if (this.options.hasChanges()) this.schedule();
  }

  dispose(): void {
    this.stop();
  }
}
