/**
 * The Sessions view's paging bar in words: how many sessions a search has loaded while more load in the
 * background, that the user stopped it, or that it reached the cap. `session/list` has no total, so it says
 * only what is known.
 */
import * as l10n from '@vscode/l10n';
import type { PagingBar } from '../shared/historyProtocol';
import type { PagingProgress } from './backgroundPaging';

/** The bar for `progress`, or undefined when paging has nothing to say (nothing wanted, all loaded, an error). */
export function pagingBar(progress: PagingProgress): PagingBar | undefined {
  const { loaded } = progress;
  const count = loaded.toLocaleString();
  if (progress.active) {
    return {
      state: 'loading',
      action: 'stop',
      message:
        loaded === 1
          ? l10n.t('Searching… 1 session loaded so far, more are loading.')
          : l10n.t('Searching… {0} sessions loaded so far, more are loading.', count),
    };
  }
  if (progress.capped) {
    return { state: 'capped', message: l10n.t('{0} sessions loaded, the most this view loads from one agent: older sessions are not searched.', count) };
  }
  if (progress.stopped) {
    return {
      state: 'stopped',
      action: 'resume',
      message:
        loaded === 1
          ? l10n.t('Stopped: 1 session loaded; older sessions are not searched.')
          : l10n.t('Stopped: {0} sessions loaded; older sessions are not searched.', count),
    };
  }
  return undefined;
}
