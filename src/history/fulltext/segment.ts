/**
 * One immutable part of the full-text index: its terms in sorted order (UTF-16 code units, so a prefix's terms
 * are contiguous) and, per term, the ids of the documents containing it, ascending, as varint-coded gaps. Four
 * typed arrays, no object per term or per posting; segments are merged in the background
 * ({@link mergeSegments}), which also drops the postings of removed documents and can renumber the ids.
 */

/** Sorted terms and their postings (see the module comment). */
export class Segment {
  constructor(
    /** The terms' characters, one after the other. */
    readonly termChars: Uint16Array,
    /** Where term i starts in `termChars` (length = terms + 1). */
    readonly termStarts: Uint32Array,
    /** Varint-coded document id gaps (the first gap is from 0). */
    readonly postings: Uint8Array,
    /** Where term i's postings start in `postings` (length = terms + 1). */
    readonly postingStarts: Uint32Array,
  ) {}

  get termCount(): number {
    return this.termStarts.length - 1;
  }

  /** Memory it holds. */
  get bytes(): number {
    return this.termChars.byteLength + this.termStarts.byteLength + this.postings.byteLength + this.postingStarts.byteLength;
  }

  term(i: number): string {
    let text = '';
    for (let c = this.termStarts[i]!, end = this.termStarts[i + 1]!; c < end; c++) text += String.fromCharCode(this.termChars[c]!);
    return text;
  }

  /** Term i compared with `word` by code units: < 0, 0 or > 0. With `prefix`, a term starting with `word` compares 0. */
  compare(i: number, word: string, prefix = false): number {
    const start = this.termStarts[i]!;
    const length = this.termStarts[i + 1]! - start;
    const n = Math.min(length, word.length);
    for (let k = 0; k < n; k++) {
      const d = this.termChars[start + k]! - word.charCodeAt(k);
      if (d !== 0) return d;
    }
    return prefix && length >= word.length ? 0 : length - word.length;
  }

  /** The index of the first term not below `word`. */
  private lowerBound(word: string): number {
    let low = 0;
    let high = this.termCount;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compare(mid, word) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The terms starting with `word`: [from, to). */
  prefixRange(word: string): [number, number] {
    const from = this.lowerBound(word);
    let low = from;
    let high = this.termCount;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compare(mid, word, true) === 0) low = mid + 1;
      else high = mid;
    }
    return [from, low];
  }

  /** The index of `term`, or -1. */
  find(term: string): number {
    const i = this.lowerBound(term);
    return i < this.termCount && this.compare(i, term) === 0 ? i : -1;
  }

  /**
   * Sets the bit of every document of term i in `bits` (ids beyond it are ignored). The varint decoding is
   * written out here and in forEachDoc on purpose: this is the inner loop of every query, and going through
   * forEachDoc would add a call per posting.
   */
  addDocs(i: number, bits: Uint32Array): void {
    const postings = this.postings;
    const end = this.postingStarts[i + 1]!;
    const limit = bits.length << 5;
    let doc = 0;
    for (let at = this.postingStarts[i]!; at < end;) {
      let byte = postings[at++]!;
      let gap = byte & 0x7f;
      for (let shift = 7; byte & 0x80 && at < end; shift += 7) {
        byte = postings[at++]!;
        gap += (byte & 0x7f) * 2 ** shift;
      }
      doc += gap;
      if (doc < limit) bits[doc >>> 5]! |= 1 << (doc & 31);
    }
  }

  /** Calls `visit` with every document id of term i, ascending. */
  forEachDoc(i: number, visit: (doc: number) => void): void {
    const postings = this.postings;
    const end = this.postingStarts[i + 1]!;
    let doc = 0;
    for (let at = this.postingStarts[i]!; at < end;) {
      let byte = postings[at++]!;
      let gap = byte & 0x7f;
      for (let shift = 7; byte & 0x80 && at < end; shift += 7) {
        byte = postings[at++]!;
        gap += (byte & 0x7f) * 2 ** shift;
      }
      doc += gap;
      visit(doc);
    }
  }
}

/** Terms [from, to) of `segment` as a segment of their own (copied). */
export function sliceSegment(segment: Segment, from: number, to: number): Segment {
  const charBase = segment.termStarts[from]!;
  const postingBase = segment.postingStarts[from]!;
  const termStarts = segment.termStarts.slice(from, to + 1);
  const postingStarts = segment.postingStarts.slice(from, to + 1);
  for (let i = 0; i < termStarts.length; i++) {
    termStarts[i]! -= charBase;
    postingStarts[i]! -= postingBase;
  }
  return new Segment(
    segment.termChars.slice(charBase, segment.termStarts[to]!),
    termStarts,
    segment.postings.slice(postingBase, segment.postingStarts[to]!),
    postingStarts,
  );
}

/** A growing typed buffer. */
class Growing<T extends Uint8Array | Uint16Array | Uint32Array> {
  length = 0;
  constructor(
    public data: T,
    private readonly make: (size: number) => T,
  ) {}
  reserve(extra: number): void {
    if (this.length + extra <= this.data.length) return;
    const next = this.make(Math.max(this.data.length * 2, this.length + extra, 64));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  push(value: number): void {
    this.reserve(1);
    this.data[this.length++] = value;
  }
  done(): T {
    return this.data.slice(0, this.length) as T;
  }
}

/** Writes a segment term by term, in sorted order. */
export class SegmentWriter {
  private readonly chars = new Growing(new Uint16Array(1024), (n) => new Uint16Array(n));
  private readonly termStarts = new Growing(new Uint32Array(256), (n) => new Uint32Array(n));
  private readonly postings = new Growing(new Uint8Array(4096), (n) => new Uint8Array(n));
  private readonly postingStarts = new Growing(new Uint32Array(256), (n) => new Uint32Array(n));
  private lastDoc = 0;
  private termOpen = false;

  constructor() {
    this.termStarts.push(0);
    this.postingStarts.push(0);
  }

  /** Starts the next term (greater than the previous one). */
  beginTerm(term: string): void {
    this.chars.reserve(term.length);
    for (let k = 0; k < term.length; k++) this.chars.data[this.chars.length++] = term.charCodeAt(k);
    this.lastDoc = 0;
    this.termOpen = true;
  }

  /** Starts the next term, copied from a segment. */
  beginTermFrom(segment: Segment, i: number): void {
    const start = segment.termStarts[i]!;
    const end = segment.termStarts[i + 1]!;
    this.chars.reserve(end - start);
    this.chars.data.set(segment.termChars.subarray(start, end), this.chars.length);
    this.chars.length += end - start;
    this.lastDoc = 0;
    this.termOpen = true;
  }

  /** Adds a document to the current term (ids ascending). */
  addDoc(doc: number): void {
    let gap = doc - this.lastDoc;
    this.lastDoc = doc;
    this.postings.reserve(5);
    const data = this.postings.data;
    while (gap >= 0x80) {
      data[this.postings.length++] = (gap & 0x7f) | 0x80;
      gap = Math.floor(gap / 128);
    }
    data[this.postings.length++] = gap;
  }

  /** Ends the current term; a term without documents is dropped. */
  endTerm(): void {
    if (!this.termOpen) return;
    this.termOpen = false;
    if (this.postings.length === this.postingStarts.data[this.postingStarts.length - 1]) {
      this.chars.length = this.termStarts.data[this.termStarts.length - 1]!;
      return;
    }
    this.termStarts.push(this.chars.length);
    this.postingStarts.push(this.postings.length);
  }

  done(): Segment {
    this.endTerm();
    return new Segment(this.chars.done(), this.termStarts.done(), this.postings.done(), this.postingStarts.done());
  }
}

/** Collects documents (ids ascending) and writes them as one segment. */
export class SegmentBuilder {
  private readonly numbers = new Map<string, number>();
  /** (term number, document id) pairs in the order added. */
  private pairs = new Uint32Array(1 << 16);
  private pairCount = 0;
  documents = 0;

  add(doc: number, terms: Iterable<string>): void {
    this.documents++;
    for (const term of terms) {
      let number = this.numbers.get(term);
      if (number === undefined) {
        number = this.numbers.size;
        this.numbers.set(term, number);
      }
      if (this.pairCount * 2 + 2 > this.pairs.length) {
        const pairs = new Uint32Array(this.pairs.length * 2);
        pairs.set(this.pairs);
        this.pairs = pairs;
      }
      this.pairs[this.pairCount * 2] = number;
      this.pairs[this.pairCount * 2 + 1] = doc;
      this.pairCount++;
    }
  }

  get postings(): number {
    return this.pairCount;
  }

  build(): Segment {
    // The default sort compares UTF-16 code units, the order Segment searches in.
    const terms = [...this.numbers.keys()].sort();
    const rank = new Uint32Array(terms.length);
    terms.forEach((term, i) => (rank[this.numbers.get(term)!] = i));
    // A counting sort of the pairs by their term's rank keeps each term's documents in the order added.
    const starts = new Uint32Array(terms.length + 1);
    for (let p = 0; p < this.pairCount; p++) starts[rank[this.pairs[p * 2]!]! + 1]!++;
    for (let r = 0; r < terms.length; r++) starts[r + 1]! += starts[r]!;
    const docs = new Uint32Array(this.pairCount);
    const fill = starts.slice(0, terms.length);
    for (let p = 0; p < this.pairCount; p++) docs[fill[rank[this.pairs[p * 2]!]!]!++] = this.pairs[p * 2 + 1]!;
    const writer = new SegmentWriter();
    for (let r = 0; r < terms.length; r++) {
      writer.beginTerm(terms[r]!);
      for (let k = starts[r]!; k < starts[r + 1]!; k++) writer.addDoc(docs[k]!);
      writer.endTerm();
    }
    return writer.done();
  }
}

function compareTerms(a: Segment, i: number, b: Segment, j: number): number {
  const aStart = a.termStarts[i]!;
  const aLength = a.termStarts[i + 1]! - aStart;
  const bStart = b.termStarts[j]!;
  const bLength = b.termStarts[j + 1]! - bStart;
  const n = Math.min(aLength, bLength);
  for (let k = 0; k < n; k++) {
    const d = a.termChars[aStart + k]! - b.termChars[bStart + k]!;
    if (d !== 0) return d;
  }
  return aLength - bLength;
}

/**
 * One segment with the terms and postings of `segments` (given in id order: every id of one is below every id
 * of the next), each document id passed through `map` (-1 drops it; the mapping must keep the order).
 */
export function mergeSegments(segments: readonly Segment[], map: (doc: number) => number): Segment {
  const steps = mergeSteps(segments, map);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** {@link mergeSegments} in steps: it yields after about `termsPerStep` terms, so a worker can answer queries between. */
export function* mergeSteps(segments: readonly Segment[], map: (doc: number) => number, termsPerStep = 20_000): Generator<void, Segment> {
  const writer = new SegmentWriter();
  const cursors = segments.map(() => 0);
  const add = (doc: number) => {
    const mapped = map(doc);
    if (mapped >= 0) writer.addDoc(mapped);
  };
  for (let written = 1; ; written++) {
    if (written % termsPerStep === 0) yield;
    let least = -1;
    for (let s = 0; s < segments.length; s++) {
      if (cursors[s]! >= segments[s]!.termCount) continue;
      if (least < 0 || compareTerms(segments[s]!, cursors[s]!, segments[least]!, cursors[least]!) < 0) least = s;
    }
    if (least < 0) break;
    const first = segments[least]!;
    const at = cursors[least]!;
    writer.beginTermFrom(first, at);
    // Segments before `least` hold greater terms (it is the first least one), so only those after it can match.
    for (let s = least; s < segments.length; s++) {
      const segment = segments[s]!;
      const i = cursors[s]!;
      if (i >= segment.termCount || (s !== least && compareTerms(segment, i, first, at) !== 0)) continue;
      segment.forEachDoc(i, add);
      cursors[s] = i + 1;
    }
    writer.endTerm();
  }
  return writer.done();
}
