/**
 * The heights of a list's items and where each item starts, for a virtual list whose items have heights of
 * their own (measured once rendered, estimated before): a Fenwick tree of the heights, so changing one
 * height, finding an item's offset and finding the item at an offset each take O(log n), and appending an
 * item (a transcript grows at its end) amortized O(log n). No DOM; the chat's virtual transcript uses it.
 */
export class HeightIndex {
  private heights = new Float64Array(16);
  /** tree[i] (1-based) holds the sum of heights (i - lowbit(i), i]. */
  private tree = new Float64Array(17);
  private size = 0;

  constructor(heights: readonly number[] = []) {
    this.reset(heights);
  }

  get count(): number {
    return this.size;
  }

  /** The sum of every height. */
  get total(): number {
    return this.offset(this.size);
  }

  /** From now on the items are exactly these (O(n)). */
  reset(heights: readonly number[]): void {
    const capacity = Math.max(16, heights.length);
    this.heights = new Float64Array(capacity);
    this.tree = new Float64Array(capacity + 1);
    this.size = heights.length;
    heights.forEach((height, i) => (this.heights[i] = height));
    this.build();
  }

  heightOf(index: number): number {
    return index >= 0 && index < this.size ? this.heights[index]! : 0;
  }

  /** Changes one item's height. */
  set(index: number, height: number): void {
    if (index < 0 || index >= this.size) throw new RangeError(`no item ${index} of ${this.size}`);
    const delta = height - this.heights[index]!;
    if (delta === 0) return;
    this.heights[index] = height;
    for (let i = index + 1; i <= this.size; i += i & -i) this.tree[i] += delta;
  }

  /** Adds an item at the end. */
  push(height: number): void {
    if (this.size === this.heights.length) this.grow();
    const i = ++this.size;
    this.heights[i - 1] = height;
    // tree[i] covers (i - lowbit(i), i]: the new height plus the items before it in that range.
    this.tree[i] = height + this.offset(i - 1) - this.offset(i - (i & -i));
  }

  /** Where item `index` starts: the sum of the heights before it (`index` may be `count`: the end). */
  offset(index: number): number {
    let sum = 0;
    for (let i = Math.min(index, this.size); i > 0; i -= i & -i) sum += this.tree[i]!;
    return sum;
  }

  /**
   * The item that contains offset `y`: the last item starting at or before it (items of height 0 are
   * skipped over), clamped to the list; 0 for an empty list.
   */
  indexAt(y: number): number {
    if (this.size === 0 || y <= 0) return 0;
    // Binary lifting: the largest position whose prefix sum is <= y.
    let position = 0;
    let remaining = y;
    for (let step = highestPowerOfTwo(this.size); step > 0; step >>= 1) {
      const next = position + step;
      if (next <= this.size && this.tree[next]! <= remaining) {
        position = next;
        remaining -= this.tree[next]!;
      }
    }
    // `position` items end at or before y: the item containing y is the next one (the last if y is past the end).
    return Math.min(position, this.size - 1);
  }

  private grow(): void {
    const heights = new Float64Array(this.heights.length * 2);
    heights.set(this.heights.subarray(0, this.size));
    this.heights = heights;
    this.tree = new Float64Array(heights.length + 1);
    this.build();
  }

  /** Builds the tree from the heights in O(n). */
  private build(): void {
    this.tree.fill(0);
    for (let i = 1; i <= this.size; i++) {
      this.tree[i] += this.heights[i - 1];
      const parent = i + (i & -i);
      if (parent <= this.size) this.tree[parent] += this.tree[i];
    }
  }
}

function highestPowerOfTwo(n: number): number {
  let power = 1;
  while (power * 2 <= n) power *= 2;
  return power;
}
