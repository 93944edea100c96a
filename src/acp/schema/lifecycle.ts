/**
 * Session lifecycle and prompting (client → agent). https://agentclientprotocol.com/protocol/session-setup
 *
 * `additionalDirectories` follows the additional-directories RFD: only sent when the agent advertises
 * `sessionCapabilities.additionalDirectories`; on load / resume / fork it is the complete list.
 */
import * as z from 'zod';
import { OutgoingContentBlock } from './content';
import { EmptyObject } from './initialize';
import { McpServer } from './mcp';
import { Meta, RequestId, SessionId, lenient, openEnum, skipInvalidItems } from './primitives';
import { SessionConfigOption, SessionInfo, SessionModeState, SessionModelsBlock } from './sessionState';

const roots = {
  cwd: z.string(),
  additionalDirectories: z.array(z.string()).optional(),
};

const sessionSetup = {
  modes: lenient(SessionModeState),
  /** Unstable; an invalid block parses to `InvalidModels`, which the connection reports and drops. */
  models: SessionModelsBlock,
  configOptions: lenient(skipInvalidItems(SessionConfigOption)),
  _meta: Meta,
};

/** Several agents answer `null` (or nothing) where the schema has an empty object. */
const orEmpty = <T extends z.ZodType<Record<string, unknown>>>(schema: T) =>
  z.union([z.null(), z.undefined(), schema]).transform((value) => value ?? ({} as z.output<T>));

export const EmptyResult = orEmpty(EmptyObject);

export const NewSessionRequest = z.looseObject({ ...roots, mcpServers: z.array(McpServer), _meta: Meta });
export const NewSessionResponse = z.looseObject({ sessionId: SessionId, ...sessionSetup });

export const LoadSessionRequest = z.looseObject({ sessionId: SessionId, ...roots, mcpServers: z.array(McpServer), _meta: Meta });
/** The result may be `null`; the history was replayed as `session/update` before it. */
export const LoadSessionResponse = orEmpty(z.looseObject(sessionSetup));

export const ResumeSessionRequest = z.looseObject({ sessionId: SessionId, ...roots, mcpServers: z.array(McpServer).optional(), _meta: Meta });
export const ResumeSessionResponse = orEmpty(z.looseObject(sessionSetup));

/** Unstable. The agent answers with the new session's id. */
export const ForkSessionRequest = z.looseObject({ sessionId: SessionId, ...roots, mcpServers: z.array(McpServer).optional(), _meta: Meta });
export const ForkSessionResponse = z.looseObject({ sessionId: SessionId, ...sessionSetup });

/** `cwd` is an exact-match filter; `cursor` is opaque and must come from the previous page. */
export const ListSessionsRequest = z.looseObject({ cwd: z.string().nullish(), cursor: z.string().nullish(), _meta: Meta });
export const ListSessionsResponse = z.looseObject({
  sessions: skipInvalidItems(SessionInfo),
  nextCursor: lenient(z.string()),
  _meta: Meta,
});

export const SessionIdRequest = z.looseObject({ sessionId: SessionId, _meta: Meta });

export const SetSessionModeRequest = z.looseObject({ sessionId: SessionId, modeId: z.string(), _meta: Meta });

/** Unstable `session/set_model`: only for sessions whose setup answer had `models`. Answers `{}`. */
export const SetSessionModelRequest = z.looseObject({ sessionId: SessionId, modelId: z.string(), _meta: Meta });

/** Select options take a value id; boolean options must say `type: "boolean"`. */
export const SetSessionConfigOptionRequest = z.union([
  z.looseObject({ sessionId: SessionId, configId: z.string(), type: z.literal('boolean'), value: z.boolean(), _meta: Meta }),
  z.looseObject({ sessionId: SessionId, configId: z.string(), value: z.string(), _meta: Meta }),
]);
export const SetSessionConfigOptionResponse = z.looseObject({ configOptions: skipInvalidItems(SessionConfigOption), _meta: Meta });

/** Unstable: `session/set_title`. */
export const SetSessionTitleRequest = z.looseObject({ sessionId: SessionId, title: z.string(), _meta: Meta });
/** The title the agent stored (it may have normalized it): show this one. */
export const SetSessionTitleResponse = z.looseObject({ title: lenient(z.string()), _meta: Meta });

export const StopReason = openEnum(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);

export const PromptRequest = z.looseObject({ sessionId: SessionId, prompt: z.array(OutgoingContentBlock), _meta: Meta });
export const PromptResponse = z.looseObject({ stopReason: StopReason, _meta: Meta });

export const CancelParams = z.looseObject({ sessionId: SessionId, _meta: Meta });
export const CancelRequestParams = z.looseObject({ requestId: RequestId, _meta: Meta });

export type NewSessionRequest = z.output<typeof NewSessionRequest>;
export type NewSessionResponse = z.output<typeof NewSessionResponse>;
export type LoadSessionRequest = z.output<typeof LoadSessionRequest>;
export type LoadSessionResponse = z.output<typeof LoadSessionResponse>;
export type ResumeSessionRequest = z.output<typeof ResumeSessionRequest>;
export type ResumeSessionResponse = z.output<typeof ResumeSessionResponse>;
export type ForkSessionRequest = z.output<typeof ForkSessionRequest>;
export type ForkSessionResponse = z.output<typeof ForkSessionResponse>;
export type ListSessionsRequest = z.output<typeof ListSessionsRequest>;
export type ListSessionsResponse = z.output<typeof ListSessionsResponse>;
export type SetSessionConfigOptionRequest = z.output<typeof SetSessionConfigOptionRequest>;
export type StopReason = z.output<typeof StopReason>;
export type PromptRequest = z.output<typeof PromptRequest>;
export type PromptResponse = z.output<typeof PromptResponse>;
