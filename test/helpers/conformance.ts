/**
 * Validates messages this client sends against the official ACP JSON Schema shipped in
 * `@agentclientprotocol/sdk` (schema/v1/schema.unstable.json), with Ajv (draft 2020-12).
 *
 * Every message is checked twice: against the schema's root (any valid ACP message) and against the
 * `$defs` entry for its method (`x-method` / `x-side` annotations), so that `session/new` params must
 * be a valid `NewSessionRequest`, not just any object.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { MessageTap } from '../../src/acp/transport/transport';

interface SchemaDef {
  'x-method'?: string;
  'x-side'?: string;
}

const schemaPath = path.join(__dirname, '..', '..', '..', 'node_modules', '@agentclientprotocol', 'sdk', 'schema', 'v1', 'schema.unstable.json');

function integerFormat(min: number, max: number) {
  return { type: 'number' as const, validate: (n: number) => Number.isInteger(n) && n >= min && n <= max };
}

let compiled: { ajv: Ajv2020; root: ValidateFunction; defs: Record<string, SchemaDef> } | undefined;

function load() {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as { $defs: Record<string, SchemaDef> };
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  ajv.addFormat('int32', integerFormat(-(2 ** 31), 2 ** 31 - 1));
  ajv.addFormat('int64', integerFormat(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  ajv.addFormat('uint16', integerFormat(0, 65535));
  ajv.addFormat('uint32', integerFormat(0, 2 ** 32 - 1));
  ajv.addFormat('uint64', integerFormat(0, Number.MAX_SAFE_INTEGER));
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('uri', (text: string) => URL.canParse(text));
  ajv.addSchema(schema, 'acp');
  const root = ajv.getSchema('acp');
  if (!root) throw new Error('ACP schema did not compile');
  compiled = { ajv, root, defs: schema.$defs };
  return compiled;
}

/** The `$defs` name for a method's params (`kind: 'Request'`) or result (`'Response'`), per side. */
function defName(method: string, side: 'agent' | 'client' | 'protocol', suffix: 'Request' | 'Response' | 'Notification'): string | undefined {
  const { defs } = load();
  return Object.keys(defs).find((name) => {
    const def = defs[name]!;
    return def['x-method'] === method && def['x-side'] === side && name.endsWith(suffix);
  });
}

function validateDef(name: string, value: unknown): string[] {
  const validate = load().ajv.getSchema(`acp#/$defs/${name}`);
  if (!validate) return [`no schema for ${name}`];
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${name}${e.instancePath} ${e.message ?? ''}`);
}

/**
 * Validates a params or result object against the official schema entry for `method`.
 * `side` is who handles the method: 'agent' for client → agent requests, 'client' for agent → client.
 */
export function validateAgainstOfficialSchema(
  method: string,
  side: 'agent' | 'client' | 'protocol',
  kind: 'Request' | 'Response' | 'Notification',
  value: unknown,
): string[] {
  const name = defName(method, side, kind) ?? (kind === 'Notification' ? defName(method, side, 'Request') : undefined);
  if (!name) return [`the official schema has no ${kind} for ${method}`];
  return validateDef(name, value);
}

type JsonRpc = { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown };

/**
 * Requests the current official schema dropped but agents still answer (the unstable `session/set_model` of
 * opencode and Sandbox Agent): checked against their last published shape.
 */
const RETIRED_REQUESTS: Record<string, (params: unknown) => string[]> = {
  'session/set_model': (params) => {
    const p = params as { sessionId?: unknown; modelId?: unknown } | null;
    const problems: string[] = [];
    if (typeof p !== 'object' || p === null) return ['SetSessionModelRequest must be an object'];
    if (typeof p.sessionId !== 'string') problems.push('SetSessionModelRequest/sessionId must be a string');
    if (typeof p.modelId !== 'string') problems.push('SetSessionModelRequest/modelId must be a string');
    return problems;
  },
};

/** Checks one message the client sends. `answering` is the method of the request a response answers. */
export function checkClientMessage(message: unknown, answering?: string): string[] {
  const { root } = load();
  const problems: string[] = [];
  if (!root(message)) problems.push(...(root.errors ?? []).slice(0, 5).map((e) => `root${e.instancePath} ${e.message ?? ''}`));
  const m = message as JsonRpc;
  if (typeof m.method === 'string') {
    const isRequest = m.id !== undefined;
    const side = m.method.startsWith('$/') ? 'protocol' : 'agent';
    const name = defName(m.method, side, isRequest ? 'Request' : 'Notification') ?? defName(m.method, side, 'Request');
    const retired = RETIRED_REQUESTS[m.method];
    if (!name && retired) problems.push(...retired(m.params));
    else if (!name) problems.push(`${m.method} is not a method the client may send`);
    else problems.push(...validateDef(name, m.params ?? {}));
  } else if ('result' in m && answering) {
    const name = defName(answering, 'client', 'Response');
    if (!name) problems.push(`${answering} is not a request the client answers`);
    else problems.push(...validateDef(name, m.result));
  }
  return problems;
}

/** Collects violations over many connections; the unit tier's root hook fails the test that caused one. */
export class ConformanceChecker {
  readonly violations: string[] = [];
  checked = 0;

  /** A tap for one connection (`AcpConnection` / `AgentProcess` options); request ids are per connection. */
  newTap(): MessageTap {
    const requestMethods = new Map<unknown, string>();
    return (direction, message) => {
      const m = message as JsonRpc;
      if (direction === 'receive') {
        if (typeof m.method === 'string' && m.id !== undefined) requestMethods.set(m.id, m.method);
        return;
      }
      this.check(message, m.method === undefined ? requestMethods.get(m.id) : undefined);
    };
  }

  /** Checks one message the client sent (`answering`: the method a response answers). */
  check(message: unknown, answering?: string): void {
    this.checked++;
    for (const problem of checkClientMessage(message, answering)) {
      this.violations.push(`${JSON.stringify(message).slice(0, 300)}\n    → ${problem}`);
    }
  }

  /** Violations recorded since `mark` (an index into {@link violations}). */
  since(mark: number): string[] {
    return this.violations.slice(mark);
  }
}

/** The checker every unit test uses (see test/unit/hooks.ts). */
export const conformance = new ConformanceChecker();
