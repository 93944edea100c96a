/**
 * The transcript-text half of a search in the Sessions view. The text is searched off the extension host's
 * thread ({@link TranscriptSearch}); this side asks once per query and per change of the transcripts (a newer
 * question aborts the older one), keeps the latest answer for the query meanwhile (a running chat does not
 * make text matches blink), says when an answer arrived, and asks for snippets only of the rows being shown,
 * keeping them for the query.
 */
import type { Snippet } from './search';
import type { TranscriptSearchResult as Matches, TranscriptSearch } from './transcriptSearch';
import { errorMessage } from '../common/errors';

export type TextState =
  /** No transcript search here: only titles are searched. */
  | { readonly kind: 'off' }
  /** Asked; no answer for this query yet. */
  | { readonly kind: 'pending' }
  | { readonly kind: 'failed'; readonly message: string }
  /** An answer for this query (perhaps for the transcripts as they were a moment ago, while a newer is asked). */
  | { readonly kind: 'answered'; readonly matches: Matches };

interface Question {
  readonly query: string;
  readonly version: number;
  readonly controller: AbortController;
}

export class TranscriptMatches {
  private asked: Question | undefined;
  private answer: { readonly query: string; readonly state: TextState } | undefined;
  private snippetCache:
    | {
        readonly query: string;
        readonly version: number;
        readonly byKey: Map<string, Snippet | null>;
        readonly asking: Set<string>;
        readonly controller: AbortController;
      }
    | undefined;
  /** Questions asked so far (tests and benchmarks read them). */
  readonly work = { searches: 0, snippetRequests: 0 };

  /** @param answered told when an answer (or a failure) arrives for the current query. */
  constructor(
    private readonly source: TranscriptSearch | undefined,
    private readonly answered: () => void,
  ) {}

  /** Makes sure `query`'s matches are asked for the transcripts as they are now; undefined: no search (aborts). */
  request(query: string | undefined): void {
    if (!this.source) return;
    if (query === undefined) {
      this.asked?.controller.abort();
      this.snippetCache?.controller.abort();
      this.asked = undefined;
      this.answer = undefined;
      this.snippetCache = undefined;
      return;
    }
    const version = this.source.version;
    if (this.asked && this.asked.query === query && this.asked.version === version) return;
    this.asked?.controller.abort();
    if (this.answer && this.answer.query !== query) this.answer = undefined;
    const question: Question = { query, version, controller: new AbortController() };
    this.asked = question;
    this.work.searches++;
    this.source.search(query, question.controller.signal).then(
      (matches) => this.settle(question, { kind: 'answered', matches }),
      (error: unknown) => {
        if (question.controller.signal.aborted) return;
        this.settle(question, { kind: 'failed', message: errorMessage(error) });
      },
    );
  }

  /** Where the text search of `query` stands. */
  state(query: string): TextState {
    if (!this.source) return { kind: 'off' };
    if (this.answer?.query === query) return this.answer.state;
    return { kind: 'pending' };
  }

  /** The keys (`recordKey`) whose text matched `query`, as far as known. */
  keys(query: string): ReadonlySet<string> | undefined {
    const state = this.state(query);
    return state.kind === 'answered' ? state.matches.keys : undefined;
  }

  /** Of the given sessions, the snippets already known for `query` and the transcripts as they are, and those not asked yet. */
  knownSnippets(query: string, keys: readonly string[]): { known: ReadonlyMap<string, Snippet>; missing: string[] } {
    const known = new Map<string, Snippet>();
    const cache = this.snippetCache;
    if (!this.source || !cache || cache.query !== query || cache.version !== this.source.version) return { known, missing: [...keys] };
    const missing: string[] = [];
    for (const key of keys) {
      const snippet = cache.byKey.get(key);
      if (snippet) known.set(key, snippet);
      else if (snippet === undefined && !cache.asking.has(key)) missing.push(key);
    }
    return { known, missing };
  }

  /**
   * Snippets of the given sessions' text around `query` (only asked for those not asked yet for this query
   * and these transcripts). Sessions without one are left out.
   */
  async snippets(query: string, keys: readonly string[]): Promise<ReadonlyMap<string, Snippet>> {
    const found = new Map<string, Snippet>();
    if (!this.source || keys.length === 0) return found;
    const version = this.source.version;
    let cache = this.snippetCache;
    if (!cache || cache.query !== query || cache.version !== version) {
      cache?.controller.abort();
      cache = { query, version, byKey: new Map(), asking: new Set(), controller: new AbortController() };
      this.snippetCache = cache;
    }
    const missing = keys.filter((key) => !cache.byKey.has(key));
    if (missing.length > 0) {
      this.work.snippetRequests++;
      for (const key of missing) cache.asking.add(key);
      try {
        const answer = await this.source.snippets(query, missing, cache.controller.signal);
        for (const key of missing) cache.byKey.set(key, answer.get(key) ?? null);
      } catch {
        // Aborted (the query moved on) or failed: the rows are shown without snippets.
        return found;
      } finally {
        for (const key of missing) cache.asking.delete(key);
      }
    }
    for (const key of keys) {
      const snippet = cache.byKey.get(key);
      if (snippet) found.set(key, snippet);
    }
    return found;
  }

  dispose(): void {
    this.request(undefined);
  }

  private settle(question: Question, state: TextState): void {
    if (this.asked !== question) return;
    this.answer = { query: question.query, state };
    this.answered();
  }
}
