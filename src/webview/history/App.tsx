/**
 * The Sessions view: agent picker, search, scope, the virtual list of sessions, and the selected session's
 * details with its actions. Everything from agents (titles, folder names, `_meta`) is rendered as text.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'preact/compat';
import { RowLayout } from '../../shared/rowLayout';
import {
  HostToSessions,
  ROW_HEIGHTS,
  type ActionState,
  type Row,
  type Scope,
  type SessionAction,
  type SessionRow,
  type SessionsToHost,
  type StatusRow,
  type ViewSettings,
} from '../../shared/historyProtocol';
import { Icon } from '../common/ui';
import { getState, onHostMessage, post, setState } from '../common/vscodeApi';
import type { SessionsStore } from './store';

const SCOPES: ReadonlyArray<{ id: Scope; label: string; title: string }> = [
  { id: 'workspace', label: 'This workspace', title: 'Sessions with exactly this workspace’s folders, in the same order' },
  { id: 'folders', label: 'These folders', title: 'Sessions that worked in any of this workspace’s folders' },
  { id: 'all', label: 'All', title: 'Every session' },
];

/** Rows rendered beyond the visible ones, on each side. */
const OVERSCAN = 8;

interface Persisted {
  readonly scrollTop?: number;
  readonly activeKey?: string;
}

// Formatters are built once: rows are rendered again on every scroll.
const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
const DAY_THIS_YEAR = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const DAY = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', year: 'numeric' });
const EXACT = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });

function relativeTime(ms: number, now: number): string {
  const seconds = Math.round((ms - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return 'just now';
  if (abs < 3600) return RELATIVE.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return RELATIVE.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return RELATIVE.format(Math.round(seconds / 86_400), 'day');
  return (abs > 300 * 86_400 ? DAY : DAY_THIS_YEAR).format(ms);
}

function exactTime(ms: number): string {
  return EXACT.format(ms);
}

/** Text with some ranges marked, as text nodes only. */
function Highlighted(props: { text: string; ranges: ReadonlyArray<readonly [number, number]> }) {
  const parts: Array<{ text: string; mark: boolean }> = [];
  let at = 0;
  for (const [start, end] of [...props.ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > props.text.length || start >= end) continue;
    if (start > at) parts.push({ text: props.text.slice(at, start), mark: false });
    parts.push({ text: props.text.slice(start, end), mark: true });
    at = end;
  }
  if (at < props.text.length) parts.push({ text: props.text.slice(at), mark: false });
  return <>{parts.map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : p.text))}</>;
}

function sessionLabel(row: SessionRow, now: number): string {
  const parts = [row.title];
  if (row.updatedAt !== undefined) parts.push(`updated ${relativeTime(row.updatedAt, now)}`);
  parts.push(row.agentName);
  parts.push(`folders ${row.roots.map((r) => `${r.name}${r.missing ? ' (missing)' : ''}`).join(', ')}`);
  if (row.open) parts.push('open');
  if (row.pinned) parts.push('pinned');
  if (row.hidden) parts.push('hidden');
  return parts.join(', ');
}

function rowContext(row: SessionRow): string {
  return JSON.stringify({
    webviewSection: 'session',
    preventDefaultContextMenuItems: true,
    key: row.key,
    canOpen: row.actions.open.enabled,
    canResume: row.actions.resume.enabled,
    canFork: row.actions.fork.enabled,
    canClose: row.actions.close.enabled,
    canDelete: row.actions.delete.enabled,
    pinned: row.pinned,
    hidden: row.hidden,
  });
}

function ActionButton(props: { icon: string; label: string; state?: ActionState; onClick: () => void; class?: string }) {
  const enabled = props.state?.enabled ?? true;
  return (
    <button
      type="button"
      class={`icon-button ${props.class ?? ''}`}
      aria-label={props.label}
      title={enabled ? props.label : `${props.label}: ${props.state?.reason ?? 'not available'}`}
      aria-disabled={!enabled}
      onClick={(event) => {
        event.stopPropagation();
        if (enabled) props.onClick();
      }}
    >
      <Icon name={props.icon} />
    </button>
  );
}

function SessionItem(props: { row: SessionRow; active: boolean; now: number; showAgent: boolean; run: (action: SessionAction, key: string) => void }) {
  const { row } = props;
  return (
    <>
      <div class="line">
        {row.pinned ? <Icon name="pinned" label="Pinned" class="pin" /> : null}
        {row.open ? <Icon name="circle-filled" label="Open in a chat" class="open-dot" /> : null}
        <span class={`title ${row.titled ? '' : 'placeholder'}`}>
          <Highlighted text={row.title} ranges={row.highlights} />
        </span>
        {row.updatedAt !== undefined ? (
          <span class="time" title={exactTime(row.updatedAt)}>
            {relativeTime(row.updatedAt, props.now)}
          </span>
        ) : null}
        <span class="row-actions">
          <ActionButton icon={row.open ? 'eye' : 'go-to-file'} label={row.open ? 'Show' : 'Open'} state={row.actions.open} onClick={() => props.run('open', row.key)} />
          <ActionButton icon="repo-forked" label="Fork" state={row.actions.fork} onClick={() => props.run('fork', row.key)} />
          <ActionButton icon="trash" label="Delete" state={row.actions.delete} onClick={() => props.run('delete', row.key)} />
        </span>
      </div>
      <div class="line meta">
        {props.showAgent ? <span class="agent">{row.agentName}</span> : null}
        {row.roots.map((root) => (
          <span key={root.path} class={`chip ${root.primary ? 'primary' : ''} ${root.missing ? 'missing' : ''}`} title={`${root.path}${root.primary ? ' (working folder)' : ''}${root.missing ? ' — no longer exists' : ''}`}>
            <Icon name={root.missing ? 'warning' : root.primary ? 'home' : 'folder'} />
            {root.name}
          </span>
        ))}
        {!row.rootsKnown ? (
          <span class="chip unknown" title="The agent did not report the session's other folders">
            +?
          </span>
        ) : null}
        {row.local ? <span class="badge" title="Known from this client's own history">local</span> : null}
        {row.hidden ? <span class="badge">hidden</span> : null}
      </div>
      {row.snippet ? (
        <div class="line snippet">
          <Highlighted text={row.snippet.text} ranges={row.snippet.highlights} />
        </div>
      ) : null}
    </>
  );
}

function StatusItem(props: { row: StatusRow }) {
  const { row } = props;
  const act = () => row.action && post<SessionsToHost>({ type: 'status', action: row.action, agentName: row.agentName });
  const label = row.action === 'retry' ? 'Retry' : row.action === 'startAgent' ? 'Start Agent' : row.action === 'loadMore' ? 'Load More' : undefined;
  return (
    <div class={`status-row state-${row.state}`}>
      <Icon name={row.state === 'loading' ? 'loading' : row.state === 'error' ? 'error' : row.state === 'more' ? 'ellipsis' : 'info'} spin={row.state === 'loading'} />
      <span class="status-text">{row.message}</span>
      {label && row.state !== 'more' ? (
        <button type="button" class="button secondary small" onClick={act}>
          {label}
        </button>
      ) : null}
    </div>
  );
}

function Details(props: { row: SessionRow; run: (action: SessionAction, key: string) => void }) {
  const { row, run } = props;
  const button = (action: SessionAction, label: string, state?: ActionState) => {
    const enabled = state?.enabled ?? true;
    return (
      <button
        type="button"
        class="button secondary small"
        aria-disabled={!enabled}
        title={enabled ? undefined : state?.reason}
        onClick={() => enabled && run(action, row.key)}
      >
        {label}
      </button>
    );
  };
  return (
    <section class="details" aria-label="Selected session">
      <div class="details-title">{row.title}</div>
      <div class="details-line">
        {row.agentName} · <code title="Session ID">{row.sessionId}</code>
      </div>
      {row.updatedAt !== undefined ? <div class="details-line">Updated {exactTime(row.updatedAt)}</div> : null}
      <ul class="details-roots" aria-label="Folders">
        {row.roots.map((root) => (
          <li key={root.path} class={root.missing ? 'missing' : ''} title={`${root.path}${root.primary ? ' (working folder)' : ''}${root.missing ? ' — no longer exists' : ''}`}>
            <Icon name={root.missing ? 'warning' : root.primary ? 'home' : 'folder'} />
            <span class="root-name">{root.name}</span>
            <span class="root-path">{root.path}</span>
            {root.missing ? <span class="badge warn">missing</span> : null}
          </li>
        ))}
        {!row.rootsKnown ? <li class="unknown">Other folders unknown: the agent did not report them.</li> : null}
      </ul>
      {row.meta !== undefined ? (
        <details class="meta-details">
          <summary>Agent details (_meta)</summary>
          <pre>{row.meta}</pre>
        </details>
      ) : null}
      <div class="details-actions">
        {button('open', row.open ? 'Show' : 'Open', row.actions.open)}
        {button('resume', 'Resume', row.actions.resume)}
        {button('fork', 'Fork', row.actions.fork)}
        {row.open ? button('close', 'Close', row.actions.close) : null}
        {button('rename', 'Rename')}
        {button(row.pinned ? 'unpin' : 'pin', row.pinned ? 'Unpin' : 'Pin')}
        {button(row.hidden ? 'unhide' : 'hide', row.hidden ? 'Unhide' : 'Hide')}
        {button('copyId', 'Copy ID')}
        {button('delete', 'Delete…', row.actions.delete)}
      </div>
    </section>
  );
}

export function App(props: { store: SessionsStore }) {
  const { store } = props;
  useSyncExternalStore((listener) => store.subscribe(listener), () => store.revision);
  const state = store.state;
  const persisted = useMemo(() => getState<Persisted>() ?? {}, []);
  const [query, setQuery] = useState<string | undefined>(undefined);
  const [activeIndex, setActiveIndex] = useState<number | undefined>(undefined);
  const [activeKey, setActiveKey] = useState<string | undefined>(persisted.activeKey);
  const [scrollTop, setScrollTop] = useState(persisted.scrollTop ?? 0);
  const [viewport, setViewport] = useState(400);
  const [now, setNow] = useState(Date.now());
  const list = useRef<HTMLDivElement>(null);
  const restored = useRef(false);

  useEffect(() => onHostMessage(HostToSessions, (message) => store.receive(message)), [store]);
  useEffect(() => post<SessionsToHost>({ type: 'ready' }), []);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    const element = list.current;
    if (!element) return undefined;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    setViewport(element.clientHeight);
    return () => observer.disconnect();
  }, [state !== undefined]);

  const settings = store.settings;
  const searching = state?.searching ?? false;
  const layout = useMemo(
    () => new RowLayout(state?.count ?? 0, state?.specials ?? [], searching ? ROW_HEIGHTS.sessionWithSnippet : ROW_HEIGHTS.session),
    [state],
  );

  // Restore the scroll position once after a reload of the view.
  useLayoutEffect(() => {
    if (restored.current || !state || !list.current) return;
    restored.current = true;
    list.current.scrollTop = scrollTop;
  }, [state]);

  const first = Math.max(0, layout.indexAt(scrollTop) - OVERSCAN);
  const last = Math.min(layout.count, layout.indexAt(scrollTop + viewport) + 1 + OVERSCAN);
  useEffect(() => store.want(first, last), [store, first, last, store.revision]);

  // The active row follows its session across list changes.
  useEffect(() => {
    if (!activeKey || !state) return;
    for (let i = first; i < last; i++) {
      const row = store.row(i);
      if (row?.kind === 'session' && row.key === activeKey && activeIndex !== i) setActiveIndex(i);
    }
  }, [store.revision]);

  const send = (next: Partial<ViewSettings>) => store.sendSettings(next);
  const run = (action: SessionAction, key: string) => post<SessionsToHost>({ type: 'action', action, key });

  const selectIndex = (index: number | undefined, scroll = true) => {
    setActiveIndex(index);
    const row = index === undefined ? undefined : store.row(index);
    const key = row?.kind === 'session' ? row.key : undefined;
    setActiveKey(key);
    setState<Persisted>({ scrollTop: list.current?.scrollTop ?? 0, activeKey: key });
    if (scroll && index !== undefined && list.current) {
      const top = layout.offset(index);
      const bottom = top + layout.heightOf(index);
      const element = list.current;
      if (top < element.scrollTop) element.scrollTop = top;
      else if (bottom > element.scrollTop + element.clientHeight) element.scrollTop = bottom - element.clientHeight;
    }
  };

  /** The next row the keyboard can land on (sessions and status rows; headers are skipped). */
  const step = (from: number, delta: number): number | undefined => {
    for (let i = from + delta; i >= 0 && i < layout.count; i += delta) {
      const row = store.row(i);
      if (!row || row.kind !== 'group') return i;
    }
    return undefined;
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const current = activeIndex ?? -1;
    const page = Math.max(1, Math.floor(viewport / layout.rowHeight) - 1);
    let next: number | undefined;
    switch (event.key) {
      case 'ArrowDown':
        next = step(current, 1);
        break;
      case 'ArrowUp':
        next = current <= 0 ? undefined : step(current, -1);
        break;
      case 'PageDown':
        next = step(Math.min(layout.count - 1, current + page) - 1, 1) ?? step(current, 1);
        break;
      case 'PageUp':
        next = step(Math.max(0, current - page) + 1, -1) ?? step(current, -1);
        break;
      case 'Home':
        next = step(-1, 1);
        break;
      case 'End':
        next = step(layout.count, -1);
        break;
      case 'Enter': {
        const row = activeIndex === undefined ? undefined : store.row(activeIndex);
        if (row?.kind === 'session') run('open', row.key);
        else if (row?.kind === 'status' && row.action) post<SessionsToHost>({ type: 'status', action: row.action, agentName: row.agentName });
        event.preventDefault();
        return;
      }
      case 'Delete': {
        const row = activeIndex === undefined ? undefined : store.row(activeIndex);
        if (row?.kind === 'session' && row.actions.delete.enabled) run('delete', row.key);
        event.preventDefault();
        return;
      }
      case 'F2': {
        const row = activeIndex === undefined ? undefined : store.row(activeIndex);
        if (row?.kind === 'session') run('rename', row.key);
        event.preventDefault();
        return;
      }
      default:
        return;
    }
    event.preventDefault();
    if (next !== undefined) selectIndex(next);
  };

  if (!state || !settings) return <div class="loading">Loading…</div>;
  const active = activeIndex === undefined ? undefined : store.row(activeIndex);
  const activeSession = active?.kind === 'session' && active.key === activeKey ? active : undefined;
  const showAgent = settings.agent === null && searching;
  const rows: Array<{ index: number; row: Row | undefined }> = [];
  for (let i = first; i < last; i++) rows.push({ index: i, row: store.row(i) });

  return (
    <div class="sessions">
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
          value={query ?? settings.query}
          onInput={(event) => {
            const value = (event.currentTarget as HTMLInputElement).value;
            setQuery(value);
            send({ query: value });
          }}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault();
              list.current?.focus();
              selectIndex(step(-1, 1));
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
      <div
        class="list"
        ref={list}
        role="listbox"
        tabIndex={0}
        aria-label="Sessions"
        aria-activedescendant={activeIndex !== undefined && activeIndex >= first && activeIndex < last ? `row-${activeIndex}` : undefined}
        onScroll={(event) => {
          const top = (event.currentTarget as HTMLDivElement).scrollTop;
          setScrollTop(top);
          setState<Persisted>({ scrollTop: top, activeKey });
        }}
        onKeyDown={onKeyDown}
      >
        {state.count === 0 ? <div class="empty">{state.empty}</div> : null}
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
                <div key={row.key} id={`row-${index}`} class={`row status ${selected ? 'active' : ''}`} style={style} role="option" aria-selected={selected} onClick={() => selectIndex(index, false)}>
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
      {activeSession ? <Details row={activeSession} run={run} /> : null}
    </div>
  );
}
