import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { cleanup, rpcError, startAgent, tempDir, type AgentHarness } from './harness';

describe('reference agent: strict additionalDirectories validation', () => {
  // One agent for the whole file: these cases only create sessions.
  after(cleanup);

  let agent: AgentHarness;
  let cwd: string;
  let other: string;
  before(async () => {
    agent = await startAgent();
    cwd = tempDir();
    other = tempDir();
  });

  const invalidCases: Array<[string, () => unknown, RegExp]> = [
    ['null', () => null, /must be an array.*got null/],
    ['a string', () => '/abs', /must be an array.*got a string/],
    ['an object', () => ({ 0: '/abs' }), /must be an array.*got a object/],
    ['a non-string entry', () => [other, 42], /additionalDirectories\[1\] must be a string, got a number/],
    ['a null entry', () => [null], /additionalDirectories\[0\] must be a string, got null/],
    ['an empty entry', () => [''], /additionalDirectories\[0\] is an empty string/],
    ['a relative entry', () => ['relative/dir'], /additionalDirectories\[0\] "relative\/dir" is not an absolute path/],
    ['a duplicate entry', () => [other, other], /additionalDirectories\[1\] ".*" duplicates additionalDirectories\[0\]/],
    ['an entry equal to cwd', () => [cwd], /additionalDirectories\[0\] ".*" is the same as cwd/],
  ];

  for (const method of ['session/new', 'session/load', 'session/resume', 'session/fork'] as const) {
    for (const [label, value, message] of invalidCases) {
      it(`${method} rejects ${label} with -32602 naming the entry`, async () => {
        const sessionId = method === 'session/new' ? undefined : await agent.newSession(cwd);
        const params = { ...(sessionId ? { sessionId } : {}), cwd, mcpServers: [], additionalDirectories: value() };
        const error = await rpcError(agent.agent.request(method, params));
        assert.equal(error.code, -32602);
        assert.match(error.message, message);
      });
    }
  }

  it('rejects a relative cwd', async () => {
    const error = await rpcError(agent.agent.request('session/new', { cwd: 'relative', mcpServers: [] }));
    assert.equal(error.code, -32602);
    assert.match(error.message, /cwd "relative" is not an absolute path/);
  });

  it('accepts valid roots (nested ones too) and reports them in session/list', async () => {
    const cwd = tempDir();
    const nested = path.join(other, 'nested');
    const sessionId = await agent.newSession(cwd, [other, nested]);
    const { sessions } = await agent.agent.request('session/list', { cwd });
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.additionalDirectories]),
      [[sessionId, [other, nested]]],
    );
  });

  it('lists [] for a session without extra roots', async () => {
    const cwd = tempDir();
    await agent.newSession(cwd);
    const { sessions } = await agent.agent.request('session/list', { cwd });
    assert.deepEqual(sessions[0].additionalDirectories, []);
  });

  it('load and resume take an explicit list: omitted means none, never the stored ones', async () => {
    const cwd = tempDir();
    const sessionId = await agent.newSession(cwd, [other]);
    await agent.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    let { sessions } = await agent.agent.request('session/list', { cwd });
    assert.deepEqual(sessions[0].additionalDirectories, []);

    await agent.agent.request('session/resume', { sessionId, cwd, additionalDirectories: [other] });
    ({ sessions } = await agent.agent.request('session/list', { cwd }));
    assert.deepEqual(sessions[0].additionalDirectories, [other]);
  });

  it('load of an unknown session answers -32002 with data.sessionId', async () => {
    const error = await rpcError(agent.agent.request('session/load', { sessionId: 'ref_missing', cwd, mcpServers: [] }));
    assert.equal(error.code, -32002);
    assert.deepEqual(error.data, { sessionId: 'ref_missing' });
  });
});
