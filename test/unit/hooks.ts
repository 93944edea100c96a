/**
 * Root hooks for the unit tier (loaded with mocha's --require): a test fails when any message the
 * client sent during it does not validate against the official ACP JSON Schema.
 */
import { conformance } from '../helpers/conformance';

let mark = 0;

export const mochaHooks = {
  beforeEach(): void {
    mark = conformance.violations.length;
  },
  afterEach(): void {
    const fresh = conformance.since(mark);
    if (fresh.length > 0) {
      throw new Error(`The client sent ${fresh.length} message(s) that do not conform to the ACP schema:\n  ${fresh.join('\n  ')}`);
    }
  },
  afterAll(): void {
    console.log(`\n  conformance: ${conformance.checked} client messages validated against the ACP JSON Schema, ${conformance.violations.length} violations`);
  },
};
