/**
 * ACP v1 → the transcript's domain events (`acp/port/events.ts`): one `session/update` (as validated by
 * `acp/schema`) is one event. The `_meta` terminal extensions of pi-acp and codex-acp on a tool call become the
 * call's {@link ToolCallChange.agentTerminals}; a variant this client does not know stays an `unknown` event.
 * Hot path (every streamed chunk): one small object per update, no parsing beyond what the schema did.
 */
import {
  agentTerminalReports,
  type ContentBlock,
  type SessionConfigOption,
  type SessionConfigSelectGroup,
  type SessionConfigSelectOption,
  type SessionUpdate,
  type ToolCallContent,
  type ToolCallUpdate,
} from '../schema';
import type { ConfigChoice, ConfigOption, ContentPart, ToolCallChange, ToolContent, TranscriptEvent } from '../port/events';

export function transcriptEvent(update: SessionUpdate): TranscriptEvent {
  switch (update.sessionUpdate) {
    case 'user_message_chunk':
      return message('user', update.messageId, update.content);
    case 'agent_message_chunk':
      return message('agent', update.messageId, update.content);
    case 'agent_thought_chunk':
      return message('thought', update.messageId, update.content);
    case 'tool_call':
      return { type: 'toolCall', isNew: true, call: toolCallChange(update) };
    case 'tool_call_update':
      return { type: 'toolCall', isNew: false, call: toolCallChange(update) };
    case 'plan':
      return { type: 'plan', entries: update.entries.map((e) => ({ content: e.content, priority: e.priority, status: e.status })) };
    case 'available_commands_update':
      return {
        type: 'commands',
        commands: update.availableCommands.map((c) => ({ name: c.name, description: c.description, ...optional('hint', c.input?.hint) })),
      };
    case 'current_mode_update':
      return { type: 'currentMode', modeId: update.currentModeId };
    case 'config_option_update':
      return { type: 'configOptions', options: configOptions(update.configOptions) };
    case 'session_info_update':
      return update.title === undefined ? { type: 'sessionInfo' } : { type: 'sessionInfo', title: update.title };
    case 'usage_update':
      return {
        type: 'usage',
        used: update.used,
        size: update.size,
        ...(update.cost ? { cost: { amount: update.cost.amount, currency: update.cost.currency } } : {}),
      };
    case 'notice':
      return { type: 'notice', severity: update.severity, title: update.title, ...optional('description', update.description) };
    case 'compaction_update':
      return { type: 'compaction', compactionId: update.compactionId, status: update.status, ...optional('error', update.error) };
    case 'compaction_summary_chunk':
      return { type: 'compactionSummary', compactionId: update.compactionId, content: contentPart(update.content) };
    case '$unknown':
      return { type: 'unknown', tag: update.tag, raw: update.raw, ...optional('error', update.error) };
  }
}

/** A v1 tool call or tool call update (also the `toolCall` of a permission request) as a domain change. */
export function toolCallChange(update: ToolCallUpdate): ToolCallChange {
  const change: { -readonly [K in keyof ToolCallChange]: ToolCallChange[K] } = {
    toolCallId: update.toolCallId,
    agentTerminals: agentTerminalReports(update._meta),
  };
  if (update.title !== undefined && update.title !== null) change.title = update.title;
  if (update.kind !== undefined && update.kind !== null) change.kind = update.kind;
  if (update.status !== undefined && update.status !== null) change.status = update.status;
  if (update.content) change.content = update.content.map(toolContent);
  if (update.locations) change.locations = update.locations.map((l) => ({ path: l.path, ...optional('line', l.line) }));
  if (update.rawInput !== undefined) change.rawInput = update.rawInput;
  return change;
}

export function contentPart(block: ContentBlock): ContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', mimeType: block.mimeType, data: block.data, ...optional('uri', block.uri) };
    case 'audio':
      return { type: 'audio', mimeType: block.mimeType };
    case 'resource_link':
      return { type: 'link', uri: block.uri, name: block.name, ...optional('title', block.title) };
    case 'resource': {
      const resource = block.resource;
      const text = resource['text'];
      return {
        type: 'resource',
        uri: resource.uri,
        ...optional('text', typeof text === 'string' ? text : undefined),
        ...optional('mimeType', resource.mimeType),
      };
    }
    case '$unknown':
      return { type: 'unknown', tag: block.tag, raw: block.raw };
  }
}

function toolContent(content: ToolCallContent): ToolContent {
  switch (content.type) {
    case 'content':
      return { type: 'content', content: contentPart(content.content) };
    case 'diff':
      return { type: 'diff', path: content.path, ...optional('oldText', content.oldText), newText: content.newText };
    case 'terminal':
      return { type: 'terminal', terminalId: content.terminalId };
    case '$unknown':
      return { type: 'unknown', tag: content.tag, raw: content.raw };
  }
}

/** The config options the client renders (select and boolean; others are left out), groups flattened. */
export function configOptions(options: readonly SessionConfigOption[]): ConfigOption[] {
  const domain: ConfigOption[] = [];
  for (const option of options) {
    if (option.type === '$unknown') continue;
    const base = { id: option.id, name: option.name, ...optional('description', option.description), ...optional('category', option.category) };
    if (option.type === 'select') {
      const choices = option.options.flatMap((entry: SessionConfigSelectOption | SessionConfigSelectGroup): ConfigChoice[] =>
        isGroup(entry)
          ? entry.options.map((o) => ({ value: o.value, name: o.name, ...optional('description', o.description), group: entry.name }))
          : [{ value: entry.value, name: entry.name, ...optional('description', entry.description) }],
      );
      domain.push({ ...base, type: 'select', currentValue: option.currentValue, options: choices });
    } else {
      domain.push({ ...base, type: 'boolean', currentValue: option.currentValue });
    }
  }
  return domain;
}

function message(role: 'user' | 'agent' | 'thought', messageId: string | null | undefined, content: ContentBlock): TranscriptEvent {
  return messageId === undefined || messageId === null
    ? { type: 'message', role, content: contentPart(content) }
    : { type: 'message', role, messageId, content: contentPart(content) };
}

function isGroup(entry: SessionConfigSelectOption | SessionConfigSelectGroup): entry is SessionConfigSelectGroup {
  return typeof entry['group'] === 'string' && Array.isArray(entry['options']);
}

/** `{[key]: value}` when the agent gave a value (v1 says `null` or leaves it out for none), `{}` otherwise. */
function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return value === undefined || value === null ? {} : ({ [key]: value } as { [P in K]?: V });
}
