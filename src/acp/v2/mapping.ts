/**
 * ACP v2's answers as the port's plain types (and the port's requests as v2 sends them): capabilities, config
 * options, listed sessions, permission requests, MCP servers. Pure functions; the v2 adapter calls them.
 */
import type { AgentCaps, AuthMethod, ListedSession, PermissionOutcome, PermissionRequest, SessionSetupAnswer } from '../port/agentConnection';
import type { ToolCallChange } from '../port/events';
import type { McpServerConfig } from '../port/mcp';
import type { InitializeResultV2, McpServerV2, RequestPermissionParamsV2 } from './methods';
import type { SessionConfigOption } from './schema';
import { v2ConfigOptions } from './sessionUpdates';

/** What a v2 agent advertised, flattened as v1's are: the baseline methods (list, resume, close) need no marker. */
export function readV2Caps(result: InitializeResultV2): AgentCaps {
  const session = result.capabilities?.session;
  return {
    protocolVersion: result.protocolVersion,
    agentInfo: result.info ? { name: result.info.name, version: result.info.version, ...(result.info.title ? { title: result.info.title } : {}) } : undefined,
    // v2 has no session/load: a resume with `replayFrom` replays the history (see V2Connection.loader).
    loadSession: true,
    prompt: { image: session?.prompt?.image ?? false, audio: session?.prompt?.audio ?? false, embeddedContext: session?.prompt?.embeddedContext ?? false },
    mcp: { http: session?.mcp?.http ?? false, sse: false },
    sessions: {
      list: true,
      resume: true,
      close: true,
      delete: session?.delete ?? false,
      additionalDirectories: session?.additionalDirectories ?? false,
      fork: session?.fork ?? false,
      setTitle: (session?.setTitle ?? false) || (session?.title ?? false),
    },
    auth: { logout: result.capabilities?.auth?.logout ?? false },
    authMethods: result.authMethods.map(authMethod),
  };
}

function authMethod(method: InitializeResultV2['authMethods'][number]): AuthMethod {
  const base = { id: method.methodId, name: method.name, ...(method.description ? { description: method.description } : {}) };
  if (method.type === 'agent') return { ...base, type: 'agent' };
  if (method.type === 'terminal') {
    return { ...base, type: 'terminal', args: method.args ?? [], env: Object.fromEntries((method.env ?? []).map((v) => [v.name, v.value])) };
  }
  return { type: 'unknown', tag: method.type, raw: method };
}

export function setupAnswerV2(sessionId: string, result: { readonly configOptions: readonly SessionConfigOption[] }): SessionSetupAnswer {
  const configOptions = v2ConfigOptions(result.configOptions);
  return { sessionId, ...(configOptions.length > 0 ? { configOptions } : {}) };
}

export function listedSessionV2(info: {
  sessionId: string;
  cwd: string;
  additionalDirectories?: string[] | null | undefined;
  title?: string | undefined;
  updatedAt?: string | undefined;
  _meta?: Record<string, unknown> | null | undefined;
}): ListedSession {
  return {
    sessionId: info.sessionId,
    cwd: info.cwd,
    ...(info.additionalDirectories ? { additionalDirectories: info.additionalDirectories } : {}),
    ...(info.title !== undefined ? { title: info.title } : {}),
    ...(info.updatedAt !== undefined ? { updatedAt: info.updatedAt } : {}),
    ...(info._meta ? { meta: info._meta } : {}),
  };
}

/**
 * A v2 permission request as the port's: its subject as the tool call it concerns (a tool call's fields; a
 * command as an `execute` call titled by the request, with the command as its input).
 */
export function permissionRequestV2(params: RequestPermissionParamsV2): PermissionRequest {
  const subject = params.subject;
  const fields = subject?.type === 'tool_call' ? (subject.toolCall ?? {}) : {};
  const toolCallId =
    typeof fields['toolCallId'] === 'string'
      ? fields['toolCallId']
      : typeof subject?.toolCallId === 'string'
        ? subject.toolCallId
        : `permission:${params.title}`;
  const toolCall: ToolCallChange = {
    toolCallId,
    title: typeof fields['title'] === 'string' ? fields['title'] : params.title,
    ...(typeof fields['kind'] === 'string' ? { kind: fields['kind'] } : subject?.type === 'command' ? { kind: 'execute' } : {}),
    ...(subject?.type === 'command'
      ? { rawInput: { command: subject.command, cwd: subject.cwd } }
      : 'rawInput' in fields
        ? { rawInput: fields['rawInput'] }
        : {}),
    agentTerminals: [],
  };
  return { sessionId: params.sessionId, toolCall, options: params.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })) };
}

export function permissionResponseV2(outcome: PermissionOutcome): { outcome: { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string } } {
  return { outcome: outcome.outcome === 'selected' ? { outcome: 'selected', optionId: outcome.optionId } : { outcome: 'cancelled' } };
}

/** MCP servers as v2 sends them (stdio and http; v2 has no SSE). */
export function mcpServersV2(servers: readonly McpServerConfig[]): McpServerV2[] {
  return servers.flatMap((server): McpServerV2[] => {
    if (server.type === undefined)
      return [
        { type: 'stdio', name: server.name, command: server.command, args: [...server.args], env: server.env.map((v) => ({ name: v.name, value: v.value })) },
      ];
    if (server.type === 'http')
      return [{ type: 'http', name: server.name, url: server.url, headers: server.headers.map((h) => ({ name: h.name, value: h.value })) }];
    return [];
  });
}
