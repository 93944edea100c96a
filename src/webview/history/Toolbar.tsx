/** Above the list: the agent picker, the hidden-sessions toggle, the search box and the scope buttons. */
import * as l10n from '@vscode/l10n';
import type { Scope, ViewSettings } from '../../shared/historyProtocol';
import { IconButton, Segmented, Select } from '../common/controls';
import { Icon } from '../common/icon';
import type { ListState } from './store';

const SCOPES: ReadonlyArray<{ id: Scope; label: string; title: string }> = [
  { id: 'workspace', label: l10n.t('This workspace'), title: l10n.t('Sessions with exactly this workspace’s folders, in the same order') },
  { id: 'folders', label: l10n.t('These folders'), title: l10n.t('Sessions that worked in any of this workspace’s folders') },
  { id: 'all', label: l10n.t('All'), title: l10n.t('Every session') },
];

export function Toolbar(props: {
  state: ListState;
  settings: ViewSettings;
  /** What is in the search box (it runs ahead of the settings the host applied). */
  query: string;
  onQuery: (query: string) => void;
  send: (change: Partial<ViewSettings>) => void;
  /** Arrow Down in the search box: into the list. */
  onEnterList: () => void;
}) {
  const { state, settings, send } = props;
  return (
    <>
      <div class="toolbar">
        <Select
          class="agent-select"
          wrapClass="agent-select-wrap"
          label={l10n.t('Agent')}
          value={settings.agent ?? ''}
          onChange={(value) => send({ agent: value === '' ? null : value })}
        >
          <option value="">{l10n.t('All agents')}</option>
          {state.agents.map((agent) => (
            <option key={agent.name} value={agent.name}>
              {agent.running ? agent.name : l10n.t('{0} (not running)', agent.name)}
            </option>
          ))}
        </Select>
        <IconButton
          icon={settings.showHidden ? 'eye' : 'eye-closed'}
          class="toggle"
          aria-pressed={settings.showHidden}
          label={l10n.t('Show hidden sessions')}
          title={settings.showHidden ? l10n.t('Hidden sessions are shown') : l10n.t('Show hidden sessions')}
          onClick={() => send({ showHidden: !settings.showHidden })}
        />
      </div>
      <div class="search">
        <Icon name="search" />
        <input
          type="search"
          class="search-input"
          aria-label={l10n.t('Search sessions')}
          placeholder={l10n.t('Search titles and text')}
          value={props.query}
          onInput={(event) => {
            const value = (event.currentTarget as HTMLInputElement).value;
            props.onQuery(value);
            send({ query: value });
          }}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault();
              props.onEnterList();
            }
          }}
        />
      </div>
      <Segmented class="scopes" itemClass="scope" label={l10n.t('Scope')} value={settings.scope} options={SCOPES} onChange={(scope) => send({ scope })} />
    </>
  );
}
