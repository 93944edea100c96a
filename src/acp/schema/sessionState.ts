/**
 * Per-session state the agent describes: modes, models, config options (model picker and friends), slash
 * commands, the plan, usage, title, notices and compaction.
 */
import * as z from 'zod';
import { ContentBlock } from './content';
import { Meta, SessionId, formatIssues, lenient, openEnum, skipInvalidItems, tolerantUnion } from './primitives';

// ---- modes ----------------------------------------------------------------------------------------

export const SessionMode = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: lenient(z.string()),
  _meta: Meta,
});

export const SessionModeState = z.looseObject({
  currentModeId: z.string(),
  availableModes: skipInvalidItems(SessionMode),
  _meta: Meta,
});

// ---- models (unstable, superseded by config options of category `model`; opencode and others still send it) ----

export const ModelInfo = z.looseObject({
  modelId: z.string().min(1),
  name: z.string(),
  description: lenient(z.string()),
  _meta: Meta,
});

/** The session's models: `session/set_model` picks one. Model ids past the 200th are not kept. */
export const SessionModelState = z.looseObject({
  currentModelId: z.string(),
  availableModels: skipInvalidItems(ModelInfo).transform((models) => models.slice(0, MAX_MODELS)),
  _meta: Meta,
});

const MAX_MODELS = 200;

/**
 * A setup answer's `models` block that failed validation. It is dropped (the rest of the answer stands) and the
 * connection reports it as a protocol error with these words.
 */
export class InvalidModels {
  constructor(readonly issues: string) {}
}

/** `models` in a setup answer: the state, nothing (`null`/absent), or an {@link InvalidModels} to report. */
export const SessionModelsBlock = z
  .unknown()
  .optional()
  .transform((value): SessionModelState | InvalidModels | undefined => {
    if (value === undefined || value === null) return undefined;
    const parsed = SessionModelState.safeParse(value);
    return parsed.success ? parsed.data : new InvalidModels(formatIssues(parsed.error.issues));
  });

// ---- config options -------------------------------------------------------------------------------

export const SessionConfigOptionCategory = openEnum(['mode', 'model', 'model_config', 'thought_level']);

export const SessionConfigSelectOption = z.looseObject({
  value: z.string(),
  name: z.string(),
  description: lenient(z.string()),
  _meta: Meta,
});

export const SessionConfigSelectGroup = z.looseObject({
  group: z.string(),
  name: z.string(),
  options: skipInvalidItems(SessionConfigSelectOption),
  _meta: Meta,
});

const configOptionFields = {
  id: z.string(),
  name: z.string(),
  description: lenient(z.string()),
  category: lenient(SessionConfigOptionCategory),
  _meta: Meta,
};

export const SessionConfigSelect = z.looseObject({
  ...configOptionFields,
  type: z.literal('select'),
  currentValue: z.string(),
  options: z.union([z.array(SessionConfigSelectOption), z.array(SessionConfigSelectGroup)]),
});

export const SessionConfigBoolean = z.looseObject({
  ...configOptionFields,
  type: z.literal('boolean'),
  currentValue: z.boolean(),
});

/** A session configuration option. The model picker is the `select` whose `category` is `"model"`. */
export const SessionConfigOption = tolerantUnion('type', {
  select: SessionConfigSelect,
  boolean: SessionConfigBoolean,
});

// ---- commands, plan, usage ------------------------------------------------------------------------

export const AvailableCommand = z.looseObject({
  name: z.string(),
  description: z.string(),
  input: lenient(z.looseObject({ hint: z.string(), _meta: Meta })),
  _meta: Meta,
});

export const PlanEntry = z.looseObject({
  content: z.string(),
  priority: openEnum(['high', 'medium', 'low']),
  status: openEnum(['pending', 'in_progress', 'completed']),
  _meta: Meta,
});

export const Cost = z.looseObject({
  amount: z.number(),
  currency: z.string(),
  _meta: Meta,
});

// ---- session/list entries -------------------------------------------------------------------------

/** One entry of `session/list`. `additionalDirectories` is authoritative when the agent supports it. */
export const SessionInfo = z.looseObject({
  sessionId: SessionId,
  cwd: z.string(),
  additionalDirectories: lenient(skipInvalidItems(z.string())),
  title: lenient(z.string()),
  updatedAt: lenient(z.string()),
  _meta: Meta,
});

// ---- update payloads (the part after `sessionUpdate`) ---------------------------------------------

export const ContentChunkFields = {
  content: ContentBlock,
  messageId: lenient(z.string()),
  _meta: Meta,
};

export const PlanFields = { entries: skipInvalidItems(PlanEntry), _meta: Meta };
export const AvailableCommandsFields = { availableCommands: skipInvalidItems(AvailableCommand), _meta: Meta };
export const CurrentModeFields = { currentModeId: z.string(), _meta: Meta };
export const ConfigOptionFields = { configOptions: skipInvalidItems(SessionConfigOption), _meta: Meta };
/** `title`/`updatedAt`: absent = unchanged, `null` = cleared. */
export const SessionInfoFields = { title: lenient(z.string()), updatedAt: lenient(z.string()), _meta: Meta };
export const UsageFields = {
  used: z.number().int().min(0),
  size: z.number().int().min(0),
  cost: lenient(Cost),
  _meta: Meta,
};
export const NoticeFields = {
  severity: openEnum(['info', 'warning', 'error']),
  title: z.string().min(1),
  description: lenient(z.string()),
  _meta: Meta,
};
export const CompactionFields = {
  compactionId: z.string(),
  status: openEnum(['in_progress', 'completed', 'failed', 'cancelled']),
  summary: lenient(skipInvalidItems(ContentBlock)),
  error: lenient(z.string()),
  _meta: Meta,
};
export const CompactionSummaryChunkFields = { compactionId: z.string(), content: ContentBlock, _meta: Meta };

export type SessionMode = z.output<typeof SessionMode>;
export type SessionModeState = z.output<typeof SessionModeState>;
export type ModelInfo = z.output<typeof ModelInfo>;
export type SessionModelState = z.output<typeof SessionModelState>;
export type SessionConfigOption = z.output<typeof SessionConfigOption>;
export type SessionConfigSelect = z.output<typeof SessionConfigSelect>;
export type SessionConfigBoolean = z.output<typeof SessionConfigBoolean>;
export type SessionConfigSelectOption = z.output<typeof SessionConfigSelectOption>;
export type SessionConfigSelectGroup = z.output<typeof SessionConfigSelectGroup>;
export type AvailableCommand = z.output<typeof AvailableCommand>;
export type PlanEntry = z.output<typeof PlanEntry>;
export type SessionInfo = z.output<typeof SessionInfo>;
