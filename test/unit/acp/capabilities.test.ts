import * as assert from 'node:assert/strict';
import { buildClientCapabilities, readAgentCaps } from '../../../src/acp/capabilities';
import { InitializeResponse } from '../../../src/acp/schema';

const noHandlers = { readTextFile: false, writeTextFile: false, terminal: false, elicitationForm: false, elicitationUrl: false };

describe('capabilities', () => {
  it('advertises nothing the client does not serve', () => {
    assert.deepEqual(buildClientCapabilities(noHandlers, {}), {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      auth: { terminal: false },
    });
  });

  it('advertises exactly the registered handlers and the UI features asked for', () => {
    const caps = buildClientCapabilities(
      { ...noHandlers, writeTextFile: true, terminal: true, elicitationForm: true },
      { notices: true, compaction: true, booleanConfigOptions: true, terminalAuth: true },
    );
    assert.deepEqual(caps, {
      fs: { readTextFile: false, writeTextFile: true },
      terminal: true,
      auth: { terminal: true },
      session: { configOptions: { boolean: {} }, notices: {}, compaction: {} },
      elicitation: { form: {} },
    });
  });

  it('reads absent and null capability objects as unsupported', () => {
    const caps = readAgentCaps(
      InitializeResponse.parse({
        protocolVersion: 1,
        agentCapabilities: { sessionCapabilities: { list: {}, resume: null, fork: {}, title: {} }, auth: {} },
      }),
    );
    assert.deepEqual(caps.sessions, {
      list: true,
      resume: false,
      close: false,
      delete: false,
      additionalDirectories: false,
      fork: true,
      setTitle: true,
    });
    assert.equal(caps.loadSession, false);
    assert.equal(caps.auth.logout, false);
    assert.deepEqual(caps.prompt, { image: false, audio: false, embeddedContext: false });
  });
});
