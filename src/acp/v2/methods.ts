/**
 * ACP v2's requests as this client sends and answers them (the Preview of 2026-11-20): one definition per method,
 * with tolerant zod schemas for what the agent answers (unknown fields ignored, `null` and omitted alike, a bad
 * optional part dropped rather than failing the answer) and plain ones for what the client sends. The JSON
 * Schema of record is `@agentclientprotocol/sdk/schema/v2/schema.json` (tests check what we send and read
 * against it). `session/update` is read in `sessionUpdates.ts`.
 *
 * What v2 changed for a client (see CONTRIBUTING, "ACP v2"): `info` and `capabilities` on both sides of
 * `initialize`, session features under `capabilities.session` as object markers (`{}` = supported), the baseline
 * methods (new, list, resume, close, prompt, cancel) without a marker, no `session/load` (`session/resume` with
 * `replayFrom` replays), `auth/login` instead of `authenticate`, no client file system or terminals, no modes.
 */
import * as z from 'zod';
import type { RequestDefinition } from '../schema';
import { SessionConfigOption } from './schema';

/** The protocol version this adapter speaks. */
export const PROTOCOL_V2 = 2;

/** A field that is an object marker (`{}`: supported; omitted or `null`: not). */
const marker = z
  .unknown()
  .optional()
  .transform((value) => value !== undefined && value !== null && typeof value === 'object');
const optionalString = z
  .string()
  .nullish()
  .catch(undefined)
  .transform((value) => value ?? undefined);
const meta = z.record(z.string(), z.unknown()).nullish().catch(undefined);

const Implementation = z.object({ name: z.string(), version: z.string().catch(''), title: optionalString });

const SessionCapabilities = z
  .object({
    prompt: z.object({ image: marker, audio: marker, embeddedContext: marker }).nullish().catch(undefined),
    mcp: z.object({ stdio: marker, http: marker }).nullish().catch(undefined),
    delete: marker,
    additionalDirectories: marker,
    /** Unstable: `session/fork`. */
    fork: marker,
    /** Unstable: `session/set_title`. */
    setTitle: marker,
    title: marker,
  })
  .nullish()
  .catch(undefined);

const AuthMethod = z
  .object({
    type: z.string().catch('agent'),
    methodId: z.string(),
    name: z.string(),
    description: optionalString,
    args: z.array(z.string()).nullish().catch(undefined),
    env: z
      .array(z.object({ name: z.string(), value: z.string() }))
      .nullish()
      .catch(undefined),
  })
  .passthrough();

/** Keeps the items that read, drops the others (an agent's one bad entry does not lose the rest). */
function readable<T extends z.ZodType>(item: T) {
  return z
    .array(z.unknown())
    .nullish()
    .catch(undefined)
    .transform((items) =>
      (items ?? []).flatMap((raw) => {
        const parsed = item.safeParse(raw);
        return parsed.success ? [parsed.data as z.output<T>] : [];
      }),
    );
}

export const InitializeResultV2 = z.object({
  protocolVersion: z.number().int(),
  info: Implementation.nullish().catch(undefined),
  capabilities: z
    .object({ session: SessionCapabilities, auth: z.object({ logout: marker }).nullish().catch(undefined), _meta: meta })
    .nullish()
    .catch(undefined),
  authMethods: readable(AuthMethod),
  /** v1 answers carry these instead (an agent that answered another version). */
  agentCapabilities: z.unknown().optional(),
});
export type InitializeResultV2 = z.output<typeof InitializeResultV2>;

const SetupResult = z.object({ configOptions: readable(SessionConfigOption), _meta: meta }).passthrough();

export const NewSessionResultV2 = SetupResult.extend({ sessionId: z.string() });
export const ResumeSessionResultV2 = SetupResult;
export const ForkSessionResultV2 = SetupResult.extend({ sessionId: z.string() });

const ListedSessionV2 = z.object({
  sessionId: z.string(),
  cwd: z.string(),
  additionalDirectories: z.array(z.string()).nullish().catch(undefined),
  title: optionalString,
  updatedAt: optionalString,
  _meta: meta,
});
export const ListSessionsResultV2 = z.object({
  sessions: readable(ListedSessionV2),
  nextCursor: optionalString,
});

export const PromptResultV2 = z.object({ messageId: z.string().nullish().catch(undefined), _meta: meta }).passthrough();
const Empty = z.object({}).passthrough().nullish();
export const SetConfigOptionResultV2 = z.object({ configOptions: readable(SessionConfigOption) }).passthrough();

const McpServerV2 = z.union([
  z.object({ type: z.literal('http'), name: z.string(), url: z.string(), headers: z.array(z.object({ name: z.string(), value: z.string() })) }),
  z.object({
    type: z.literal('stdio'),
    name: z.string(),
    command: z.string(),
    args: z.array(z.string()),
    env: z.array(z.object({ name: z.string(), value: z.string() })),
  }),
]);
export type McpServerV2 = z.output<typeof McpServerV2>;

const Setup = { cwd: z.string(), additionalDirectories: z.array(z.string()).optional(), mcpServers: z.array(McpServerV2).optional() };

/** The permission request's subject: a tool call (patched like a `tool_call_update`), a command, or one this client does not know. */
const PermissionSubject = z
  .object({
    type: z.string(),
    toolCall: z.record(z.string(), z.unknown()).optional(),
    command: z.string().optional(),
    cwd: z.string().optional(),
    toolCallId: z.string().nullish(),
  })
  .passthrough();

export const RequestPermissionParamsV2 = z.object({
  sessionId: z.string(),
  title: z.string(),
  description: optionalString,
  subject: PermissionSubject.nullish().catch(undefined),
  options: z.array(z.object({ optionId: z.string(), name: z.string(), kind: z.string() }).passthrough()).min(1),
});
export type RequestPermissionParamsV2 = z.output<typeof RequestPermissionParamsV2>;
const PermissionOutcomeV2 = z.union([z.object({ outcome: z.literal('cancelled') }), z.object({ outcome: z.literal('selected'), optionId: z.string() })]);

const request = <const M extends string, P extends z.ZodType, R extends z.ZodType>(method: M, params: P, result: R): RequestDefinition<M, P, R> => ({
  kind: 'request',
  method,
  direction: 'client→agent',
  params,
  result,
});

/**
 * `initialize` as this client offers v2: v2's `info` and `capabilities`, and v1's `clientInfo` and
 * `clientCapabilities` beside them, so that an agent that speaks only v1 answers v1 on the same round trip with
 * what it needs (a v2 agent ignores the v1 fields; the schema's objects are open).
 */
export const InitializeV2 = request(
  'initialize',
  z.object({
    protocolVersion: z.number().int(),
    info: z.object({ name: z.string(), version: z.string() }),
    capabilities: z.record(z.string(), z.unknown()),
    clientInfo: z.object({ name: z.string(), version: z.string() }).optional(),
    clientCapabilities: z.record(z.string(), z.unknown()).optional(),
  }),
  InitializeResultV2,
);
/** The same request as the v1 adapter sends it, answered raw: the answer's version decides which schema reads it. */
export const InitializeOffer = request('initialize', InitializeV2.params, z.unknown());
export const LoginV2 = request('auth/login', z.object({ methodId: z.string() }), Empty);
export const LogoutV2 = request('auth/logout', z.object({}), Empty);
export const SessionNewV2 = request('session/new', z.object(Setup), NewSessionResultV2);
export const SessionResumeV2 = request(
  'session/resume',
  z.object({ sessionId: z.string(), ...Setup, replayFrom: z.object({ type: z.literal('start') }).optional() }),
  ResumeSessionResultV2,
);
export const SessionForkV2 = request('session/fork', z.object({ sessionId: z.string(), ...Setup }), ForkSessionResultV2);
export const SessionListV2 = request('session/list', z.object({ cwd: z.string().optional(), cursor: z.string().optional() }), ListSessionsResultV2);
export const SessionCloseV2 = request('session/close', z.object({ sessionId: z.string() }), Empty);
export const SessionDeleteV2 = request('session/delete', z.object({ sessionId: z.string() }), Empty);
export const SessionPromptV2 = request('session/prompt', z.object({ sessionId: z.string(), prompt: z.array(z.unknown()) }), PromptResultV2);
export const SessionSetConfigOptionV2 = request(
  'session/set_config_option',
  z.union([
    z.object({ sessionId: z.string(), configId: z.string(), value: z.string() }),
    z.object({ sessionId: z.string(), configId: z.string(), type: z.literal('boolean'), value: z.boolean() }),
  ]),
  SetConfigOptionResultV2,
);
export const SessionSetTitleV2 = request('session/set_title', z.object({ sessionId: z.string(), title: z.string() }), Empty);
export const ToolCallCancelV2 = request('tool_call/cancel', z.object({ sessionId: z.string(), toolCallId: z.string() }), Empty);
export const TerminalCancelV2 = request('terminal/cancel', z.object({ sessionId: z.string(), terminalId: z.string() }), Empty);
export const SessionCancelV2 = {
  kind: 'notification',
  method: 'session/cancel',
  direction: 'client→agent',
  params: z.object({ sessionId: z.string() }),
} as const;

/** Agent → client: the agent asks the user to approve an operation. */
export const RequestPermissionV2 = {
  kind: 'request',
  method: 'session/request_permission',
  direction: 'agent→client',
  params: RequestPermissionParamsV2,
  result: z.object({ outcome: PermissionOutcomeV2 }),
} as const satisfies RequestDefinition;

/** Agent → client: what the agent streams about a session (read by `sessionUpdates.ts`, not here). */
export const SessionUpdateV2 = { kind: 'notification', method: 'session/update', direction: 'agent→client', params: z.unknown() } as const;
