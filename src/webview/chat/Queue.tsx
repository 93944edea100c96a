/**
 * The messages sent while the agent works, above the prompt box: each with its text and context chips, to
 * edit in place, send now (stopping the turn) or remove. A held queue (after Stop, a failed turn, a window
 * reload) says so and waits for "Send next" or "Clear". The host keeps the queue (src/sessions/promptQueue.ts);
 * this only shows it and says what the user did.
 */
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
      return count === 1 ? 'One queued message held after Stop' : `${count} queued messages held after Stop`;
    case 'failed':
      return count === 1 ? 'One queued message held: the turn did not finish' : `${count} queued messages held: the turn did not finish`;
    case 'restored':
      return count === 1 ? 'One queued message kept from before the window reloaded' : `${count} queued messages kept from before the window reloaded`;
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
    <section class="queue" aria-label="Queued messages">
      {queue.held ? (
        <div class="queue-held" role="status">
          <Icon name="debug-pause" />
          <span class="queue-held-text">{heldText(queue.held, items.length)}</span>
          <span class="spacer" />
          <Button primary small onClick={() => act({ action: 'sendNext' })} title={running ? 'Send the oldest message when this turn ends, and the others after it' : 'Send the oldest message now, and the others after it'}>
            Send next
          </Button>
          <Button small onClick={() => act({ action: 'clear' })}>
            Clear
          </Button>
        </div>
      ) : (
        <div class="queue-title" role="status">
          {items.length === 1 ? 'One message queued: it is sent when the agent finishes' : `${items.length} messages queued: each is sent when the agent finishes the turn before it`}
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
                aria-label="Edit the queued message"
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
                  <IconButton icon="check" label="Save" title="Save (Enter)" onClick={() => finishEdit(true)} />
                  <IconButton icon="discard" label="Cancel editing" title="Cancel (Esc)" onClick={() => finishEdit(false)} />
                </>
              ) : (
                <>
                  <IconButton
                    icon="edit"
                    label="Edit"
                    onClick={() => {
                      act({ action: 'edit', id: item.id });
                      setEditing({ id: item.id, text: item.text });
                    }}
                  />
                  <IconButton
                    icon="send"
                    label={running ? 'Stop and send now' : 'Send now'}
                    title={running ? (onMac ? 'Stop the turn and send this now (Cmd+Enter in the prompt box)' : 'Stop the turn and send this now (Ctrl+Enter in the prompt box)') : 'Send this now'}
                    onClick={() => act({ action: 'sendNow', id: item.id })}
                  />
                  <IconButton icon="close" label="Remove from queue" onClick={() => act({ action: 'remove', id: item.id })} />
                </>
              )}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
