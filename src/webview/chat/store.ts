/**
 * The chat webview's copy of the transcript. Patches from the host are applied once per animation frame
 * and acknowledged once rendered, which is what lets the host post at most one patch per frame whatever
 * the agent's rate. A change the host sends in pieces (`more`: a long replayed history) is gathered aside,
 * each piece acknowledged, and shown whole once its last piece arrived: until then the view shows what it
 * showed, and how far the loading is.
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
  /** A change arriving in pieces: how much of it arrived (0 to 1); undefined when none is. */
  readonly loading: number | undefined;
  /**
   * The transcript that change makes, as far as it arrived (not shown yet: the view may lay it out ahead,
   * so that showing it costs little).
   */
  readonly incoming: readonly ViewEntry[] | undefined;
}

type Listener = () => void;

/** A change arriving in pieces, gathered aside until its last piece. */
interface Gathering {
  readonly entries: ViewEntry[];
  readonly index: Map<string, number>;
  session: ViewSessionState | undefined;
  /** From a snapshot: what it brought besides the transcript. */
  readonly snapshot?: { readonly draft: Draft | undefined; readonly queue: QueueView | undefined };
  received: number;
  total: number;
}

export class ChatStore {
  private entries: ViewEntry[] = [];
  private index = new Map<string, number>();
  private session: ViewSessionState | undefined;
  private draft: Draft | undefined;
  private queue: QueueView | undefined;
  private version = 0;
  private queued: Array<{ seq: number; ops: ChatOp[]; more?: number }> = [];
  private gathering: Gathering | undefined;
  private frame: number | undefined;
  private readonly listeners = new Set<Listener>();

  private snapshot: ChatState = { session: undefined, entries: [], version: 0, draft: undefined, queue: undefined, loading: undefined, incoming: undefined };

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
      this.queued = [];
      const index = new Map(message.entries.map((entry, i) => [entry.id, i]));
      if (message.more) {
        this.gathering = {
          entries: message.entries.slice(),
          index,
          session: message.session,
          snapshot: { draft: message.draft, queue: message.queue },
          received: 1,
          total: 1 + message.more,
        };
      } else {
        this.gathering = undefined;
        this.entries = message.entries.slice();
        this.index = index;
        this.session = message.session;
        this.draft = message.draft;
        this.queue = message.queue;
      }
      this.changed();
    } else if (message.type === 'queue') {
      this.queue = message.queue;
      this.changed();
    } else if (message.type === 'patch') {
      this.queued.push({ seq: message.seq, ops: message.ops, more: message.more });
      this.frame ??= requestAnimationFrame(() => this.flush());
    }
  }

  /** Applies the patches that arrived since the last frame and renders them (once per animation frame). */
  protected flush(): void {
    this.frame = undefined;
    const batch = this.queued;
    this.queued = [];
    // Entries are replaced, not mutated: a new array lets views see what changed.
    let entries: ViewEntry[] | undefined;
    let session: ViewSessionState | undefined;
    for (const { ops, more } of batch) {
      const gathering = this.gathering ?? (more ? (this.gathering = this.gather()) : undefined);
      if (!gathering) {
        entries ??= this.entries.slice();
        session = applyOps(entries, this.index, ops) ?? session;
        continue;
      }
      gathering.session = applyOps(gathering.entries, gathering.index, ops) ?? gathering.session;
      gathering.received++;
      gathering.total = gathering.received + (more ?? 0);
      if (more) continue;
      // The last piece: the change shows whole.
      this.gathering = undefined;
      entries = gathering.entries;
      this.index = gathering.index;
      session = gathering.session ?? session;
      if (gathering.snapshot) ({ draft: this.draft, queue: this.queue } = gathering.snapshot);
    }
    if (entries) this.entries = entries;
    if (session) this.session = session;
    this.changed(); // renders synchronously (see mount.tsx)
    const lastSeq = batch[batch.length - 1]?.seq;
    // Acknowledge once rendered. The next patch may arrive before this frame is painted, but patches are
    // only applied in animation frames, so it lands in the next one: at most one render per frame.
    if (lastSeq !== undefined) host.post({ type: 'rendered', seq: lastSeq });
  }

  /** A change in pieces starts from what is shown. */
  private gather(): Gathering {
    return { entries: this.entries.slice(), index: new Map(this.index), session: undefined, received: 0, total: 0 };
  }

  private changed(): void {
    this.version++;
    const gathering = this.gathering;
    const loading = gathering ? gathering.received / Math.max(1, gathering.total) : undefined;
    // A copy: the gathered list grows in place, and views compare entries by identity.
    const incoming = gathering ? gathering.entries.slice() : undefined;
    this.snapshot = { session: this.session, entries: this.entries, version: this.version, draft: this.draft, queue: this.queue, loading, incoming };
    for (const listener of [...this.listeners]) listener();
  }
}
