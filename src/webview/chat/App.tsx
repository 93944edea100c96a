/** The chat view: who and where (agent, folders, state), the transcript, and the prompt box. */
import * as l10n from '@vscode/l10n';
import { memo, useCallback, useEffect, useState, useSyncExternalStore } from 'preact/compat';
import type { ViewSessionState } from '../../shared/chatModel';
import { REOPEN_INTERRUPTED_CHAT_COMMAND, withAttachment, type Attachment } from '../../shared/chatProtocol';
import { Button } from '../common/controls';
import { Icon } from '../common/icon';
import { Announcer } from './announcer';
import { Composer } from './Composer';
import { RootsContext } from './entries';
import { RetryBar } from './promptActions';
import { host } from './host';
import { hostLink } from './hostLink';
import { persistQueue, persistSession, savedState } from './persist';
import { promptsOf } from './promptHistory';
import { Queue } from './Queue';
import { remoteImages } from './remoteImages';
import type { ChatStore } from './store';
import { Transcript } from './Transcript';

const STATUS_TEXT: Record<ViewSessionState['status'], string> = {
  starting: 'Starting…',
  loading: 'Loading history…',
  idle: 'Ready',
  running: 'Working…',
  disconnected: 'Disconnected',
};

function Header(props: { session: ViewSessionState }) {
  const { session } = props;
  const usage = session.usage;
  return (
    <header class="chat-header">
      <div class="header-line">
        {session.title ? (
          <span class="session-title" title={session.title}>
            {session.title}
          </span>
        ) : null}
        <span class="agent-name">{session.agentName}</span>
        {/* Said aloud by the announcer (announcer.tsx), once per change. */}
        <span class={`status status-${session.status}`}>
          {session.status === 'running' ? <Icon name="loading" spin /> : null} {session.statusDetail ?? STATUS_TEXT[session.status]}
        </span>
        {session.confinement ? (
          <span class={`chip confinement ${session.confinement.confined ? 'confined' : 'unconfined'}`} title={session.confinement.detail}>
            <Icon name={session.confinement.confined ? 'lock' : 'unlock'} />
            {session.confinement.label}
          </span>
        ) : null}
        {usage ? (
          <span class="usage" title={l10n.t('{0} of {1} tokens of context used', usage.used.toLocaleString(), usage.size.toLocaleString())}>
            {`${Math.round((usage.used / Math.max(usage.size, 1)) * 100)}% context`}
            {usage.cost ? ` · ${usage.cost.amount.toFixed(2)} ${usage.cost.currency}` : ''}
          </span>
        ) : null}
      </div>
      <div class="roots" aria-label={l10n.t('Shared folders')}>
        {session.roots.map((root) => (
          <span
            key={root.path}
            class={`chip root ${root.primary ? 'primary' : ''} ${root.withdrawn ? 'withdrawn' : ''}`}
            title={[
              root.primary ? l10n.t('{0} (primary folder)', root.path) : root.path,
              root.withdrawn ? l10n.t('no longer shared: the agent cannot reach it') : undefined,
            ]
              .filter(Boolean)
              .join(' — ')}
          >
            <Icon name={root.withdrawn ? 'circle-slash' : root.primary ? 'home' : 'folder'} />
            {root.name}
          </span>
        ))}
      </div>
      {session.confinement?.pending ? (
        <div class="stale" role="status">
          <Icon name="warning" />
          <span class="stale-text">{session.confinement.pending}</span>
          <Button small onClick={() => host.post({ type: 'action', action: 'restart' })}>
            {l10n.t('Restart Agent')}
          </Button>
        </div>
      ) : null}
      {session.rootsStale ? (
        <div class="stale" role="status">
          <Icon name="warning" />
          <span class="stale-text">{session.rootsStale}</span>
          <Button small onClick={() => host.post({ type: 'action', action: 'reopenWithCurrentFolders' })}>
            {l10n.t('Reopen with Current Folders')}
          </Button>
        </div>
      ) : null}
    </header>
  );
}

// The header and the prompt box change with the session state, not with every streamed frame.
const SessionHeader = memo(Header);
const PromptBox = memo(Composer);

/**
 * The tab's extension host is gone (killed, restarted): what it kept goes to the new one through a `command:`
 * link, the only way such a tab reaches it (see hostLink.ts). The link is made at the click, with what the
 * user typed by then.
 */
function Interrupted() {
  const link = () => `command:${REOPEN_INTERRUPTED_CHAT_COMMAND}?${encodeURIComponent(JSON.stringify([savedState()]))}`;
  const canReopen = savedState().sessionId !== undefined;
  return (
    <div class="interrupted" role="alert">
      <Icon name="warning" />
      <span class="interrupted-text">
        {canReopen
          ? l10n.t('This session was interrupted: the extension host stopped, and this tab is no longer connected. Reopen it to go on; what you typed is kept.')
          : l10n.t('This chat was interrupted: the extension host stopped before its session started. Start a new session; what you typed is kept here.')}
      </span>
      {canReopen ? (
        // A real link: the webview's frame hands its clicks to VS Code, which runs the command in the new host.
        <a class="button reopen" href={link()} onClick={(event) => ((event.currentTarget as HTMLAnchorElement).href = link())}>
          {l10n.t('Reopen')}
        </a>
      ) : null}
    </div>
  );
}

function useHostLost(): boolean {
  return useSyncExternalStore(
    (listener) => hostLink.subscribe(listener),
    () => hostLink.lost,
  );
}

export function App(props: { store: ChatStore }) {
  const { store } = props;
  const state = useSyncExternalStore(
    (listener) => store.subscribe(listener),
    () => store.state,
  );
  const [attachments, setAttachments] = useState<Attachment[]>([]);

  useEffect(
    () =>
      host.onMessage((message) => {
        if (message.type === 'snapshot') setAttachments(message.draft?.attachments ?? []);
        if (message.type === 'snapshot' || message.type === 'patch' || message.type === 'queue') store.receive(message);
        else if (message.type === 'addAttachment') setAttachments((current) => withAttachment(current, message.attachment));
        // A focus asked for before this view was up is taken only while the tab has the keyboard: not from what the
        // user went to meanwhile (a quick pick opened then would close).
        else if (message.type === 'focusInput' && (!message.deferred || document.hasFocus()))
          document.querySelector<HTMLTextAreaElement>('.prompt-input')?.focus();
      }),
    [store],
  );
  useEffect(() => {
    host.post({ type: 'ready' });
    hostLink.check();
    // Back to the tab after a while: is its host still there?
    const onFocus = () => hostLink.check();
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, []);
  const lost = useHostLost();
  useEffect(() => {
    if (state.session) persistSession(state.session);
  }, [state.session]);
  // A window reload does not lose what waits in the queue (the restored tab gives it back to the host).
  useEffect(() => persistQueue(state.queue), [state.queue]);
  const history = useCallback(() => promptsOf(store.state.entries), [store]);

  const onClick = (event: MouseEvent) => {
    const target = event.target as HTMLElement;
    const copy = target.closest<HTMLElement>('[data-copy]');
    if (copy) {
      const code = copy.closest('.code-block')?.querySelector('code')?.textContent ?? '';
      host.post({ type: 'copy', text: code });
      return;
    }
    const image = target.closest<HTMLElement>('[data-remote-image]');
    if (image) {
      // The user asks for this remote image (it may sit inside a link: that waits for another click).
      event.preventDefault();
      remoteImages.load(image.dataset['remoteImage'] ?? '');
      return;
    }
    const link = target.closest<HTMLAnchorElement>('a[href]');
    if (link) {
      event.preventDefault();
      host.post({ type: 'openLink', href: link.getAttribute('href') ?? '' });
    }
  };

  // A long history arrives in pieces: how far it is, until it shows whole.
  const progress = state.loading === undefined ? undefined : l10n.t('Loading history… {0}%', Math.floor(state.loading * 100));
  if (!state.session) return lost ? <Interrupted /> : <div class="loading">{progress ?? l10n.t('Loading…')}</div>;
  // Interrupted: nothing can be sent (what is typed stays), and the header says so.
  const session = lost ? { ...state.session, status: 'disconnected' as const, statusDetail: l10n.t('Interrupted') } : state.session;
  const running = session.status === 'running';
  const header = progress === undefined ? session : { ...session, status: 'loading' as const, statusDetail: progress };
  return (
    <div class="chat">
      <SessionHeader session={header} />
      <RootsContext.Provider value={state.session.roots}>
        <Transcript
          entries={state.entries}
          incoming={state.incoming}
          running={running}
          onClick={onClick}
          empty={
            <div class="empty">
              {/* While the history loads, the conversation is not empty: it is not here yet. */}
              <p>
                {header.status === 'loading'
                  ? (header.statusDetail ?? l10n.t('Loading history…'))
                  : l10n.t('Ask {0} anything about the shared folders.', state.session.agentName)}
              </p>
            </div>
          }
        >
          <RetryBar entries={state.entries} running={running} connected={session.status !== 'disconnected'} />
        </Transcript>
      </RootsContext.Provider>
      <Announcer session={session} entries={state.entries} />
      {lost ? <Interrupted /> : null}
      <Queue queue={state.queue} running={running} roots={state.session.roots} />
      <PromptBox
        session={session}
        initialDraft={state.draft?.text}
        attachments={attachments}
        setAttachments={setAttachments}
        history={history}
        queueFull={(state.queue?.items.length ?? 0) >= (state.queue?.limit ?? Infinity)}
      />
    </div>
  );
}
