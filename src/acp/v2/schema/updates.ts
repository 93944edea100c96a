/**
 * ACP v2 `session/update` params, read tolerantly (https://agentclientprotocol.com/protocol/v2/prompt-lifecycle).
 * Written by hand like the v1 schemas (`acp/schema/`, CONTRIBUTING "Libraries and hand-written code"): zod's
 * discriminated unions with a `$unknown` catch instead of the SDK's generated `z.union` of intersections, open
 * enums, lists that skip invalid items. `test/unit/acp/v2/sessionUpdates.test.ts` checks the corpus against the
 * official `schema/v2/schema.json`.
 *
 * Upserts keep v2's patch rule in their types: a field absent (`undefined`) leaves the value unchanged, `null`
 * clears it; an optional field with a value of the wrong shape reads as absent (the schema's
 * `x-deserialize-default-on-error`).
 */
import * as z from 'zod';
import { ContentBlock } from '../../schema/content';
import { Meta, lenient, openEnum, skipInvalidItems, tolerantUnion } from '../../schema/primitives';
import { Cost, PlanEntry } from '../../schema/sessionState';

/** A list with patch semantics: absent = unchanged, `null` = cleared, a list replaces (invalid items skipped). */
const patchList = <T extends z.ZodType>(item: T) => lenient(skipInvalidItems(item));

// ---- tool calls ---------------------------------------------------------------------------------------

/** One file a v2 diff changes: add, delete, modify (path), move, copy (oldPath → path); operations are open. */
export const DiffChange = z.looseObject({
  operation: z.string(),
  path: lenient(z.string()),
  oldPath: lenient(z.string()),
  fileType: lenient(z.string()),
  mimeType: lenient(z.string()),
  _meta: Meta,
});

/** A v2 diff: the changed files, and the patch text when the agent gives it (`git_patch`, open). */
export const Diff = z.looseObject({
  type: z.literal('diff'),
  changes: skipInvalidItems(DiffChange),
  patch: lenient(z.looseObject({ format: z.string(), text: z.string(), _meta: Meta })),
  _meta: Meta,
});

export const ToolCallContent = tolerantUnion('type', {
  content: z.looseObject({ type: z.literal('content'), content: ContentBlock, _meta: Meta }),
  diff: Diff,
  terminal: z.looseObject({ type: z.literal('terminal'), terminalId: z.string(), _meta: Meta }),
});

export const ToolCallLocation = z.looseObject({ path: z.string(), line: lenient(z.number().int().min(1)), _meta: Meta });

export const ToolKind = openEnum(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
export const ToolCallStatus = openEnum(['pending', 'in_progress', 'paused', 'completed', 'failed', 'cancelled']);

/** `tool_call_update`: creates the call or patches it (absent = unchanged, `null` = cleared). */
export const ToolCallUpdateFields = {
  toolCallId: z.string(),
  name: lenient(z.string()),
  title: lenient(z.string()),
  kind: lenient(ToolKind),
  status: lenient(ToolCallStatus),
  content: patchList(ToolCallContent),
  locations: patchList(ToolCallLocation),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  capabilities: lenient(z.looseObject({ cancel: lenient(z.looseObject({})) })),
  _meta: Meta,
};

/** A tool call upsert on its own (the `toolCall` of a permission request's `tool_call` subject). */
export const ToolCallUpdate = z.looseObject(ToolCallUpdateFields);

// ---- terminals, plans, commands, config options --------------------------------------------------------

export const TerminalExitStatus = z.looseObject({ exitCode: lenient(z.number().int()), signal: lenient(z.string()), _meta: Meta });

/** `terminal_update`: an agent-owned terminal's state; `output.data` (base64) is the whole output so far. */
export const TerminalUpdateFields = {
  terminalId: z.string(),
  command: lenient(z.string()),
  cwd: lenient(z.string()),
  output: lenient(z.looseObject({ data: z.string(), _meta: Meta })),
  exitStatus: lenient(TerminalExitStatus),
  size: lenient(z.looseObject({ cols: z.number().int(), rows: z.number().int() })),
  capabilities: lenient(z.looseObject({ cancel: lenient(z.looseObject({})) })),
  _meta: Meta,
};

export const PlanUpdateContent = tolerantUnion('type', {
  items: z.looseObject({ type: z.literal('items'), planId: z.string(), entries: skipInvalidItems(PlanEntry), _meta: Meta }),
});

/** A slash command; a command `type` other than `command` is shown as a plain command by its name (the schema says so). */
export const AvailableCommand = z.looseObject({
  type: z.string(),
  name: z.string(),
  description: z.string(),
  input: lenient(z.looseObject({ type: z.string(), hint: lenient(z.string()), _meta: Meta })),
  _meta: Meta,
});

export const SessionConfigSelectOption = z.looseObject({ value: z.string(), name: z.string(), description: lenient(z.string()), _meta: Meta });
export const SessionConfigSelectGroup = z.looseObject({
  groupId: z.string(),
  name: z.string(),
  options: skipInvalidItems(SessionConfigSelectOption),
  _meta: Meta,
});

const configOptionFields = {
  configId: z.string(),
  name: z.string(),
  description: lenient(z.string()),
  category: lenient(openEnum(['mode', 'model', 'model_config', 'thought_level'])),
  _meta: Meta,
};

/** A v2 session config option (`configId`, groups with a `groupId`); other types are kept as `$unknown`. */
export const SessionConfigOption = tolerantUnion('type', {
  select: z.looseObject({
    ...configOptionFields,
    type: z.literal('select'),
    currentValue: z.string(),
    options: z.union([z.array(SessionConfigSelectOption), z.array(SessionConfigSelectGroup)]),
  }),
  boolean: z.looseObject({ ...configOptionFields, type: z.literal('boolean'), currentValue: z.boolean() }),
});

// ---- the update union ----------------------------------------------------------------------------------

const tagged = <const T extends string>(tag: T) => ({ sessionUpdate: z.literal(tag) });
const chunk = <const T extends string>(tag: T) => z.looseObject({ ...tagged(tag), messageId: z.string(), content: ContentBlock, _meta: Meta });
const message = <const T extends string>(tag: T) => z.looseObject({ ...tagged(tag), messageId: z.string(), content: patchList(ContentBlock), _meta: Meta });

/**
 * Every `session/update` variant of the v2 schema, and `replay_complete` (RFD "session replay complete", not yet
 * in the SDK 2.4.0 schema, where it is a valid "other" update). A variant this client does not know, or a known
 * one that does not validate, arrives as `{sessionUpdate: '$unknown', tag, raw, error?}`.
 */
export const SessionUpdate = tolerantUnion('sessionUpdate', {
  user_message_chunk: chunk('user_message_chunk'),
  user_message: message('user_message'),
  agent_message_chunk: chunk('agent_message_chunk'),
  agent_message: message('agent_message'),
  agent_thought_chunk: chunk('agent_thought_chunk'),
  agent_thought: message('agent_thought'),
  // Flat (the state's own fields beside it); states are open: an unknown one is read, not rejected.
  state_update: z.looseObject({
    ...tagged('state_update'),
    state: z.string(),
    stopReason: lenient(z.string()),
    background: z.unknown().optional(),
    _meta: Meta,
  }),
  tool_call_content_chunk: z.looseObject({ ...tagged('tool_call_content_chunk'), toolCallId: z.string(), content: ToolCallContent, _meta: Meta }),
  tool_call_update: z.looseObject({ ...tagged('tool_call_update'), ...ToolCallUpdateFields }),
  terminal_update: z.looseObject({ ...tagged('terminal_update'), ...TerminalUpdateFields }),
  terminal_output_chunk: z.looseObject({ ...tagged('terminal_output_chunk'), terminalId: z.string(), data: z.string(), _meta: Meta }),
  plan_update: z.looseObject({ ...tagged('plan_update'), plan: PlanUpdateContent, _meta: Meta }),
  available_commands_update: z.looseObject({ ...tagged('available_commands_update'), availableCommands: skipInvalidItems(AvailableCommand), _meta: Meta }),
  config_option_update: z.looseObject({ ...tagged('config_option_update'), configOptions: skipInvalidItems(SessionConfigOption), _meta: Meta }),
  session_info_update: z.looseObject({ ...tagged('session_info_update'), title: lenient(z.string()), updatedAt: lenient(z.string()), _meta: Meta }),
  usage_update: z.looseObject({ ...tagged('usage_update'), used: z.number().int().min(0), size: z.number().int().min(0), cost: lenient(Cost), _meta: Meta }),
  notice: z.looseObject({
    ...tagged('notice'),
    severity: openEnum(['info', 'warning', 'error']),
    title: z.string().min(1),
    description: lenient(z.string()),
    _meta: Meta,
  }),
  compaction_update: z.looseObject({
    ...tagged('compaction_update'),
    compactionId: z.string(),
    status: openEnum(['in_progress', 'completed', 'failed', 'cancelled']),
    summary: patchList(ContentBlock),
    error: lenient(z.string()),
    _meta: Meta,
  }),
  compaction_summary_chunk: z.looseObject({ ...tagged('compaction_summary_chunk'), compactionId: z.string(), content: ContentBlock, _meta: Meta }),
  replay_complete: z.looseObject({ ...tagged('replay_complete'), _meta: Meta }),
});

export type SessionUpdate = z.output<typeof SessionUpdate>;
export type SessionUpdateOf<K extends SessionUpdate['sessionUpdate']> = Extract<SessionUpdate, { sessionUpdate: K }>;
export type ToolCallContent = z.output<typeof ToolCallContent>;
export type ToolCallUpdate = z.output<typeof ToolCallUpdate>;
export type SessionConfigOption = z.output<typeof SessionConfigOption>;
export type SessionConfigSelectOption = z.output<typeof SessionConfigSelectOption>;
export type SessionConfigSelectGroup = z.output<typeof SessionConfigSelectGroup>;
