/** One file of the review: a card with its status, path, counts and actions, and when expanded its hunks. */
import * as l10n from '@vscode/l10n';
import { diffRows, linesWithin, STATUS_LETTER } from '../../shared/changesView';
import type { ReviewFile, ReviewHunk } from '../../shared/reviewProtocol';
import { Button, IconButton } from '../common/controls';
import { Icon } from '../common/icon';
import { host } from './host';
import type { ReviewStore } from './store';

/** Hunk lines rendered per file before "Show all" (a large diff stays fast). */
export const FILE_LINE_BUDGET = 300;

const STATUS_WORD: Record<ReviewFile['status'], string> = { added: 'Added', modified: 'Modified', deleted: 'Deleted', renamed: 'Renamed' };

function PathText(props: { path: string; old?: boolean }) {
  const slash = props.path.lastIndexOf('/');
  return (
    <span class={props.old ? 'path old' : 'path'}>
      {slash >= 0 ? <span class="path-dir">{props.path.slice(0, slash + 1)}</span> : null}
      <span class="path-name">{props.path.slice(slash + 1)}</span>
    </span>
  );
}

function Hunk(props: { file: ReviewFile; hunk: ReviewHunk; index: number; count: number; shown: number; store: ReviewStore }) {
  const { file, hunk, index, count, shown, store } = props;
  const rows = diffRows(hunk).slice(0, shown);
  const label = l10n.t('hunk {0} of {1}', index + 1, file.path);
  const range = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
  return (
    <div class="hunk" role="group" aria-label={count > 1 ? l10n.t('Hunk {0} of {1}', index + 1, count) : l10n.t('Hunk')}>
      <div class="hunk-header">
        <span class="hunk-range">{range}</span>
        <span class="hunk-actions">
          <Button
            small
            disabled={store.busy}
            aria-label={l10n.t('Accept {0}', label)}
            title={l10n.t('Keep this change')}
            onClick={() => store.act((version) => ({ type: 'accept', version, key: file.key, hunk: index }))}
          >
            <Icon name="check" /> {l10n.t('Accept')}
          </Button>
          <Button
            small
            disabled={store.busy}
            aria-label={l10n.t('Reject {0}', label)}
            title={l10n.t('Undo this change')}
            onClick={() => store.act((version) => ({ type: 'reject', version, key: file.key, hunk: index }))}
          >
            <Icon name="discard" /> {l10n.t('Reject')}
          </Button>
        </span>
      </div>
      <table class="diff">
        <tbody>
          {rows.map((row, i) => (
            <tr key={i} class={`diff-line ${row.kind}`}>
              <td class="line-number">{row.oldLine ?? ''}</td>
              <td class="line-number">{row.newLine ?? ''}</td>
              <td class="line-sign">{row.kind === 'added' ? '+' : row.kind === 'removed' ? '-' : ''}</td>
              <td class="line-text">{row.text}</td>
            </tr>
          ))}
          {shown === hunk.lines.length && hunk.omitted ? (
            <tr class="diff-line omitted">
              <td class="line-number" />
              <td class="line-number" />
              <td class="line-sign" />
              <td class="line-text">{hunk.omitted === 1 ? l10n.t('… {0} more line', hunk.omitted) : l10n.t('… {0} more lines', hunk.omitted)}</td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}

function Body(props: { file: ReviewFile; store: ReviewStore }) {
  const { file } = props;
  if (!file.mixed) return <Hunks {...props} />;
  return (
    <>
      <div class="no-hunks mixed-note">{l10n.t('You changed the same lines after the agent did: your edits show here with its changes.')}</div>
      <Hunks {...props} />
    </>
  );
}

function Hunks(props: { file: ReviewFile; store: ReviewStore }) {
  const { file, store } = props;
  if (file.noHunks !== undefined || !file.hunks) {
    return <div class="no-hunks">{file.noHunks ?? l10n.t('Review this file as a whole.')}</div>;
  }
  if (file.hunks.length === 0) return <div class="no-hunks">{l10n.t('No line changes.')}</div>;
  const hunks = file.hunks;
  const { shown, hidden } = linesWithin(hunks, store.isShowingAll(file.key) ? Infinity : FILE_LINE_BUDGET);
  return (
    <div class="hunks">
      {hunks.map((hunk, i) => (shown[i] > 0 ? <Hunk key={i} file={file} hunk={hunk} index={i} count={hunks.length} shown={shown[i]} store={store} /> : null))}
      {hidden > 0 ? (
        <Button small class="show-all" onClick={() => store.showAll(file.key)}>
          {hidden === 1 ? l10n.t('Show all ({0} more line)', hidden) : l10n.t('Show all ({0} more lines)', hidden)}
        </Button>
      ) : null}
    </div>
  );
}

export function FileCard(props: { file: ReviewFile; index: number; store: ReviewStore }) {
  const { file, index, store } = props;
  const expanded = store.isExpanded(file.key, index);
  const bodyId = `file-${index}`;
  return (
    <div class={`file-card ${file.status}`}>
      <div class="file-header">
        <button
          class="file-toggle"
          type="button"
          aria-expanded={expanded}
          aria-controls={expanded ? bodyId : undefined}
          title={`${STATUS_WORD[file.status]}: ${file.oldPath ? `${file.oldPath} → ` : ''}${file.path}`}
          onClick={() => store.toggle(file.key, index)}
        >
          <Icon name={expanded ? 'chevron-down' : 'chevron-right'} />
          <span class={`status-letter ${file.status}`} aria-label={STATUS_WORD[file.status]}>
            {STATUS_LETTER[file.status]}
          </span>
          {file.oldPath !== undefined ? (
            <>
              <PathText path={file.oldPath} old />
              <span class="rename-arrow" aria-label={l10n.t('renamed to')}>
                →
              </span>
            </>
          ) : null}
          <PathText path={file.path} />
        </button>
        <span class="file-counts">
          {file.binary ? (
            <span class="badge">{l10n.t('binary')}</span>
          ) : (
            <>
              <span class="count-added">{`+${file.added}`}</span> <span class="count-removed">{`−${file.removed}`}</span>
            </>
          )}
        </span>
        <span class="file-actions">
          <IconButton
            icon="diff"
            label={l10n.t('Open diff of {0}', file.path)}
            title={l10n.t('Open Diff')}
            onClick={() => host.post({ type: 'openDiff', key: file.key })}
          />
          {file.status !== 'deleted' ? (
            <IconButton
              icon="go-to-file"
              label={l10n.t('Open {0}', file.path)}
              title={l10n.t('Open File')}
              onClick={() => host.post({ type: 'openFile', key: file.key })}
            />
          ) : null}
          <Button
            primary
            small
            disabled={store.busy}
            aria-label={l10n.t('Accept {0}', file.path)}
            title={l10n.t('Keep the changes to this file')}
            onClick={() => store.act((version) => ({ type: 'accept', version, key: file.key }))}
          >
            <Icon name="check" /> {l10n.t('Accept')}
          </Button>
          <Button
            small
            disabled={store.busy}
            aria-label={l10n.t('Reject {0}', file.path)}
            title={l10n.t('Undo the changes to this file')}
            onClick={() => store.act((version) => ({ type: 'reject', version, key: file.key }))}
          >
            <Icon name="discard" /> {l10n.t('Reject')}
          </Button>
        </span>
      </div>
      {expanded ? (
        <div class="file-body" id={bodyId}>
          <Body file={file} store={store} />
        </div>
      ) : null}
    </div>
  );
}
