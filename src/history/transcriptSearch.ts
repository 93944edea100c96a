/**
 * Full-text search over the transcripts this client recorded (the local index's text), answered off the
 * extension-host thread. The Sessions model asks it for the sessions whose text matches a query, and for
 * snippets of only the rows it shows.
 *
 * Query semantics (history/fulltext/tokens.ts): case- and accent-insensitive; every word of the query must
 * occur; a query word matches a transcript word it is a prefix of, or a sub-word of one (`config` finds
 * `parseConfigFile`, `parser` finds `HTMLParser`); punctuation separates words.
 */
import type { Event } from '../common/events';
import type { Snippet } from './search';

export interface TranscriptSearchResult {
  /** Record keys (`recordKey(agentName, sessionId)`) of the sessions whose transcript matches the query. */
  readonly keys: ReadonlySet<string>;
  /** How many sessions had transcript text to search. */
  readonly searched: number;
  /**
   * False while the index is still being built or compared with the text files (after a window reload, a
   * damaged or outdated index): transcripts not indexed yet were not searched. {@link TranscriptSearch.onDidChange}
   * fires as it gets further; ask again then.
   */
  readonly complete: boolean;
  /** Why text search is unavailable (its worker failed and was not restarted); `keys` is empty then. */
  readonly unavailable?: string;
}

export interface TranscriptSearch {
  /** Bumped whenever a transcript's text changes, is added or is removed, or the index got further. */
  readonly version: number;
  /** Fires when {@link version} changes: a search on screen should be asked again. */
  readonly onDidChange: Event<void>;
  /**
   * The sessions whose transcript matches `query` (every word of it, case-insensitive). Rejects with an
   * `AbortError` when `signal` is aborted (a newer query supersedes it); the work stops early.
   */
  search(query: string, signal?: AbortSignal): Promise<TranscriptSearchResult>;
  /**
   * Excerpts around the first hit of `query` in each given session's transcript (only for rows shown; at most
   * 200 keys a call), read from the stored text. A session without a hit has no entry.
   */
  snippets(query: string, keys: readonly string[], signal?: AbortSignal): Promise<ReadonlyMap<string, Snippet>>;
}
