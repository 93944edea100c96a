/** Tool calls reported by the agent. https://agentclientprotocol.com/protocol/tool-calls */
import * as z from 'zod';
import { ContentBlock } from './content';
import type { AgentTerminalReport } from '../port/events';
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

/**
 * A terminal the agent runs itself, reported in a tool call's `_meta` (Zed's convention, which pi-acp and
 * codex-acp follow; ACP v2 makes these `terminal_update` and `terminal_output_chunk`): no `terminal/create`
 * comes before it, and the client can only show it. `terminal_info` starts it (`cwd`), `terminal_output`
 * (pi-acp, codex-acp to a client declaring it) and `terminal_output_delta` (codex-acp otherwise) append
 * `data` to its output, `terminal_exit` ends it. Each key is read on its own and tolerantly: one that does not
 * read is ignored, never the update.
 */
const TerminalInfoMeta = z.looseObject({ terminal_id: TerminalId, cwd: lenient(z.string()) });
const TerminalOutputMeta = z.looseObject({ terminal_id: TerminalId, data: z.string() });
const TerminalExitMeta = z.looseObject({ terminal_id: TerminalId, exit_code: lenient(z.number()), signal: lenient(z.string()) });

export const AgentTerminalMeta = z.looseObject({
  terminal_info: lenient(TerminalInfoMeta),
  terminal_output: lenient(TerminalOutputMeta),
  terminal_output_delta: lenient(TerminalOutputMeta),
  terminal_exit: lenient(TerminalExitMeta),
});

/** The agent-owned terminals a tool call update's `_meta` reports (usually none; at most one per terminal id). */
export function agentTerminalReports(meta: Record<string, unknown> | null | undefined): AgentTerminalReport[] {
  if (!meta || !('terminal_info' in meta || 'terminal_output' in meta || 'terminal_output_delta' in meta || 'terminal_exit' in meta)) return [];
  const parsed = AgentTerminalMeta.safeParse(meta);
  if (!parsed.success) return [];
  const { terminal_info: info, terminal_output: output, terminal_output_delta: delta, terminal_exit: exit } = parsed.data;
  const reports = new Map<string, { terminalId: string; cwd?: string; output?: string; exitStatus?: AgentTerminalReport['exitStatus'] }>();
  const of = (terminalId: string) => {
    let report = reports.get(terminalId);
    if (!report) reports.set(terminalId, (report = { terminalId }));
    return report;
  };
  if (info) {
    const report = of(info.terminal_id);
    if (typeof info.cwd === 'string' && info.cwd !== '') report.cwd = info.cwd;
  }
  for (const chunk of [output, delta]) {
    if (!chunk || chunk.data === '') continue;
    const report = of(chunk.terminal_id);
    report.output = (report.output ?? '') + chunk.data;
  }
  if (exit) of(exit.terminal_id).exitStatus = { exitCode: exit.exit_code ?? null, signal: exit.signal ?? null };
  return [...reports.values()];
}
