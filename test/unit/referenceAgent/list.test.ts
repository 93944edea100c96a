import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { SessionInfo } from '@agentclientprotocol/sdk/unstable';
import { seedStore, type SeedSession } from '../../fixtures/referenceAgent/store';
import { cleanup, rpcError, startAgent, tempDir, type AgentHarness } from './harness';

const BASE = Date.parse('2026-01-01T00:00:00.000Z');

async function listAll(agent: AgentHarness, cwd?: string): Promise<{ sessions: SessionInfo[]; pages: number }> {
  const sessions: SessionInfo[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await agent.agent.request('session/list', { ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) });
    pages++;
    sessions.push(...page.sessions);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return { sessions, pages };
}

describe('reference agent: session/list', () => {
  afterEach(cleanup);

  let store: string;
  let roots: string[];
  let seeded: SeedSession[];
  beforeEach(() => {
    store = tempDir();
    const workspace = tempDir();
    roots = ['alpha', 'beta', 'gamma'].map((name) => path.join(workspace, name));
    // 250 sessions over three folders; 100 in alpha, 75 in beta and gamma.
    seeded = Array.from({ length: 250 }, (_, i) => ({
      sessionId: `seed_${String(i).padStart(3, '0')}`,
      cwd: roots[i < 100 ? 0 : i < 175 ? 1 : 2],
      additionalDirectories: i % 10 === 0 ? [path.join(workspace, 'shared')] : [],
      title: `Seeded session ${i}`,
      // Some share a timestamp so the tie-break on sessionId is exercised.
      updatedAt: new Date(BASE + Math.floor(i / 2) * 60_000).toISOString(),
      history: [{ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: `hello ${i}` } }],
    }));
    seedStore(store, seeded);
  });

  it('pages through one folder with the default page size, newest first, without gaps or duplicates', async () => {
    const agent = await startAgent({ args: ['--store', store] });
    const { sessions, pages } = await listAll(agent, roots[0]);
    assert.equal(pages, 2);
    assert.equal(sessions.length, 100);
    assert.ok(sessions.every((s) => s.cwd === roots[0]));
    assert.equal(new Set(sessions.map((s) => s.sessionId)).size, 100);
    const times = sessions.map((s) => Date.parse(s.updatedAt ?? ''));
    assert.deepEqual(
      [...times].sort((a, b) => b - a),
      times,
    );
    assert.equal(sessions[0].sessionId, 'seed_098');
    assert.equal(sessions[1].sessionId, 'seed_099');
    assert.deepEqual(sessions[0]._meta, { referenceAgent: { messages: 1 } });
    assert.deepEqual(sessions.find((s) => s.sessionId === 'seed_010')?.additionalDirectories, [path.join(path.dirname(roots[0]), 'shared')]);
    assert.deepEqual(sessions.find((s) => s.sessionId === 'seed_011')?.additionalDirectories, []);
  });

  it('honours --page-size, omits nextCursor on the last page and lists all folders without a filter', async () => {
    const agent = await startAgent({ args: ['--store', store, '--page-size', '40'] });
    const gamma = await listAll(agent, roots[2]);
    assert.equal(gamma.sessions.length, 75);
    assert.equal(gamma.pages, 2);
    const all = await listAll(agent);
    assert.equal(all.sessions.length, 250);
    assert.equal(all.pages, 7);
    const exact = await agent.agent.request('session/list', { cwd: path.dirname(roots[0]) });
    assert.deepEqual(exact.sessions, [], 'the cwd filter is an exact match, not a prefix');
    assert.equal(exact.nextCursor, undefined);
  });

  it('--list-delay holds each answer back; $/cancel_request cuts the wait short with -32800', async () => {
    const slow = await startAgent({ args: ['--store', store, '--list-delay', '20'] });
    assert.equal((await slow.agent.request('session/list', {})).sessions.length, 50);
    // A minute's delay: only the cancel can answer it within the test's timeout.
    const held = await startAgent({ args: ['--store', store, '--list-delay', '60000'] });
    const controller = new AbortController();
    const pending = held.agent.request('session/list', {}, { cancellationSignal: controller.signal });
    // The cancel follows the request on the same stream, so the agent has it when the cancel arrives.
    controller.abort();
    const error = await rpcError(pending);
    assert.equal(error.code, -32800);
  });

  it('rejects a cursor that does not verify, or that is reused with another filter', async () => {
    const agent = await startAgent({ args: ['--store', store] });
    const first = await agent.agent.request('session/list', { cwd: roots[0] });
    assert.ok(first.nextCursor);
    for (const cursor of ['garbage', `${first.nextCursor}x`, Buffer.from('{"offset":50}').toString('base64url')]) {
      const error = await rpcError(agent.agent.request('session/list', { cwd: roots[0], cursor }));
      assert.equal(error.code, -32602);
      assert.match(error.message, /invalid cursor/);
    }
    const other = await rpcError(agent.agent.request('session/list', { cwd: roots[1], cursor: first.nextCursor }));
    assert.equal(other.code, -32602);
    // Cursors do not survive a restart (per-process secret).
    const restarted = await startAgent({ args: ['--store', store] });
    assert.equal((await rpcError(restarted.agent.request('session/list', { cwd: roots[0], cursor: first.nextCursor }))).code, -32602);
  });

  it('puts a session with new activity first and keeps later pages stable', async () => {
    const agent = await startAgent({ args: ['--store', store, '--page-size', '10'] });
    const first = await agent.agent.request('session/list', { cwd: roots[0] });
    await agent.agent.request('session/resume', { sessionId: 'seed_000', cwd: roots[0] });
    await agent.prompt('seed_000', 'bump');
    const second = await agent.agent.request('session/list', { cwd: roots[0], cursor: first.nextCursor ?? undefined });
    const top = await agent.agent.request('session/list', { cwd: roots[0] });
    assert.equal(top.sessions[0].sessionId, 'seed_000');
    assert.equal(top.sessions[0].title, 'Seeded session 0');
    assert.equal(second.sessions[0].sessionId, 'seed_088');
  });
});
