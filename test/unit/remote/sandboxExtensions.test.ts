import * as assert from 'node:assert/strict';
import { NO_SANDBOX_EXTENSIONS, sandboxExtensions } from '../../../src/remote/sandboxExtensions';

describe("sandboxExtensions: seed 003 feature detection from initialize's agentCapabilities", () => {
  it('reads what is advertised as true, and nothing else', () => {
    assert.deepEqual(
      sandboxExtensions({
        loadSession: true,
        _meta: {
          'sandboxagent.dev': { extensions: { sessionMetadata: true, requestQuestion: true, sessionTerminate: true, sessionEventsPoll: false, future: true } },
        },
      }),
      { sessionMetadata: true, requestQuestion: true, sessionTerminate: true, sessionEventsPoll: false },
    );
    assert.deepEqual(
      sandboxExtensions({ _meta: { 'sandboxagent.dev': { extensions: { requestQuestion: 'yes', sessionMetadata: 1 } } } }),
      NO_SANDBOX_EXTENSIONS,
    );
  });

  it('treats a missing or malformed advertisement as none (opencode 1.18 advertises none)', () => {
    const opencode = { loadSession: true, mcpCapabilities: { http: true, sse: true }, sessionCapabilities: { close: {}, fork: {}, list: {}, resume: {} } };
    for (const caps of [
      undefined,
      null,
      'x',
      [],
      {},
      opencode,
      { _meta: null },
      { _meta: { 'sandboxagent.dev': [] } },
      { _meta: { 'sandboxagent.dev': { extensions: 'all' } } },
      { _meta: { other: { extensions: { sessionMetadata: true } } } },
    ]) {
      assert.deepEqual(sandboxExtensions(caps), NO_SANDBOX_EXTENSIONS, JSON.stringify(caps));
    }
  });
});
