/**
 * The prompt box: a multi-line input (Enter sends, Shift+Enter adds a line), context chips (@-mentioned
 * files, the editor selection, pasted or dropped images), slash-command and @-mention completion, the
 * agent's modes and config options (the model picker first), and Send / Stop.
 *
 * While the agent works: Enter queues the message (the host sends it when the turn ends), Ctrl+Enter
 * (Cmd+Enter on macOS) stops the turn and sends it at once, Esc stops the turn (an open completion list
 * closes first). Up and Down walk through this session's earlier prompts when the box is empty or the caret
 * is on its first (last) line; Down past the newest brings back what was being typed.
 */
import * as l10n from '@vscode/l10n';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ViewConfigOption, ViewSessionState } from '../../shared/chatModel';
import { ChatRequests, withAttachment, type Attachment, type MentionItem } from '../../shared/chatProtocol';
import { Button, Checkbox, IconButton, Select } from '../common/controls';
import { AttachmentChip } from './AttachmentChip';
import { host } from './host';
import { hostLink } from './hostLink';
import { persistDraft } from './persist';
import { usePromptHistory } from './promptHistory';

interface Completion {
  readonly kind: 'command' | 'mention';
  readonly items: ReadonlyArray<{ key: string; label: string; detail?: string; apply: () => void }>;
}

/** Counts mention requests: only the newest one's answer is shown. */
let mentionRequest = 0;

export function Composer(props: {
  session: ViewSessionState;
  initialDraft: string | undefined;
  attachments: Attachment[];
  setAttachments: (update: (current: Attachment[]) => Attachment[]) => void;
  /** This session's earlier prompts, oldest first (read when the user walks through them). */
  history: () => readonly string[];
  /** Whether the queue has room for one more message. */
  queueFull: boolean;
}) {
  const { session, attachments, setAttachments } = props;
  const [text, setText] = useState(props.initialDraft ?? '');
  const [completion, setCompletion] = useState<Completion | undefined>(undefined);
  const [selected, setSelected] = useState(0);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const input = useRef<HTMLTextAreaElement>(null);
  const running = session.status === 'running';
  const connected = session.status !== 'disconnected';
  // Typing is fine while the session starts or reopens; sending waits until it is ready.
  const ready = session.status === 'idle';

  // The host keeps the draft while the panel is hidden: typing is sent after a pause, context at once.
  // The tab's own state keeps it across a window reload, and at once: a reload can come any moment.
  const postedAttachments = useRef(attachments);
  useEffect(() => {
    persistDraft({ text, attachments });
    const postDraft = () => host.post({ type: 'draft', draft: { text, attachments } });
    if (postedAttachments.current !== attachments) {
      postedAttachments.current = attachments;
      postDraft();
      return undefined;
    }
    const timer = setTimeout(postDraft, 300);
    return () => clearTimeout(timer);
  }, [text, attachments]);

  // Mentions: "@query" right before the caret asks the host for matching files in the session's roots. The
  // answer is shown with what is in the box by then (the latest render's closures).
  const showMentions = useRef<(items: MentionItem[]) => void>(() => undefined);
  showMentions.current = (items: MentionItem[]) => {
    setSelected(0);
    setCompletion({
      kind: 'mention',
      items: items.map((item) => ({
        key: item.path,
        label: item.label,
        detail: item.root,
        apply: () => {
          replaceToken('@', `@${item.label.split('/').pop()} `);
          setAttachments((current) => withAttachment(current, { kind: 'file', path: item.path, label: item.label }));
        },
      })),
    });
  };
  const askMentions = (query: string) => {
    const asked = ++mentionRequest;
    host.request(ChatRequests.mentions, { query }).then(
      (items) => {
        if (asked === mentionRequest) showMentions.current(items);
      },
      () => undefined,
    );
  };

  const tokenBeforeCaret = (value: string): string => {
    const caret = input.current?.selectionStart ?? value.length;
    const before = value.slice(0, caret);
    return /(?:^|\s)([@/][^\s]*)$/.exec(before)?.[1] ?? '';
  };

  const replaceToken = (prefix: string, replacement: string) => {
    const element = input.current;
    const caret = element?.selectionStart ?? text.length;
    const before = text.slice(0, caret);
    const start = before.lastIndexOf(prefix);
    const next = text.slice(0, start) + replacement + text.slice(caret);
    setText(next);
    setCompletion(undefined);
    requestAnimationFrame(() => {
      element?.focus();
      const at = start + replacement.length;
      element?.setSelectionRange(at, at);
    });
  };

  const updateCompletion = (value: string) => {
    const token = tokenBeforeCaret(value);
    if (token.startsWith('/') && value.trimStart().startsWith(token)) {
      const query = token.slice(1).toLowerCase();
      const items = session.commands
        .filter((c) => c.name.toLowerCase().startsWith(query))
        .map((c) => ({
          key: c.name,
          label: `/${c.name}`,
          detail: c.hint ? `${c.description} — ${c.hint}` : c.description,
          apply: () => replaceToken('/', `/${c.name} `),
        }));
      setSelected(0);
      setCompletion(items.length > 0 ? { kind: 'command', items } : undefined);
    } else if (token.startsWith('@')) {
      askMentions(token.slice(1));
    } else {
      setCompletion(undefined);
    }
  };

  const history = usePromptHistory(props.history, input, text, setText);

  /** Sends now when the agent is ready; while it works, queues (or, `now`, stops the turn and sends). */
  const send = (now = false) => {
    const prompt = text.trim();
    if (!prompt && attachments.length === 0) return;
    if (!ready && !running) return;
    if (running && props.queueFull && !now) {
      setHint(l10n.t('The queue is full: wait for the agent, or remove a queued message.'));
      return;
    }
    host.post({ type: 'prompt', text: prompt, attachments, ...(running && now ? { now: true } : {}) });
    setText('');
    setAttachments(() => []);
    setCompletion(undefined);
    history.reset();
    // A message is never lost: if no host has it (the extension host that made this view is gone), it comes
    // back to the box, unless the user typed something else meanwhile.
    const sent = attachments;
    hostLink.check(() => {
      setText((current) => (current.trim() ? current : prompt));
      setAttachments((current) => (current.length > 0 ? current : sent));
      return () => {
        setText((current) => (current === prompt ? '' : current));
        setAttachments((current) => (current === sent ? [] : current));
      };
    });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (completion && completion.items.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const delta = event.key === 'ArrowDown' ? 1 : -1;
        setSelected((i) => (i + delta + completion.items.length) % completion.items.length);
        return;
      }
      // Enter on a command typed out in full sends it, as it would without the popup (a pick would only add a
      // space, and the message would silently not go); on a partial one it completes the selected command, like
      // VS Code's chat and Zed's. Tab always completes.
      const complete = event.key === 'Enter' && completion.kind === 'command' && isTypedOut(tokenBeforeCaret(text), completion.items);
      if ((event.key === 'Enter' && !complete) || event.key === 'Tab') {
        event.preventDefault();
        completion.items[selected]?.apply();
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setCompletion(undefined);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send(event.ctrlKey || event.metaKey);
      return;
    }
    if (event.key === 'Escape' && running) {
      event.preventDefault();
      host.post({ type: 'cancel' });
      return;
    }
    if ((event.key === 'ArrowUp' || event.key === 'ArrowDown') && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey && !event.isComposing) {
      if (history.step(event.key === 'ArrowUp' ? -1 : 1)) event.preventDefault();
    }
  };

  const addImages = (files: FileList | null | undefined): boolean => {
    const images = [...(files ?? [])].filter((file) => file.type.startsWith('image/'));
    if (images.length === 0) return false;
    if (!session.prompt.image) {
      setHint(l10n.t('{0} does not accept images.', session.agentName));
      return true;
    }
    for (const file of images) {
      const reader = new FileReader();
      reader.onload = () => {
        const data = String(reader.result).replace(/^data:[^,]*,/, '');
        setAttachments((current) => [...current, { kind: 'image', label: file.name || 'pasted image', mimeType: file.type, data }]);
      };
      reader.readAsDataURL(file);
    }
    return true;
  };

  // Seed 003: a config option of category `model` is the picker; the unstable `models` only stand in for it.
  const usesModelOption = session.configOptions.some((o) => o.category === 'model');
  const options = useMemo(
    () => [...session.configOptions].sort((a, b) => Number(b.category === 'model') - Number(a.category === 'model')),
    [session.configOptions],
  );

  return (
    <div class="composer">
      {completion && completion.items.length > 0 ? (
        <ul class="completion" role="listbox" aria-label={completion.kind === 'command' ? l10n.t('Slash commands') : l10n.t('Files')}>
          {completion.items.map((item, i) => (
            <li
              key={item.key}
              role="option"
              aria-selected={i === selected}
              class={i === selected ? 'selected' : ''}
              onMouseDown={(event) => {
                event.preventDefault();
                item.apply();
              }}
            >
              <span class="completion-label">{item.label}</span>
              {item.detail ? <span class="completion-detail">{item.detail}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {attachments.length > 0 ? (
        <div class="attachments" aria-label={l10n.t('Context')}>
          {attachments.map((attachment, i) => (
            <AttachmentChip
              key={i}
              attachment={attachment}
              roots={session.roots}
              onRemove={() => setAttachments((current) => current.filter((_, j) => j !== i))}
            />
          ))}
        </div>
      ) : null}
      <textarea
        ref={input}
        class="prompt-input"
        rows={3}
        value={text}
        placeholder={connected ? l10n.t('Ask {0}… (@ to mention files, / for commands)', session.agentName) : l10n.t('The agent is not connected.')}
        aria-label={l10n.t('Prompt')}
        disabled={!connected}
        onInput={(event) => {
          const value = (event.currentTarget as HTMLTextAreaElement).value;
          setText(value);
          setHint(undefined);
          history.reset();
          updateCompletion(value);
        }}
        onKeyDown={onKeyDown}
        onPaste={(event) => {
          if (addImages(event.clipboardData?.files)) event.preventDefault();
        }}
        onDrop={(event) => {
          if (addImages(event.dataTransfer?.files)) event.preventDefault();
        }}
        onDragOver={(event) => event.preventDefault()}
      />
      {hint ? <div class="hint">{hint}</div> : null}
      <div class="composer-bar">
        <IconButton
          icon="mention"
          label={l10n.t('Mention a file')}
          title={l10n.t('Mention a file (@)')}
          onClick={() => {
            setText((t) => `${t}${t && !t.endsWith(' ') ? ' ' : ''}@`);
            input.current?.focus();
            askMentions('');
          }}
        />
        <IconButton icon="selection" label={l10n.t('Add the editor selection')} onClick={() => host.post({ type: 'attachSelection' })} />
        {session.models && !usesModelOption ? (
          <ChoiceSelect
            label={l10n.t('Model')}
            value={session.models.currentModelId}
            choices={session.models.available}
            onChange={(modelId) => host.post({ type: 'setModel', modelId })}
          />
        ) : null}
        {/* The host leaves out modes a config option stands for (thread/toView.ts modesSuperseded): one picker each. */}
        {session.modes ? (
          <ChoiceSelect
            label={l10n.t('Mode')}
            value={session.modes.currentModeId}
            choices={session.modes.available}
            onChange={(modeId) => host.post({ type: 'setMode', modeId })}
          />
        ) : null}
        {options.map((option) => (
          <ConfigControl key={option.id} option={option} />
        ))}
        <span class="spacer" />
        {running && (text.trim() || attachments.length > 0) ? (
          <Button
            class="queue-send"
            icon="list-ordered"
            aria-label={l10n.t('Queue')}
            title={l10n.t('Send when the agent finishes (Enter)')}
            onClick={() => send()}
          >
            {l10n.t('Queue')}
          </Button>
        ) : null}
        {running ? (
          <Button
            primary
            class="stop"
            icon="debug-stop"
            aria-label={l10n.t('Stop')}
            title={l10n.t('Stop the turn (Esc)')}
            onClick={() => host.post({ type: 'cancel' })}
          >
            {l10n.t('Stop')}
          </Button>
        ) : (
          <Button
            primary
            class="send"
            icon="send"
            aria-label={l10n.t('Send')}
            onClick={() => send()}
            disabled={!ready || (!text.trim() && attachments.length === 0)}
          >
            {l10n.t('Send')}
          </Button>
        )}
      </div>
    </div>
  );
}

function ConfigControl(props: { option: ViewConfigOption }) {
  const { option } = props;
  if (option.type === 'boolean') {
    return (
      <Checkbox
        class="toggle"
        label={option.name}
        title={option.description ?? option.name}
        checked={option.currentValue}
        onChange={(value) => host.post({ type: 'setConfig', configId: option.id, value })}
      />
    );
  }
  return (
    <Select
      label={option.name}
      title={option.description ?? option.name}
      value={option.currentValue}
      data-category={option.category}
      onChange={(value) => host.post({ type: 'setConfig', configId: option.id, value })}
    >
      {option.options.map((choice) => (
        <option key={choice.value} value={choice.value} title={choice.description}>
          {choice.group ? `${choice.group}: ${choice.name}` : choice.name}
        </option>
      ))}
    </Select>
  );
}

/** A picker over the agent's own list (its modes, its models): the name shown, the description as a tooltip. */
function ChoiceSelect(props: {
  label: string;
  value: string;
  choices: readonly { readonly id: string; readonly name: string; readonly description?: string | undefined }[];
  onChange: (id: string) => void;
}) {
  return (
    <Select label={props.label} value={props.value} onChange={props.onChange}>
      {props.choices.map((choice) => (
        <option key={choice.id} value={choice.id} title={choice.description}>
          {choice.name}
        </option>
      ))}
    </Select>
  );
}

/** Whether `token` (`/name` before the caret) is one of the popup's commands written out in full. */
function isTypedOut(token: string, items: ReadonlyArray<{ readonly label: string }>): boolean {
  return token.length > 1 && items.some((item) => item.label.toLowerCase() === token.toLowerCase());
}
