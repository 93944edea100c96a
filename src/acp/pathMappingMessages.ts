/**
 * Which JSON-RPC messages carry paths, and how each is translated by a {@link PathMapper}: pure functions on
 * raw messages (before zod validation: a field of the wrong type is left alone for the connection to reject).
 * Only messages of the methods below are copied, and only along the path to what changes; every other
 * message is returned as it came.
 *
 * What does not map:
 * - client → agent: a session's `cwd` or one of its `additionalDirectories` outside the mapped folders → the
 *   request is answered here with `-32602` naming the folders (the agent never sees a local path); a
 *   `session/list` filtered by such a `cwd` → answered here with no sessions (the agent has none there); a
 *   prompt's `resource_link` to such a file → the prompt is refused (the agent could not open it); an embedded
 *   `resource` keeps its URI (its content travels with it; any later `fs/*` on that path is refused).
 * - agent → client: `fs/*` and `terminal/create` outside the agent's roots → refused (see the transport);
 *   a `session/list` entry whose `cwd` does not map → left out (the Sessions view must not show the agent's
 *   paths as local folders), its unmapped `additionalDirectories` → left out and listed in the entry's
 *   `_meta[UNSHARED_DIRECTORIES_META]`; a tool call location → left out; a diff → a text block naming the
 *   agent's path (never offered as a change to a local file); a resource link or embedded resource → a text
 *   block naming it (with the resource's text); an image's `uri` → dropped.
 */
import * as l10n from '@vscode/l10n';
import type { PathMapper } from './pathMapping';

/** `_meta` key of a `session/list` entry: the agent's `additionalDirectories` that map to no local folder. */
export const UNSHARED_DIRECTORIES_META = 'acpWorkspace/unsharedDirectories';
/** `_meta` key of a `session/list` result: how many sessions were left out because their `cwd` maps to no local folder. */
export const UNSHARED_SESSIONS_META = 'acpWorkspace/unsharedSessions';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What becomes of a request the client sends. */
export type OutgoingRequest =
  | { readonly kind: 'send'; readonly params: unknown }
  /** Answered here, never sent: `result` or `error` is the answer. */
  | { readonly kind: 'answer'; readonly result: unknown }
  | { readonly kind: 'refuse'; readonly message: string; readonly data: Json };

/** Methods whose params (client → agent) carry local paths. */
const OUTGOING_METHODS = new Set(['session/new', 'session/load', 'session/resume', 'session/fork', 'session/list', 'session/prompt']);

/** True when a client → agent request of `method` may need translating. */
export function outgoingCarriesPaths(method: string): boolean {
  return OUTGOING_METHODS.has(method);
}

/** Translates the params of a client → agent request (see {@link outgoingCarriesPaths}). */
export function translateOutgoingRequest(method: string, params: unknown, mapper: PathMapper, agent: string): OutgoingRequest {
  if (!isObject(params)) return { kind: 'send', params };
  switch (method) {
    case 'session/new':
    case 'session/load':
    case 'session/resume':
    case 'session/fork':
      return outgoingRoots(params, mapper, agent);
    case 'session/list': {
      if (typeof params['cwd'] !== 'string') return { kind: 'send', params };
      const cwd = mapper.toRemote(params['cwd']);
      return cwd === undefined ? { kind: 'answer', result: { sessions: [] } } : { kind: 'send', params: { ...params, cwd } };
    }
    case 'session/prompt':
      return outgoingPrompt(params, mapper, agent);
    default:
      return { kind: 'send', params };
  }
}

function outgoingRoots(params: Json, mapper: PathMapper, agent: string): OutgoingRequest {
  const unshared: string[] = [];
  const next: Json = { ...params };
  if (typeof params['cwd'] === 'string') {
    const cwd = mapper.toRemote(params['cwd']);
    if (cwd === undefined) unshared.push(params['cwd']);
    else next['cwd'] = cwd;
  }
  const extra = params['additionalDirectories'];
  if (Array.isArray(extra)) {
    next['additionalDirectories'] = extra.map((directory: unknown) => {
      if (typeof directory !== 'string') return directory;
      const remote = mapper.toRemote(directory);
      if (remote === undefined) unshared.push(directory);
      return remote ?? directory;
    });
  }
  if (unshared.length === 0) return { kind: 'send', params: next };
  return {
    kind: 'refuse',
    message: l10n.t('{0} is not shared with {1}: it has no path mapping for this agent.', unshared.join(', '), agent),
    data: { folders: unshared, reason: 'not-shared' },
  };
}

function outgoingPrompt(params: Json, mapper: PathMapper, agent: string): OutgoingRequest {
  const prompt = params['prompt'];
  if (!Array.isArray(prompt)) return { kind: 'send', params };
  const unshared: string[] = [];
  const blocks = prompt.map((block: unknown) => {
    const mapped = mapBlockToRemote(block, mapper);
    if (mapped.unshared !== undefined) unshared.push(mapped.unshared);
    return mapped.block;
  });
  if (unshared.length > 0) {
    return {
      kind: 'refuse',
      message: l10n.t('The prompt refers to {0}, which is outside the folders shared with {1}.', unshared.join(', '), agent),
      data: { uris: unshared, reason: 'not-shared' },
    };
  }
  return { kind: 'send', params: { ...params, prompt: blocks } };
}

/** A prompt's content block with its file URIs as the agent sees them. */
function mapBlockToRemote(block: unknown, mapper: PathMapper): { block: unknown; unshared?: string } {
  if (!isObject(block)) return { block };
  switch (block['type']) {
    case 'resource_link': {
      const uri = block['uri'];
      if (typeof uri !== 'string') return { block };
      const remote = mapper.toRemoteUri(uri);
      return remote === undefined ? { block, unshared: uri } : { block: remote === uri ? block : { ...block, uri: remote } };
    }
    case 'resource': {
      const resource = block['resource'];
      if (!isObject(resource) || typeof resource['uri'] !== 'string') return { block };
      const remote = mapper.toRemoteUri(resource['uri']);
      // Its content travels with it: an unshared file is still worth sending, under its own name.
      if (remote === undefined || remote === resource['uri']) return { block };
      return { block: { ...block, resource: { ...resource, uri: remote } } };
    }
    case 'image':
      return { block: imageUri(block, (uri) => mapper.toRemoteUri(uri)) };
    default:
      return { block };
  }
}

function imageUri(block: Json, map: (uri: string) => string | undefined): Json {
  const uri = block['uri'];
  if (typeof uri !== 'string') return block;
  const mapped = map(uri);
  if (mapped === uri) return block;
  const next = { ...block };
  if (mapped === undefined) delete next['uri'];
  else next['uri'] = mapped;
  return next;
}

// ---- agent → client ---------------------------------------------------------------------------------

/** What becomes of a request the agent sends. */
export type IncomingRequest =
  | { readonly kind: 'deliver'; readonly params: unknown }
  /** Answered here with a refusal; the connection never sees the request. */
  | { readonly kind: 'refuse'; readonly path: string; readonly sessionId?: string };

/** Methods whose params (agent → client) carry the agent's paths. */
const INCOMING_METHODS = new Set(['fs/read_text_file', 'fs/write_text_file', 'terminal/create', 'session/request_permission', 'session/update']);

/** True when an agent → client request or notification of `method` may need translating. */
export function incomingCarriesPaths(method: string): boolean {
  return INCOMING_METHODS.has(method);
}

/** Translates the params of an agent → client request or notification (see {@link incomingCarriesPaths}). */
export function translateIncoming(method: string, params: unknown, mapper: PathMapper): IncomingRequest {
  if (!isObject(params)) return { kind: 'deliver', params };
  const sessionId = typeof params['sessionId'] === 'string' ? params['sessionId'] : undefined;
  const field = method === 'terminal/create' ? 'cwd' : 'path';
  switch (method) {
    case 'fs/read_text_file':
    case 'fs/write_text_file':
    case 'terminal/create': {
      const value = params[field];
      if (typeof value !== 'string') return { kind: 'deliver', params };
      const local = mapper.toLocal(value);
      if (local === undefined) return { kind: 'refuse', path: value, ...(sessionId === undefined ? {} : { sessionId }) };
      return { kind: 'deliver', params: local === value ? params : { ...params, [field]: local } };
    }
    case 'session/request_permission': {
      const toolCall = params['toolCall'];
      return { kind: 'deliver', params: isObject(toolCall) ? replace(params, 'toolCall', toolCallToLocal(toolCall, mapper)) : params };
    }
    case 'session/update': {
      const update = params['update'];
      return { kind: 'deliver', params: isObject(update) ? replace(params, 'update', updateToLocal(update, mapper)) : params };
    }
    default:
      return { kind: 'deliver', params };
  }
}

/** `object` with `key` set to `value`, or `object` itself when nothing changed. */
function replace(object: Json, key: string, value: unknown): Json {
  return object[key] === value ? object : { ...object, [key]: value };
}

function updateToLocal(update: Json, mapper: PathMapper): Json {
  switch (update['sessionUpdate']) {
    case 'tool_call':
    case 'tool_call_update':
      return toolCallToLocal(update, mapper);
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
      return replace(update, 'content', blockToLocal(update['content'], mapper));
    default:
      return update;
  }
}

function toolCallToLocal(toolCall: Json, mapper: PathMapper): Json {
  let next = toolCall;
  const locations = toolCall['locations'];
  if (Array.isArray(locations)) {
    const mapped: unknown[] = [];
    let changed = false;
    for (const location of locations) {
      if (!isObject(location) || typeof location['path'] !== 'string') {
        mapped.push(location);
        continue;
      }
      const local = mapper.toLocal(location['path']);
      // A location the user cannot open here is not shown as a local file.
      if (local === undefined) changed = true;
      else if (local === location['path']) mapped.push(location);
      else {
        changed = true;
        mapped.push({ ...location, path: local });
      }
    }
    if (changed) next = { ...next, locations: mapped };
  }
  const content = toolCall['content'];
  if (Array.isArray(content)) {
    const mapped = content.map((item: unknown) => toolContentToLocal(item, mapper));
    if (mapped.some((item, index) => item !== content[index])) next = { ...next, content: mapped };
  }
  return next;
}

function toolContentToLocal(item: unknown, mapper: PathMapper): unknown {
  if (!isObject(item)) return item;
  switch (item['type']) {
    case 'diff': {
      const path = item['path'];
      if (typeof path !== 'string') return item;
      const local = mapper.toLocal(path);
      if (local === undefined) {
        // Never offered as a change to a local file: the user sees which of the agent's files it touched.
        return {
          type: 'content',
          content: { type: 'text', text: l10n.t("A change to {0}, a file on the agent's side outside the folders shared with it.", path) },
        };
      }
      return local === path ? item : { ...item, path: local };
    }
    case 'content':
      return replace(item, 'content', blockToLocal(item['content'], mapper));
    default:
      return item;
  }
}

function unsharedText(name: string, text?: string): Json {
  const label = l10n.t("{0} (a file on the agent's side, outside the folders shared with it)", name);
  return { type: 'text', text: text === undefined ? label : `${label}\n\n${text}` };
}

/** A content block from the agent with its file URIs as local ones. */
function blockToLocal(block: unknown, mapper: PathMapper): unknown {
  if (!isObject(block)) return block;
  switch (block['type']) {
    case 'resource_link': {
      const uri = block['uri'];
      if (typeof uri !== 'string') return block;
      const local = mapper.toLocalUri(uri);
      if (local === undefined) return unsharedText(uri);
      return local === uri ? block : { ...block, uri: local };
    }
    case 'resource': {
      const resource = block['resource'];
      if (!isObject(resource) || typeof resource['uri'] !== 'string') return block;
      const local = mapper.toLocalUri(resource['uri']);
      if (local === undefined) return unsharedText(resource['uri'], typeof resource['text'] === 'string' ? resource['text'] : undefined);
      return local === resource['uri'] ? block : { ...block, resource: { ...resource, uri: local } };
    }
    case 'image':
      return imageUri(block, (uri) => mapper.toLocalUri(uri));
    default:
      return block;
  }
}

/**
 * The agent's answer to `session/list`, with local paths: entries whose `cwd` maps to no local folder are left
 * out (counted in the result's `_meta[UNSHARED_SESSIONS_META]`), unmapped `additionalDirectories` are left out
 * of their entry (listed in its `_meta[UNSHARED_DIRECTORIES_META]`, so a reopen can tell its folder list is not
 * complete).
 */
export function translateListResult(result: unknown, mapper: PathMapper): unknown {
  if (!isObject(result) || !Array.isArray(result['sessions'])) return result;
  const sessions: unknown[] = [];
  let hidden = 0;
  for (const entry of result['sessions'] as unknown[]) {
    if (!isObject(entry) || typeof entry['cwd'] !== 'string') {
      sessions.push(entry);
      continue;
    }
    const cwd = mapper.toLocal(entry['cwd']);
    if (cwd === undefined) {
      hidden++;
      continue;
    }
    const next: Json = { ...entry, cwd };
    const extra = entry['additionalDirectories'];
    if (Array.isArray(extra)) {
      const kept: unknown[] = [];
      const unshared: string[] = [];
      for (const directory of extra) {
        const local = typeof directory === 'string' ? mapper.toLocal(directory) : undefined;
        if (local !== undefined) kept.push(local);
        else if (typeof directory === 'string') unshared.push(directory);
        else kept.push(directory);
      }
      next['additionalDirectories'] = kept;
      if (unshared.length > 0) next['_meta'] = { ...(isObject(entry['_meta']) ? entry['_meta'] : {}), [UNSHARED_DIRECTORIES_META]: unshared };
    }
    sessions.push(next);
  }
  const next: Json = { ...result, sessions };
  if (hidden > 0) next['_meta'] = { ...(isObject(result['_meta']) ? result['_meta'] : {}), [UNSHARED_SESSIONS_META]: hidden };
  return next;
}
