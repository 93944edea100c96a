/** Above the list: the agent picker, the hidden-sessions toggle, the search box and the scope buttons. */
import type { Scope, ViewSettings } from '../../shared/historyProtocol';
import { Icon } from '../common/icon';
import type { ListState } from './store';

const SCOPES: ReadonlyArray<{ id: Scope; label: string; title: string }> = [
  { id: 'workspace', label: 'This workspace', title: 'Sessions with exactly this workspace’s folders, in the same order' },
  { id: 'folders', label: 'These folders', title: 'Sessions that worked in any of this workspace’s folders' },
  { id: 'all', label: 'All', title: 'Every session' },
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
        <select
          class="select agent-select"
          aria-label="Agent"
          value={settings.agent ?? ''}
          onChange={(event) => {
            const value = (event.currentTarget as HTMLSelectElement).value;
            send({ agent: value === '' ? null : value });
          }}
        >
          <option value="">All agents</option>
          {state.agents.map((agent) => (
            <option key={agent.name} value={agent.name}>
              {agent.name}
              {agent.running ? '' : ' (not running)'}
            </option>
          ))}
        </select>
        <button
          type="button"
          class={`icon-button toggle ${settings.showHidden ? 'on' : ''}`}
          aria-pressed={settings.showHidden}
          aria-label="Show hidden sessions"
          title={settings.showHidden ? 'Hidden sessions are shown' : 'Show hidden sessions'}
          onClick={() => send({ showHidden: !settings.showHidden })}
        >
          <Icon name={settings.showHidden ? 'eye' : 'eye-closed'} />
        </button>
      </div>
      <div class="search">
        <Icon name="search" />
        <input
          type="search"
          class="search-input"
          aria-label="Search sessions"
          placeholder="Search titles and text"
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
      <div class="scopes" role="radiogroup" aria-label="Scope">
        {SCOPES.map((scope) => (
          <button
            key={scope.id}
            type="button"
            role="radio"
            aria-checked={settings.scope === scope.id}
            class={`scope ${settings.scope === scope.id ? 'selected' : ''}`}
            title={scope.title}
            onClick={() => send({ scope: scope.id })}
          >
            {scope.label}
          </button>
        ))}
      </div>
    </>
  );
}
