import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../src/acp/connection';
import { CapabilityError } from '../../../src/acp/errors';
import type { AgentConnection, PermissionRequest } from '../../../src/acp/port/agentConnection';
import { connectToMemoryAgent, FULL_AGENT_CAPABILITIES, type MemoryAgent } from '../../helpers/memoryPeer';

/** The v1 adapter seen through the port: what the application gets, over a scripted in-memory agent. */
describe('AgentConnection (the port, over the v1 adapter)', () => {
  let client: AcpConnection | undefined;
  let agent: MemoryAgent | undefined;

  afterEach(() => {
    client?.dispose();
    agent?.dispose();
    client = agent = undefined;
  });

  async function connect(initialize: Record<string, unknown> = {}): Promise<{ connection: AgentConnection; agent: MemoryAgent }> {
    const connected = connectToMemoryAgent();
    client = connected.client;
    agent = connected.agent;
    agent.acceptInitialize(initialize);
    await client.initialize({ clientInfo: { name: 'test', version: '0' } });
    return { connection: client, agent };
  }

  describe('capability sub-interfaces: present iff advertised', () => {
    const accessors = (connection: AgentConnection) => ({
      lister: connection.lister() !== undefined,
      loader: connection.loader() !== undefined,
      resumer: connection.resumer() !== undefined,
      forker: connection.forker() !== undefined,
      closer: connection.closer() !== undefined,
      deleter: connection.deleter() !== undefined,
      titles: connection.titles() !== undefined,
    });

    it('an agent that advertises everything offers every one', async () => {
      const { connection } = await connect();
      assert.deepEqual(accessors(connection), { lister: true, loader: true, resumer: true, forker: true, closer: true, deleter: true, titles: true });
    });

    it('an agent that advertises nothing optional offers none, and the adapter names what is missing', async () => {
      const { connection } = await connect({ agentCapabilities: {} });
      assert.deepEqual(accessors(connection), { lister: false, loader: false, resumer: false, forker: false, closer: false, deleter: false, titles: false });
      const error = connection.unsupported('list');
      assert.ok(error instanceof CapabilityError);
      assert.match(error.message, /sessionCapabilities\.list/);
    });

    it('each one follows its own capability', async () => {
      for (const [capability, accessor] of [
        ['list', 'lister'],
        ['resume', 'resumer'],
        ['fork', 'forker'],
        ['close', 'closer'],
        ['delete', 'deleter'],
        ['title', 'titles'],
      ] as const) {
        const { connection } = await connect({ agentCapabilities: { sessionCapabilities: { [capability]: {} } } });
        const present = Object.entries(accessors(connection))
          .filter(([, on]) => on)
          .map(([name]) => name);
        assert.deepEqual(present, [accessor], `sessionCapabilities.${capability}`);
        client?.dispose();
        agent?.dispose();
      }
      const { connection } = await connect({ agentCapabilities: { loadSession: true } });
      assert.deepEqual(
        Object.entries(accessors(connection))
          .filter(([, on]) => on)
          .map(([name]) => name),
        ['loader'],
      );
    });

    it("a session's settings are there iff its setup answer offered modes, models or config options", async () => {
      const { connection, agent } = await connect();
      agent.rpc.onRequest('session/new', (params: { cwd: string }): Record<string, unknown> =>
        params.cwd === '/plain'
          ? { sessionId: 'plain' }
          : { sessionId: 'moded', modes: { currentModeId: 'code', availableModes: [{ id: 'code', name: 'Code', description: null }] } },
      );
      const plain = await connection.newSession({ cwd: '/plain', mcpServers: [] });
      assert.equal(connection.settings(plain.sessionId), undefined);
      const moded = await connection.newSession({ cwd: '/moded', mcpServers: [] });
      assert.deepEqual(moded, { sessionId: 'moded', modes: { currentModeId: 'code', availableModes: [{ id: 'code', name: 'Code' }] } });
      const settings = connection.settings(moded.sessionId);
      assert.deepEqual(settings && [settings.modes, settings.models, settings.configOptions], [true, false, false]);
      await assert.rejects(settings!.setModel('m'), (error: Error) => error instanceof CapabilityError && /models for session moded/.test(error.message));
    });
  });

  it('lists sessions as the port names them: no v1 nulls, _meta as meta (the same object)', async () => {
    const { connection, agent } = await connect();
    const meta = { tag: 'x' };
    agent.rpc.onRequest('session/list', () => ({
      sessions: [
        { sessionId: 'a', cwd: '/w', title: 'A', updatedAt: '2026-11-02T00:00:00Z', additionalDirectories: ['/x'], _meta: meta },
        { sessionId: 'b', cwd: '/w', title: null, updatedAt: null, additionalDirectories: null, _meta: null },
      ],
      nextCursor: null,
    }));
    const page = await connection.lister()!.listSessions({ cwd: '/w' });
    assert.deepEqual(page, {
      sessions: [
        { sessionId: 'a', cwd: '/w', title: 'A', updatedAt: '2026-11-02T00:00:00Z', additionalDirectories: ['/x'], meta },
        { sessionId: 'b', cwd: '/w' },
      ],
    });
    assert.deepEqual(agent.sent('session/list')[0]?.params, { cwd: '/w' });
  });

  describe('permissions through servePermissions', () => {
    it('hands the handler the request as port types and sends its outcome back as v1', async () => {
      const connected = connectToMemoryAgent();
      client = connected.client;
      agent = connected.agent;
      agent.acceptInitialize();
      const seen: PermissionRequest[] = [];
      client.servePermissions(async (request) => {
        seen.push(request);
        return request.toolCall.title === 'Delete x' ? { outcome: 'selected', optionId: 'no' } : { outcome: 'cancelled' };
      });
      await client.initialize({ clientInfo: { name: 'test', version: '0' } });
      const options = [
        { optionId: 'yes', name: 'Allow', kind: 'allow_once', _meta: null },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ];
      const chosen = await agent.rpc.sendRequest('session/request_permission', {
        sessionId: 's1',
        toolCall: { toolCallId: 't1', title: 'Delete x', status: null, kind: 'delete' },
        options,
      });
      const cancelled = await agent.rpc.sendRequest('session/request_permission', { sessionId: 's1', toolCall: { toolCallId: 't2' }, options });
      assert.deepEqual(chosen, { outcome: { outcome: 'selected', optionId: 'no' } });
      assert.deepEqual(cancelled, { outcome: { outcome: 'cancelled' } });
      assert.deepEqual(seen, [
        {
          sessionId: 's1',
          toolCall: { toolCallId: 't1', title: 'Delete x', kind: 'delete', agentTerminals: [] },
          options: [
            { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
            { optionId: 'no', name: 'Reject', kind: 'reject_once' },
          ],
        },
        { sessionId: 's1', toolCall: { toolCallId: 't2', agentTerminals: [] }, options: seen[1]!.options },
      ]);
    });

    it('keeps the turn waiting while the user decides', async () => {
      const connected = connectToMemoryAgent();
      client = connected.client;
      agent = connected.agent;
      agent.acceptInitialize({ agentCapabilities: FULL_AGENT_CAPABILITIES });
      let decide: () => void = () => undefined;
      client.servePermissions(() => new Promise((resolve) => (decide = () => resolve({ outcome: 'selected', optionId: 'y' }))));
      await client.initialize({ clientInfo: { name: 'test', version: '0' } });
      agent.rpc.onRequest('session/new', () => ({ sessionId: 's1' }));
      let answered: unknown;
      agent.rpc.onRequest('session/prompt', async () => {
        answered = await agent!.rpc.sendRequest('session/request_permission', {
          sessionId: 's1',
          toolCall: { toolCallId: 't' },
          options: [{ optionId: 'y', name: 'Yes', kind: 'allow_once' }],
        });
        return { stopReason: 'end_turn' };
      });
      const { sessionId } = await client.newSession({ cwd: '/w', mcpServers: [] });
      const turn = client.startTurn({ sessionId, prompt: [{ type: 'text', text: 'go' }] });
      await new Promise<void>((resolve) => turn.onDidChangeState((state) => state === 'waiting' && resolve()));
      decide();
      assert.deepEqual(await turn.ended, { reason: 'stopped', stopReason: 'end_turn' });
      assert.deepEqual(answered, { outcome: { outcome: 'selected', optionId: 'y' } });
    });
  });
});
