/**
 * The messages sent while the agent works, above the prompt box: each with its text and context chips, to
 * edit in place, send now (stopping the turn) or remove. A held queue (after Stop, a failed turn, a window
 * reload) says so and waits for "Send next" or "Clear". The host keeps the queue (src/sessions/turns/promptQueue.ts);
 * this only shows it and says what the user did.
 */
import * as l10n from '@vscode/l10n';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ViewSessionState } from '../../shared/chatModel';
import type { QueueAction, QueueView } from '../../shared/chatProtocol';
import { Button, IconButton } from '../common/controls';
import { Icon } from '../common/icon';
import { AttachmentChip } from './AttachmentChip';
import { host } from './host';

const act = (queue: QueueAction) => host.post({ type: 'queue', queue });
const onMac = /Mac|iPhone|iPad/.test(navigator.platform);

function heldText(held: NonNullable<QueueView['held']>, count: number): string {
  switch (held) {
    case 'stopped':
      return count === 1 ? l10n.t('One queued message held after Stop') : l10n.t('{0} queued messages held after Stop', count);
    case 'failed':
      return count === 1 ? l10n.t('One queued message held: the turn did not finish') : l10n.t('{0} queued messages held: the turn did not finish', count);
    case 'restored':
      return count === 1
        ? l10n.t('One queued message kept from before the window reloaded')
        : l10n.t('{0} queued messages kept from before the window reloaded', count);
  }
}

export function Queue(props: { queue: QueueView | undefined; running: boolean; roots: ViewSessionState['roots'] }) {
  const { queue, running } = props;
  const [editing, setEditing] = useState<{ id: string; text: string } | undefined>(undefined);
  const editor = useRef<HTMLTextAreaElement>(null);
  const items = queue?.items ?? [];
  const editedStillQueued = editing !== undefined && items.some((item) => item.id === editing.id);

  useEffect(() => {
    if (editing && !editedStillQueued) setEditing(undefined);
  }, [editing, editedStillQueued]);
  useEffect(() => {
    if (editing) editor.current?.focus();
  }, [editing?.id]);

  if (!queue || items.length === 0) return null;

  const finishEdit = (save: boolean) => {
    if (!editing) return;
    act({ action: 'editDone', id: editing.id, ...(save ? { text: editing.text } : {}) });
    setEditing(undefined);
    document.querySelector<HTMLTextAreaElement>('.prompt-input')?.focus();
  };

  return (
    <section class="queue" aria-label={l10n.t('Queued messages')}>
      {queue.held ? (
        <div class="queue-held" role="status">
          <Icon name="debug-pause" />
          <span class="queue-held-text">{heldText(queue.held, items.length)}</span>
          <span class="spacer" />
          <Button
            primary
            small
            onClick={() => act({ action: 'sendNext' })}
            title={
              running
                ? l10n.t('Send the oldest message when this turn ends, and the others after it')
                : l10n.t('Send the oldest message now, and the others after it')
            }
          >
            {l10n.t('Send next')}
          </Button>
          <Button small onClick={() => act({ action: 'clear' })}>
            {l10n.t('Clear')}
          </Button>
        </div>
      ) : (
        <div class="queue-title" role="status">
          {items.length === 1
            ? l10n.t('One message queued: it is sent when the agent finishes')
            : l10n.t('{0} messages queued: each is sent when the agent finishes the turn before it', items.length)}
        </div>
      )}
      <ol class="queued-list">
        {items.map((item) => (
          <li class={`queued ${editing?.id === item.id ? 'editing' : ''}`} key={item.id}>
            <Icon name="watch" class="queued-icon" />
            {editing?.id === item.id ? (
              <textarea
                ref={editor}
                class="queued-editor"
                rows={2}
                aria-label={l10n.t('Edit the queued message')}
                value={editing.text}
                onInput={(event) => setEditing({ id: item.id, text: (event.currentTarget as HTMLTextAreaElement).value })}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
                    event.preventDefault();
                    finishEdit(true);
                  } else if (event.key === 'Escape') {
                    event.preventDefault();
                    event.stopPropagation();
                    finishEdit(false);
                  }
                }}
              />
            ) : (
              <span class="queued-text" title={item.text}>
                {item.text}
              </span>
            )}
            {item.attachments.length > 0 ? (
              <span class="queued-context">
                {item.attachments.map((attachment, i) => (
                  <AttachmentChip key={i} attachment={attachment} roots={props.roots} />
                ))}
              </span>
            ) : null}
            <span class="queued-actions">
              {editing?.id === item.id ? (
                <>
                  <IconButton icon="check" label={l10n.t('Save')} title={l10n.t('Save (Enter)')} onClick={() => finishEdit(true)} />
                  <IconButton icon="discard" label={l10n.t('Cancel editing')} title={l10n.t('Cancel (Esc)')} onClick={() => finishEdit(false)} />
                </>
              ) : (
                <>
                  <IconButton
                    icon="edit"
                    label={l10n.t('Edit')}
                    onClick={() => {
                      act({ action: 'edit', id: item.id });
                      setEditing({ id: item.id, text: item.text });
                    }}
                  />
                  <IconButton
                    icon="send"
                    label={running ? l10n.t('Stop and send now') : l10n.t('Send now')}
                    title={
                      running
                        ? onMac
                          ? l10n.t('Stop the turn and send this now (Cmd+Enter in the prompt box)')
                          : l10n.t('Stop the turn and send this now (Ctrl+Enter in the prompt box)')
                        : l10n.t('Send this now')
                    }
                    onClick={() => act({ action: 'sendNow', id: item.id })}
                  />
                  <IconButton icon="close" label={l10n.t('Remove from queue')} onClick={() => act({ action: 'remove', id: item.id })} />
                </>
              )}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
