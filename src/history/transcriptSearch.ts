/**
 * Full-text search over the transcripts this client recorded (the local index's text), answered off the
 * extension-host thread. The Sessions model asks it for the sessions whose text matches a query, and for
 * snippets of only the rows it shows.
 */
import type { Snippet } from './search';

export interface TranscriptMatches {
  /** Record keys (`recordKey(agentName, sessionId)`) of the sessions whose transcript matches the query. */
  readonly keys: ReadonlySet<string>;
  /** How many sessions had transcript text to search. */
  readonly searched: number;
}

export interface TranscriptSearch {
  /** Bumped whenever a transcript's text changes, is added or is removed. */
  readonly version: number;
  /**
   * The sessions whose transcript matches `query` (every word of it, case-insensitive). Rejects with an
   * `AbortError` when `signal` is aborted (a newer query supersedes it).
   */
  search(query: string, signal?: AbortSignal): Promise<TranscriptMatches>;
  /** Excerpts around the first hit of `query` in each given session's transcript (only for rows shown). */
  snippets(query: string, keys: readonly string[], signal?: AbortSignal): Promise<ReadonlyMap<string, Snippet>>;
}
