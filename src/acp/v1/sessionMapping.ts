/**
 * ACP v1 ↔ the port's session types (`acp/port/agentConnection.ts`): a setup answer, a listed session, a permission
 * request and its answer, the prompt the client sends (MCP servers: `v1/mcpServers.ts`). `null` (v1's "not given") becomes absent;
 * `_meta` of a listed session is kept as sent (the same object: the catalog compares it by identity).
 */
import type {
  ListedSession,
  PermissionOutcome,
  PermissionRequest,
  PromptBlock,
  SessionModeState,
  SessionModelState,
  SessionSetupAnswer,
} from '../port/agentConnection';
import type {
  OutgoingContentBlock,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionInfo,
  SessionModeState as V1SessionModeState,
  SessionModelState as V1SessionModelState,
} from '../schema';
import { configOptions, toolCallChange } from './transcriptEvents';

const given = <K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } =>
  (value === undefined || value === null ? {} : { [key]: value }) as { [P in K]?: V };

/** A setup answer (new, load, resume, fork) whose invalid `models` the connection already dropped. */
export function setupAnswer(
  sessionId: string,
  result: { readonly modes?: V1SessionModeState | null; readonly models?: V1SessionModelState; readonly configOptions?: readonly SessionConfigOption[] | null },
): SessionSetupAnswer {
  return {
    sessionId,
    ...given('modes', result.modes && modeState(result.modes)),
    ...given('models', result.models && modelState(result.models)),
    ...given('configOptions', result.configOptions && configOptions(result.configOptions)),
  };
}

function modeState(modes: V1SessionModeState): SessionModeState {
  return {
    currentModeId: modes.currentModeId,
    availableModes: modes.availableModes.map((m) => ({ id: m.id, name: m.name, ...given('description', m.description) })),
  };
}

function modelState(models: V1SessionModelState): SessionModelState {
  return {
    currentModelId: models.currentModelId,
    availableModels: models.availableModels.map((m) => ({ modelId: m.modelId, name: m.name, ...given('description', m.description) })),
  };
}

export function listedSession(info: SessionInfo): ListedSession {
  return {
    sessionId: info.sessionId,
    cwd: info.cwd,
    ...given('additionalDirectories', info.additionalDirectories),
    ...given('title', info.title),
    ...given('updatedAt', info.updatedAt),
    ...given('meta', info._meta),
  };
}

export function permissionRequest(params: RequestPermissionRequest): PermissionRequest {
  return {
    sessionId: params.sessionId,
    toolCall: toolCallChange(params.toolCall),
    options: params.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
  };
}

export function permissionResponse(outcome: PermissionOutcome): RequestPermissionResponse {
  return { outcome: outcome.outcome === 'selected' ? { outcome: 'selected', optionId: outcome.optionId } : { outcome: 'cancelled' } };
}

export function promptBlocks(prompt: readonly PromptBlock[]): OutgoingContentBlock[] {
  return prompt.map((block): OutgoingContentBlock => (block.type === 'resource' ? { type: 'resource', resource: { ...block.resource } } : { ...block }));
}
