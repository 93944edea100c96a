/**
 * Validates one value against a single `$defs` entry of the official ACP JSON Schema (the same file and
 * Ajv setup as test/helpers/conformance.ts, which validates whole methods).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const schemaPath = path.join(__dirname, '..', '..', '..', '..', 'node_modules', '@agentclientprotocol', 'sdk', 'schema', 'v1', 'schema.unstable.json');

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** The problems of `value` against `$defs/<definition>` (empty: valid). */
export function validateDefinition(definition: string, value: unknown): string[] {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    ajv.addSchema(JSON.parse(readFileSync(schemaPath, 'utf8')) as object, 'acp');
  }
  let validate = validators.get(definition);
  if (!validate) {
    validate = ajv.getSchema(`acp#/$defs/${definition}`);
    if (!validate) return [`the official schema has no $defs/${definition}`];
    validators.set(definition, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${definition}${e.instancePath} ${e.message ?? ''}`);
}
