/**
 * What the Sessions view says about its list in words: the status row closing an agent's part, what a search
 * covered, and why the list is empty.
 */
import * as l10n from '@vscode/l10n';
import type { Scope, StatusRow } from '../shared/historyProtocol';
import type { SourcePlan } from './catalog';
import { MAX_RESULTS } from './search';
import type { AgentEntry } from './sessionView';
import type { TextState } from './transcriptMatches';

export interface Coverage {
  /** Sessions whose titles were searched (the scope's, loaded so far). */
  readonly searched: number;
  /** Of them, how many have transcript text this client recorded. */
  readonly withText: number;
  /** Where the transcript-text side of the search stands. */
  readonly text: TextState;
  /** Sessions that matched (titles and text). */
  readonly matched: number;
  /** Rows shown (at most {@link MAX_RESULTS}). */
  readonly shown: number;
  /** The title search read every title it needs (else it goes on in the background). */
  readonly finished: boolean;
  /** It did not stop early at {@link MAX_RESULTS} of the best tier. */
  readonly exhaustive: boolean;
  /** Sessions of the scope are not loaded yet, and nothing else says so. */
  readonly notLoaded: boolean;
}

/** The line above a search's results. */
export function coverageLine(c: Coverage): string {
  const searched = c.searched.toLocaleString();
  let scope: string;
  switch (c.text.kind) {
    case 'off':
      scope = l10n.t('Titles of {0} sessions searched; transcript text is not searched here.', searched);
      break;
    case 'pending':
      scope = l10n.t('Titles of {0} sessions searched; searching transcript text…', searched);
      break;
    case 'failed':
      scope = l10n.t('Titles of {0} sessions searched; transcript text could not be searched: {1}', searched, c.text.message);
      break;
    case 'answered':
      if (c.text.matches.unavailable !== undefined) {
        scope = l10n.t('Titles of {0} sessions searched; transcript text could not be searched: {1}', searched, c.text.matches.unavailable);
        break;
      }
      scope =
        c.searched === 1
          ? l10n.t('Titles of 1 session searched; transcript text of {0} of them (only sessions opened in this client have text here).', c.withText)
          : l10n.t(
              'Titles of {0} sessions searched; transcript text of {1} of them (only sessions opened in this client have text here).',
              searched,
              c.withText,
            );
      break;
  }
  const indexing = c.text.kind === 'answered' && !c.text.matches.complete && c.text.matches.unavailable === undefined;
  return [
    scope,
    !c.finished
      ? l10n.t('Still searching titles: {0} found so far.', c.matched.toLocaleString())
      : !c.exhaustive
        ? l10n.t('More than {0} match; the best {0} are shown.', MAX_RESULTS.toLocaleString())
        : c.matched > c.shown
          ? l10n.t('{0} match; the best {1} are shown.', c.matched.toLocaleString(), c.shown.toLocaleString())
          : undefined,
    indexing ? l10n.t('Transcripts are still being indexed: more may match.') : undefined,
    c.notLoaded ? l10n.t('More sessions are not loaded yet.') : undefined,
  ]
    .filter(Boolean)
    .join(' ');
}

/** Why the list is empty. */
export function emptyText(list: { readonly configured: number; readonly shown: number; readonly searching: boolean; readonly scope: Scope }): string {
  if (list.configured === 0) return l10n.t('No agents are configured.');
  if (list.searching) return l10n.t('No session matches the search.');
  if (list.shown === 0) return l10n.t('This agent is not configured any more.');
  switch (list.scope) {
    case 'workspace':
      return l10n.t('No sessions with exactly this workspace’s folders yet. “These folders” and “All” show more.');
    case 'folders':
      return l10n.t('No sessions in these folders yet. “All” shows sessions in other folders.');
    case 'all':
      return l10n.t('No sessions yet.');
  }
}

/**
 * The row closing an agent's part of the list (in a trusted workspace): why only local history is shown, the
 * error that stopped its list with Retry, that it is loading (`paging`: background paging reads it), or that
 * more can be loaded; none when its list is complete.
 */
export function statusRowOf(agent: AgentEntry, plan: SourcePlan, paging: boolean): StatusRow | undefined {
  const base = { kind: 'status' as const, key: `status:${agent.name}`, agentName: agent.name };
  if (!agent.running) {
    return { ...base, state: 'info', message: l10n.t('{0} is not running: these are the sessions opened in this client.', agent.name), action: 'startAgent' };
  }
  if (!agent.catalog) {
    return {
      ...base,
      state: 'info',
      message: l10n.t('{0} does not list its sessions: this is the local history of sessions opened in this client.', agent.name),
    };
  }
  const error = agent.catalog.errorFor(plan);
  if (error !== undefined) return { ...base, state: 'error', message: l10n.t('Could not load more sessions: {0}', error), action: 'retry' };
  if (agent.catalog.isLoading || paging) return { ...base, state: 'loading', message: l10n.t('Loading sessions…') };
  if (agent.catalog.hasMore(plan)) return { ...base, state: 'more', message: l10n.t('More sessions'), action: 'loadMore' };
  return undefined;
}
