/** An error in the chat: what failed, the agent's own words (its last stderr lines), the likely cause, and the ways forward. */
import * as l10n from '@vscode/l10n';
import { useEffect, useState } from 'preact/hooks';
import type { ViewEntryOf } from '../../shared/chatModel';
import { Button } from '../common/controls';
import { Icon } from '../common/icon';
import { host } from './host';

const ERROR_ACTIONS: Record<string, string> = {
  restart: 'Restart Agent',
  reopen: 'Reopen Session',
  signIn: 'Sign In',
  setToken: 'Set Token…',
  showLog: 'Show Log',
  messageSizeSetting: 'Open Setting',
  openSettings: 'Open Settings',
};

/**
 * Errors already rendered once in this view. An entry is rendered again each time it scrolls back into
 * view (the transcript is virtualized): as an alert it would be announced again every time.
 */
const announced = new Set<string>();

export function ErrorEntry({ entry }: { entry: ViewEntryOf<'error'> }) {
  const [role] = useState<'note' | 'alert'>(() => (announced.has(entry.id) ? 'note' : 'alert'));
  useEffect(() => void announced.add(entry.id), [entry.id]);
  return (
    <div class="entry error" role={role}>
      <Icon name="error" />
      <div class="error-body">
        <div>{entry.message}</div>
        {entry.said && entry.said.length > 0 ? (
          <figure class="error-said">
            <figcaption>{l10n.t('The agent said:')}</figcaption>
            <pre>{entry.said.join('\n')}</pre>
          </figure>
        ) : null}
        {entry.advice ? <div class="error-advice">{entry.advice}</div> : null}
        <div class="error-actions">
          {entry.actions.map((action) => (
            <Button key={action} onClick={() => host.post({ type: 'action', action })}>
              {ERROR_ACTIONS[action] ?? action}
            </Button>
          ))}
        </div>
      </div>
    </div>
  );
}
