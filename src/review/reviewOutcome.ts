/** The outcome of accepting or rejecting a pending file or hunk. */

/**
 * Why an accept or reject did nothing: the file is not pending; it `changed` since the review showed it;
 * an editor holds unsaved changes (`dirty`); the hunk does not exist (or the file is reviewed whole); its
 * base is gone (`unavailable`); the user changed the lines the agent changed, so a whole reject would undo
 * theirs too (`mixed`); the write `failed`.
 */
export type ReviewProblemReason = 'not-pending' | 'changed' | 'dirty' | 'no-such-hunk' | 'unavailable' | 'mixed' | 'failed';

export type ReviewOutcome =
  { readonly ok: true; readonly key: string } | { readonly ok: false; readonly key: string; readonly reason: ReviewProblemReason; readonly message: string };

export function reviewProblem(key: string, reason: ReviewProblemReason, message: string): ReviewOutcome {
  return { ok: false, key, reason, message };
}
