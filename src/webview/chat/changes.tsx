/** A turn's `changes` entry: what it changed on disk in the session's folders, each file opening its diff. */
import { changesSummary, STATUS_LETTER } from '../../shared/changesView';
import type { ViewEntryOf } from '../../shared/chatModel';
import { Icon } from '../common/ui';
import { host } from './host';

export function Changes(props: { entry: ViewEntryOf<'changes'> }) {
  const { entry } = props;
  const multiRoot = new Set(entry.files.map((f) => f.rootPath)).size > 1;
  return (
    <div class={`entry changes ${entry.state}`} role="group" aria-label="Changed files">
      <div class="changes-title">
        <Icon name="diff-multiple" /> <span class="changes-summary">{changesSummary(entry.files)}</span>
        {entry.state === 'undone' ? <span class="badge">undone</span> : null}
        <span class="changes-actions">
          <button class="button secondary small" type="button" onClick={() => host.post({ type: 'changes', entryId: entry.id, action: 'review' })}>
            Review
          </button>
          {entry.state === 'done' ? (
            <button class="button secondary small" type="button" onClick={() => host.post({ type: 'changes', entryId: entry.id, action: 'undo' })}>
              Undo
            </button>
          ) : null}
          {entry.state === 'undone' ? (
            <button class="button secondary small" type="button" onClick={() => host.post({ type: 'changes', entryId: entry.id, action: 'redo' })}>
              Redo
            </button>
          ) : null}
        </span>
      </div>
      <ul class="changes-files">
        {entry.files.map((file, index) => (
          <li key={`${file.rootPath}\u0000${file.path}`} class={`changed-file ${file.status}`}>
            <button
              type="button"
              class="link"
              title={`${file.status}: ${file.oldPath ? `${file.oldPath} → ` : ''}${file.path}`}
              onClick={() => host.post({ type: 'openChange', entryId: entry.id, index })}
            >
              <span class="status" aria-label={file.status}>
                {STATUS_LETTER[file.status]}
              </span>{' '}
              {multiRoot ? <span class="folder">{file.root}/</span> : null}
              {file.path}
            </button>{' '}
            {file.binary ? <span class="badge">binary</span> : <span class="diff-added">{`+${file.added}`}</span>}
            {file.binary ? null : <span class="diff-removed">{` −${file.removed}`}</span>}
          </li>
        ))}
      </ul>
      {entry.skipped ? <div class="changes-note">{`${entry.skipped} changed ${entry.skipped === 1 ? 'file was' : 'files were'} too large to keep in a checkpoint and cannot be undone.`}</div> : null}
      {entry.state === 'unavailable' ? <div class="changes-note">The checkpoint before this turn was removed to stay within the storage limit; it can no longer be undone here.</div> : null}
    </div>
  );
}
