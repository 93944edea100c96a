/** A turn's `changes` entry: what it changed on disk in the session's folders, each file opening its diff. */
import * as l10n from '@vscode/l10n';
import { changesSummary, STATUS_LETTER } from '../../shared/changesView';
import type { ViewChangedFile, ViewEntryOf } from '../../shared/chatModel';
import { Button } from '../common/controls';
import { Icon } from '../common/icon';
import { host } from './host';

const STATUS_WORD: Record<ViewChangedFile['status'], string> = { added: 'Added', modified: 'Modified', deleted: 'Deleted', renamed: 'Renamed' };

export function Changes(props: { entry: ViewEntryOf<'changes'> }) {
  const { entry } = props;
  const multiRoot = new Set(entry.files.map((f) => f.rootPath)).size > 1;
  return (
    <div class={`entry changes ${entry.state}`} role="group" aria-label={l10n.t('Changed files')}>
      <div class="changes-title">
        <Icon name="diff-multiple" />
        <span class="changes-summary">{changesSummary(entry.files)}</span>
        {entry.state === 'undone' ? <span class="badge">{l10n.t('undone')}</span> : null}
        <span class="changes-actions">
          <Button small title={l10n.t('Review these changes file by file')} onClick={() => host.post({ type: 'changes', entryId: entry.id, action: 'review' })}>
            {l10n.t('Review')}
          </Button>
          {entry.state === 'done' ? (
            <Button
              small
              title={l10n.t('Restore these files to before this turn')}
              onClick={() => host.post({ type: 'changes', entryId: entry.id, action: 'undo' })}
            >
              {l10n.t('Undo')}
            </Button>
          ) : null}
          {entry.state === 'undone' ? (
            <Button small title={l10n.t('Make these changes again')} onClick={() => host.post({ type: 'changes', entryId: entry.id, action: 'redo' })}>
              {l10n.t('Redo')}
            </Button>
          ) : null}
        </span>
      </div>
      <ul class="changes-files">
        {entry.files.map((file, index) => {
          const where = multiRoot ? `${file.root}/` : '';
          const name = `${file.oldPath !== undefined ? `${where}${file.oldPath} → ` : ''}${where}${file.path}`;
          return (
            <li key={`${file.rootPath}\u0000${file.path}`} class={`changed-file ${file.status}`}>
              <span class={`status-letter ${file.status}`} title={STATUS_WORD[file.status]} aria-hidden="true">
                {STATUS_LETTER[file.status]}
              </span>
              <button
                type="button"
                class="link-button changed-path"
                title={l10n.t('{0}: {1} (open the diff)', STATUS_WORD[file.status], name)}
                aria-label={l10n.t('{0}: {1}, open the diff', STATUS_WORD[file.status], name)}
                onClick={() => host.post({ type: 'openChange', entryId: entry.id, index })}
              >
                {multiRoot ? <span class="changed-folder">{file.root}/</span> : null}
                {file.oldPath !== undefined ? <span class="changed-old">{`${file.oldPath} → `}</span> : null}
                {file.path}
              </button>
              <span class="changed-counts">
                {file.binary ? (
                  <span class="badge">{l10n.t('binary')}</span>
                ) : (
                  <>
                    <span class="diff-added">{`+${file.added}`}</span> <span class="diff-removed">{`−${file.removed}`}</span>
                  </>
                )}
              </span>
            </li>
          );
        })}
      </ul>
      {entry.skipped ? (
        <div class="changes-note">
          {entry.skipped === 1
            ? l10n.t('{0} changed file was too large to keep in a checkpoint and cannot be undone.', entry.skipped)
            : l10n.t('{0} changed files were too large to keep in a checkpoint and cannot be undone.', entry.skipped)}
        </div>
      ) : null}
      {entry.state === 'unavailable' ? (
        <div class="changes-note">
          {l10n.t('The checkpoint before this turn was removed to stay within the storage limit; it can no longer be undone here.')}
        </div>
      ) : null}
    </div>
  );
}
