/**
 * The full-text index of the transcripts (plain data structures; the worker owns one): a document per session
 * (its record key, and the stamp of the text file it was read from), and segments of postings.
 *
 * - Adding or replacing a document gives it a new id, above every other, and writes its terms as a small
 *   segment; the old id is marked removed. Segments are merged by size tiers ({@link MERGE_FAN_IN} adjacent
 *   segments of one tier become one; never more than {@link MAX_SEGMENTS}), which drops removed documents'
 *   postings; when ids run far ahead of the documents, everything is merged into one segment with the ids
 *   renumbered.
 * - Memory: the terms (2 bytes a character, 8 bytes of offsets) and about 1–2 bytes per (document, distinct
 *   term) pair, plus a short-prefix term per distinct one- and two-character prefix of each document; a merge
 *   needs the merged segments' size again while it runs. Measured at the local index's limits
 *   (bench/transcripts.bench.ts): see CONTRIBUTING's design notes.
 */
import * as l10n from '@vscode/l10n';
import { indexTerms, PREFIX_MARK, SHORT_PREFIX_CHARS } from './tokens';
import { mergeSteps, type Segment, SegmentBuilder, sliceSegment } from './segment';

/** Which version of a text file a document was read from. */
export interface TextStamp {
  readonly mtimeMs: number;
  readonly size: number;
}

export const MERGE_FAN_IN = 8;
export const MAX_SEGMENTS = 40;
const TIER_BASE_BYTES = 64 * 1024;

/**
 * One segment of the index kept as two: the short-prefix terms (all a one- to three-letter query word needs;
 * after a window reload they are loaded first, so the first keystroke does not wait for the rest) and the word
 * terms (`undefined` until loaded).
 */
export class Part {
  constructor(
    readonly prefixes: Segment,
    public words: Segment | undefined,
  ) {}

  /** A built segment split where its short-prefix terms (which sort first) end. */
  static of(segment: Segment): Part {
    const end = segment.prefixRange(PREFIX_MARK)[1];
    return new Part(sliceSegment(segment, 0, end), sliceSegment(segment, end, segment.termCount));
  }

  get bytes(): number {
    return this.prefixes.bytes + (this.words?.bytes ?? 0);
  }
}

/** A merge in progress (see {@link TextIndex.nextMerge}). */
export interface PendingMerge {
  readonly parts: readonly Part[];
  readonly steps: Generator<void, Part>;
}

function* mergeParts(parts: readonly Part[], map: (doc: number) => number): Generator<void, Part> {
  const prefixes = yield* mergeSteps(
    parts.map((p) => p.prefixes),
    map,
  );
  const words = yield* mergeSteps(
    parts.map((p) => p.words!),
    map,
  );
  return new Part(prefixes, words);
}

export interface IndexedDocument {
  readonly id: number;
  readonly key: string;
  readonly stamp: TextStamp;
}

/** A query stopped early because a newer one superseded it. */
export class SearchCancelled extends Error {
  constructor() {
    super(l10n.t('The search was superseded.'));
    this.name = 'AbortError';
  }
}

function tier(part: Part): number {
  return Math.max(0, Math.floor(Math.log(Math.max(1, part.bytes / TIER_BASE_BYTES)) / Math.log(MERGE_FAN_IN)));
}

export class TextIndex {
  private keys: Array<string | undefined> = [];
  private mtimes = new Float64Array(1024);
  private sizes = new Float64Array(1024);
  private readonly ids = new Map<string, number>();
  private parts: Part[] = [];
  private nextId = 0;
  /** Bumped on every change; the persisted image says which version it holds. */
  version = 0;

  /** Rebuilds an index from its saved parts (see indexFile.ts); the caller validated them. */
  static restore(documents: readonly IndexedDocument[], parts: readonly Part[], nextId: number): TextIndex {
    const index = new TextIndex();
    index.nextId = nextId;
    index.grow(nextId);
    for (const doc of documents) {
      index.keys[doc.id] = doc.key;
      index.ids.set(doc.key, doc.id);
      index.mtimes[doc.id] = doc.stamp.mtimeMs;
      index.sizes[doc.id] = doc.stamp.size;
    }
    index.parts = [...parts];
    return index;
  }

  get documentCount(): number {
    return this.ids.size;
  }

  get segmentCount(): number {
    return this.parts.length;
  }

  /** Whether every part's word terms are loaded (else only one- to three-letter query words can be answered). */
  get wordsLoaded(): boolean {
    return this.parts.every((p) => p.words !== undefined);
  }

  /** Memory held by the postings and terms (not the document table). */
  get bytes(): number {
    return this.parts.reduce((sum, p) => sum + p.bytes, 0);
  }

  /** The id after the highest one given so far. */
  get idLimit(): number {
    return this.nextId;
  }

  has(key: string): boolean {
    return this.ids.has(key);
  }

  stampOf(key: string): TextStamp | undefined {
    const id = this.ids.get(key);
    return id === undefined ? undefined : { mtimeMs: this.mtimes[id]!, size: this.sizes[id]! };
  }

  documents(): IndexedDocument[] {
    return [...this.ids].map(([key, id]) => ({ id, key, stamp: { mtimeMs: this.mtimes[id]!, size: this.sizes[id]! } }));
  }

  /** The parts, oldest first (immutable but for loading their words; for saving). */
  segments(): readonly Part[] {
    return this.parts;
  }

  /** Adds or replaces one document. */
  put(key: string, text: string, stamp: TextStamp): void {
    this.putMany([{ key, text, stamp }]);
  }

  /** Adds or replaces several documents as one segment (a rebuild's batch). */
  putMany(documents: ReadonlyArray<{ readonly key: string; readonly text: string; readonly stamp: TextStamp }>): void {
    if (documents.length === 0) return;
    const builder = new SegmentBuilder();
    for (const { key, text, stamp } of documents) {
      this.drop(key);
      const id = this.nextId++;
      this.grow(this.nextId);
      this.keys[id] = key;
      this.ids.set(key, id);
      this.mtimes[id] = stamp.mtimeMs;
      this.sizes[id] = stamp.size;
      builder.add(id, indexTerms(text));
    }
    this.parts.push(Part.of(builder.build()));
    this.changed();
  }

  /** Removes a document (its postings go at the next merge). */
  remove(key: string): boolean {
    if (!this.drop(key)) return false;
    this.changed();
    return true;
  }

  /**
   * The keys of the documents containing every query word (as a prefix of one of their terms; see tokens.ts).
   * `cancelled` is asked between pieces of work; when it says yes the search stops with {@link SearchCancelled}.
   */
  search(words: readonly string[], cancelled: () => boolean = () => false): string[] {
    if (words.length === 0) return [];
    const size = (this.nextId >>> 5) + 1;
    let result: Uint32Array | undefined;
    // The longest word first: it usually matches the fewest documents.
    for (const word of [...words].sort((a, b) => b.length - a.length)) {
      const bits = new Uint32Array(size);
      for (const part of this.parts) {
        if (cancelled()) throw new SearchCancelled();
        if (word.length <= SHORT_PREFIX_CHARS) {
          const i = part.prefixes.find(PREFIX_MARK + word);
          if (i >= 0) part.prefixes.addDocs(i, bits);
          continue;
        }
        const segment = part.words;
        if (!segment) throw new Error(l10n.t('The transcript index is still loading.'));
        const [from, to] = segment.prefixRange(word);
        for (let i = from; i < to; i++) {
          if ((i - from) % 512 === 511 && cancelled()) throw new SearchCancelled();
          segment.addDocs(i, bits);
        }
      }
      if (result) {
        let any = 0;
        for (let k = 0; k < size; k++) any |= result[k]! &= bits[k]!;
        if (any === 0) return [];
      } else result = bits;
    }
    const keys: string[] = [];
    for (let k = 0; k < size; k++) {
      let word = result![k]!;
      while (word !== 0) {
        const bit = 31 - Math.clz32(word & -word);
        word &= word - 1;
        const key = this.keys[(k << 5) + bit];
        if (key !== undefined) keys.push(key);
      }
    }
    return keys;
  }

  /**
   * Does the next piece of upkeep, all at once: renumbering when ids run far ahead of the documents, else the
   * next merge. Returns whether there was any. (The worker uses {@link nextMerge} to merge in steps.)
   */
  maintain(): boolean {
    if (this.needsRenumber) {
      this.renumber();
      return true;
    }
    const merge = this.nextMerge();
    if (!merge) return false;
    for (let step = merge.steps.next(); ; step = merge.steps.next()) {
      if (step.done) return this.finishMerge(merge, step.value);
    }
  }

  /** Whether ids ran so far ahead of the documents (replaced and removed ones) that they should be renumbered. */
  get needsRenumber(): boolean {
    if (!this.wordsLoaded) return false;
    return this.nextId > 2 * this.ids.size + 4096 && this.parts.length > 0;
  }

  /**
   * The next merge, if one is due: {@link MERGE_FAN_IN} adjacent segments of one size tier, or the cheapest
   * adjacent pair when there are more than {@link MAX_SEGMENTS}. Run its steps, then {@link finishMerge}.
   * Documents removed meanwhile stay out of results (their ids have no key) until a later merge drops them.
   */
  nextMerge(): PendingMerge | undefined {
    const run = this.mergeableRun();
    if (!run) return undefined;
    const parts = this.parts.slice(run[0], run[1]);
    return { parts, steps: mergeParts(parts, (doc) => (this.keys[doc] === undefined ? -1 : doc)) };
  }

  /** Puts a merged segment in place of its parts (unless they changed meanwhile); returns whether it did. */
  finishMerge(merge: PendingMerge, merged: Part): boolean {
    const from = this.parts.indexOf(merge.parts[0]!);
    if (from < 0 || merge.parts.some((p, i) => this.parts[from + i] !== p)) return false;
    this.parts.splice(from, merge.parts.length, merged);
    this.changed();
    return true;
  }

  /** Whether {@link maintain} has something to do. */
  get needsMaintenance(): boolean {
    return this.needsRenumber || this.mergeableRun() !== undefined;
  }

  private mergeableRun(): [number, number] | undefined {
    if (!this.wordsLoaded) return undefined;
    const tiers = this.parts.map(tier);
    let start = 0;
    for (let i = 1; i <= tiers.length; i++) {
      if (i < tiers.length && tiers[i] === tiers[start]) continue;
      if (i - start >= MERGE_FAN_IN) return [start, start + MERGE_FAN_IN];
      start = i;
    }
    if (this.parts.length <= MAX_SEGMENTS) return undefined;
    // Too many tiers interleaved: the adjacent pair that is cheapest to merge.
    let best = 0;
    for (let i = 1; i + 1 < this.parts.length; i++) {
      if (this.parts[i]!.bytes + this.parts[i + 1]!.bytes < this.parts[best]!.bytes + this.parts[best + 1]!.bytes) best = i;
    }
    return [best, best + 2];
  }

  /** Gives the documents the ids 0…n-1 again, merging every segment into one (all at once). */
  renumber(): void {
    const mapping = new Int32Array(this.nextId).fill(-1);
    const live = [...this.ids.values()].sort((a, b) => a - b);
    live.forEach((id, i) => (mapping[id] = i));
    const steps = mergeParts(this.parts, (doc) => (doc < mapping.length ? mapping[doc]! : -1));
    let step = steps.next();
    while (!step.done) step = steps.next();
    const merged = step.value;
    const keys: Array<string | undefined> = [];
    const mtimes = new Float64Array(Math.max(1024, live.length * 2));
    const sizes = new Float64Array(mtimes.length);
    live.forEach((id, i) => {
      keys[i] = this.keys[id];
      mtimes[i] = this.mtimes[id]!;
      sizes[i] = this.sizes[id]!;
      this.ids.set(this.keys[id]!, i);
    });
    this.keys = keys;
    this.mtimes = mtimes;
    this.sizes = sizes;
    this.nextId = live.length;
    this.parts = [merged];
    this.changed();
  }

  private drop(key: string): boolean {
    const id = this.ids.get(key);
    if (id === undefined) return false;
    this.ids.delete(key);
    this.keys[id] = undefined;
    return true;
  }

  private grow(limit: number): void {
    if (limit <= this.mtimes.length) return;
    const size = Math.max(limit, this.mtimes.length * 2);
    const mtimes = new Float64Array(size);
    mtimes.set(this.mtimes);
    const sizes = new Float64Array(size);
    sizes.set(this.sizes);
    this.mtimes = mtimes;
    this.sizes = sizes;
  }

  private changed(): void {
    this.version++;
  }
}
