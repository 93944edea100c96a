import * as assert from 'node:assert/strict';
import type { SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import { cleanup, rpcError, startAgent, tempDir } from './harness';

function currentValues(options: readonly SessionConfigOption[]): Record<string, string | boolean> {
  return Object.fromEntries(options.map((o) => [o.id, o.currentValue]));
}

describe('reference agent: fork, modes and config options', () => {
  afterEach(cleanup);

  it('fork copies the history under a new id with the given roots, never the source roots', async () => {
    const cwd = tempDir();
    const a = tempDir();
    const b = tempDir();
    const agent = await startAgent();
    const source = await agent.newSession(cwd, [a]);
    await agent.prompt(source, 'first question');
    const forked = await agent.agent.request('session/fork', { sessionId: source, cwd, additionalDirectories: [b] });
    assert.notEqual(forked.sessionId, source);
    assert.match(forked.sessionId, /^ref_[0-9a-f]{32}$/);
    const bare = await agent.agent.request('session/fork', { sessionId: source, cwd });

    const { sessions } = await agent.agent.request('session/list', { cwd });
    const roots = Object.fromEntries(sessions.map((s) => [s.sessionId, s.additionalDirectories]));
    assert.deepEqual(roots, { [source]: [a], [forked.sessionId]: [b], [bare.sessionId]: [] });
    assert.equal(sessions.find((s) => s.sessionId === forked.sessionId)?.title, 'first question');

    // The fork is active and its history (loaded into a fresh view) is the source's.
    assert.equal(await agent.prompt(forked.sessionId, 'second question'), 'end_turn');
    const sourceHistory = agent.updates.length;
    await agent.agent.request('session/load', { sessionId: source, cwd, mcpServers: [] });
    const sourceReplay = agent.updates
      .slice(sourceHistory)
      .filter((n) => n.sessionId === source)
      .map((n) => n.update);
    const forkStart = agent.updates.length;
    await agent.agent.request('session/load', { sessionId: forked.sessionId, cwd, mcpServers: [] });
    const forkReplay = agent.updates
      .slice(forkStart)
      .filter((n) => n.sessionId === forked.sessionId)
      .map((n) => n.update);
    assert.deepEqual(forkReplay.slice(0, sourceReplay.length), sourceReplay);
    assert.ok(forkReplay.length > sourceReplay.length);
    assert.ok(sourceReplay.every((u) => !(u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' && u.content.text === 'second question')));
  });

  it('with --fork-replays, fork replays the copied history for the new session before it answers', async () => {
    const cwd = tempDir();
    const agent = await startAgent({ args: ['--fork-replays'] });
    const source = await agent.newSession(cwd);
    await agent.prompt(source, 'first question');
    const before = agent.updates.length;
    const forked = await agent.agent.request('session/fork', { sessionId: source, cwd });
    const replayed = agent.updates.slice(before).filter((n) => n.sessionId === forked.sessionId);
    assert.ok(
      replayed.some((n) => n.update.sessionUpdate === 'user_message_chunk' && n.update.content.type === 'text' && n.update.content.text === 'first question'),
      'the first prompt, replayed before the answer',
    );
    assert.ok(replayed.some((n) => n.update.sessionUpdate === 'agent_message_chunk'));
  });

  it('fork of an unknown session answers -32002', async () => {
    const agent = await startAgent();
    const error = await rpcError(agent.agent.request('session/fork', { sessionId: 'ref_nope', cwd: tempDir() }));
    assert.equal(error.code, -32002);
  });

  it('new sessions offer modes, a model selector and a boolean option', async () => {
    const agent = await startAgent();
    const created = await agent.agent.request('session/new', { cwd: tempDir(), mcpServers: [] });
    assert.deepEqual(
      created.modes?.availableModes.map((m) => m.id),
      ['ask', 'code', 'architect'],
    );
    assert.equal(created.modes?.currentModeId, 'code');
    const options = created.configOptions ?? [];
    const model = options.find((o) => o.id === 'model');
    assert.ok(model && model.type === 'select');
    assert.equal(model.category, 'model');
    assert.deepEqual(model.options, [
      { value: 'ref-fast', name: 'Reference Fast' },
      { value: 'ref-smart', name: 'Reference Smart' },
    ]);
    const thinking = options.find((o) => o.id === 'extended_thinking');
    assert.ok(thinking && thinking.type === 'boolean');
    assert.equal(thinking.name, 'Extended thinking');
    assert.equal(thinking.currentValue, false);
    await agent.waitFor(() => agent.updatesFor(created.sessionId).some((u) => u.sessionUpdate === 'available_commands_update'), 'commands');
    const commands = agent.updatesFor(created.sessionId).find((u) => u.sessionUpdate === 'available_commands_update');
    assert.ok(commands && commands.sessionUpdate === 'available_commands_update');
    assert.deepEqual(
      commands.availableCommands.map((c) => c.name),
      ['help', 'title', 'plan'],
    );
  });

  it('leaves the boolean option out for clients without session.configOptions.boolean', async () => {
    const agent = await startAgent({ clientCapabilities: {} });
    const created = await agent.agent.request('session/new', { cwd: tempDir(), mcpServers: [] });
    assert.deepEqual(
      created.configOptions?.map((o) => o.id),
      ['model'],
    );
    const error = await rpcError(
      agent.agent.request('session/set_config_option', { sessionId: created.sessionId, configId: 'extended_thinking', type: 'boolean', value: true }),
    );
    assert.equal(error.code, -32602);
  });

  it('set_mode answers {} and then sends current_mode_update', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    assert.deepEqual(await agent.agent.request('session/set_mode', { sessionId, modeId: 'architect' }), {});
    await agent.waitFor(() => agent.updatesFor(sessionId).some((u) => u.sessionUpdate === 'current_mode_update'), 'current_mode_update');
    const update = agent.updatesFor(sessionId).find((u) => u.sessionUpdate === 'current_mode_update');
    assert.deepEqual(update, { sessionUpdate: 'current_mode_update', currentModeId: 'architect' });
    assert.equal((await rpcError(agent.agent.request('session/set_mode', { sessionId, modeId: 'yolo' }))).code, -32602);
    const resumed = await agent.agent.request('session/resume', { sessionId, cwd: tempDir() });
    assert.equal(resumed.modes?.currentModeId, 'architect');
  });

  it('set_config_option validates, answers the full set and sends config_option_update', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    const model = await agent.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'ref-smart' });
    assert.deepEqual(currentValues(model.configOptions), { model: 'ref-smart', extended_thinking: false });
    const thinking = await agent.agent.request('session/set_config_option', { sessionId, configId: 'extended_thinking', type: 'boolean', value: true });
    assert.deepEqual(currentValues(thinking.configOptions), { model: 'ref-smart', extended_thinking: true });
    await agent.waitFor(() => agent.updatesFor(sessionId).filter((u) => u.sessionUpdate === 'config_option_update').length === 2, 'two config_option_update');
    const last = agent.updatesFor(sessionId).filter((u) => u.sessionUpdate === 'config_option_update')[1];
    assert.ok(last.sessionUpdate === 'config_option_update');
    assert.deepEqual(last.configOptions, thinking.configOptions);

    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ configId: 'model', value: 'gpt-9' }, /unknown value "gpt-9"/],
      [{ configId: 'model', type: 'boolean', value: true }, /select option/],
      [{ configId: 'extended_thinking', value: 'true' }, /send type "boolean"/],
      [{ configId: 'nope', value: 'x' }, /unknown config option "nope"/],
    ];
    for (const [params, message] of cases) {
      const error = await rpcError(agent.agent.request('session/set_config_option', { sessionId, ...params }));
      assert.equal(error.code, -32602, JSON.stringify(params));
      assert.match(error.message, message);
    }
    // Extended thinking on: turns start with thoughts.
    await agent.prompt(sessionId, 'hi');
    assert.ok(agent.updatesFor(sessionId).some((u) => u.sessionUpdate === 'agent_thought_chunk'));
  });

  it('set_mode on an unknown session answers -32002', async () => {
    const agent = await startAgent();
    assert.equal((await rpcError(agent.agent.request('session/set_mode', { sessionId: 'ref_x', modeId: 'ask' }))).code, -32002);
  });
});
