/** The selected session's details: title, id, time, folders (missing ones marked), the agent's `_meta` as text, and every action. */
import * as l10n from '@vscode/l10n';
import type { ActionState, SessionAction, SessionRow } from '../../shared/historyProtocol';
import { Button } from '../common/controls';
import { Icon } from '../common/icon';
import { exactTime } from './format';

export function Details(props: { row: SessionRow; run: (action: SessionAction, key: string) => void }) {
  const { row, run } = props;
  const button = (action: SessionAction, label: string, state?: ActionState) => {
    const enabled = state?.enabled ?? true;
    return (
      <Button small unavailable={enabled ? false : (state?.reason ?? 'Not available')} onClick={() => run(action, row.key)}>
        {label}
      </Button>
    );
  };
  // The facts scroll; the actions below them always show whole, however narrow or short the view.
  return (
    <section class="details" aria-label={l10n.t('Selected session')}>
      <div class="details-info">
        <div class="details-title">{row.title}</div>
        <div class="details-line">
          {row.agentName} · <code title={l10n.t('Session ID')}>{row.sessionId}</code>
        </div>
        {row.updatedAt !== undefined ? <div class="details-line">{l10n.t('Updated {0}', exactTime(row.updatedAt))}</div> : null}
        <ul class="details-roots" aria-label={l10n.t('Folders')}>
          {row.roots.map((root) => (
            <li
              key={root.path}
              class={root.missing ? 'missing' : ''}
              title={[root.primary ? l10n.t('{0} (working folder)', root.path) : root.path, root.missing ? l10n.t('no longer exists') : undefined]
                .filter(Boolean)
                .join(' — ')}
            >
              <Icon name={root.missing ? 'warning' : root.primary ? 'home' : 'folder'} />
              <span class="root-name">{root.name}</span>
              <span class="root-path">{root.path}</span>
              {root.missing ? <span class="badge warn">{l10n.t('missing')}</span> : null}
            </li>
          ))}
          {!row.rootsKnown ? <li class="unknown">{l10n.t('Other folders unknown: the agent did not report them.')}</li> : null}
        </ul>
        {row.meta !== undefined ? (
          <details class="meta-details">
            <summary>{l10n.t('Agent details (_meta)')}</summary>
            <pre>{row.meta}</pre>
          </details>
        ) : null}
      </div>
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
