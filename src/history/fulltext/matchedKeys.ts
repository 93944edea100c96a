/**
 * The record keys of a search's matches as a `ReadonlySet<string>` over the handles the worker answered with:
 * one bit per handle, no set of strings built per keystroke (at 20,000 matches that allocation was the host's
 * main cost). Keys come from the handle table when asked for.
 */

/** Record keys by handle (a key's handle is its place), and handles by key once asked for. */
export class HandleTable {
  private byKey: Map<string, number> | undefined;

  constructor(private readonly keys: string[]) {}

  get size(): number {
    return this.keys.length;
  }

  keyOf(handle: number): string | undefined {
    return this.keys[handle];
  }

  /** The key's handle, if it has one. */
  find(key: string): number | undefined {
    this.byKey ??= new Map(this.keys.map((k, i) => [k, i]));
    return this.byKey.get(key);
  }

  /** The key's handle, given one if it has none. */
  handleOf(key: string): number {
    let handle = this.find(key);
    if (handle === undefined) {
      handle = this.keys.length;
      this.keys.push(key);
      this.byKey!.set(key, handle);
    }
    return handle;
  }
}

export class MatchedKeys implements ReadonlySet<string> {
  private readonly bits: Uint8Array;
  readonly size: number;

  constructor(
    handles: Uint32Array,
    private readonly table: HandleTable,
  ) {
    this.bits = new Uint8Array(table.size);
    let count = 0;
    for (const handle of handles) {
      if (handle < this.bits.length && this.bits[handle] === 0) {
        this.bits[handle] = 1;
        count++;
      }
    }
    this.size = count;
  }

  has(key: string): boolean {
    const handle = this.table.find(key);
    return handle !== undefined && handle < this.bits.length && this.bits[handle] === 1;
  }

  *values(): SetIterator<string> {
    for (let handle = 0; handle < this.bits.length; handle++) if (this.bits[handle] === 1) yield this.table.keyOf(handle)!;
  }

  keys(): SetIterator<string> {
    return this.values();
  }

  *entries(): SetIterator<[string, string]> {
    for (const key of this.values()) yield [key, key];
  }

  forEach(callback: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const key of this.values()) callback.call(thisArg, key, key, this);
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.values();
  }
}
