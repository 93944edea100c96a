/**
 * Where each row of a virtual list is, when rows have a height per kind and only a few rows are not
 * ordinary: every row's offset and the row at a scroll position follow from the row count and the
 * (sorted) list of special rows, in O(log n), without a per-row array.
 */
import { ROW_HEIGHTS, type SpecialRow } from './historyProtocol';

export class RowLayout {
  /** extra[k]: total height difference of specials[0..k) from ordinary rows. */
  private readonly extra: number[];
  private readonly heights: number[];

  constructor(
    readonly count: number,
    private readonly specials: readonly SpecialRow[],
    readonly rowHeight: number,
  ) {
    this.heights = specials.map((s) => ROW_HEIGHTS[s.kind]);
    this.extra = [0];
    for (let k = 0; k < specials.length; k++) this.extra.push(this.extra[k]! + this.heights[k]! - rowHeight);
  }

  /** Number of specials with index < i. */
  private specialsBefore(i: number): number {
    let lo = 0;
    let hi = this.specials.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.specials[mid]!.index < i) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  heightOf(i: number): number {
    const k = this.specialsBefore(i);
    return this.specials[k]?.index === i ? this.heights[k]! : this.rowHeight;
  }

  /** Top of row i (i may be `count`: the end). */
  offset(i: number): number {
    return i * this.rowHeight + this.extra[this.specialsBefore(i)]!;
  }

  get total(): number {
    return this.offset(this.count);
  }

  /** The row that contains y (clamped to the list). */
  indexAt(y: number): number {
    if (this.count === 0) return 0;
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offset(mid) <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
