/**
 * The chat webview's copy of the transcript. Patches from the host are applied once per animation frame
 * and acknowledged once rendered, which is what lets the host post at most one patch per frame whatever
 * the agent's rate.
 */
import { applyOps, type ChatOp, type ViewEntry, type ViewSessionState } from '../../shared/chatModel';
import type { Draft, HostToChat, QueueView } from '../../shared/chatProtocol';
import { host } from './host';

export interface ChatState {
  readonly session: ViewSessionState | undefined;
  readonly entries: readonly ViewEntry[];
  /** Bumped on every change, so views can memoize on it. */
  readonly version: number;
  readonly draft: Draft | undefined;
  /** The messages waiting for their turn, as the host keeps them. */
  readonly queue: QueueView | undefined;
}

type Listener = () => void;

export class ChatStore {
  private entries: ViewEntry[] = [];
  private index = new Map<string, number>();
  private session: ViewSessionState | undefined;
  private draft: Draft | undefined;
  private queue: QueueView | undefined;
  private version = 0;
  private queued: Array<{ seq: number; ops: ChatOp[] }> = [];
  private frame: number | undefined;
  private readonly listeners = new Set<Listener>();

  private snapshot: ChatState = { session: undefined, entries: [], version: 0, draft: undefined, queue: undefined };

  /** The current state; the same object until something changes (useSyncExternalStore needs that). */
  get state(): ChatState {
    return this.snapshot;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  receive(message: Extract<HostToChat, { type: 'snapshot' | 'patch' | 'queue' }>): void {
    if (message.type === 'snapshot') {
      this.entries = message.entries.slice();
      this.index = new Map(this.entries.map((entry, i) => [entry.id, i]));
      this.session = message.session;
      this.draft = message.draft;
      this.queue = message.queue;
      this.queued = [];
      this.changed();
    } else if (message.type === 'queue') {
      this.queue = message.queue;
      this.changed();
    } else if (message.type === 'patch') {
      this.queued.push({ seq: message.seq, ops: message.ops });
      this.frame ??= requestAnimationFrame(() => this.flush());
    }
  }

  /** Applies the patches that arrived since the last frame and renders them (once per animation frame). */
  protected flush(): void {
    this.frame = undefined;
    const batch = this.queued;
    this.queued = [];
    // Entries are replaced, not mutated: a new array lets views see what changed.
    const entries = this.entries.slice();
    let session: ViewSessionState | undefined;
    for (const { ops } of batch) session = applyOps(entries, this.index, ops) ?? session;
    this.entries = entries;
    if (session) this.session = session;
    this.changed(); // renders synchronously (see mount.tsx)
    const lastSeq = batch[batch.length - 1]?.seq;
    // Acknowledge once rendered. The next patch may arrive before this frame is painted, but patches are
    // only applied in animation frames, so it lands in the next one: at most one render per frame.
    if (lastSeq !== undefined) host.post({ type: 'rendered', seq: lastSeq });
  }

  private changed(): void {
    this.version++;
    this.snapshot = { session: this.session, entries: this.entries, version: this.version, draft: this.draft, queue: this.queue };
    for (const listener of [...this.listeners]) listener();
  }
}
