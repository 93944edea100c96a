/**
 * Where each entry of the chat's virtualized transcript is, without a DOM: every entry has a height, measured
 * once it was rendered (kept per entry id and content width) or estimated before (entryHeights.ts); offsets
 * follow from a {@link HeightIndex}. From those: which entries to render for a scroll position (the visible
 * ones and some on each side, plus any the view must keep, such as the one holding the keyboard focus), the
 * spacers standing in for the others, and scroll anchoring (what the user reads stays where it is when
 * entries above it change height or new ones arrive below).
 */
import type { ViewEntry } from './chatModel';
import { estimateEntryHeight } from './entryHeights';
import { HeightIndex } from './heightIndex';

/** A reading position: this far (px) into the entry with this id. */
export interface Anchor {
  readonly id: string;
  readonly offset: number;
}

/** Entries [first, last). */
export interface IndexRange {
  readonly first: number;
  readonly last: number;
}

/** What the view renders, top to bottom: entries, and spacers as tall as the entries they stand for. */
export type Slot = { readonly kind: 'entry'; readonly index: number } | { readonly kind: 'gap'; readonly key: string; readonly height: number };

/** A rendered entry's height, and the entry as it was then (what a later version's estimate adds is counted from it). */
interface Measured {
  readonly height: number;
  readonly entry: ViewEntry;
}

/** Measured heights are kept for this many content widths (a sidebar toggled back and forth stays exact). */
const WIDTHS_KEPT = 3;

export class TranscriptLayout {
  private readonly heights = new HeightIndex();
  private entries: readonly ViewEntry[] = [];
  private readonly indexById = new Map<string, number>();
  /** Per content width, what each entry measured (by id), most recent width last. */
  private readonly measuredAt = new Map<number, Map<string, Measured>>();
  /** The entry objects measured at the current width: another object (its content changed) is measured again. */
  private measuredEntries = new WeakSet<ViewEntry>();
  /** What was measured at the current width. */
  private current = new Map<string, Measured>();
  private width = -1;

  /** @param estimate the height of an entry never measured at this width */
  constructor(private readonly estimate: (entry: ViewEntry, width: number) => number = estimateEntryHeight) {}

  get count(): number {
    return this.heights.count;
  }

  /** The height of the whole transcript. */
  get total(): number {
    return this.heights.total;
  }

  offset(index: number): number {
    return this.heights.offset(index);
  }

  heightOf(index: number): number {
    return this.heights.heightOf(index);
  }

  indexOf(id: string): number | undefined {
    return this.indexById.get(id);
  }

  /** The entry at offset `y` (clamped to the transcript). */
  indexAt(y: number): number {
    return this.heights.indexAt(y);
  }

  /**
   * Follows the transcript and the content width: new entries get a height, changed ones (a new object) keep
   * their measured height until measured again (else a new estimate), a transcript that starts over (a
   * replay) or a new width is laid out again. O(1) per entry that changed, plus one identity check per entry.
   * Returns whether any offset moved.
   */
  sync(entries: readonly ViewEntry[], width: number): boolean {
    const previous = this.entries;
    this.entries = entries;
    if (width !== this.width) {
      this.width = width;
      this.measuredEntries = new WeakSet();
      this.current = this.measurementsAt(width);
      this.rebuild();
      return true;
    }
    if (entries === previous) return false;
    const common = Math.min(previous.length, entries.length);
    // Entries are appended or replaced in place, never reordered: anything else is a new transcript.
    if (entries.length < previous.length || (common > 0 && (entries[0]!.id !== previous[0]!.id || entries[common - 1]!.id !== previous[common - 1]!.id))) {
      this.startOver();
      return true;
    }
    let moved = false;
    for (let i = 0; i < common; i++) {
      const entry = entries[i]!;
      if (entry === previous[i]) continue;
      if (entry.id !== previous[i]!.id) {
        this.startOver();
        return true;
      }
      const height = this.heightFor(entry);
      if (height !== this.heights.heightOf(i)) {
        this.heights.set(i, height);
        moved = true;
      }
    }
    for (let i = common; i < entries.length; i++) {
      const entry = entries[i]!;
      this.indexById.set(entry.id, i);
      this.heights.push(this.heightFor(entry));
      moved = true;
    }
    return moved;
  }

  /** Whether the entry at `index` should be measured (never measured as it is now, at this width). */
  needsMeasuring(index: number): boolean {
    const entry = this.entries[index];
    return entry !== undefined && !this.measuredEntries.has(entry);
  }

  /** The rendered entry at `index` measured `height` px; returns whether any offset moved. */
  measured(index: number, height: number): boolean {
    const entry = this.entries[index];
    if (!entry) return false;
    this.measuredEntries.add(entry);
    this.current.set(entry.id, { height, entry });
    if (this.heights.heightOf(index) === height) return false;
    this.heights.set(index, height);
    return true;
  }

  /** The reading position at offset `y`: the entry there and how far into it. */
  anchorAt(y: number): Anchor | undefined {
    if (this.count === 0) return undefined;
    const index = this.indexAt(y);
    return { id: this.entries[index]!.id, offset: y - this.offset(index) };
  }

  /** The offset of a reading position as the layout is now (undefined when its entry is gone). */
  positionOf(anchor: Anchor): number | undefined {
    const index = this.indexById.get(anchor.id);
    return index === undefined ? undefined : this.offset(index) + anchor.offset;
  }

  /** The entries in a viewport from `top` of `height` px, and `overscan` px beyond it on each side. */
  range(top: number, height: number, overscan: number): IndexRange {
    if (this.count === 0) return { first: 0, last: 0 };
    const first = this.indexAt(Math.max(0, top - overscan));
    const last = Math.min(this.count, this.indexAt(top + height + overscan) + 1);
    return { first, last };
  }

  /**
   * What to render for `range`, with the entries of `kept` (ids) rendered too wherever they are, and spacers
   * for the rest, so every rendered entry sits at its offset.
   */
  slots(range: IndexRange, kept: Iterable<string> = []): Slot[] {
    const extra: number[] = [];
    for (const id of kept) {
      const index = this.indexById.get(id);
      if (index !== undefined && (index < range.first || index >= range.last)) extra.push(index);
    }
    extra.sort((a, b) => a - b);
    const indices: number[] = [];
    let e = 0;
    while (e < extra.length && extra[e]! < range.first) indices.push(extra[e++]!);
    for (let i = range.first; i < range.last; i++) indices.push(i);
    while (e < extra.length) indices.push(extra[e++]!);

    const slots: Slot[] = [];
    let at = 0;
    for (const index of indices) {
      if (index > at) slots.push({ kind: 'gap', key: `gap-${index}`, height: this.offset(index) - this.offset(at) });
      slots.push({ kind: 'entry', index });
      at = index + 1;
    }
    if (at < this.count) slots.push({ kind: 'gap', key: 'gap-end', height: this.total - this.offset(at) });
    return slots;
  }

  /**
   * Measured, else estimated. An entry whose content changed since it was measured (a message streaming
   * while the user reads further up) grows by what its estimate grew, until it is rendered and measured again.
   */
  private heightFor(entry: ViewEntry): number {
    const measured = this.current.get(entry.id);
    if (!measured) return this.estimate(entry, this.width);
    if (measured.entry === entry || this.measuredEntries.has(entry)) return measured.height;
    return Math.max(0, measured.height + this.estimate(entry, this.width) - this.estimate(measured.entry, this.width));
  }

  /** The heights measured at a width, kept with those of the last few widths (most recently used last). */
  private measurementsAt(width: number): Map<string, Measured> {
    let map = this.measuredAt.get(width);
    if (map) {
      this.measuredAt.delete(width);
    } else {
      map = new Map();
      if (this.measuredAt.size >= WIDTHS_KEPT) this.measuredAt.delete(this.measuredAt.keys().next().value!);
    }
    this.measuredAt.set(width, map);
    return map;
  }

  /** A new transcript: what was measured of the old one is forgotten (ids are never reused). */
  private startOver(): void {
    this.measuredAt.clear();
    this.measuredEntries = new WeakSet();
    this.current = this.measurementsAt(this.width);
    this.rebuild();
  }

  private rebuild(): void {
    this.indexById.clear();
    const heights: number[] = [];
    this.entries.forEach((entry, i) => {
      this.indexById.set(entry.id, i);
      heights.push(this.heightFor(entry));
    });
    this.heights.reset(heights);
  }
}
