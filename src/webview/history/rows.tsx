/** The rows of the Sessions view's list: a session (title, time, folders, snippet, quick actions) and the status row closing an agent's part. */
import * as l10n from '@vscode/l10n';
import type { ActionState, SessionAction, SessionRow, StatusRow } from '../../shared/historyProtocol';
import { Button, IconButton } from '../common/controls';
import { Icon } from '../common/icon';
import type { IconName } from '../common/icons';
import { exactTime, rowTime } from './format';
import { host } from './host';

/**
 * Text with some ranges marked, as text nodes only, in one inline span: the marks sit in the flow of the
 * text, so a word with a highlighted part reads as one word (in a flex line each piece would be an item
 * of its own, with the line's gap between them: "greet ing"). Touching ranges are one mark.
 */
export function Highlighted(props: { text: string; ranges: ReadonlyArray<readonly [number, number]>; class?: string }) {
  const parts: Array<{ text: string; mark: boolean }> = [];
  let at = 0;
  for (const [start, end] of [...props.ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > props.text.length || start >= end) continue;
    const previous = parts[parts.length - 1];
    if (start === at && previous?.mark) previous.text += props.text.slice(start, end);
    else {
      if (start > at) parts.push({ text: props.text.slice(at, start), mark: false });
      parts.push({ text: props.text.slice(start, end), mark: true });
    }
    at = end;
  }
  if (at < props.text.length) parts.push({ text: props.text.slice(at), mark: false });
  return <span class={`highlighted ${props.class ?? ''}`}>{parts.map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : p.text))}</span>;
}

/** A row's quick action: disabled ones say why in their tooltip. */
function ActionButton(props: { icon: IconName; label: string; state?: ActionState; onClick: () => void; class?: string }) {
  const enabled = props.state?.enabled ?? true;
  return (
    <IconButton
      icon={props.icon}
      label={props.label}
      class={props.class}
      unavailable={enabled ? false : (props.state?.reason ?? 'not available')}
      onClick={(event) => {
        event.stopPropagation();
        props.onClick();
      }}
    />
  );
}

export function SessionItem(props: { row: SessionRow; active: boolean; now: number; showAgent: boolean; run: (action: SessionAction, key: string) => void }) {
  const { row } = props;
  return (
    <>
      <div class="line">
        {row.pinned ? <Icon name="pinned" label={l10n.t('Pinned')} class="pin" /> : null}
        {row.open ? <Icon name="circle-filled" label={l10n.t('Open in a chat')} class="open-dot" /> : null}
        <Highlighted class={`title ${row.titled ? '' : 'placeholder'}`} text={row.title} ranges={row.highlights} />
        {row.updatedAt !== undefined ? (
          <span class="time" title={exactTime(row.updatedAt)}>
            {rowTime(row.updatedAt, props.now)}
          </span>
        ) : null}
        <span class="row-actions">
          <ActionButton
            icon={row.open ? 'eye' : 'go-to-file'}
            label={row.open ? l10n.t('Show') : l10n.t('Open')}
            state={row.actions.open}
            onClick={() => props.run('open', row.key)}
          />
          <ActionButton icon="repo-forked" label={l10n.t('Fork')} state={row.actions.fork} onClick={() => props.run('fork', row.key)} />
          <ActionButton icon="trash" label={l10n.t('Delete')} state={row.actions.delete} onClick={() => props.run('delete', row.key)} />
        </span>
      </div>
      <div class="line meta">
        {props.showAgent ? <span class="agent">{row.agentName}</span> : null}
        {row.roots.map((root) => (
          <span
            key={root.path}
            class={`chip ${root.primary ? 'primary' : ''} ${root.missing ? 'missing' : ''}`}
            title={[root.primary ? l10n.t('{0} (working folder)', root.path) : root.path, root.missing ? l10n.t('no longer exists') : undefined]
              .filter(Boolean)
              .join(' — ')}
          >
            <Icon name={root.missing ? 'warning' : root.primary ? 'home' : 'folder'} />
            {root.name}
          </span>
        ))}
        {!row.rootsKnown ? (
          <span class="chip unknown" title={l10n.t("The agent did not report the session's other folders")}>
            +?
          </span>
        ) : null}
        {row.local ? (
          <span class="badge" title={l10n.t("Known from this client's own history")}>
            {l10n.t('local')}
          </span>
        ) : null}
        {row.hidden ? <span class="badge">{l10n.t('hidden')}</span> : null}
      </div>
      {row.snippet ? (
        <div class="line snippet">
          <Highlighted class="snippet-text" text={row.snippet.text} ranges={row.snippet.highlights} />
        </div>
      ) : null}
    </>
  );
}

export function StatusItem(props: { row: StatusRow }) {
  const { row } = props;
  const act = () => row.action && host.post({ type: 'status', action: row.action, agentName: row.agentName });
  const label =
    row.action === 'retry'
      ? l10n.t('Retry')
      : row.action === 'startAgent'
        ? l10n.t('Start Agent')
        : row.action === 'loadMore'
          ? l10n.t('Load More')
          : undefined;
  return (
    <div class={`status-row state-${row.state}`}>
      <Icon
        name={row.state === 'loading' ? 'loading' : row.state === 'error' ? 'error' : row.state === 'more' ? 'ellipsis' : 'info'}
        spin={row.state === 'loading'}
      />
      <span class="status-text">{row.message}</span>
      {label && row.state !== 'more' ? (
        <Button small onClick={act}>
          {label}
        </Button>
      ) : null}
    </div>
  );
}
