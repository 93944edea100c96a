/** The rows of the Sessions view's list: a session (title, time, folders, snippet, quick actions) and the status row closing an agent's part. */
import type { ActionState, SessionAction, SessionRow, StatusRow } from '../../shared/historyProtocol';
import { Icon } from '../common/icon';
import { exactTime, relativeTime } from './format';
import { host } from './host';

/** Text with some ranges marked, as text nodes only. */
export function Highlighted(props: { text: string; ranges: ReadonlyArray<readonly [number, number]> }) {
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

/** A row's quick action: disabled ones say why in their tooltip. */
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

export function SessionItem(props: { row: SessionRow; active: boolean; now: number; showAgent: boolean; run: (action: SessionAction, key: string) => void }) {
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

export function StatusItem(props: { row: StatusRow }) {
  const { row } = props;
  const act = () => row.action && host.post({ type: 'status', action: row.action, agentName: row.agentName });
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
