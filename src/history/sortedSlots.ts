/**
 * Slots (small integers naming sessions) kept in one total order, in a growable `Int32Array`: the Sessions
 * model's order of an agent's sessions, of a scope, and of each search tier. The order comes from a
 * comparator over slots that never calls two different slots equal, so a slot is found by binary search on
 * its key. Keys live outside (in the model's columns): a slot whose key is about to change must be removed
 * while its old key is still in place, and inserted again afterwards.
 *
 * Costs: a batch of k slots is inserted with k binary searches and one move of what comes after the first
 * of them (a native memmove; nothing moves when the batch comes last, as an agent's next page of older
 * sessions does); removing k slots is k binary searches and one compaction after the first of them.
 */
export type SlotOrder = (a: number, b: number) => number;

export class SortedSlots {
  private data: Int32Array;
  private count = 0;

  constructor(
    private readonly order: SlotOrder,
    capacity = 16,
  ) {
    this.data = new Int32Array(Math.max(16, capacity));
  }

  get length(): number {
    return this.count;
  }

  /** The slot at a position (0 ≤ position < length). */
  at(position: number): number {
    return this.data[position]!;
  }

  /** The slots in order, as a view that stays valid only until the next change. */
  view(): Int32Array {
    return this.data.subarray(0, this.count);
  }

  /** The first position whose slot comes after `precedes` says no more (positions [0, result) all precede). */
  partition(precedes: (slot: number) => boolean, from = 0, to = this.count): number {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (precedes(this.data[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The position `slot` has or would have, by its current key. */
  positionOf(slot: number, from = 0, to = this.count): number {
    const order = this.order;
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (order(this.data[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether `slot` is here (by its current key). */
  has(slot: number): boolean {
    const position = this.positionOf(slot);
    return position < this.count && this.data[position] === slot;
  }

  /** Replaces the contents: `slots` in any order (sorted here; nearly sorted input sorts in about linear time). */
  reset(slots: readonly number[]): void {
    const sorted = slots.slice().sort(this.order);
    this.ensure(sorted.length);
    this.data.set(sorted);
    this.count = sorted.length;
  }

  /** Replaces the contents with slots already in order (checked by the caller). */
  resetSorted(slots: readonly number[]): void {
    this.ensure(slots.length);
    this.data.set(slots);
    this.count = slots.length;
  }

  /** Keeps the slots for which `keep` is true (their order is unchanged). */
  filterFrom(source: SortedSlots, keep: (slot: number) => boolean): void {
    this.ensure(source.count);
    const from = source.data;
    let written = 0;
    for (let i = 0; i < source.count; i++) {
      const slot = from[i]!;
      if (keep(slot)) this.data[written++] = slot;
    }
    this.count = written;
  }

  /** Inserts slots that are not here yet (any order). */
  insert(slots: readonly number[]): void {
    if (slots.length === 0) return;
    const order = this.order;
    const incoming = slots.length === 1 ? slots : slots.slice().sort(order);
    this.ensure(this.count + incoming.length);
    const data = this.data;
    // The common case: everything comes after what is here (the next page of an agent's older sessions).
    if (this.count === 0 || order(data[this.count - 1]!, incoming[0]!) < 0) {
      data.set(incoming, this.count);
      this.count += incoming.length;
      return;
    }
    // From the back: find where each incoming slot goes, move the block after it once, put it in.
    let end = this.count;
    let write = this.count + incoming.length;
    for (let k = incoming.length - 1; k >= 0; k--) {
      const slot = incoming[k]!;
      const position = this.positionOf(slot, 0, end);
      const moved = end - position;
      if (moved > 0) data.copyWithin(write - moved, position, end);
      write -= moved;
      end = position;
      data[--write] = slot;
    }
    this.count += incoming.length;
  }

  /** Inserts one slot that is not here yet (appending it when it comes last, as a scan in order does). */
  add(slot: number): void {
    this.ensure(this.count + 1);
    if (this.count === 0 || this.order(this.data[this.count - 1]!, slot) < 0) {
      this.data[this.count++] = slot;
      return;
    }
    const position = this.positionOf(slot);
    this.data.copyWithin(position + 1, position, this.count);
    this.data[position] = slot;
    this.count++;
  }

  /** Removes the given slots (by their current keys); slots that are not here are ignored. */
  remove(slots: readonly number[]): void {
    if (slots.length === 0 || this.count === 0) return;
    const positions: number[] = [];
    for (const slot of slots) {
      const position = this.positionOf(slot);
      if (position < this.count && this.data[position] === slot) positions.push(position);
    }
    if (positions.length === 0) return;
    positions.sort((a, b) => a - b);
    let unique = 0;
    for (const position of positions) if (unique === 0 || positions[unique - 1] !== position) positions[unique++] = position; // a slot given twice
    const data = this.data;
    let write = positions[0]!;
    for (let k = 0; k < unique; k++) {
      const from = positions[k]! + 1;
      const to = k + 1 < unique ? positions[k + 1]! : this.count;
      if (to > from) data.copyWithin(write, from, to);
      write += to - from;
    }
    this.count = write;
  }

  clear(): void {
    this.count = 0;
  }

  private ensure(capacity: number): void {
    if (capacity <= this.data.length) return;
    const grown = new Int32Array(Math.max(capacity, Math.ceil(this.data.length * 1.5)));
    grown.set(this.data.subarray(0, this.count));
    this.data = grown;
  }
}
