/**
 * The activation benchmark's baseline: the same extension with its core composed at activation, in one bundle
 * (what activation did before it was split). Built by bench/activation.bench.ts; never shipped.
 */
import * as core from '../../src/core';
import { activateWith, deactivate } from '../../src/extension';

export function activate(context: Parameters<typeof activateWith>[0]): void {
  activateWith(context, () => core).get('activation (the eager benchmark build)');
}

export { deactivate };
