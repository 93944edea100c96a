/** Initialization: versions, capabilities both ways, authentication methods. https://agentclientprotocol.com/protocol/initialization */
import * as z from 'zod';
import { Meta, lenient, skipInvalidItems, tolerantUnion } from './primitives';

/** The only protocol version this client speaks. */
export const PROTOCOL_VERSION = 1;

export const Implementation = z.looseObject({
  name: z.string(),
  version: z.string(),
  title: lenient(z.string()),
  _meta: Meta,
});

/**
 * A capability object: `{}` (with optional `_meta`) means supported; missing or `null` means not.
 * `true` is also read as supported: a few agents send booleans where the schema has objects.
 */
export const CapabilityFlag = lenient(z.union([z.looseObject({ _meta: Meta }), z.literal(true).transform(() => ({}))]));

const flag = z.boolean().default(false).catch(false);

// ---- client capabilities (what this client sends) -------------------------------------------------

export const ClientCapabilities = z.looseObject({
  fs: z
    .looseObject({ readTextFile: flag, writeTextFile: flag, _meta: Meta })
    .default({ readTextFile: false, writeTextFile: false })
    .catch({ readTextFile: false, writeTextFile: false }),
  terminal: flag,
  session: lenient(
    z.looseObject({
      configOptions: lenient(z.looseObject({ boolean: CapabilityFlag, _meta: Meta })),
      notices: CapabilityFlag,
      compaction: CapabilityFlag,
      _meta: Meta,
    }),
  ),
  auth: z.looseObject({ terminal: flag, _meta: Meta }).default({ terminal: false }).catch({ terminal: false }),
  elicitation: lenient(z.looseObject({ form: CapabilityFlag, url: CapabilityFlag, _meta: Meta })),
  _meta: Meta,
});

// ---- agent capabilities (what the agent answers) --------------------------------------------------

export const PromptCapabilities = z.looseObject({ image: flag, audio: flag, embeddedContext: flag, _meta: Meta });
export const McpCapabilities = z.looseObject({ http: flag, sse: flag, _meta: Meta });

export const SessionCapabilities = z.looseObject({
  list: CapabilityFlag,
  resume: CapabilityFlag,
  close: CapabilityFlag,
  delete: CapabilityFlag,
  additionalDirectories: CapabilityFlag,
  /** Unstable: `session/fork`. */
  fork: CapabilityFlag,
  /** Unstable: `session/set_title`. */
  title: CapabilityFlag,
  _meta: Meta,
});

const emptyPrompt = { image: false, audio: false, embeddedContext: false };
const emptyMcp = { http: false, sse: false };

export const AgentCapabilities = z.looseObject({
  loadSession: flag,
  promptCapabilities: PromptCapabilities.default(emptyPrompt).catch(emptyPrompt),
  mcpCapabilities: McpCapabilities.default(emptyMcp).catch(emptyMcp),
  sessionCapabilities: SessionCapabilities.default({}).catch({}),
  auth: z.looseObject({ logout: CapabilityFlag, _meta: Meta }).default({}).catch({}),
  _meta: Meta,
});

// ---- authentication -------------------------------------------------------------------------------

const authMethodFields = {
  id: z.string(),
  name: z.string(),
  description: lenient(z.string()),
  _meta: Meta,
};

/** The agent authenticates itself when the client calls `authenticate` with this id. */
export const AuthMethodAgent = z.looseObject({ ...authMethodFields, type: z.literal('agent') });

/** The client runs the agent command (plus `args`/`env`) in a terminal for the user; never passed to `authenticate`. */
export const AuthMethodTerminal = z.looseObject({
  ...authMethodFields,
  type: z.literal('terminal'),
  args: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
  env: z
    .record(z.string(), z.string())
    .nullish()
    .transform((v) => v ?? {}),
});

/** An auth method; a method without `type` is an `agent` method. */
export const AuthMethod = z.preprocess(
  (value) => (value !== null && typeof value === 'object' && !('type' in value) ? { ...value, type: 'agent' } : value),
  tolerantUnion('type', { agent: AuthMethodAgent, terminal: AuthMethodTerminal }),
);

export const InitializeRequest = z.looseObject({
  protocolVersion: z.number().int().min(0).max(65535),
  clientCapabilities: ClientCapabilities.optional(),
  clientInfo: lenient(Implementation),
  _meta: Meta,
});

export const InitializeResponse = z.looseObject({
  protocolVersion: z.number().int().min(0).max(65535),
  agentCapabilities: AgentCapabilities.default(AgentCapabilities.parse({})).catch(AgentCapabilities.parse({})),
  authMethods: skipInvalidItems(AuthMethod),
  agentInfo: lenient(Implementation),
  _meta: Meta,
});

export const AuthenticateRequest = z.looseObject({ methodId: z.string(), _meta: Meta });
export const EmptyObject = z.looseObject({ _meta: Meta });

export type Implementation = z.output<typeof Implementation>;
export type ClientCapabilities = z.output<typeof ClientCapabilities>;
export type AgentCapabilities = z.output<typeof AgentCapabilities>;
export type AuthMethod = z.output<typeof AuthMethod>;
export type InitializeRequest = z.output<typeof InitializeRequest>;
export type InitializeResponse = z.output<typeof InitializeResponse>;
