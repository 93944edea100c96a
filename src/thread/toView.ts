/** ACP data (as validated by src/acp/schema), and a terminal's live state, to the chat's plain view model (src/shared/chatModel). */
import type { ContentBlock, SessionConfigOption, SessionConfigSelectGroup, SessionConfigSelectOption, ToolCallContent } from '../acp/schema';
import type { ViewConfigOption, ViewContent, ViewEntryOf, ViewToolContent } from '../shared/chatModel';
import { jsonText } from '../common/jsonText';

const RAW_PREVIEW = 2000;

/** JSON of something the client could not interpret, shortened for display. */
/** A value from an agent as indented JSON text, cut at {@link RAW_PREVIEW} characters. */
export function preview(value: unknown): string {
  return jsonText(value, { indent: 2, maxChars: RAW_PREVIEW });
}

export function contentToView(block: ContentBlock): ViewContent {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', mimeType: block.mimeType, dataUrl: `data:${block.mimeType};base64,${block.data}`, uri: block.uri ?? undefined };
    case 'audio':
      return { type: 'audio', mimeType: block.mimeType };
    case 'resource_link':
      return { type: 'link', uri: block.uri, name: block.name, title: block.title ?? undefined };
    case 'resource': {
      const resource = block.resource;
      return {
        type: 'resource',
        uri: resource.uri,
        text: typeof resource['text'] === 'string' ? resource['text'] : undefined,
        mimeType: resource.mimeType ?? undefined,
      };
    }
    case '$unknown':
      return { type: 'unknown', tag: block.tag, raw: preview(block.raw) };
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

export function toolContentToView(content: ToolCallContent): ViewToolContent {
  switch (content.type) {
    case 'content':
      return { type: 'content', content: contentToView(content.content) };
    case 'diff':
      return { type: 'diff', path: content.path, oldText: content.oldText ?? null, newText: content.newText, ...diffStats(content.oldText, content.newText) };
    case 'terminal':
      return { type: 'terminal', terminalId: content.terminalId };
    case '$unknown':
      return { type: 'unknown', tag: content.tag, raw: preview(content.raw) };
  }
}

/** Config options the client renders (select and boolean); others are left out. Groups are flattened. */
export function configOptionsToView(options: readonly SessionConfigOption[]): ViewConfigOption[] {
  const view: ViewConfigOption[] = [];
  for (const option of options) {
    if (option.type === 'select') {
      const flat = option.options.flatMap((entry: SessionConfigSelectOption | SessionConfigSelectGroup) =>
        isGroup(entry)
          ? entry.options.map((o) => ({ value: o.value, name: o.name, description: o.description ?? undefined, group: entry.name }))
          : [{ value: entry.value, name: entry.name, description: entry.description ?? undefined }],
      );
      view.push({ type: 'select', ...optionBase(option), currentValue: option.currentValue, options: flat });
    } else if (option.type === 'boolean') {
      view.push({ type: 'boolean', ...optionBase(option), currentValue: option.currentValue });
    }
  }
  return view;
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

/** What every kind of option shows. */
function optionBase(option: { id: string; name: string; category?: string | null; description?: string | null }) {
  return { id: option.id, name: option.name, category: option.category ?? undefined, description: option.description ?? undefined };
}

function isGroup(entry: SessionConfigSelectOption | SessionConfigSelectGroup): entry is SessionConfigSelectGroup {
  return typeof entry['group'] === 'string' && Array.isArray(entry['options']);
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
