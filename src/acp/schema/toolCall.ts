/** Tool calls reported by the agent. https://agentclientprotocol.com/protocol/tool-calls */
import * as z from 'zod';
import { ContentBlock } from './content';
import { Meta, TerminalId, ToolCallId, lenient, openEnum, skipInvalidItems, tolerantUnion } from './primitives';

export const ToolKind = openEnum(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
export const ToolCallStatus = openEnum(['pending', 'in_progress', 'completed', 'failed']);

export const ToolCallLocation = z.looseObject({
  path: z.string(),
  line: lenient(z.number().int().min(0)),
  _meta: Meta,
});

/** `{type: "content"}`: a content block produced by the tool. */
export const ToolCallContentBlock = z.looseObject({
  type: z.literal('content'),
  content: ContentBlock,
  _meta: Meta,
});

/** `{type: "diff"}`: a file modification; `oldText` absent means a new file. */
export const Diff = z.looseObject({
  type: z.literal('diff'),
  path: z.string(),
  oldText: lenient(z.string()),
  newText: z.string(),
  _meta: Meta,
});

/** `{type: "terminal"}`: live output of a terminal created with `terminal/create`. */
export const TerminalContent = z.looseObject({
  type: z.literal('terminal'),
  terminalId: TerminalId,
  _meta: Meta,
});

export const ToolCallContent = tolerantUnion('type', {
  content: ToolCallContentBlock,
  diff: Diff,
  terminal: TerminalContent,
});

const toolCallFields = {
  toolCallId: ToolCallId,
  name: lenient(z.string()),
  kind: lenient(ToolKind),
  status: lenient(ToolCallStatus),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  _meta: Meta,
};

/** A new tool call (`sessionUpdate: "tool_call"`). */
export const ToolCall = z.looseObject({
  ...toolCallFields,
  title: z.string(),
  content: lenient(skipInvalidItems(ToolCallContent)),
  locations: lenient(skipInvalidItems(ToolCallLocation)),
});

/**
 * A patch to an existing tool call (`sessionUpdate: "tool_call_update"`, and the `toolCall` of a
 * permission request). Only fields present change; `content` and `locations` replace the old lists.
 */
export const ToolCallUpdate = z.looseObject({
  ...toolCallFields,
  title: lenient(z.string()),
  content: lenient(skipInvalidItems(ToolCallContent)),
  locations: lenient(skipInvalidItems(ToolCallLocation)),
});

export type ToolKind = z.output<typeof ToolKind>;
export type ToolCallStatus = z.output<typeof ToolCallStatus>;
export type ToolCallLocation = z.output<typeof ToolCallLocation>;
export type ToolCallContent = z.output<typeof ToolCallContent>;
export type Diff = z.output<typeof Diff>;
export type ToolCall = z.output<typeof ToolCall>;
export type ToolCallUpdate = z.output<typeof ToolCallUpdate>;
