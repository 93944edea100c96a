/**
 * The entries a transcript shows, in order, and what changed since the webview last heard: a coalesced list of
 * ops with at most one op per entry, at the position of that entry's first change in the batch (so a new entry
 * still arrives in creation order, and consecutive appends to one entry join into one op). {@link Thread}
 * decides what the entries are; this keeps them and their ops.
 *
 * Entries are never mutated once queued or snapshotted: a change is a new object.
 */
import { appendText, type ChatOp, type ViewEntry } from '../shared/chatModel';

export class EntryLog {
  private readonly list: ViewEntry[] = [];
  private readonly index = new Map<string, number>();
  private ops: ChatOp[] = [];
  private readonly opAt = new Map<string, number>();
  /** While true, entries change without ops (a replay built aside; the webview gets it as a whole later). */
  private quiet = false;

  /** @param changed called after every change that queued an op */
  constructor(private readonly changed: () => void) {}

  get length(): number {
    return this.list.length;
  }

  get last(): ViewEntry | undefined {
    return this.list[this.list.length - 1];
  }

  /** The entries as they are now (a copy). */
  all(): ViewEntry[] {
    return this.list.slice();
  }

  /** The entries as they are now, without copying (callers must not keep it). */
  view(): readonly ViewEntry[] {
    return this.list;
  }

  get(id: string): ViewEntry | undefined {
    const at = this.index.get(id);
    return at === undefined ? undefined : this.list[at];
  }

  add(entry: ViewEntry): string {
    this.index.set(entry.id, this.list.length);
    this.list.push(entry);
    this.queue(entry);
    return entry.id;
  }

  /** Replaces the entry with the same id (nothing when there is none). */
  put(entry: ViewEntry): void {
    const at = this.index.get(entry.id);
    if (at === undefined) return;
    this.list[at] = entry;
    this.queue(entry);
  }

  /** Appends text to the last block of a message entry. */
  appendText(id: string, text: string): void {
    const at = this.index.get(id);
    if (at === undefined) return;
    this.list[at] = appendText(this.list[at]!, text);
    if (this.quiet) return;
    this.changed();
    const pending = this.opAt.get(id);
    if (pending === undefined) {
      this.opAt.set(id, this.ops.length);
      this.ops.push({ op: 'append', id, text });
      return;
    }
    // Changes to different entries are independent, so this entry's text can join its earlier op.
    const op = this.ops[pending]!;
    if (op.op === 'append') op.text += text;
    else this.ops[pending] = { op: 'entry', entry: this.list[at]! };
  }

  /** Empties the log without an op (the caller says what the webview gets next). */
  clear(): void {
    this.list.length = 0;
    this.index.clear();
  }

  /** From now on the log is exactly `entries`: the webview starts over with them. */
  reset(entries: readonly ViewEntry[] = []): void {
    this.clear();
    this.ops = [{ op: 'reset' }];
    this.opAt.clear();
    for (const entry of entries) this.add(entry);
    this.changed();
  }

  /**
   * The webview starts over with the entries as they are (a replay built aside, see {@link setQuiet}): one
   * reset and an op per entry, without rebuilding the log. O(n) for the ops alone.
   */
  republish(): void {
    const ops: ChatOp[] = [{ op: 'reset' }];
    for (const entry of this.list) ops.push({ op: 'entry', entry });
    this.ops = ops;
    // Later changes in this batch follow as ops of their own (applied in order, they replace these).
    this.opAt.clear();
    this.changed();
  }

  /** Changes made while quiet queue no op (see {@link quiet}). */
  setQuiet(quiet: boolean): void {
    this.quiet = quiet;
  }

  /** The ops queued since the last call. */
  takeOps(): ChatOp[] {
    const ops = this.ops;
    this.ops = [];
    this.opAt.clear();
    return ops;
  }

  get hasOps(): boolean {
    return this.ops.length > 0;
  }

  /** An entry op supersedes an earlier op for the same entry in this batch and takes its place. */
  private queue(entry: ViewEntry): void {
    if (this.quiet) return;
    this.changed();
    const pending = this.opAt.get(entry.id);
    if (pending !== undefined) {
      this.ops[pending] = { op: 'entry', entry };
      return;
    }
    this.opAt.set(entry.id, this.ops.length);
    this.ops.push({ op: 'entry', entry });
  }
}
