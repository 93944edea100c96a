/** The transcript's domain events' data (acp/port/events.ts), and a terminal's live state, to the chat's plain view model (src/shared/chatModel). */
import type { ConfigOption, ContentPart, ToolContent } from '../acp/port/events';
import type { ViewConfigOption, ViewContent, ViewEntryOf, ViewToolContent } from '../shared/chatModel';
import { jsonText } from '../common/jsonText';
import { fenced } from './markdown';

const RAW_PREVIEW = 2000;

/** JSON of something the client could not interpret, shortened for display. */
/** A value from an agent as indented JSON text, cut at {@link RAW_PREVIEW} characters. */
export function preview(value: unknown): string {
  return jsonText(value, { indent: 2, maxChars: RAW_PREVIEW });
}

export function contentToView(part: ContentPart): ViewContent {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image', mimeType: part.mimeType, dataUrl: `data:${part.mimeType};base64,${part.data}`, uri: part.uri };
    case 'audio':
      return { type: 'audio', mimeType: part.mimeType };
    case 'link':
      return { type: 'link', uri: part.uri, name: part.name, title: part.title };
    case 'resource':
      return { type: 'resource', uri: part.uri, text: part.text, mimeType: part.mimeType };
    case 'unknown':
      return { type: 'unknown', tag: part.tag, raw: preview(part.raw) };
  }
}

/** Lines added and removed between two texts (a cheap count for the tool call header, not a diff). */
export function diffStats(oldText: string | null | undefined, newText: string): { added: number; removed: number } {
  const before = oldText ? oldText.split('\n') : [];
  const after = newText.split('\n');
  const counts = new Map<string, number>();
  for (const line of before) counts.set(line, (counts.get(line) ?? 0) + 1);
  let common = 0;
  for (const line of after) {
    const n = counts.get(line) ?? 0;
    if (n > 0) {
      counts.set(line, n - 1);
      common++;
    }
  }
  return { added: after.length - common, removed: before.length - common };
}

export function toolContentToView(content: ToolContent): ViewToolContent {
  switch (content.type) {
    case 'content':
      return { type: 'content', content: contentToView(content.content) };
    case 'diff':
      return { type: 'diff', path: content.path, oldText: content.oldText ?? null, newText: content.newText, ...diffStats(content.oldText, content.newText) };
    case 'terminal':
      return { type: 'terminal', terminalId: content.terminalId };
    case 'patch':
      return { type: 'content', content: { type: 'text', text: patchText(content) } };
    case 'unknown':
      return { type: 'unknown', tag: content.tag, raw: preview(content.raw) };
  }
}

/**
 * An ACP v2 diff as the chat shows it for now: its patch text as a fenced diff, or (without one) the files it
 * changes, one a line (`modify /w/a.ts`, `move /w/a.ts → /w/b.ts`). The chat's diff card needs both texts,
 * which a v2 diff does not carry.
 */
function patchText(content: Extract<ToolContent, { type: 'patch' }>): string {
  if (content.patch) return fenced(content.patch.text, content.patch.format === 'git_patch' ? 'diff' : '');
  const lines = content.changes.map((c) =>
    [c.operation, c.oldPath === undefined ? undefined : `${c.oldPath} →`, c.path].filter((p) => p !== undefined).join(' '),
  );
  return fenced(lines.join('\n'), 'text');
}

/** The config options as the chat shows them. */
export function configOptionsToView(options: readonly ConfigOption[]): ViewConfigOption[] {
  return options.map((option) => {
    const base = { id: option.id, name: option.name, category: option.category, description: option.description };
    if (option.type === 'boolean') return { type: 'boolean', ...base, currentValue: option.currentValue };
    const choices = option.options.map((o) =>
      o.group === undefined
        ? { value: o.value, name: o.name, description: o.description }
        : { value: o.value, name: o.name, description: o.description, group: o.group },
    );
    return { type: 'select', ...base, currentValue: option.currentValue, options: choices };
  });
}

/**
 * Whether the agent's config options stand for its (legacy) modes, so only the option's picker shows: a
 * config option of category `mode` (claude-agent-acp, codex-acp), or a select option offering exactly the
 * modes' ids under another category (pi-acp's thinking levels, both modes and `thought_level`). The protocol
 * says a client that renders config options uses them instead of the modes; modes that no option offers
 * (an agent with only a model option, say) still show, so no choice is lost.
 */
export function modesSuperseded(modes: { readonly available: readonly { readonly id: string }[] }, options: readonly ViewConfigOption[]): boolean {
  const ids = new Set(modes.available.map((m) => m.id));
  return options.some(
    (option) =>
      option.category === 'mode' ||
      (option.type === 'select' && option.options.length === ids.size && ids.size > 0 && option.options.every((o) => ids.has(o.value))),
  );
}

/** Live state of a terminal the agent started (shown on its own, and in the tool calls that show it). */
export interface ThreadTerminal {
  readonly command?: string;
  /** The real path it runs in. */
  readonly cwd?: string;
  readonly output?: string;
  readonly truncated?: boolean;
  readonly exitStatus?: { exitCode?: number | null; signal?: string | null };
  /** The agent runs it itself and reports it (no `terminal/create`): the client can only show it. */
  readonly agentOwned?: boolean;
}

/** The parts of a terminal's live state an entry of its own shows. */
export function terminalFields(view: ThreadTerminal): Partial<ViewEntryOf<'terminal'>> {
  const fields: { -readonly [K in keyof ThreadTerminal]: ThreadTerminal[K] } = {};
  if (view.command !== undefined) fields.command = view.command;
  if (view.cwd !== undefined) fields.cwd = view.cwd;
  if (view.output !== undefined) fields.output = view.output;
  if (view.truncated !== undefined) fields.truncated = view.truncated;
  if (view.exitStatus !== undefined) fields.exitStatus = view.exitStatus;
  return fields;
}
