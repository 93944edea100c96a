/**
 * ACP v2 → the transcript's domain events (`acp/port/events.ts`) and the turn's signals: one `session/update`
 * notification's params, read against the v2 schema (`./schema`), become what the Thread folds (v2's upserts
 * keyed by id keep their rules: `messageUpsert`, `messageAppend`, `toolCallUpsert`, `toolCallAppend`, plans by
 * id), what ends or pauses a turn (`state_update`) and the end of a replay (`replay_complete`).
 *
 * Hot path (every streamed chunk): a text chunk is read without zod (the checks the schema would make, in a few
 * comparisons), everything else through the tolerant schema; one read per update, two for a compaction that
 * carries its summary.
 */
import { formatIssues } from '../schema/primitives';
import type { ContentBlock } from '../schema/content';
import { contentPart } from '../v1/transcriptEvents';
import type { AgentTerminalReport, ConfigChoice, ConfigOption, MessageRole, ToolCallPatch, ToolContent, TranscriptEvent } from '../port/events';
import {
  SessionUpdate,
  type SessionConfigOption,
  type SessionConfigSelectGroup,
  type SessionConfigSelectOption,
  type SessionUpdateOf,
  type ToolCallContent,
  type ToolCallUpdate,
} from './schema';

export type V2TurnSignal =
  | { readonly state: 'running' }
  | { readonly state: 'requires_action' }
  | { readonly state: 'idle'; readonly stopReason?: string }
  | { readonly state: 'unknown'; readonly raw: unknown };

export type V2UpdateRead =
  | { readonly kind: 'transcript'; readonly event: TranscriptEvent }
  | { readonly kind: 'turn'; readonly signal: V2TurnSignal }
  | { readonly kind: 'replayComplete' };

/** Reads one v2 `session/update` notification's params. Never throws: an unknown or invalid variant becomes an 'unknown' transcript event; params without a sessionId are an error. */
export function readV2SessionUpdate(
  params: unknown,
): { readonly ok: true; readonly sessionId: string; readonly reads: readonly V2UpdateRead[] } | { readonly ok: false; readonly error: Error } {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return { ok: false, error: new Error('session/update params must be an object') };
  const sessionId = (params as { sessionId?: unknown }).sessionId;
  if (typeof sessionId !== 'string') return { ok: false, error: new Error('session/update params have no sessionId (a string)') };
  const update = (params as { update?: unknown }).update;
  const fast = textChunk(update);
  if (fast) return { ok: true, sessionId, reads: [fast] };
  const parsed = SessionUpdate.safeParse(update);
  if (!parsed.success) {
    const tag = typeof update === 'object' && update !== null ? (update as { sessionUpdate?: unknown }).sessionUpdate : undefined;
    return {
      ok: true,
      sessionId,
      reads: [transcript({ type: 'unknown', tag: typeof tag === 'string' ? tag : '', raw: update, error: formatIssues(parsed.error.issues) })],
    };
  }
  return { ok: true, sessionId, reads: v2Reads(parsed.data) };
}

/** What one validated v2 update says. */
export function v2Reads(update: SessionUpdate): V2UpdateRead[] {
  switch (update.sessionUpdate) {
    case 'user_message_chunk':
      return [append('user', update.messageId, update.content)];
    case 'agent_message_chunk':
      return [append('agent', update.messageId, update.content)];
    case 'agent_thought_chunk':
      return [append('thought', update.messageId, update.content)];
    case 'user_message':
      return [upsert('user', update.messageId, update.content)];
    case 'agent_message':
      return [upsert('agent', update.messageId, update.content)];
    case 'agent_thought':
      return [upsert('thought', update.messageId, update.content)];
    case 'state_update':
      return [{ kind: 'turn', signal: turnSignal(update) }];
    case 'tool_call_update':
      return [transcript({ type: 'toolCallUpsert', call: v2ToolCallPatch(update) })];
    case 'tool_call_content_chunk':
      return [transcript({ type: 'toolCallAppend', toolCallId: update.toolCallId, content: toolContent(update.content) })];
    case 'terminal_update':
      return [transcript({ type: 'agentTerminal', report: terminalReport(update) })];
    case 'terminal_output_chunk':
      return [transcript({ type: 'agentTerminal', report: { terminalId: update.terminalId, output: decodeBase64(update.data) } })];
    case 'plan_update': {
      const plan = update.plan;
      if (plan.type === '$unknown') return [transcript({ type: 'unknown', tag: `plan_update/${plan.tag}`, raw: plan.raw })];
      return [
        transcript({ type: 'plan', planId: plan.planId, entries: plan.entries.map((e) => ({ content: e.content, priority: e.priority, status: e.status })) }),
      ];
    }
    case 'available_commands_update':
      return [
        transcript({
          type: 'commands',
          commands: update.availableCommands.map((c) =>
            typeof c.input?.hint === 'string' ? { name: c.name, description: c.description, hint: c.input.hint } : { name: c.name, description: c.description },
          ),
        }),
      ];
    case 'config_option_update':
      return [transcript({ type: 'configOptions', options: v2ConfigOptions(update.configOptions) })];
    case 'session_info_update':
      return [transcript(update.title === undefined ? { type: 'sessionInfo' } : { type: 'sessionInfo', title: update.title })];
    case 'usage_update': {
      const cost = update.cost;
      return [
        transcript(
          cost === undefined
            ? { type: 'usage', used: update.used, size: update.size, costPatch: true }
            : {
                type: 'usage',
                used: update.used,
                size: update.size,
                cost: cost === null ? null : { amount: cost.amount, currency: cost.currency },
                costPatch: true,
              },
        ),
      ];
    }
    case 'notice':
      return [
        transcript(
          typeof update.description === 'string'
            ? { type: 'notice', severity: update.severity, title: update.title, description: update.description }
            : { type: 'notice', severity: update.severity, title: update.title },
        ),
      ];
    case 'compaction_update': {
      const reads = [
        transcript(
          typeof update.error === 'string'
            ? { type: 'compaction', compactionId: update.compactionId, status: update.status, error: update.error, upsert: true }
            : { type: 'compaction', compactionId: update.compactionId, status: update.status, upsert: true },
        ),
      ];
      // The summary is a thought of its own, keyed by the compaction: replaced whole here, appended to by chunks.
      if (update.summary !== undefined) reads.push(upsert('thought', compactionMessageId(update.compactionId), update.summary));
      return reads;
    }
    case 'compaction_summary_chunk':
      return [append('thought', compactionMessageId(update.compactionId), update.content)];
    case 'replay_complete':
      return [{ kind: 'replayComplete' }];
    case '$unknown':
      return [
        transcript(
          update.error === undefined
            ? { type: 'unknown', tag: update.tag, raw: update.raw }
            : { type: 'unknown', tag: update.tag, raw: update.raw, error: update.error },
        ),
      ];
  }
}

/** The message id a compaction's summary is shown under (a thought of its own). */
export function compactionMessageId(compactionId: string): string {
  return `compaction:${compactionId}`;
}

/** v2's config options as the port's (select and boolean; others left out), groups flattened. */
export function v2ConfigOptions(options: readonly SessionConfigOption[]): ConfigOption[] {
  const domain: ConfigOption[] = [];
  for (const option of options) {
    if (option.type === '$unknown') continue;
    const base = {
      id: option.configId,
      name: option.name,
      ...(typeof option.description === 'string' ? { description: option.description } : {}),
      ...(typeof option.category === 'string' ? { category: option.category } : {}),
    };
    if (option.type === 'boolean') {
      domain.push({ ...base, type: 'boolean', currentValue: option.currentValue });
      continue;
    }
    const choices: ConfigChoice[] = [];
    for (const entry of option.options as readonly (SessionConfigSelectOption | SessionConfigSelectGroup)[]) {
      if (isGroup(entry)) {
        for (const o of entry.options)
          choices.push({ value: o.value, name: o.name, ...(typeof o.description === 'string' ? { description: o.description } : {}), group: entry.name });
      } else {
        choices.push({ value: entry.value, name: entry.name, ...(typeof entry.description === 'string' ? { description: entry.description } : {}) });
      }
    }
    domain.push({ ...base, type: 'select', currentValue: option.currentValue, options: choices });
  }
  return domain;
}

// ---- internals ----------------------------------------------------------------------------------------

function isGroup(entry: SessionConfigSelectOption | SessionConfigSelectGroup): entry is SessionConfigSelectGroup {
  return typeof entry['groupId'] === 'string' && Array.isArray(entry['options']);
}

const CHUNK_ROLES: Readonly<Record<string, MessageRole>> = { user_message_chunk: 'user', agent_message_chunk: 'agent', agent_thought_chunk: 'thought' };

/**
 * A message chunk of text, read by hand: exactly what the schema would accept and keep (`messageId` a string,
 * `content` a text block, `_meta` an object or nothing; anything else takes the schema's way).
 */
function textChunk(update: unknown): V2UpdateRead | undefined {
  if (typeof update !== 'object' || update === null) return undefined;
  const u = update as { sessionUpdate?: unknown; messageId?: unknown; content?: unknown; _meta?: unknown };
  const role = typeof u.sessionUpdate === 'string' ? CHUNK_ROLES[u.sessionUpdate] : undefined;
  if (role === undefined || typeof u.messageId !== 'string') return undefined;
  const content = u.content as { type?: unknown; text?: unknown } | null | undefined;
  if (typeof content !== 'object' || content === null || content.type !== 'text' || typeof content.text !== 'string') return undefined;
  return { kind: 'transcript', event: { type: 'messageAppend', role, messageId: u.messageId, content: { type: 'text', text: content.text } } };
}

function transcript(event: TranscriptEvent): V2UpdateRead {
  return { kind: 'transcript', event };
}

function append(role: MessageRole, messageId: string, content: ContentBlock): V2UpdateRead {
  return transcript({ type: 'messageAppend', role, messageId, content: contentPart(content) });
}

function upsert(role: MessageRole, messageId: string, content: readonly ContentBlock[] | null | undefined): V2UpdateRead {
  if (content === undefined) return transcript({ type: 'messageUpsert', role, messageId });
  return transcript({ type: 'messageUpsert', role, messageId, content: content === null ? null : content.map(contentPart) });
}

function turnSignal(update: SessionUpdateOf<'state_update'>): V2TurnSignal {
  switch (update.state) {
    case 'running':
      return { state: 'running' };
    case 'requires_action':
      return { state: 'requires_action' };
    case 'idle':
      return typeof update.stopReason === 'string' ? { state: 'idle', stopReason: update.stopReason } : { state: 'idle' };
    default:
      return { state: 'unknown', raw: update };
  }
}

/**
 * A v2 tool call upsert (a `tool_call_update`, or the `toolCall` of a permission request, which the client
 * applies the same way before it asks) as the port's patch.
 */
export function v2ToolCallPatch(update: ToolCallUpdate): ToolCallPatch {
  const patch: { -readonly [K in keyof ToolCallPatch]: ToolCallPatch[K] } = { toolCallId: update.toolCallId };
  if (update.title !== undefined) patch.title = update.title;
  if (update.kind !== undefined) patch.kind = update.kind;
  if (update.status !== undefined) patch.status = update.status;
  if (update.content !== undefined) patch.content = update.content === null ? null : update.content.map(toolContent);
  if (update.locations !== undefined)
    patch.locations =
      update.locations === null ? null : update.locations.map((l) => (typeof l.line === 'number' ? { path: l.path, line: l.line } : { path: l.path }));
  if (update.rawInput !== undefined) patch.rawInput = update.rawInput;
  return patch;
}

function toolContent(content: ToolCallContent): ToolContent {
  switch (content.type) {
    case 'content':
      return { type: 'content', content: contentPart(content.content) };
    case 'diff':
      return {
        type: 'patch',
        changes: content.changes.map((c) => ({
          operation: c.operation,
          ...(typeof c.path === 'string' ? { path: c.path } : {}),
          ...(typeof c.oldPath === 'string' ? { oldPath: c.oldPath } : {}),
        })),
        ...(content.patch ? { patch: { format: content.patch.format, text: content.patch.text } } : {}),
      };
    case 'terminal':
      return { type: 'terminal', terminalId: content.terminalId };
    case '$unknown':
      return { type: 'unknown', tag: content.tag, raw: content.raw };
  }
}

function terminalReport(update: SessionUpdateOf<'terminal_update'>): AgentTerminalReport {
  const report: { -readonly [K in keyof AgentTerminalReport]: AgentTerminalReport[K] } = { terminalId: update.terminalId };
  if (typeof update.command === 'string') report.command = update.command;
  if (typeof update.cwd === 'string') report.cwd = update.cwd;
  if (update.output) {
    report.output = decodeBase64(update.output.data);
    report.outputReplaces = true;
  }
  if (update.exitStatus) report.exitStatus = { exitCode: update.exitStatus.exitCode ?? null, signal: update.exitStatus.signal ?? null };
  return report;
}

/** Terminal bytes as text (UTF-8; a character cut between two chunks shows as a replacement character). */
function decodeBase64(data: string): string {
  return Buffer.from(data, 'base64').toString('utf8');
}
