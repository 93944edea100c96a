/**
 * The official ACP v2 JSON Schema (`@agentclientprotocol/sdk/schema/v2/schema.json`) with Ajv (draft 2020-12):
 * the v2 twin of test/helpers/conformance.ts, for what an agent sends (a `$defs` entry checked by name).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const schemaPath = path.join(__dirname, '..', '..', '..', '..', '..', 'node_modules', '@agentclientprotocol', 'sdk', 'schema', 'v2', 'schema.json');

function integerFormat(min: number, max: number) {
  return { type: 'number' as const, validate: (n: number) => Number.isInteger(n) && n >= min && n <= max };
}

let ajv: Ajv2020 | undefined;

function load(): Ajv2020 {
  if (ajv) return ajv;
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object;
  ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  ajv.addFormat('int32', integerFormat(-(2 ** 31), 2 ** 31 - 1));
  ajv.addFormat('int64', integerFormat(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  ajv.addFormat('uint16', integerFormat(0, 65535));
  ajv.addFormat('uint32', integerFormat(0, 2 ** 32 - 1));
  ajv.addFormat('uint64', integerFormat(0, Number.MAX_SAFE_INTEGER));
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('uri', (text: string) => URL.canParse(text));
  ajv.addFormat('regex', true);
  ajv.addSchema(schema, 'acp2');
  return ajv;
}

/** Violations of `value` against the v2 schema's `$defs/<name>` (none: valid). */
export function v2SchemaViolations(name: string, value: unknown): string[] {
  const validate: ValidateFunction | undefined = load().getSchema(`acp2#/$defs/${name}`);
  if (!validate) return [`the v2 schema has no ${name}`];
  return validate(value) ? [] : (validate.errors ?? []).slice(0, 5).map((e) => `${name}${e.instancePath} ${e.message ?? ''}`);
}

/** The `session/update` params of one recorded connection (`< ` lines the agent sent), in order. */
export function recordedUpdates(file: string): Array<{ sessionId: string; update: Record<string, unknown> }> {
  const text = readFileSync(path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'v2-wire', file), 'utf8');
  const updates: Array<{ sessionId: string; update: Record<string, unknown> }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('< ')) continue;
    const message = JSON.parse(line.slice(2)) as { method?: string; params?: { sessionId: string; update: Record<string, unknown> } };
    if (message.method === 'session/update' && message.params) updates.push(message.params);
  }
  return updates;
}

/** The prompt answers' `messageId`s of one recorded connection (`{"result":{"messageId"}}`), in order. */
export function recordedPromptIds(file: string): string[] {
  const text = readFileSync(path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'v2-wire', file), 'utf8');
  const ids: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('< ')) continue;
    const message = JSON.parse(line.slice(2)) as { result?: { messageId?: unknown } };
    if (typeof message.result?.messageId === 'string') ids.push(message.result.messageId);
  }
  return ids;
}
