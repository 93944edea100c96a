/**
 * The session's turns with a checkpoint before them: Undo restores the folders to before a turn (that turn
 * and every later one are undone, after a confirmation listing the files); Redo brings an undone turn back.
 */
import * as l10n from '@vscode/l10n';
import type { ReviewState } from '../../shared/reviewProtocol';
import { Button } from '../common/controls';
import { Icon } from '../common/icon';
import type { ReviewStore } from './store';

export function Turns(props: { state: ReviewState; store: ReviewStore }) {
  const { state, store } = props;
  const turns = state.turns.filter((turn) => turn.files > 0);
  if (turns.length === 0) return null;
  return (
    <section class="turns" aria-label={l10n.t('Checkpoints')}>
      <h2 class="folder-heading">
        <Icon name="history" />
        <span class="folder-name">{l10n.t('Checkpoints')}</span>
        <span class="folder-path">{l10n.t('Undo restores every folder to before that turn, later turns included.')}</span>
      </h2>
      <ul class="turn-list">
        {[...turns].reverse().map((turn) => (
          <li key={turn.n} class={`turn ${turn.state}`}>
            <span class="turn-name">{l10n.t('Turn {0}', turn.n)}</span>
            <span class="turn-files">{`${turn.files} ${turn.files === 1 ? 'file' : 'files'}`}</span>
            <span class="count-added">{`+${turn.added}`}</span>
            <span class="count-removed">{`−${turn.removed}`}</span>
            {turn.state === 'done' ? (
              <Button
                small
                disabled={store.busy}
                aria-label={l10n.t('Undo turn {0}', turn.n)}
                onClick={() => store.act((version) => ({ type: 'undo', version, turn: turn.n }))}
              >
                <Icon name="discard" /> {l10n.t('Undo')}
              </Button>
            ) : turn.state === 'undone' ? (
              <>
                <span class="badge">{l10n.t('undone')}</span>
                <Button
                  small
                  disabled={store.busy}
                  aria-label={l10n.t('Redo turn {0}', turn.n)}
                  onClick={() => store.act((version) => ({ type: 'redo', version, turn: turn.n }))}
                >
                  <Icon name="redo" /> {l10n.t('Redo')}
                </Button>
              </>
            ) : (
              <span class="turn-note">{l10n.t('checkpoint removed to save space')}</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
