/**
 * The Sessions view: agent picker, search, scope, the virtual list of sessions, and the selected session's
 * details with its actions. Everything from agents (titles, folder names, `_meta`) is rendered as text.
 */
import * as l10n from '@vscode/l10n';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'preact/compat';
import type { RowLayout } from '../../shared/rowLayout';
import type { Row, SessionAction, ViewSettings } from '../../shared/historyProtocol';
import { Icon } from '../common/icon';
import { Details } from './Details';
import { rowContext, sessionLabel } from './format';
import { host } from './host';
import { PagingBar } from './PagingBar';
import { SessionItem, StatusItem } from './rows';
import type { SessionsStore } from './store';
import { Toolbar } from './Toolbar';
import { useListKeyboard } from './useListKeyboard';
import { useVirtualList } from './useVirtualList';
import { loadViewState, saveViewState } from './viewState';

export function App(props: { store: SessionsStore }) {
  const { store } = props;
  useSyncExternalStore(
    (listener) => store.subscribe(listener),
    () => store.revision,
  );
  const state = store.state;
  const saved = useMemo(loadViewState, []);
  const [query, setQuery] = useState<string | undefined>(undefined);
  const [activeIndex, setActiveIndex] = useState<number | undefined>(undefined);
  const [activeKey, setActiveKey] = useState<string | undefined>(saved.activeKey);
  const [now, setNow] = useState(Date.now());
  const { list, layout, first, last, viewport, setScrollTop, reveal } = useVirtualList(store, state, saved.scrollTop ?? 0);

  useEffect(() => host.onMessage((message) => store.receive(message)), [store]);
  useEffect(() => host.post({ type: 'ready' }), []);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);

  // The host keeps the selected row's place in every new list (`anchor`): results improve as pages arrive
  // without the selected row moving on screen.
  useEffect(() => host.post({ type: 'selected', key: activeKey ?? null }), [activeKey]);
  const shown = useRef<{ layout: RowLayout; activeIndex: number | undefined } | undefined>(undefined);
  useLayoutEffect(() => {
    const element = list.current;
    const anchor = state?.anchor;
    const before = shown.current;
    if (!element || !anchor || anchor.key !== activeKey || before?.activeIndex === undefined || anchor.index === before.activeIndex) return;
    const onScreen = before.layout.offset(before.activeIndex) - element.scrollTop;
    if (onScreen > -before.layout.heightOf(before.activeIndex) && onScreen < element.clientHeight) {
      element.scrollTop = layout.offset(anchor.index) - onScreen;
      setScrollTop(element.scrollTop);
    }
    setActiveIndex(anchor.index);
  }, [state]);
  useLayoutEffect(() => {
    shown.current = { layout, activeIndex };
  });

  // The active row follows its session across list changes.
  useEffect(() => {
    if (!activeKey || !state) return;
    for (let i = first; i < last; i++) {
      const row = store.row(i);
      if (row?.kind === 'session' && row.key === activeKey && activeIndex !== i) setActiveIndex(i);
    }
  }, [store.revision]);

  const send = (next: Partial<ViewSettings>) => store.sendSettings(next);
  const run = (action: SessionAction, key: string) => host.post({ type: 'action', action, key });

  const selectIndex = (index: number | undefined, scroll = true) => {
    setActiveIndex(index);
    const row = index === undefined ? undefined : store.row(index);
    const key = row?.kind === 'session' ? row.key : undefined;
    setActiveKey(key);
    saveViewState({ scrollTop: list.current?.scrollTop ?? 0, activeKey: key });
    if (scroll && index !== undefined) reveal(index);
  };
  const keyboard = useListKeyboard({ store, layout, viewport, activeIndex, select: (index) => selectIndex(index), run });

  const settings = store.settings;
  if (!state || !settings) return <div class="loading">{l10n.t('Loading…')}</div>;
  const active = activeIndex === undefined ? undefined : store.row(activeIndex);
  const activeSession = active?.kind === 'session' && active.key === activeKey ? active : undefined;
  const showAgent = settings.agent === null && state.searching;
  const rows: Array<{ index: number; row: Row | undefined }> = [];
  for (let i = first; i < last; i++) rows.push({ index: i, row: store.row(i) });

  return (
    <div class="sessions">
      <Toolbar
        state={state}
        settings={settings}
        query={query ?? settings.query}
        onQuery={setQuery}
        send={send}
        onEnterList={() => {
          list.current?.focus();
          selectIndex(keyboard.step(-1, 1));
        }}
      />
      {state.notices.map((notice, i) => (
        <div key={i} class="notice" role="status">
          <Icon name="info" />
          <span>{notice}</span>
        </div>
      ))}
      {state.coverage ? (
        <div class="coverage" role="status">
          {state.coverage}
        </div>
      ) : null}
      {state.count === 0 ? (
        <div class="empty" role="status">
          <p>{state.empty}</p>
          <div class="empty-actions">
            {state.searching ? (
              <button
                type="button"
                class="button secondary"
                onClick={() => {
                  setQuery('');
                  send({ query: '' });
                }}
              >
                {l10n.t('Clear Search')}
              </button>
            ) : state.agents.length > 0 ? (
              <>
                <button type="button" class="button" onClick={() => host.post({ type: 'newSession', agentName: settings.agent })}>
                  {l10n.t('New Session')}
                </button>
                {settings.scope !== 'all' ? (
                  <button type="button" class="button secondary" onClick={() => send({ scope: 'all' })}>
                    {l10n.t('Show All Sessions')}
                  </button>
                ) : null}
              </>
            ) : null}
          </div>
        </div>
      ) : null}
      <div
        class="list"
        ref={list}
        role="listbox"
        tabIndex={0}
        aria-label={l10n.t('Sessions')}
        aria-activedescendant={activeIndex !== undefined && activeIndex >= first && activeIndex < last ? `row-${activeIndex}` : undefined}
        onScroll={(event) => {
          const top = (event.currentTarget as HTMLDivElement).scrollTop;
          setScrollTop(top);
          saveViewState({ scrollTop: top, activeKey });
        }}
        onKeyDown={keyboard.onKeyDown}
      >
        <div class="spacer" style={{ height: `${layout.total}px` }}>
          {rows.map(({ index, row }) => {
            const style = { top: `${layout.offset(index)}px`, height: `${layout.heightOf(index)}px` };
            if (!row) return <div key={`pending-${index}`} class="row pending" style={style} aria-hidden="true" />;
            if (row.kind === 'group') {
              return (
                <div key={row.key} class={`row group level-${row.level}`} style={style} role="presentation">
                  <span>{row.label}</span>
                  <span class="count">{row.count}</span>
                </div>
              );
            }
            const selected = index === activeIndex;
            if (row.kind === 'status') {
              return (
                <div
                  key={row.key}
                  id={`row-${index}`}
                  class={`row status ${selected ? 'active' : ''}`}
                  style={style}
                  role="option"
                  aria-selected={selected}
                  onClick={() => selectIndex(index, false)}
                >
                  <StatusItem row={row} />
                </div>
              );
            }
            return (
              <div
                key={row.key}
                id={`row-${index}`}
                class={`row session ${selected ? 'active' : ''} ${row.open ? 'is-open' : ''}`}
                style={style}
                role="option"
                aria-selected={selected}
                aria-setsize={state.count}
                aria-posinset={index + 1}
                aria-label={sessionLabel(row, now)}
                data-vscode-context={rowContext(row)}
                onClick={() => selectIndex(index, false)}
                onDblClick={() => row.actions.open.enabled && run('open', row.key)}
                onContextMenu={() => selectIndex(index, false)}
              >
                <SessionItem row={row} active={selected} now={now} showAgent={showAgent} run={run} />
              </div>
            );
          })}
        </div>
      </div>
      {/* Below the list: coming and going, it must not move the rows the user looks at. */}
      {state.paging ? <PagingBar bar={state.paging} /> : null}
      {activeSession ? <Details row={activeSession} run={run} /> : null}
    </div>
  );
}
