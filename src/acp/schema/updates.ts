/** `session/update`: everything the agent streams about a session. https://agentclientprotocol.com/protocol/prompt-turn */
import * as z from 'zod';
import { Meta, SessionId, tolerantUnion } from './primitives';
import {
  AvailableCommandsFields,
  CompactionFields,
  CompactionSummaryChunkFields,
  ConfigOptionFields,
  ContentChunkFields,
  CurrentModeFields,
  NoticeFields,
  PlanFields,
  SessionInfoFields,
  UsageFields,
} from './sessionState';
import { ToolCall, ToolCallUpdate } from './toolCall';

const tagged = <const T extends string>(tag: T) => ({ sessionUpdate: z.literal(tag) });

/**
 * Every stable `session/update` variant. A variant this client does not know (for example an unstable
 * one such as `plan_update`), or a known one that does not validate, arrives as
 * `{sessionUpdate: '$unknown', tag, raw, error?}`: kept and shown, never dropped.
 */
export const SessionUpdate = tolerantUnion('sessionUpdate', {
  user_message_chunk: z.looseObject({ ...tagged('user_message_chunk'), ...ContentChunkFields }),
  agent_message_chunk: z.looseObject({ ...tagged('agent_message_chunk'), ...ContentChunkFields }),
  agent_thought_chunk: z.looseObject({ ...tagged('agent_thought_chunk'), ...ContentChunkFields }),
  tool_call: ToolCall.extend(tagged('tool_call')),
  tool_call_update: ToolCallUpdate.extend(tagged('tool_call_update')),
  plan: z.looseObject({ ...tagged('plan'), ...PlanFields }),
  available_commands_update: z.looseObject({ ...tagged('available_commands_update'), ...AvailableCommandsFields }),
  current_mode_update: z.looseObject({ ...tagged('current_mode_update'), ...CurrentModeFields }),
  config_option_update: z.looseObject({ ...tagged('config_option_update'), ...ConfigOptionFields }),
  session_info_update: z.looseObject({ ...tagged('session_info_update'), ...SessionInfoFields }),
  usage_update: z.looseObject({ ...tagged('usage_update'), ...UsageFields }),
  notice: z.looseObject({ ...tagged('notice'), ...NoticeFields }),
  compaction_update: z.looseObject({ ...tagged('compaction_update'), ...CompactionFields }),
  compaction_summary_chunk: z.looseObject({ ...tagged('compaction_summary_chunk'), ...CompactionSummaryChunkFields }),
});

/** Params of the `session/update` notification. */
export const SessionNotification = z.looseObject({
  sessionId: SessionId,
  update: SessionUpdate,
  _meta: Meta,
});

export type SessionUpdate = z.output<typeof SessionUpdate>;
export type SessionNotification = z.output<typeof SessionNotification>;
/** The `sessionUpdate` tags this client understands. */
export type SessionUpdateKind = Exclude<SessionUpdate['sessionUpdate'], '$unknown'>;
export type SessionUpdateOf<K extends SessionUpdate['sessionUpdate']> = Extract<SessionUpdate, { sessionUpdate: K }>;
