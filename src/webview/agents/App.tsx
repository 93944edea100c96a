/**
 * The Add Agent tab: a search box (focused when the tab opens), the All / Installed / Updates filter, where the
 * list comes from, and the registry's agents as cards. About 150 agents: a plain list, each card rendered again
 * only when it changed (AgentCard); icons are asked for as cards come into view.
 */
import * as l10n from '@vscode/l10n';
import { useEffect, useRef, useState } from 'preact/hooks';
import { catalogStatus, filterAgents, filterCounts, type GalleryFilter } from '../../shared/agentGalleryModel';
import type { GalleryView } from '../../shared/agentGalleryProtocol';
import { Button, IconButton, Segmented } from '../common/controls';
import { Icon } from '../common/icon';
import { AgentCard } from './AgentCard';
import { host } from './host';
import type { GalleryStore } from './store';

/** The status line's relative time ("checked 3 minutes ago") is read again this often. */
const CLOCK_MS = 30_000;

/** Renders again whenever the store changes (preact/compat's useSyncExternalStore would add 6 KB to the bundle). */
function useStore(store: GalleryStore): void {
  const [, setRevision] = useState(store.revision);
  useEffect(() => {
    const stop = store.subscribe(() => setRevision(store.revision));
    setRevision(store.revision); // a change between the render and this subscription
    return stop;
  }, [store]);
}

function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), CLOCK_MS);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function CatalogLine(props: { state: GalleryView }) {
  const { state } = props;
  const now = useNow();
  const status = catalogStatus(state.catalog, now);
  const icon = status.kind === 'current' ? 'check' : status.kind === 'offline' ? 'debug-disconnect' : 'info';
  return (
    <div class={`catalog-status ${status.kind}`}>
      <Icon name={state.refreshing ? 'loading' : icon} spin={state.refreshing} />
      <span class="catalog-text">{state.refreshing ? l10n.t('Checking the registry…') : status.text}</span>
      {status.kind !== 'current' && !state.refreshing ? (
        <Button small icon="refresh" onClick={() => host.post({ type: 'refresh' })}>
          {l10n.t('Retry')}
        </Button>
      ) : null}
    </div>
  );
}

function Skipped(props: { state: GalleryView }) {
  const { skipped, problems } = props.state.catalog;
  if (skipped === 0) return null;
  return (
    <details class="skipped">
      <summary>
        <Icon name="warning" />{' '}
        {skipped === 1
          ? l10n.t('1 entry of the registry was skipped: it is not valid.')
          : l10n.t('{0} entries of the registry were skipped: they are not valid.', skipped)}
      </summary>
      <ul>
        {problems.map((problem, i) => (
          <li key={i}>{problem}</li>
        ))}
      </ul>
    </details>
  );
}

export function App(props: { store: GalleryStore }) {
  const { store } = props;
  useStore(store);
  useEffect(() => host.post({ type: 'ready' }), []);
  const search = useRef<HTMLInputElement>(null);
  const state = store.state;
  // The search box has the focus when the tab opens (and once the first state replaced "Loading…").
  useEffect(() => search.current?.focus(), [state === undefined]);

  const announcer = (
    <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
      {store.announcement}
    </div>
  );
  if (!state) {
    return (
      <div class="gallery-loading">
        {l10n.t('Loading…')}
        {announcer}
      </div>
    );
  }

  const counts = filterCounts(state.agents);
  const shown = filterAgents(state.agents, store.query, store.filter);
  const locked = state.trusted ? undefined : l10n.t('Agents are not installed in Restricted Mode: trust this workspace to install, update or remove agents.');
  const filters: ReadonlyArray<{ id: GalleryFilter; label: string }> = [
    { id: 'all', label: l10n.t('All ({0})', counts.all) },
    { id: 'installed', label: l10n.t('Installed ({0})', counts.installed) },
    { id: 'updates', label: l10n.t('Updates ({0})', counts.updates) },
  ];

  return (
    <main class="gallery">
      <header class="gallery-header">
        <div class="gallery-toolbar">
          <h1 class="gallery-title">{l10n.t('Add Agent')}</h1>
          <div class="search">
            <Icon name="search" />
            <input
              ref={search}
              type="search"
              class="search-input"
              aria-label={l10n.t('Search agents')}
              placeholder={l10n.t('Search by name, description or author')}
              value={store.query}
              onInput={(event) => store.setQuery((event.currentTarget as HTMLInputElement).value)}
            />
          </div>
          <Segmented class="filters" label={l10n.t('Show')} value={store.filter} options={filters} onChange={(filter) => store.setFilter(filter)} />
          <IconButton
            icon="refresh"
            label={l10n.t('Check the registry again')}
            spin={state.refreshing}
            unavailable={state.refreshing ? l10n.t('Checking the registry…') : false}
            onClick={() => host.post({ type: 'refresh' })}
          />
        </div>
        <CatalogLine state={state} />
        <Skipped state={state} />
        {locked !== undefined ? (
          <div class="banner warning" role="note">
            <Icon name="shield" />
            <span>{locked}</span>
          </div>
        ) : null}
        <div class="result-count" aria-live="polite">
          {shown.length === 1 ? l10n.t('1 agent') : l10n.t('{0} agents', shown.length)}
        </div>
      </header>
      {shown.length > 0 ? (
        <ul class="agent-list" aria-label={l10n.t('Agents')}>
          {shown.map((agent) => (
            <AgentCard key={agent.id} agent={agent} store={store} locked={locked} icon={store.icons.get(agent.id)} waiting={store.waiting(agent.id)} />
          ))}
        </ul>
      ) : (
        <div class="gallery-empty">
          {state.agents.length === 0
            ? l10n.t('The registry lists no agents.')
            : store.query.trim() !== ''
              ? l10n.t('No agent matches “{0}”.', store.query.trim())
              : store.filter === 'updates'
                ? l10n.t('Every installed agent is up to date.')
                : l10n.t('No agent from the registry is installed yet.')}
        </div>
      )}
      {announcer}
    </main>
  );
}
