import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { cleanup, startAgent, tempDir } from './harness';

/** Updates that belong to the transcript (not the live-only metadata re-sent after resume or fork). */
function withoutUserChunks(updates: SessionUpdate[]): SessionUpdate[] {
  return updates.filter((u) => u.sessionUpdate !== 'user_message_chunk');
}

describe('reference agent: persistence with --store', () => {
  afterEach(cleanup);

  it('survives a restart: list shows the session and load replays the transcript before answering', async () => {
    const store = tempDir();
    const cwd = tempDir();
    const extra = tempDir();
    const first = await startAgent({ args: ['--store', store] });
    const sessionId = await first.newSession(cwd, [extra]);
    assert.equal(await first.prompt(sessionId, 'Hello there, reference agent'), 'end_turn');
    assert.equal(await first.prompt(sessionId, 'diff and plan please'), 'end_turn');
    await first.waitFor(() => first.updatesFor(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'), 'commands');
    const live = first.updatesFor(sessionId);
    first.closeStdin();
    assert.equal((await first.exited).code, 0);

    const file = path.join(store, `${sessionId}.json`);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(saved).sort(), ['additionalDirectories', 'createdAt', 'cwd', 'history', 'sessionId', 'title', 'updatedAt']);
    assert.deepEqual(
      fs.readdirSync(store).filter((name) => name.endsWith('.tmp')),
      [],
      'no temp files left behind',
    );

    const second = await startAgent({ args: ['--store', store] });
    const { sessions } = await second.agent.request('session/list', { cwd });
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].sessionId, sessionId);
    assert.equal(sessions[0].title, 'Hello there, reference agent');
    assert.deepEqual(sessions[0].additionalDirectories, [extra]);
    assert.deepEqual(sessions[0]._meta, { referenceAgent: { messages: 4 } });

    let updatesAtAnswer = -1;
    const load = second.agent.request('session/load', { sessionId, cwd, mcpServers: [], additionalDirectories: [extra] });
    await load.then(() => (updatesAtAnswer = second.updatesFor(sessionId).length));
    const replayed = second.updatesFor(sessionId);
    assert.equal(updatesAtAnswer, replayed.length, 'the whole history arrives before the load answer');
    assert.deepEqual(withoutUserChunks(replayed), live);
    const users = replayed.filter((u) => u.sessionUpdate === 'user_message_chunk');
    assert.deepEqual(
      users.map((u) => (u.content.type === 'text' ? u.content.text : '')),
      ['Hello there, reference agent', 'diff and plan please'],
    );
  });

  it('keeps the history of a crashed turn up to the crash', async () => {
    const store = tempDir();
    const cwd = tempDir();
    const agent = await startAgent({ args: ['--store', store] });
    const sessionId = await agent.newSession(cwd);
    await assert.rejects(agent.prompt(sessionId, 'please crash'));
    assert.equal((await agent.exited).code, 42);
    const saved = JSON.parse(fs.readFileSync(path.join(store, `${sessionId}.json`), 'utf8')) as { history: SessionUpdate[] };
    assert.equal(saved.history.filter((u) => u.sessionUpdate === 'agent_message_chunk').length, 2);
  });

  it('delete removes the file; deleting or closing an unknown session answers -32002', async () => {
    const store = tempDir();
    const cwd = tempDir();
    const agent = await startAgent({ args: ['--store', store] });
    const sessionId = await agent.newSession(cwd);
    assert.ok(fs.existsSync(path.join(store, `${sessionId}.json`)));
    await agent.agent.request('session/delete', { sessionId });
    assert.ok(!fs.existsSync(path.join(store, `${sessionId}.json`)));
    assert.deepEqual((await agent.agent.request('session/list', { cwd })).sessions, []);
    // The SDK client reports -32002 on close/delete as success, so look at the raw answers.
    await agent.agent.request('session/delete', { sessionId });
    await agent.agent.request('session/close', { sessionId: 'ref_unknown' });
    const errors = agent.received
      .map((line) => JSON.parse(line) as { error?: { code: number; data?: unknown } })
      .filter((m) => m.error !== undefined)
      .map((m) => m.error);
    assert.deepEqual(errors, [
      { code: -32002, message: 'Resource not found', data: { sessionId } },
      { code: -32002, message: 'Resource not found', data: { sessionId: 'ref_unknown' } },
    ]);
  });

  it('close cancels the running turn, keeps the history and makes the session inactive', async () => {
    const cwd = tempDir();
    const agent = await startAgent();
    const sessionId = await agent.newSession(cwd);
    const turn = agent.prompt(sessionId, 'hang');
    await agent.waitFor(() => agent.agentText(sessionId).includes('Echo: hang'), 'the echo before hanging');
    await agent.agent.request('session/close', { sessionId });
    assert.equal(await turn, 'cancelled');
    await assert.rejects(agent.prompt(sessionId, 'again'), { code: -32002 });
    await agent.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    assert.equal(await agent.prompt(sessionId, 'again'), 'end_turn');
  });

  it('without --store, sessions live in memory only', async () => {
    const cwd = tempDir();
    const first = await startAgent();
    await first.newSession(cwd);
    assert.equal((await first.agent.request('session/list', { cwd })).sessions.length, 1);
    const second = await startAgent();
    assert.equal((await second.agent.request('session/list', { cwd })).sessions.length, 0);
  });
});
