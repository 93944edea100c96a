/**
 * What changed in a collection since a reader last looked, so the reader updates only those items instead of
 * copying the whole collection on every change. A reader keeps a {@link JournalCursor}; {@link ChangeJournal.since}
 * gives the keys noted after it (a key may repeat), or `undefined` when the reader has to start over: the
 * collection was cleared, or the reader is so far behind that its part of the journal was dropped (the journal
 * keeps at most half as many entries as the collection has items: a reader that far behind rebuilds for
 * about the same cost as catching up would take).
 */
export interface JournalCursor {
  /** Which life of the collection the cursor belongs to (bumped when it is cleared). */
  readonly epoch: number;
  /** How many keys had been noted when the reader looked. */
  readonly position: number;
}

/** Kept at least, whatever the collection's size. */
const MIN_KEPT = 4096;

export class ChangeJournal<K> {
  private keys: K[] = [];
  /** Position of keys[0] (entries before it were dropped). */
  private base = 0;
  private epoch = 0;

  /** @param size How many items the collection holds now (bounds what is kept). */
  constructor(private readonly size: () => number) {}

  /** A cursor at the current end: a reader that has everything so far. */
  get cursor(): JournalCursor {
    return { epoch: this.epoch, position: this.base + this.keys.length };
  }

  /** Notes that the item under `key` was added, changed or removed. */
  note(key: K): void {
    this.keys.push(key);
    const limit = Math.max(MIN_KEPT, this.size() >> 1);
    if (this.keys.length > limit) {
      const dropped = this.keys.length - (limit >> 1);
      this.keys = this.keys.slice(dropped);
      this.base += dropped;
    }
  }

  /** Everything is gone: readers start over. */
  clear(): void {
    this.epoch++;
    this.base = 0;
    this.keys = [];
  }

  /** The keys noted after `cursor` (oldest first), or undefined when the reader must rebuild from the collection. */
  since(cursor: JournalCursor): readonly K[] | undefined {
    if (cursor.epoch !== this.epoch || cursor.position < this.base) return undefined;
    return this.keys.slice(cursor.position - this.base);
  }
}
