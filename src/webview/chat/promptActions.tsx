/** A prompt of the transcript with its Edit action (edited in place), and Retry after the last turn. */
import * as l10n from '@vscode/l10n';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ViewEntry, ViewEntryOf } from '../../shared/chatModel';
import { Icon } from '../common/icon';
import { host } from './host';

/** The text of a prompt as the user typed it (its text blocks). */
function promptText(entry: ViewEntryOf<'user'>): string {
  return entry.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/**
 * Prompts being edited, by entry id: the transcript renders only what is near the view, and a prompt scrolled
 * out of it and back keeps the edit the user has not sent.
 */
const edits = new Map<string, string>();

/**
 * A prompt the user sent. Edit (on hover or keyboard focus) turns it into a box: Enter sends the edited
 * prompt, Shift+Enter starts a new line, Escape cancels. Not while the agent works.
 */
export function UserPrompt(props: { entry: ViewEntryOf<'user'>; running: boolean; children: ComponentChildren }) {
  const { entry, running } = props;
  const [draft, setDraftState] = useState<string | undefined>(() => edits.get(entry.id));
  const box = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  /** The user just asked to edit (the box takes the focus then, not when it is rendered again after scrolling). */
  const started = useRef(false);
  const original = promptText(entry);
  const editing = draft !== undefined;
  const setDraft = (value: string | undefined) => {
    if (value === undefined) edits.delete(entry.id);
    else edits.set(entry.id, value);
    setDraftState(value);
  };

  useEffect(() => {
    if (!editing || !box.current || !started.current) return;
    started.current = false;
    box.current.focus();
    box.current.setSelectionRange(box.current.value.length, box.current.value.length);
  }, [editing]);

  const cancel = () => {
    setDraft(undefined);
    // Back to where the user was: the Edit button of this prompt.
    requestAnimationFrame(() => editButton.current?.focus());
  };
  const send = () => {
    if (draft === undefined || !draft.trim() || running) return;
    host.post({ type: 'editPrompt', entryId: entry.id, text: draft });
    setDraft(undefined);
  };

  if (editing) {
    return (
      <div class="entry user editing" role="article" aria-label={l10n.t('You (editing)')}>
        <textarea
          ref={box}
          class="prompt-input prompt-edit"
          rows={Math.min(10, Math.max(2, draft.split('\n').length))}
          value={draft}
          aria-label={l10n.t('Edit the prompt: Enter sends it, Shift+Enter starts a new line, Escape cancels')}
          onInput={(event) => setDraft((event.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault();
              event.stopPropagation();
              cancel();
            } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              send();
            }
          }}
        />
        <div class="prompt-edit-actions">
          <span class="muted">{running ? l10n.t('The agent is working: send once its turn has ended.') : l10n.t('Enter to send, Escape to cancel.')}</span>
          <button type="button" class="button secondary small" onClick={cancel}>
            {l10n.t('Cancel')}
          </button>
          <button type="button" class="button small" disabled={running || !draft.trim()} onClick={send}>
            {l10n.t('Send')}
          </button>
        </div>
      </div>
    );
  }
  return (
    <div class="entry user" role="article" aria-label={l10n.t('You')}>
      {props.children}
      {original.trim() ? (
        <div class="prompt-actions">
          <button
            ref={editButton}
            type="button"
            class="icon-button"
            title={running ? l10n.t('Edit and send again (once the agent’s turn has ended)') : l10n.t('Edit and send again')}
            aria-label={l10n.t('Edit this prompt and send it again')}
            aria-disabled={running ? 'true' : undefined}
            onClick={() => {
              if (running) return;
              started.current = true;
              setDraft(original);
            }}
          >
            <Icon name="edit" />
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** The last turn, when Retry applies: it ended (or failed) and nothing runs. */
function lastTurn(entries: readonly ViewEntry[]): { ended: boolean; changes: boolean } | undefined {
  let ended = false;
  let changes = false;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.kind === 'user') return { ended, changes };
    if (entry.kind === 'turnEnd' || entry.kind === 'error') ended = true;
    if (entry.kind === 'changes' && entry.state === 'done' && entry.files.length > 0) changes = true;
  }
  return undefined;
}

/** Retry under the last turn once it ended: the same prompt again, optionally after undoing its file changes. */
export function RetryBar(props: { entries: readonly ViewEntry[]; running: boolean; connected: boolean }) {
  const turn = lastTurn(props.entries);
  if (props.running || !props.connected || !turn?.ended) return null;
  return (
    <div class="retry-bar" role="group" aria-label={l10n.t('Last turn')}>
      <button
        type="button"
        class="button secondary small"
        title={l10n.t('Send the last prompt again, with the same attachments')}
        onClick={() => host.post({ type: 'retry', undoFirst: false })}
      >
        <Icon name="refresh" /> {l10n.t('Retry')}
      </button>
      {turn.changes ? (
        <button
          type="button"
          class="button secondary small"
          title={l10n.t('Undo the files the last turn changed (you confirm first), then send its prompt again')}
          onClick={() => host.post({ type: 'retry', undoFirst: true })}
        >
          <Icon name="discard" /> {l10n.t('Undo Changes and Retry')}
        </button>
      ) : null}
    </div>
  );
}
