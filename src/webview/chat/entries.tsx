/** How each transcript entry looks. Agent text is sanitized markdown; everything else is text. */
import * as l10n from '@vscode/l10n';
import { createContext } from 'preact';
import { memo, useContext, useState } from 'preact/compat';
import type { ViewContent, ViewEntry, ViewEntryOf, ViewSessionState, ViewToolContent } from '../../shared/chatModel';
import { refusalScopeText, refusedRequestText, writtenAnywayText } from '../../shared/refusalText';
import { Button } from '../common/controls';
import { Icon } from '../common/icon';
import type { IconName } from '../common/icons';
import { Markdown } from '../common/ui';
import { Changes } from './changes';
import { ErrorEntry } from './errorEntry';
import { basename, folderLabel, folderOf } from './fileLabel';
import { host } from './host';
import { UserPrompt } from './promptActions';
import { remoteImages } from './remoteImages';

const TOOL_ICONS: Record<string, IconName> = {
  read: 'file',
  edit: 'edit',
  delete: 'trash',
  move: 'arrow-swap',
  search: 'search',
  execute: 'terminal',
  think: 'lightbulb',
  fetch: 'cloud-download',
  switch_mode: 'arrow-right',
  other: 'tools',
};

const STATUS: Record<string, { icon: IconName; label: string; spin?: boolean }> = {
  pending: { icon: 'circle-large-outline', label: l10n.t('Pending') },
  in_progress: { icon: 'loading', label: l10n.t('Running'), spin: true },
  completed: { icon: 'check', label: l10n.t('Completed') },
  failed: { icon: 'error', label: l10n.t('Failed') },
  cancelled: { icon: 'circle-slash', label: l10n.t('Cancelled') },
  interrupted: { icon: 'debug-disconnect', label: l10n.t('Interrupted') },
};

const PERMISSION_KINDS: Record<string, { icon: IconName; label: string; primary: boolean }> = {
  allow_once: { icon: 'check', label: l10n.t('Allowed once'), primary: true },
  allow_always: { icon: 'check-all', label: l10n.t('Always allowed'), primary: false },
  reject_once: { icon: 'close', label: l10n.t('Rejected'), primary: false },
  reject_always: { icon: 'circle-slash', label: l10n.t('Always rejected'), primary: false },
};

const PLAN_STATUS: Record<string, string> = { completed: 'Done', in_progress: 'In progress', pending: 'To do' };

/** Why a turn ended, in words (nothing for a normal end). */
export function stopReasonText(stopReason: string): string | undefined {
  switch (stopReason) {
    case 'end_turn':
      return undefined;
    case 'cancelled':
      return 'Stopped.';
    case 'max_tokens':
      return l10n.t('The agent stopped: it reached its maximum number of tokens for this turn.');
    case 'max_turn_requests':
      return l10n.t('The agent stopped: it reached its maximum number of requests for this turn.');
    case 'refusal':
      return l10n.t('The agent refused to continue. This prompt and everything after it will not be part of the context of the next prompt.');
    default:
      return l10n.t('The turn ended ({0}).', stopReason);
  }
}

/** Text ending with a full stop. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

/** The session's folders, for naming where a command runs. */
export const RootsContext = createContext<ViewSessionState['roots']>([]);

function Location(props: { path: string; line?: number; label?: string }) {
  const label = props.label ?? `${basename(props.path)}${props.line !== undefined ? `:${props.line}` : ''}`;
  return (
    <button
      class="link-button location"
      type="button"
      title={props.line !== undefined ? l10n.t('Open {0} at line {1}', props.path, props.line) : l10n.t('Open {0}', props.path)}
      onClick={() => host.post({ type: 'openLocation', path: props.path, line: props.line })}
    >
      {label}
    </button>
  );
}

/** The path of a file: URI and the lines of its `#L3-9` fragment, if any (webviews have no `url.fileURLToPath`). */
function fileUri(uri: string): { path: string; startLine?: number; endLine?: number } | undefined {
  const match = /^file:\/\/([^#?]*)(?:#L(\d+)(?:-(\d+))?)?/i.exec(uri);
  if (!match) return undefined;
  let path = decodeURIComponent(match[1]!);
  if (/^\/[a-z]:/i.test(path)) path = path.slice(1); // file:///c:/x → c:/x
  const startLine = match[2] ? Number(match[2]) : undefined;
  return { path, startLine, endLine: match[3] ? Number(match[3]) : startLine };
}

/** A file's name and, in a multi-root workspace, the folder it is in: "greet.ts · lib". */
function inFolder(path: string, roots: ViewSessionState['roots']): string {
  const folder = folderOf(path, roots);
  return folder ? `${basename(path)} · ${folder}` : basename(path);
}

function ResourceName(props: { uri: string }) {
  const roots = useContext(RootsContext);
  const file = fileUri(props.uri);
  if (!file) return <span>{props.uri}</span>;
  const lines = file.startLine === undefined ? '' : file.endLine !== file.startLine ? `, lines ${file.startLine}–${file.endLine}` : `, line ${file.startLine}`;
  return (
    <span>
      <Location path={file.path} line={file.startLine} label={inFolder(file.path, roots)} />
      {lines}
    </span>
  );
}

function LinkName(props: { uri: string; name: string }) {
  const roots = useContext(RootsContext);
  const file = fileUri(props.uri);
  return file ? <Location path={file.path} label={inFolder(file.path, roots)} /> : <span>{props.name}</span>;
}

function ContentView(props: { block: ViewContent; markdown?: boolean }) {
  const { block } = props;
  switch (block.type) {
    case 'text':
      return props.markdown ? <Markdown source={block.text} images={remoteImages.loaded} /> : <div class="plain-text">{block.text}</div>;
    case 'image':
      return block.dataUrl ? <img class="content-image" src={block.dataUrl} alt={block.uri ?? l10n.t('image')} /> : <span class="chip">{l10n.t('image')}</span>;
    case 'audio':
      return <span class="chip">{l10n.t('audio ({0})', block.mimeType)}</span>;
    case 'link':
      return (
        <span class="chip">
          <Icon name="file" />
          <LinkName uri={block.uri} name={block.title ?? block.name} />
        </span>
      );
    case 'resource':
      return (
        <details class="resource">
          <summary title={block.uri}>
            <Icon name="file-code" /> <ResourceName uri={block.uri} />
          </summary>
          {block.text !== undefined ? <pre>{block.text}</pre> : null}
        </details>
      );
    case 'unknown':
      return (
        <details class="unknown">
          <summary>{l10n.t('Content this client cannot show ({0})', block.tag)}</summary>
          <pre>{block.raw}</pre>
        </details>
      );
  }
}

/** Consecutive text blocks render as one markdown document (chunks split words). */
function Blocks(props: { blocks: readonly ViewContent[]; markdown: boolean }) {
  const groups: Array<{ text: string } | { block: ViewContent }> = [];
  for (const block of props.blocks) {
    const last = groups[groups.length - 1];
    if (block.type === 'text' && last && 'text' in last) last.text += block.text;
    else groups.push(block.type === 'text' ? { text: block.text } : { block });
  }
  return (
    <>
      {groups.map((group, i) =>
        'text' in group ? (
          <ContentView key={i} block={{ type: 'text', text: group.text }} markdown={props.markdown} />
        ) : (
          <ContentView key={i} block={group.block} />
        ),
      )}
    </>
  );
}

/** A command the agent runs: what, where, its output and how it ended (in a tool call or on its own). */
function TerminalBlock(props: { content: Extract<ViewToolContent, { type: 'terminal' }>; finished: boolean; error?: string }) {
  const { content } = props;
  const roots = useContext(RootsContext);
  const exit = content.exitStatus;
  if (!exit && props.error === undefined && props.finished && !content.agentOwned && content.command === undefined && content.output === undefined) {
    // A replayed tool call (session/load) names a terminal of an earlier agent process: it is gone.
    return (
      <div class="terminal">
        <div class="terminal-header">
          <Icon name="terminal" />
          <span class="terminal-command">{l10n.t('Terminal')}</span>
        </div>
        <div class="muted">{l10n.t('Its output is no longer available: the terminal belonged to an earlier run of the agent.')}</div>
      </div>
    );
  }
  return (
    <div class="terminal">
      <div class="terminal-header">
        <Icon name="terminal" />
        <span class="terminal-command">{content.command ?? l10n.t('Terminal')}</span>
        {content.cwd !== undefined ? (
          <span class="terminal-folder" title={content.cwd}>
            {`in ${folderLabel(content.cwd, roots)}`}
          </span>
        ) : null}
        {props.error !== undefined ? (
          <span class="exit failed">{l10n.t('did not start')}</span>
        ) : exit ? (
          <span class={exit.exitCode === 0 ? 'exit ok' : 'exit failed'}>
            {exit.signal ? l10n.t('killed ({0})', exit.signal) : l10n.t('exit {0}', exit.exitCode ?? '?')}
          </span>
        ) : props.finished && content.agentOwned ? null : (
          <Icon name="loading" spin label={l10n.t('Running')} />
        )}
        {props.error === undefined && !content.agentOwned ? (
          <Button small onClick={() => host.post({ type: 'showTerminal', terminalId: content.terminalId })}>
            {l10n.t('Show in Terminal')}
          </Button>
        ) : null}
      </div>
      {props.error !== undefined ? <div class="terminal-error">{props.error}</div> : null}
      {content.truncated ? <div class="muted">{l10n.t('Earlier output was truncated.')}</div> : null}
      {props.error === undefined ? <pre class="terminal-output">{content.output ?? ''}</pre> : null}
    </div>
  );
}

function ToolContent(props: { entryId: string; index: number; content: ViewToolContent; finished: boolean }) {
  const { content } = props;
  switch (content.type) {
    case 'content':
      return <ContentView block={content.content} markdown={content.content.type === 'text'} />;
    case 'diff':
      return (
        <div class="diff-summary">
          <Icon name="diff" />
          <Location path={content.path} />
          <span class="diff-added">{`+${content.added}`}</span>
          <span class="diff-removed">{`−${content.removed}`}</span>
          {content.oldText === null || content.oldText === undefined ? <span class="badge">{l10n.t('new file')}</span> : null}
          <Button small onClick={() => host.post({ type: 'openDiff', entryId: props.entryId, index: props.index })}>
            {l10n.t('Open Diff')}
          </Button>
        </div>
      );
    case 'terminal':
      return <TerminalBlock content={content} finished={props.finished} />;
    case 'unknown':
      return (
        <details class="unknown">
          <summary>{l10n.t('Tool output this client cannot show ({0})', content.tag)}</summary>
          <pre>{content.raw}</pre>
        </details>
      );
  }
}

/** Tool call statuses after which nothing more runs. */
const FINISHED = new Set(['completed', 'failed', 'cancelled', 'interrupted']);

function ToolCall(props: { entry: ViewEntryOf<'tool'> }) {
  const { entry } = props;
  const status = STATUS[entry.status] ?? { icon: 'question', label: entry.status };
  return (
    <div class={`entry tool status-${entry.status}`} role="group" aria-label={l10n.t('Tool call: {0}, {1}', entry.title || entry.toolKind, status.label)}>
      <div class="tool-header">
        <Icon name={TOOL_ICONS[entry.toolKind] ?? 'tools'} />
        <span class="tool-title">{entry.title || l10n.t('Tool call')}</span>
        <Icon name={status.icon} spin={status.spin} label={status.label} class="tool-status" />
      </div>
      {entry.locations.length > 0 ? (
        <div class="tool-locations">
          {entry.locations.map((location, i) => (
            <Location key={i} path={location.path} line={location.line} />
          ))}
        </div>
      ) : null}
      {entry.content.map((content, i) => (
        <ToolContent key={i} entryId={entry.id} index={i} content={content} finished={FINISHED.has(entry.status)} />
      ))}
      {entry.rawInput ? (
        <details class="raw-input">
          <summary>{l10n.t('Input')}</summary>
          <pre>{entry.rawInput}</pre>
        </details>
      ) : null}
    </div>
  );
}

function Permission(props: { entry: ViewEntryOf<'permission'> }) {
  const { entry } = props;
  const state = entry.state;
  if (state !== 'pending') {
    const chosen = state === 'cancelled' ? undefined : state;
    const kind = chosen ? PERMISSION_KINDS[chosen.kind] : undefined;
    return (
      <div class="entry permission resolved">
        <Icon name={kind?.icon ?? 'circle-slash'} />
        <span>{`${entry.title}: ${chosen ? (kind?.label ?? chosen.name) : 'cancelled'}`}</span>
      </div>
    );
  }
  return (
    <div class="entry permission pending" role="alertdialog" aria-label={l10n.t('Permission requested: {0}', entry.title)}>
      <div class="permission-title">
        <Icon name="shield" />
        <span>{entry.title}</span>
      </div>
      <div class="permission-options">
        {entry.options.map((option) => (
          <Button
            key={option.optionId}
            primary={PERMISSION_KINDS[option.kind]?.primary ?? false}
            class={`kind-${option.kind}`}
            data-kind={option.kind}
            onClick={() => host.post({ type: 'permission', entryId: entry.id, optionId: option.optionId })}
          >
            {option.name}
          </Button>
        ))}
      </div>
    </div>
  );
}

/** A thought, collapsed: its markdown is rendered only once the user opens it (thoughts stream as much as answers). */
function Thought(props: { entry: ViewEntryOf<'thought'>; thinking: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="entry thought" onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        <Icon name={props.thinking ? 'loading' : 'lightbulb'} spin={props.thinking} /> {props.thinking ? l10n.t('Thinking…') : l10n.t('Thought')}
      </summary>
      {open ? <Markdown source={props.entry.text} images={remoteImages.loaded} /> : null}
    </details>
  );
}

function EntryView(props: { entry: ViewEntry; last: boolean; running: boolean }) {
  const { entry } = props;
  switch (entry.kind) {
    case 'user':
      return (
        <UserPrompt entry={entry} running={props.running}>
          <Blocks blocks={entry.blocks} markdown={false} />
        </UserPrompt>
      );
    case 'agent':
      return (
        <div class="entry agent" role="article" aria-label={l10n.t('Agent')}>
          <Blocks blocks={entry.blocks} markdown />
        </div>
      );
    case 'thought':
      return <Thought entry={entry} thinking={props.last && props.running} />;
    case 'tool':
      return <ToolCall entry={entry} />;
    case 'changes':
      return <Changes entry={entry} />;
    case 'plan':
      return (
        <div class="entry plan" role="group" aria-label={l10n.t('Plan')}>
          <div class="plan-title">
            <Icon name="checklist" /> {l10n.t('Plan')}
          </div>
          <ol>
            {entry.entries.map((item, i) => (
              <li key={i} class={`plan-item ${item.status} priority-${item.priority}`}>
                <Icon
                  name={item.status === 'completed' ? 'check' : item.status === 'in_progress' ? 'circle-large-filled' : 'circle-large-outline'}
                  label={PLAN_STATUS[item.status] ?? item.status}
                />
                <span class="plan-text">{item.content}</span>
              </li>
            ))}
          </ol>
        </div>
      );
    case 'notice':
      return (
        <div class={`entry notice severity-${entry.severity}`} role="note">
          <Icon name={entry.severity === 'error' ? 'error' : entry.severity === 'warning' ? 'warning' : 'info'} />
          <div class="notice-body">
            <div class="notice-title">{entry.title}</div>
            {entry.description ? <div class="notice-description">{entry.description}</div> : null}
          </div>
        </div>
      );
    case 'permission':
      return <Permission entry={entry} />;
    case 'turnEnd': {
      const text = stopReasonText(entry.stopReason);
      return (
        <div class={`entry turn-end reason-${entry.stopReason}`} role="separator" aria-label={text ?? l10n.t('End of turn')}>
          {text ? <span>{text}</span> : null}
        </div>
      );
    }
    case 'error':
      return <ErrorEntry entry={entry} />;
    case 'refusal':
      return (
        <div class="entry refusal" role="note">
          <Icon name="shield" />
          <div class="refusal-body">
            {/* Lead with what happened: the file is there when the agent's own tools wrote it anyway. */}
            <div class="refusal-request">{entry.writtenAnyway ? writtenAnywayText(entry) : refusedRequestText(entry)}</div>
            <div class="refusal-reason">{sentence(entry.message)}</div>
            {entry.writtenAnyway ? null : <div class="refusal-scope">{refusalScopeText(entry.operation)}</div>}
          </div>
        </div>
      );
    case 'info':
      return <div class="entry info">{entry.text}</div>;
    case 'terminal':
      // Once a tool call shows the same terminal, only the tool call does.
      if (entry.inToolCall) return null;
      return (
        <div class="entry terminal-run" role="group" aria-label={l10n.t('Terminal: {0}', entry.command)}>
          <TerminalBlock
            content={{
              type: 'terminal',
              terminalId: entry.terminalId ?? '',
              command: entry.command,
              cwd: entry.cwd,
              output: entry.output,
              truncated: entry.truncated,
              exitStatus: entry.exitStatus,
            }}
            finished={entry.exitStatus !== undefined || entry.error !== undefined}
            error={entry.error}
          />
        </div>
      );
    case 'unknown':
      return (
        <details class="entry unknown">
          <summary>
            <Icon name="question" />{' '}
            {entry.error
              ? l10n.t('An update this client does not know: {0} ({1})', entry.tag, entry.error)
              : l10n.t('An update this client does not know: {0}', entry.tag)}
          </summary>
          <pre>{entry.raw}</pre>
        </details>
      );
  }
}

/** Entries only re-render when their object changes (the store replaces changed entries). */
export const Entry = memo(EntryView);
