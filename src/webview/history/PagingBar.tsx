/**
 * Above the list while a search loads more sessions in the background: how many are loaded, with Stop; once
 * stopped, "Search All Sessions" goes on. Screen readers hear when paging starts or stops, not every page.
 */
import * as l10n from '@vscode/l10n';
import type { PagingBar as Bar } from '../../shared/historyProtocol';
import { Button } from '../common/controls';
import { Icon } from '../common/icon';
import { host } from './host';

export function PagingBar(props: { bar: Bar }) {
  const { bar } = props;
  const action = bar.action;
  const announcement =
    bar.state === 'loading' ? l10n.t('Loading more sessions to search.') : bar.state === 'stopped' ? l10n.t('Stopped loading sessions.') : bar.message;
  return (
    <div class={`paging state-${bar.state}`}>
      <Icon name={bar.state === 'loading' ? 'loading' : 'info'} spin={bar.state === 'loading'} />
      <span class="paging-text">{bar.message}</span>
      {action ? (
        // One button whose words change, so keyboard focus stays on it after a Stop.
        <Button
          small
          class="paging-action"
          aria-label={action === 'stop' ? l10n.t('Stop loading sessions') : undefined}
          onClick={() => host.post({ type: 'paging', action })}
        >
          {action === 'stop' ? l10n.t('Stop') : l10n.t('Search All Sessions')}
        </Button>
      ) : null}
      <span class="visually-hidden" role="status">
        {announcement}
      </span>
    </div>
  );
}
