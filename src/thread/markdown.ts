/**
 * A chat's transcript as Markdown: for "Export Session as Markdown…" and the read-only text view a screen
 * reader can read. A pure function of the chat's view model (same entries, same header → same text);
 * content the agent sent is fenced with a fence longer than any backtick run inside it, and every long
 * block, as the whole document, is bounded.
 */
import * as l10n from '@vscode/l10n';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { ViewChangedFile, ViewContent, ViewEntry, ViewEntryOf, ViewSessionState, ViewToolContent } from '../shared/chatModel';
import { assertNever } from '../common/errors';

/** What the document says about the session above its transcript. */
export interface MarkdownHeader {
  readonly title: string;
  readonly agentName: string;
  readonly sessionId?: string;
  readonly roots: ViewSessionState['roots'];
  /** When the export was made (ISO 8601); the caller passes it, so the function stays pure. */
  readonly date: string;
}

export interface MarkdownLimits {
  /** Characters kept of one block (a message, a tool's output, a diff); the rest is cut and said so. */
  readonly block: number;
  /** Characters of the whole document; later entries are left out and the end says how many. */
  readonly total: number;
}

export const DEFAULT_MARKDOWN_LIMITS: MarkdownLimits = { block: 100_000, total: 4_000_000 };

/** The transcript as one Markdown document. */
export function transcriptMarkdown(header: MarkdownHeader, entries: readonly ViewEntry[], limits: MarkdownLimits = DEFAULT_MARKDOWN_LIMITS): string {
  const parts = [headerMarkdown(header)];
  let length = parts[0]!.length;
  let left = 0;
  for (const [index, entry] of entries.entries()) {
    const part = entryMarkdown(entry, limits.block);
    if (!part) continue;
    if (length + part.length + 2 > limits.total) {
      left = entries.length - index;
      break;
    }
    parts.push(part);
    length += part.length + 2;
  }
  if (left > 0)
    parts.push(
      `*${left === 1 ? l10n.t('The transcript is cut here: 1 more entry is not included (the export is limited to {0} characters).', limits.total) : l10n.t('The transcript is cut here: {0} more entries are not included (the export is limited to {1} characters).', left, limits.total)}*`,
    );
  return `${parts.join('\n\n')}\n`;
}

function headerMarkdown(header: MarkdownHeader): string {
  const lines = [`# ${inline(header.title)}`, '', `- **${l10n.t('Agent:')}** ${inline(header.agentName)}`];
  if (header.sessionId) lines.push(`- **${l10n.t('Session:')}** ${code(header.sessionId)}`);
  if (header.roots.length > 0) {
    lines.push(`- **${l10n.t('Folders:')}**`);
    for (const root of header.roots) {
      const notes = [root.primary ? l10n.t('primary') : undefined, root.withdrawn ? l10n.t('withdrawn') : undefined].filter(Boolean).join(', ');
      lines.push(`  - ${inline(root.name)} (${code(root.path)})${notes ? ` — ${notes}` : ''}`);
    }
  }
  lines.push(`- **${l10n.t('Exported:')}** ${header.date}`);
  return lines.join('\n');
}

function entryMarkdown(entry: ViewEntry, limit: number): string | undefined {
  switch (entry.kind) {
    case 'user':
      return `## ${l10n.t('User')}\n\n${blocksMarkdown(entry.blocks, limit)}`;
    case 'agent':
      return `## ${l10n.t('Agent')}\n\n${blocksMarkdown(entry.blocks, limit)}`;
    case 'thought':
      return entry.text.trim()
        ? `<details>\n<summary>${l10n.t('Thought')}</summary>\n\n${fenced(bounded(entry.text, limit), 'text')}\n\n</details>`
        : undefined;
    case 'tool':
      return toolMarkdown(entry, limit);
    case 'plan':
      return [
        `**${l10n.t('Plan')}**`,
        '',
        ...entry.entries.map(
          (step) => `- [${step.status === 'completed' ? 'x' : ' '}] ${inline(step.content)} (${l10n.t('{0}, {1} priority', step.status, step.priority)})`,
        ),
      ].join('\n');
    case 'notice':
      return quote(`**${capitalize(entry.severity)}:** ${inline(entry.title)}${entry.description ? `\n${entry.description}` : ''}`, limit);
    case 'permission':
      return permissionMarkdown(entry);
    case 'turnEnd':
      return `*${entry.durationMs !== undefined ? l10n.t('Turn ended: {0} after {1}.', stopReasonText(entry.stopReason), seconds(entry.durationMs)) : l10n.t('Turn ended: {0}.', stopReasonText(entry.stopReason))}*`;
    case 'error':
      return quote(`**${l10n.t('Error:')}** ${entry.message}`, limit);
    case 'refusal':
      if (entry.writtenAnyway)
        return quote(
          `**${l10n.t('Written anyway')}** ${code(entry.path)}: ${l10n.t('the agent wrote it with its own tools after ACP Workspace refused its request ({0}).', entry.message)}`,
          limit,
        );
      return quote(
        `**${l10n.t('Refused')}** ${inline(entry.operation)} ${code(entry.path)}${entry.command ? ` (${code(entry.command)})` : ''}: ${entry.message}`,
        limit,
      );
    case 'info':
      return `*${inline(entry.text)}*`;
    case 'terminal':
      return entry.inToolCall ? undefined : terminalMarkdown(entry, limit);
    case 'changes':
      return changesMarkdown(entry);
    case 'unknown':
      return `**${l10n.t('Unknown entry ({0})', inline(entry.tag))}**\n\n${fenced(bounded(entry.raw, limit), 'json')}`;
  }
  return assertNever(entry, 'transcript entry');
}

function blocksMarkdown(blocks: readonly ViewContent[], limit: number): string {
  const parts: string[] = [];
  const attached: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(closeOpenFence(bounded(block.text, limit)));
        continue;
      case 'image':
        attached.push(`${l10n.t('image ({0})', block.mimeType)}${block.uri ? ` ${code(block.uri)}` : ''}`);
        continue;
      case 'audio':
        attached.push(l10n.t('audio ({0})', block.mimeType));
        continue;
      case 'link':
        attached.push(`${inline(block.title ?? block.name)} (${code(block.uri)})`);
        continue;
      case 'resource':
        attached.push(code(block.uri));
        continue;
      case 'unknown':
        attached.push(l10n.t('unknown content ({0})', inline(block.tag)));
        continue;
    }
    assertNever(block, 'content block');
  }
  if (attached.length > 0) parts.push([`**${l10n.t('Attached:')}**`, ...attached.map((line) => `- ${line}`)].join('\n'));
  return parts.join('\n\n') || `*${l10n.t('(empty)')}*`;
}

function toolMarkdown(entry: ViewEntryOf<'tool'>, limit: number): string {
  const lines = [
    `### ${l10n.t('Tool: {0}', inline(entry.title || entry.toolCallId))}`,
    '',
    `- **${l10n.t('Kind:')}** ${inline(entry.toolKind)}`,
    `- **${l10n.t('Status:')}** ${inline(entry.status)}`,
  ];
  for (const location of entry.locations)
    lines.push(`- **${l10n.t('Location:')}** ${code(location.line !== undefined ? `${location.path}:${location.line}` : location.path)}`);
  const parts = [lines.join('\n')];
  if (entry.rawInput) parts.push(`${l10n.t('Input:')}\n\n${fenced(bounded(entry.rawInput, limit), 'json')}`);
  for (const content of entry.content) parts.push(toolContentMarkdown(content, limit));
  return parts.join('\n\n');
}

function toolContentMarkdown(content: ViewToolContent, limit: number): string {
  switch (content.type) {
    case 'content':
      return content.content.type === 'text' ? fenced(bounded(content.content.text, limit), 'text') : blocksMarkdown([content.content], limit);
    case 'diff':
      return l10n.t(
        'Diff of {0} (+{1} −{2}):\n\n{3}',
        code(content.path),
        content.added,
        content.removed,
        fenced(bounded(unifiedDiff(content.path, content.oldText, content.newText), limit), 'diff'),
      );
    case 'terminal':
      return terminalMarkdown(content, limit);
    case 'unknown':
      return l10n.t('Unknown content ({0}):\n\n{1}', inline(content.tag), fenced(bounded(content.raw, limit), 'json'));
  }
  return assertNever(content, 'tool call content');
}

interface TerminalLike {
  readonly command?: string;
  readonly cwd?: string;
  readonly output?: string;
  readonly truncated?: boolean;
  readonly exitStatus?: { exitCode?: number | null; signal?: string | null };
  readonly error?: string;
}

function terminalMarkdown(terminal: TerminalLike, limit: number): string {
  const command = terminal.command ? code(terminal.command) : undefined;
  const cwd = terminal.cwd ? code(terminal.cwd) : undefined;
  const head =
    command && cwd
      ? l10n.t('Terminal {0} in {1}', command, cwd)
      : command
        ? l10n.t('Terminal {0}', command)
        : cwd
          ? l10n.t('Terminal in {0}', cwd)
          : l10n.t('Terminal');
  const parts = [terminal.error ? l10n.t('{0}: could not start: {1}', head, terminal.error) : `${head}:`];
  if (terminal.output) parts.push(fenced(bounded(terminal.output, limit), 'text'));
  if (terminal.truncated) parts.push(`*${l10n.t('(earlier output was dropped by the client’s output limit)')}*`);
  const exit = terminal.exitStatus;
  if (exit)
    parts.push(
      exit.signal
        ? l10n.t('Killed by {0}.', exit.signal)
        : exit.exitCode === undefined || exit.exitCode === null
          ? l10n.t('Exit code unknown.')
          : l10n.t('Exit code {0}.', exit.exitCode),
    );
  return parts.join('\n\n');
}

function permissionMarkdown(entry: ViewEntryOf<'permission'>): string {
  const { state } = entry;
  const outcome = state === 'pending' ? l10n.t('waiting for an answer') : state === 'cancelled' ? l10n.t('cancelled') : `${inline(state.name)} (${state.kind})`;
  return `**${l10n.t('Permission:')}** ${inline(entry.title)} — ${outcome}`;
}

function changesMarkdown(entry: ViewEntryOf<'changes'>): string {
  const heading =
    entry.state === 'undone'
      ? l10n.t('Files changed in this turn (undone):')
      : entry.state === 'unavailable'
        ? l10n.t('Files changed in this turn (checkpoint no longer available):')
        : l10n.t('Files changed in this turn:');
  const lines = [`**${heading}**`, ''];
  for (const file of entry.files) lines.push(`- ${changedFileLine(file)}`);
  if (entry.skipped)
    lines.push(`- ${entry.skipped === 1 ? l10n.t('1 more file too large to capture') : l10n.t('{0} more files too large to capture', entry.skipped)}`);
  return lines.join('\n');
}

function changedFileLine(file: ViewChangedFile): string {
  const name = code(`${file.root}/${file.path}`);
  const renamed = file.oldPath ? ` ${l10n.t('(from {0})', code(file.oldPath))}` : '';
  return `${name}${renamed} — ${file.status}, ${file.binary ? l10n.t('binary') : `+${file.added} −${file.removed}`}`;
}

/** Edits jsdiff may look for before it gives up on a diff (a huge rewrite is shown as both texts instead). */
const MAX_EDIT_LENGTH = 1000;
/** Texts larger than this together are not diffed line by line (bounded time). */
const MAX_DIFFED_CHARS = 1_000_000;

/** A unified diff (`---`/`+++` headers, hunks with three lines of context). */
export function unifiedDiff(path: string, oldText: string | null | undefined, newText: string): string {
  // Paths from an agent are usually absolute: no `a/`/`b/` prefix then (`patch -p0` reads them as they are).
  const [a, b] = path.startsWith('/') ? [path, path] : [`a/${path}`, `b/${path}`];
  const from = oldText === null || oldText === undefined ? '/dev/null' : a;
  const small = (oldText?.length ?? 0) + newText.length <= MAX_DIFFED_CHARS;
  const patch =
    small &&
    (createTwoFilesPatch(from, b, oldText ?? '', newText, undefined, undefined, {
      context: 3,
      headerOptions: FILE_HEADERS_ONLY,
      maxEditLength: MAX_EDIT_LENGTH,
    }) as string | undefined);
  if (typeof patch === 'string') return patch.trimEnd();
  // Too many edits to compute in bounded time: the whole file is replaced, which is still a valid diff.
  const lines = (text: string, sign: string) =>
    text
      ? text
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => `${sign}${line}`)
      : [];
  const removed = lines(oldText ?? '', '-');
  const added = lines(newText, '+');
  return [`--- ${from}`, `+++ ${b}`, `@@ -${removed.length ? 1 : 0},${removed.length} +${added.length ? 1 : 0},${added.length} @@`, ...removed, ...added].join(
    '\n',
  );
}

/** `text` in a fence longer than any backtick run in it (CommonMark: a fence closes only with one as long). */
export function fenced(text: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text) + 1));
  return `${fence}${info}\n${text.replace(/\n$/, '')}\n${fence}`;
}

/** Inline code that holds any text: a backtick run longer than any inside, padded when it starts or ends with one. */
function code(text: string): string {
  const ticks = '`'.repeat(longestRun(text) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text.replace(/\n/g, ' ')}${pad}${ticks}`;
}

function longestRun(text: string): number {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  return longest;
}

/**
 * A message is Markdown and stays so, but a code fence it leaves open (cut by the size bound, or never
 * closed by the agent) would swallow the rest of the document: it is closed at its end.
 */
export function closeOpenFence(text: string): string {
  let open: { char: string; length: number } | undefined;
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!fence) continue;
    const run = fence[1]!;
    if (!open) {
      // A backtick fence's info string has no backtick (CommonMark 4.5).
      if (run[0] === '~' || !fence[2]!.includes('`')) open = { char: run[0]!, length: run.length };
    } else if (run[0] === open.char && run.length >= open.length && !fence[2]!.trim()) {
      open = undefined;
    }
  }
  return open ? `${text}\n${open.char.repeat(open.length)}` : text;
}

/** One line of text where Markdown syntax would change its meaning is escaped. */
function inline(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/([\\`*_[\]<>#|])/g, '\\$1');
}

function quote(text: string, limit: number): string {
  return bounded(text, limit)
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}

function bounded(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n… ${l10n.t('({0} more characters not included)', text.length - limit)}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function stopReasonText(reason: string): string {
  switch (reason) {
    case 'end_turn':
      return l10n.t('done');
    case 'cancelled':
      return l10n.t('stopped');
    case 'max_tokens':
      return l10n.t('the token limit was reached');
    case 'max_turn_requests':
      return l10n.t('the request limit was reached');
    case 'refusal':
      return l10n.t('the agent refused');
    default:
      return reason;
  }
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
