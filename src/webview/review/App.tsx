/**
 * The Review Changes panel: the session's pending changes grouped by folder, each file a card with its
 * hunks, and Accept (keep) / Reject (undo) for everything, a file or a hunk. Everything from the host is
 * rendered as text.
 */
import * as l10n from '@vscode/l10n';
import { useEffect, useSyncExternalStore } from 'preact/compat';
import { changesSummary } from '../../shared/changesView';
import type { ReviewFile, ReviewState } from '../../shared/reviewProtocol';
import { Button } from '../common/controls';
import { Icon } from '../common/icon';
import { FileCard } from './FileCard';
import { host } from './host';
import type { ReviewStore } from './store';
import { Turns } from './Turns';

const SEVERITY_ICON = { info: 'info', warning: 'warning', error: 'error' } as const;

/** The files by folder, folders in the order their first file comes. */
function byFolder(files: readonly ReviewFile[]): Array<{ root: string; rootPath: string; files: Array<{ file: ReviewFile; index: number }> }> {
  const groups = new Map<string, { root: string; rootPath: string; files: Array<{ file: ReviewFile; index: number }> }>();
  files.forEach((file, index) => {
    let group = groups.get(file.rootPath);
    if (!group) {
      group = { root: file.root, rootPath: file.rootPath, files: [] };
      groups.set(file.rootPath, group);
    }
    group.files.push({ file, index });
  });
  return [...groups.values()];
}

function Header(props: { state: ReviewState; store: ReviewStore }) {
  const { state, store } = props;
  const none = state.files.length === 0 || state.unavailable !== undefined;
  return (
    <header class="review-header">
      <div class="review-heading">
        <h1 class="review-title">{state.title}</h1>
        {!none ? <div class="review-summary">{changesSummary(state.files, 'pending')}</div> : null}
      </div>
      <div class="review-actions">
        <Button
          primary
          disabled={none || store.busy}
          onClick={() => store.act((version) => ({ type: 'acceptAll', version }))}
          title={l10n.t('Keep every change')}
        >
          <Icon name="check-all" /> {l10n.t('Accept All')}
        </Button>
        <Button disabled={none || store.busy} onClick={() => store.act((version) => ({ type: 'rejectAll', version }))} title={l10n.t('Undo every change')}>
          <Icon name="discard" /> {l10n.t('Reject All')}
        </Button>
      </div>
    </header>
  );
}

export function App(props: { store: ReviewStore }) {
  const { store } = props;
  useSyncExternalStore(
    (listener) => store.subscribe(listener),
    () => store.revision,
  );
  useEffect(() => host.post({ type: 'ready' }), []);
  const state = store.state;
  if (!state) return <div class="review-loading">{l10n.t('Loading…')}</div>;

  return (
    <main class="review" aria-busy={store.busy}>
      <Header state={state} store={store} />
      {state.message ? (
        <div class={`banner ${state.message.severity}`} role={state.message.severity === 'error' ? 'alert' : 'status'}>
          <Icon name={SEVERITY_ICON[state.message.severity]} />
          <span class="banner-text">{state.message.text}</span>
        </div>
      ) : null}
      {state.evicted > 0 ? (
        <div class="review-note">
          <Icon name="history" />{' '}
          {state.evicted === 1
            ? l10n.t('{0} older checkpoint was removed to stay within the storage limit.', state.evicted)
            : l10n.t('{0} older checkpoints were removed to stay within the storage limit.', state.evicted)}
        </div>
      ) : null}
      {state.unavailable !== undefined ? (
        <div class="review-unavailable" role="status">
          <Icon name="circle-slash" />
          <span>{state.unavailable}</span>
        </div>
      ) : state.files.length === 0 ? (
        <div class="review-empty" role="status">
          {l10n.t('No changes to review.')}
        </div>
      ) : (
        byFolder(state.files).map((group) => (
          <section key={group.rootPath} class="folder" aria-label={l10n.t('Folder {0}', group.root)}>
            <h2 class="folder-heading">
              <Icon name="folder" />
              <span class="folder-name">{group.root}</span>
              <span class="folder-path">{group.rootPath}</span>
            </h2>
            {group.files.map(({ file, index }) => (
              <FileCard key={file.key} file={file} index={index} store={store} />
            ))}
          </section>
        ))
      )}
      {state.unavailable === undefined ? <Turns state={state} store={store} /> : null}
    </main>
  );
}
