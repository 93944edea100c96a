/**
 * What the agent asks of the client (agent → client): file system, terminals, permission and
 * elicitation. https://agentclientprotocol.com/protocol/file-system, /terminals, /tool-calls
 */
import * as z from 'zod';
import { EnvVariable } from './mcp';
import { Meta, RequestId, SessionId, TerminalId, ToolCallId, lenient, openEnum, skipInvalidItems, tolerantUnion } from './primitives';
import { ToolCallUpdate } from './toolCall';

// ---- file system ----------------------------------------------------------------------------------

/** `line` is 1-based; `limit` is a number of lines. */
export const ReadTextFileRequest = z.looseObject({
  sessionId: SessionId,
  path: z.string(),
  line: z.number().int().min(0).nullish(),
  limit: z.number().int().min(0).nullish(),
  _meta: Meta,
});
export const ReadTextFileResponse = z.looseObject({ content: z.string(), _meta: Meta });

export const WriteTextFileRequest = z.looseObject({ sessionId: SessionId, path: z.string(), content: z.string(), _meta: Meta });

// ---- permission -----------------------------------------------------------------------------------

export const PermissionOptionKind = openEnum(['allow_once', 'allow_always', 'reject_once', 'reject_always']);

export const PermissionOption = z.looseObject({
  optionId: z.string(),
  name: z.string(),
  kind: PermissionOptionKind,
  _meta: Meta,
});

export const RequestPermissionRequest = z.looseObject({
  sessionId: SessionId,
  toolCall: ToolCallUpdate,
  options: z.array(PermissionOption),
  _meta: Meta,
});

export const RequestPermissionOutcome = z.discriminatedUnion('outcome', [
  z.looseObject({ outcome: z.literal('cancelled'), _meta: Meta }),
  z.looseObject({ outcome: z.literal('selected'), optionId: z.string(), _meta: Meta }),
]);
export const RequestPermissionResponse = z.looseObject({ outcome: RequestPermissionOutcome, _meta: Meta });

// ---- terminals ------------------------------------------------------------------------------------

export const CreateTerminalRequest = z.looseObject({
  sessionId: SessionId,
  command: z.string(),
  args: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
  env: z
    .array(EnvVariable)
    .nullish()
    .transform((v) => v ?? []),
  cwd: z.string().nullish(),
  outputByteLimit: z.number().int().min(0).nullish(),
  _meta: Meta,
});
export const CreateTerminalResponse = z.looseObject({ terminalId: TerminalId, _meta: Meta });

export const TerminalRequest = z.looseObject({ sessionId: SessionId, terminalId: TerminalId, _meta: Meta });

export const TerminalExitStatus = z.looseObject({
  exitCode: lenient(z.number().int().min(0)),
  signal: lenient(z.string()),
  _meta: Meta,
});

export const TerminalOutputResponse = z.looseObject({
  output: z.string(),
  truncated: z.boolean(),
  exitStatus: lenient(TerminalExitStatus),
  _meta: Meta,
});

export const WaitForTerminalExitResponse = TerminalExitStatus;

// ---- elicitation ----------------------------------------------------------------------------------

const propertyFields = { title: lenient(z.string()), description: lenient(z.string()), _meta: Meta };

export const EnumOption = z.looseObject({ const: z.string(), title: z.string(), description: lenient(z.string()), _meta: Meta });

export const ElicitationPropertySchema = tolerantUnion('type', {
  string: z.looseObject({
    ...propertyFields,
    type: z.literal('string'),
    minLength: z.number().int().min(0).nullish(),
    maxLength: z.number().int().min(0).nullish(),
    pattern: z.string().nullish(),
    format: lenient(openEnum(['email', 'uri', 'date', 'date-time'])),
    default: lenient(z.string()),
    enum: z.array(z.string()).nullish(),
    oneOf: z.array(EnumOption).nullish(),
  }),
  number: z.looseObject({
    ...propertyFields,
    type: z.literal('number'),
    minimum: z.number().nullish(),
    maximum: z.number().nullish(),
    default: lenient(z.number()),
  }),
  integer: z.looseObject({
    ...propertyFields,
    type: z.literal('integer'),
    minimum: z.number().int().nullish(),
    maximum: z.number().int().nullish(),
    default: lenient(z.number().int()),
  }),
  boolean: z.looseObject({ ...propertyFields, type: z.literal('boolean'), default: lenient(z.boolean()) }),
  array: z.looseObject({
    ...propertyFields,
    type: z.literal('array'),
    minItems: z.number().int().min(0).nullish(),
    maxItems: z.number().int().min(0).nullish(),
    items: z.union([
      z.looseObject({ type: z.literal('string'), enum: z.array(z.string()), _meta: Meta }),
      z.looseObject({ anyOf: z.array(EnumOption), _meta: Meta }),
    ]),
    default: lenient(skipInvalidItems(z.string())),
  }),
});

export const ElicitationSchema = z.looseObject({
  type: lenient(z.literal('object')),
  title: lenient(z.string()),
  description: lenient(z.string()),
  properties: z.record(z.string(), ElicitationPropertySchema).default({}),
  required: z.array(z.string()).nullish(),
  _meta: Meta,
});

/** Where an elicitation belongs: a session (optionally one tool call) or a pending request. */
const elicitationScope = {
  sessionId: SessionId.optional(),
  toolCallId: lenient(ToolCallId),
  requestId: RequestId.optional(),
};

export const CreateElicitationRequest = tolerantUnion(
  'mode',
  {
    form: z.looseObject({ mode: z.literal('form'), message: z.string(), requestedSchema: ElicitationSchema, ...elicitationScope, _meta: Meta }),
    url: z.looseObject({
      mode: z.literal('url'),
      message: z.string(),
      elicitationId: z.string(),
      url: z.string(),
      ...elicitationScope,
      _meta: Meta,
    }),
  },
  { strictKnownVariants: true },
);

export const ElicitationContentValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

export const CreateElicitationResponse = z.discriminatedUnion('action', [
  z.looseObject({ action: z.literal('accept'), content: z.record(z.string(), ElicitationContentValue).nullish(), _meta: Meta }),
  z.looseObject({ action: z.literal('decline'), _meta: Meta }),
  z.looseObject({ action: z.literal('cancel'), _meta: Meta }),
]);

export const CompleteElicitationNotification = z.looseObject({ elicitationId: z.string(), _meta: Meta });

export type ReadTextFileRequest = z.output<typeof ReadTextFileRequest>;
export type WriteTextFileRequest = z.output<typeof WriteTextFileRequest>;
export type PermissionOptionKind = z.output<typeof PermissionOptionKind>;
export type PermissionOption = z.output<typeof PermissionOption>;
export type RequestPermissionRequest = z.output<typeof RequestPermissionRequest>;
export type RequestPermissionResponse = z.output<typeof RequestPermissionResponse>;
export type CreateTerminalRequest = z.output<typeof CreateTerminalRequest>;
export type TerminalOutputResponse = z.output<typeof TerminalOutputResponse>;
export type TerminalExitStatus = z.output<typeof TerminalExitStatus>;
export type CreateElicitationRequest = z.output<typeof CreateElicitationRequest>;
export type CreateElicitationResponse = z.output<typeof CreateElicitationResponse>;
export type ElicitationSchema = z.output<typeof ElicitationSchema>;
