import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { CAPABILITIES } from '../../fixtures/referenceAgent/options';
import { AGENT_BUNDLE, cleanup, rpcError, startAgent, tempDir } from './harness';

/** Whether a process exists and is not a zombie (a killed grandchild may wait to be reaped by init). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

describe('reference agent: initialize, capabilities and process options', () => {
  afterEach(cleanup);

  it('advertises every capability by default', async () => {
    const agent = await startAgent();
    const init = agent.initializeResponse;
    assert.ok(init);
    assert.equal(init.protocolVersion, 1);
    assert.deepEqual(init.agentInfo?.name, 'reference-agent');
    assert.deepEqual(init.agentCapabilities, {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, resume: {}, fork: {}, close: {}, delete: {}, additionalDirectories: {} },
      auth: { logout: {} },
    });
    assert.deepEqual(init.authMethods, []);
  });

  it('--disable removes every capability and the methods answer -32601', async () => {
    const agent = await startAgent({ args: ['--disable', CAPABILITIES.join(',')] });
    assert.deepEqual(agent.initializeResponse?.agentCapabilities, {
      loadSession: false,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      mcpCapabilities: { http: false, sse: false },
      sessionCapabilities: {},
    });
    const cwd = tempDir();
    const created = await agent.agent.request('session/new', { cwd, mcpServers: [] });
    assert.equal(created.modes, undefined);
    assert.equal(created.configOptions, undefined);
    const sessionId = created.sessionId;
    const calls: Array<[string, unknown]> = [
      ['session/load', { sessionId, cwd, mcpServers: [] }],
      ['session/resume', { sessionId, cwd }],
      ['session/fork', { sessionId, cwd }],
      ['session/list', {}],
      ['session/set_mode', { sessionId, modeId: 'ask' }],
      ['session/set_config_option', { sessionId, configId: 'model', value: 'ref-smart' }],
      ['logout', {}],
    ];
    for (const [method, params] of calls) {
      const error = await rpcError(agent.agent.request(method, params));
      assert.equal(error.code, -32601, method);
    }
    // close and delete: the SDK client turns -32002 (but not -32601) into success, so check the raw answer.
    await assert.rejects(agent.agent.request('session/close', { sessionId }), { code: -32601 });
    await assert.rejects(agent.agent.request('session/delete', { sessionId }), { code: -32601 });
    // additionalDirectories: even an empty list is refused when the capability is not advertised.
    const error = await rpcError(agent.agent.request('session/new', { cwd, mcpServers: [], additionalDirectories: [] }));
    assert.equal(error.code, -32602);
    assert.match(error.message, /additionalDirectories not supported/);
    // Prompt content and MCP transports gated by capabilities.
    const image = await rpcError(
      agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }),
    );
    assert.equal(image.code, -32602);
    const resource = await rpcError(
      agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'resource', resource: { uri: 'file:///a.txt', text: 'a' } }] }),
    );
    assert.equal(resource.code, -32602);
    const http = await rpcError(
      agent.agent.request('session/new', { cwd, mcpServers: [{ type: 'http', name: 'web', url: 'http://127.0.0.1:1/mcp', headers: [] }] }),
    );
    assert.equal(http.code, -32602);
    assert.match(http.message, /http transport/);
    // No available_commands_update when commands are disabled.
    assert.equal(await agent.prompt(sessionId, 'hello'), 'end_turn');
    assert.ok(!agent.updatesFor(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'));
  });

  it('reads options from the environment; a flag wins over its variable', async () => {
    const agent = await startAgent({
      args: ['--name', 'from-flag'],
      env: { ACP_REF_NAME: 'from-env', ACP_REF_DISABLE: 'fork,list', ACP_REF_PROTOCOL_VERSION: '7' },
    });
    assert.equal(agent.initializeResponse?.agentInfo?.name, 'from-flag');
    assert.equal(agent.initializeResponse?.protocolVersion, 7);
    const sessionCapabilities = agent.initializeResponse?.agentCapabilities?.sessionCapabilities;
    assert.equal(sessionCapabilities?.fork, undefined);
    assert.equal(sessionCapabilities?.list, undefined);
    assert.deepEqual(sessionCapabilities?.resume, {});
  });

  it('refuses an unknown option with exit code 2', async () => {
    const agent = await startAgent({ args: ['--bogus'], skipInitialize: true });
    const { code } = await agent.exited;
    assert.equal(code, 2);
    assert.match(agent.stderr, /unknown option "--bogus"/);
  });

  it('--auth: session methods answer -32000 until authenticate succeeds; logout logs out', async () => {
    const agent = await startAgent({ args: ['--auth', 'ref-login'] });
    const methods = agent.initializeResponse?.authMethods ?? [];
    assert.deepEqual(
      methods.map((m) => m.id),
      ['ref-login', 'ref-login-terminal'],
    );
    const terminal = methods.find((m) => 'type' in m && m.type === 'terminal');
    assert.ok(terminal && 'args' in terminal && terminal.args?.includes('--terminal-login'));
    const cwd = tempDir();
    assert.equal((await rpcError(agent.newSession(cwd))).code, -32000);
    assert.equal((await rpcError(agent.agent.request('session/list', {}))).code, -32000);
    assert.equal((await rpcError(agent.agent.request('authenticate', { methodId: 'nope' }))).code, -32602);
    assert.equal((await rpcError(agent.agent.request('authenticate', { methodId: 'ref-login-terminal' }))).code, -32602);
    await agent.agent.request('authenticate', { methodId: 'ref-login' });
    assert.match(await agent.newSession(cwd), /^ref_[0-9a-f]{32}$/);
    await agent.agent.request('logout', {});
    assert.equal((await rpcError(agent.newSession(cwd))).code, -32000);
  });

  it('--auth: the terminal method is offered only to clients with auth.terminal', async () => {
    const agent = await startAgent({ args: ['--auth', 'ref-login'], clientCapabilities: {} });
    assert.deepEqual(
      agent.initializeResponse?.authMethods?.map((m) => m.id),
      ['ref-login'],
    );
  });

  it('--auth with --store: running the terminal method logs the running agent in', async () => {
    const store = tempDir();
    const agent = await startAgent({ args: ['--auth', 'ref-login', '--store', store] });
    assert.equal((await rpcError(agent.newSession(tempDir()))).code, -32000);
    const terminal = agent.initializeResponse?.authMethods?.find((m) => 'type' in m && m.type === 'terminal');
    assert.ok(terminal && 'args' in terminal);
    // What a client does: re-run the configured agent command with the method's args and env, in a terminal.
    const login = spawnSync(process.execPath, [AGENT_BUNDLE, '--auth', 'ref-login', '--store', store, ...(terminal.args ?? [])], {
      env: { ...process.env, ...terminal.env },
      encoding: 'utf8',
    });
    assert.equal(login.status, 0);
    assert.match(login.stdout, /logged in/);
    assert.match(await agent.newSession(tempDir()), /^ref_/);
  });

  it('fault exit-on-initialize exits with code 3', async () => {
    const agent = await startAgent({ args: ['--fault', 'exit-on-initialize'], skipInitialize: true });
    await assert.rejects(agent.initialize());
    assert.equal((await agent.exited).code, 3);
    assert.match(agent.stderr, /exit-on-initialize/);
  });

  it('fault slow-initialize answers after about 1.5 s', async () => {
    const agent = await startAgent({ args: ['--fault', 'slow-initialize'], skipInitialize: true });
    const started = Date.now();
    await agent.initialize();
    assert.ok(Date.now() - started >= 1400);
  });

  it('exits 0 when stdin closes, unless ignore-stdin-close', async () => {
    const polite = await startAgent();
    polite.closeStdin();
    assert.equal((await polite.exited).code, 0);

    const stubborn = await startAgent({ args: ['--fault', 'ignore-stdin-close'] });
    stubborn.closeStdin();
    await stubborn.waitFor(() => /staying alive/.test(stubborn.stderr), 'the stay-alive message');
    const result = await Promise.race([stubborn.exited, new Promise((resolve) => setTimeout(() => resolve('alive'), 300))]);
    assert.equal(result, 'alive');
  });

  it('fault spawn-child reports a grandchild that dies with the process group', async () => {
    const agent = await startAgent({ args: ['--fault', 'spawn-child'] });
    await agent.waitFor(() => /child-pid \d+/.test(agent.stderr), 'child-pid');
    const pid = Number(/child-pid (\d+)/.exec(agent.stderr)?.[1]);
    assert.ok(isAlive(pid));
    await agent.kill();
    const deadline = Date.now() + 2000;
    while (isAlive(pid) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(isAlive(pid), false, 'grandchild survived the process-group kill');
  });
});
