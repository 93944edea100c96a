import * as assert from 'node:assert/strict';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import { type AcpConnection, HandlerError } from '../../../src/acp/connection';
import {
  AgentRequestError,
  AuthRequiredError,
  CapabilityError,
  ConnectionClosedError,
  InvalidResponseError,
  ProtocolVersionError,
  RequestCancelledError,
  SessionNotFoundError,
} from '../../../src/acp/errors';
import * as acp from '../../../src/acp/schema';
import { FULL_AGENT_CAPABILITIES, type MemoryAgent, connectToMemoryAgent, flush } from '../../helpers/memoryPeer';

const clientInfo = { name: 'acp-workspace', version: '0.0.0-test' };

async function ready(capabilities: Record<string, unknown> = FULL_AGENT_CAPABILITIES, extra: Record<string, unknown> = {}) {
  const pair = connectToMemoryAgent();
  pair.agent.acceptInitialize({ agentCapabilities: capabilities, ...extra });
  await pair.client.initialize({ clientInfo });
  return pair;
}

describe('AcpConnection', () => {
  let agent: MemoryAgent | undefined;
  let client: AcpConnection | undefined;
  afterEach(() => {
    client?.dispose();
    agent?.dispose();
    client = agent = undefined;
  });

  describe('initialize and capabilities', () => {
    it('sends protocol version 1, clientInfo and capabilities derived from the registered handlers', async () => {
      ({ client, agent } = connectToMemoryAgent());
      agent.acceptInitialize();
      client.onRequest(acp.ReadTextFileMethod, () => ({ content: '' }));
      client.onRequest(acp.RequestPermissionMethod, () => ({ outcome: { outcome: 'cancelled' as const } }));
      await client.initialize({ clientInfo, features: { booleanConfigOptions: true, terminalAuth: true } });
      const [init] = agent.sent('initialize');
      assert.deepEqual(init!.params, {
        protocolVersion: 1,
        clientInfo,
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: false },
          terminal: false,
          auth: { terminal: true },
          session: { configOptions: { boolean: {} } },
        },
      });
    });

    it('advertises terminal only when all five terminal methods are handled', async () => {
      ({ client, agent } = connectToMemoryAgent());
      agent.acceptInitialize();
      const none = () => ({});
      client.onRequest(acp.TerminalCreateMethod, () => ({ terminalId: 't' }));
      client.onRequest(acp.TerminalOutputMethod, () => ({ output: '', truncated: false }));
      client.onRequest(acp.TerminalWaitForExitMethod, none);
      client.onRequest(acp.TerminalKillMethod, none);
      client.onRequest(acp.TerminalReleaseMethod, none);
      await client.initialize({ clientInfo });
      assert.equal((agent.sent('initialize')[0]!.params as { clientCapabilities: { terminal: boolean } }).clientCapabilities.terminal, true);
    });

    it('exposes what the agent supports as one typed object', async () => {
      ({ client, agent } = await ready({
        loadSession: true,
        sessionCapabilities: { list: {}, additionalDirectories: {} },
        promptCapabilities: { image: true },
      }));
      assert.equal(client.caps.loadSession, true);
      assert.equal(client.caps.sessions.list, true);
      assert.equal(client.caps.sessions.additionalDirectories, true);
      assert.equal(client.caps.sessions.resume, false);
      assert.equal(client.caps.sessions.fork, false);
      assert.equal(client.caps.prompt.image, true);
      assert.equal(client.caps.prompt.audio, false);
      assert.equal(client.caps.mcp.http, false);
      assert.equal(client.caps.agentInfo?.name, 'memory-agent');
    });

    it('disconnects with a clear message when the agent answers another protocol version', async () => {
      ({ client, agent } = connectToMemoryAgent());
      agent.acceptInitialize({ protocolVersion: 2 });
      const closed = new Promise<string>((resolve) => client!.onDidClose(resolve));
      await assert.rejects(client.initialize({ clientInfo }), (error: Error) => {
        assert.ok(error instanceof ProtocolVersionError);
        assert.match(error.message, /Memory Agent speaks ACP protocol version 2, but ACP Workspace speaks version 1/);
        return true;
      });
      assert.match(await closed, /protocol version 2/);
      assert.ok(client.isClosed);
      await assert.rejects(client.listSessions({}), ConnectionClosedError);
    });

    it('refuses requests before initialize', async () => {
      ({ client, agent } = connectToMemoryAgent());
      assert.throws(() => client!.caps, /not initialized/);
      await assert.rejects(client.cancel('s'), /not initialized/);
    });

    it('rejects an initialize answer that does not validate', async () => {
      ({ client, agent } = connectToMemoryAgent());
      agent.rpc.onRequest('initialize', () => ({ agentCapabilities: {} }));
      await assert.rejects(client.initialize({ clientInfo }), (error: Error) => {
        assert.ok(error instanceof InvalidResponseError);
        assert.match(error.message, /Memory Agent sent an invalid answer to initialize: protocolVersion/);
        return true;
      });
    });
  });

  describe('capability gating (nothing is sent when the agent did not advertise it)', () => {
    const none = { loadSession: false, sessionCapabilities: {}, promptCapabilities: {}, mcpCapabilities: {}, auth: {} };

    it('throws before sending for every unadvertised method', async () => {
      ({ client, agent } = await ready(none));
      const before = agent.received.length;
      const c = client;
      const attempts: Array<[string, () => Promise<unknown>]> = [
        ['session/list', () => c.listSessions({})],
        ['session/load', () => c.loadSession({ sessionId: 's', cwd: '/a', mcpServers: [] })],
        ['session/resume', () => c.resumeSession({ sessionId: 's', cwd: '/a' })],
        ['session/fork', () => c.forkSession({ sessionId: 's', cwd: '/a' })],
        ['session/close', () => c.closeSession('s')],
        ['session/delete', () => c.deleteSession('s')],
        ['session/set_title', () => c.setSessionTitle('s', 't')],
        ['logout', () => c.logout()],
        ['session/set_mode', () => c.setMode('s', 'ask')],
        ['session/set_model', () => c.setModel('s', 'smart')],
        ['session/set_config_option', () => c.setConfigOption('s', 'model', 'x')],
      ];
      for (const [method, attempt] of attempts) {
        await assert.rejects(attempt(), (error: Error) => error instanceof CapabilityError && /does not support/.test(error.message), method);
      }
      await flush();
      assert.equal(agent.received.length, before, 'no message was sent');
    });

    it('refuses additionalDirectories without the capability, naming it', async () => {
      ({ client, agent } = await ready({ ...none, loadSession: true, sessionCapabilities: { resume: {}, fork: {} } }));
      const c = client;
      const extra = { additionalDirectories: ['/b'] };
      await assert.rejects(c.newSession({ cwd: '/a', mcpServers: [], ...extra }), /sessionCapabilities\.additionalDirectories/);
      await assert.rejects(c.loadSession({ sessionId: 's', cwd: '/a', mcpServers: [], ...extra }), CapabilityError);
      await assert.rejects(c.resumeSession({ sessionId: 's', cwd: '/a', ...extra }), CapabilityError);
      await assert.rejects(c.forkSession({ sessionId: 's', cwd: '/a', additionalDirectories: [] }), CapabilityError, 'even an empty list');
      await flush();
      assert.equal(agent.sent('session/new').length, 0);
    });

    it('sends additionalDirectories when advertised, exactly as given', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/new', () => ({ sessionId: 's1' }));
      await client.newSession({ cwd: '/a', additionalDirectories: ['/b', '/c'], mcpServers: [] });
      assert.deepEqual(agent.sent('session/new')[0]!.params, { cwd: '/a', additionalDirectories: ['/b', '/c'], mcpServers: [] });
    });

    it('refuses relative or empty paths before sending', async () => {
      ({ client, agent } = await ready());
      const c = client;
      await assert.rejects(c.newSession({ cwd: 'relative/dir', mcpServers: [] }), /cwd must be an absolute path/);
      await assert.rejects(c.newSession({ cwd: '/a', additionalDirectories: [''], mcpServers: [] }), /must be an absolute path/);
      await assert.rejects(c.listSessions({ cwd: '.' }), /absolute/);
    });

    it('gates prompt content and MCP transports on their capabilities', async () => {
      ({ client, agent } = await ready({ promptCapabilities: { image: false }, mcpCapabilities: { http: false, sse: true } }));
      const c = client;
      await assert.rejects(c.prompt({ sessionId: 's', prompt: [{ type: 'image', data: 'x', mimeType: 'image/png' }] }), /promptCapabilities\.image/);
      await assert.rejects(
        c.prompt({ sessionId: 's', prompt: [{ type: 'resource', resource: { uri: 'file:///a', text: 'a' } }] }),
        /promptCapabilities\.embeddedContext/,
      );
      await assert.rejects(c.prompt({ sessionId: 's', prompt: [{ type: 'audio', data: 'x', mimeType: 'audio/wav' }] }), /audio/);
      await assert.rejects(
        c.newSession({ cwd: '/a', mcpServers: [{ type: 'http', name: 'web', url: 'https://x', headers: [] }] }),
        /HTTP MCP server "web".*mcpCapabilities\.http/,
      );
      agent.rpc.onRequest('session/new', () => ({ sessionId: 's' }));
      await c.newSession({ cwd: '/a', mcpServers: [{ type: 'sse', name: 'ev', url: 'https://x', headers: [] }] });
    });

    it('allows set_mode / set_config_option only for sessions whose setup returned modes / config options', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/new', (p: { cwd: string }): Record<string, unknown> =>
        p.cwd === '/with'
          ? { sessionId: 'with', modes: { currentModeId: 'a', availableModes: [{ id: 'a', name: 'A' }] }, configOptions: [] }
          : { sessionId: 'without' },
      );
      agent.rpc.onRequest('session/set_mode', () => ({}));
      agent.rpc.onRequest('session/set_config_option', () => ({ configOptions: [] }));
      await client.newSession({ cwd: '/with', mcpServers: [] });
      await client.newSession({ cwd: '/without', mcpServers: [] });
      await client.setMode('with', 'a');
      await client.setConfigOption('with', 'think', true);
      assert.deepEqual(agent.sent('session/set_config_option')[0]!.params, { sessionId: 'with', configId: 'think', type: 'boolean', value: true });
      await assert.rejects(client!.setMode('without', 'a'), CapabilityError);
      await assert.rejects(client!.setConfigOption('without', 'model', 'x'), CapabilityError);
    });

    it('allows set_model only for sessions whose setup returned models; a bad models block is reported and dropped', async () => {
      ({ client, agent } = await ready());
      const models = {
        currentModelId: 'fast',
        availableModels: [
          { modelId: 'fast', name: 'Fast' },
          { modelId: 'smart', name: 'Smart' },
        ],
      };
      agent.rpc.onRequest('session/new', (p: { cwd: string }): Record<string, unknown> =>
        p.cwd === '/with'
          ? { sessionId: 'with', models }
          : p.cwd === '/bad'
            ? { sessionId: 'bad', models: { currentModelId: 3 }, configOptions: [] }
            : { sessionId: 'without' },
      );
      agent.rpc.onRequest('session/set_model', () => ({}));
      const errors: string[] = [];
      client.onProtocolError((error) => errors.push(error.message));
      const withModels = await client.newSession({ cwd: '/with', mcpServers: [] });
      assert.deepEqual(
        withModels.models?.availableModels.map((m) => m.modelId),
        ['fast', 'smart'],
      );
      await client.newSession({ cwd: '/without', mcpServers: [] });
      const bad = await client.newSession({ cwd: '/bad', mcpServers: [] });
      assert.equal(bad.models, undefined);
      assert.deepEqual(bad.configOptions, []);
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /invalid models block in its session\/new answer.*currentModelId/);
      await client.setModel('with', 'smart');
      assert.deepEqual(agent.sent('session/set_model')[0]!.params, { sessionId: 'with', modelId: 'smart' });
      await assert.rejects(client!.setModel('without', 'smart'), CapabilityError);
      await assert.rejects(client!.setModel('bad', 'smart'), CapabilityError);
      assert.equal(agent.sent('session/set_model').length, 1);
    });

    it('authenticates only with an advertised agent-type method', async () => {
      ({ client, agent } = await ready(FULL_AGENT_CAPABILITIES, {
        authMethods: [
          { id: 'key', name: 'API key' },
          { type: 'terminal', id: 'tui', name: 'Log in' },
        ],
      }));
      agent.rpc.onRequest('authenticate', () => ({}));
      await client.authenticate('key');
      await assert.rejects(client!.authenticate('nope'), CapabilityError);
      await assert.rejects(client!.authenticate('tui'), /runs in a terminal/);
    });
  });

  describe('errors from the agent', () => {
    it('maps -32000 to AuthRequiredError carrying the advertised auth methods', async () => {
      ({ client, agent } = await ready(FULL_AGENT_CAPABILITIES, { authMethods: [{ id: 'key', name: 'API key' }] }));
      agent.rpc.onRequest('session/new', () => new ResponseError(-32000, 'Authentication required'));
      await assert.rejects(client.newSession({ cwd: '/a', mcpServers: [] }), (error: Error) => {
        assert.ok(error instanceof AuthRequiredError);
        assert.deepEqual(
          error.authMethods.map((m) => m.type !== '$unknown' && m.id),
          ['key'],
        );
        assert.match(error.message, /Memory Agent needs you to sign in before session\/new/);
        return true;
      });
    });

    it('maps -32002 to SessionNotFoundError with the session id', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/load', () => new ResponseError(-32002, 'Resource not found', { sessionId: 'gone' }));
      await assert.rejects(client.loadSession({ sessionId: 'gone', cwd: '/a', mcpServers: [] }), (error: Error) => {
        assert.ok(error instanceof SessionNotFoundError);
        assert.equal(error.sessionId, 'gone');
        return true;
      });
    });

    it('treats -32002 on session/close and session/delete as success', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/close', () => new ResponseError(-32002, 'no such session'));
      agent.rpc.onRequest('session/delete', () => new ResponseError(-32002, 'no such session'));
      await client.closeSession('gone');
      await client.deleteSession('gone');
    });

    it('maps -32800 to RequestCancelledError and other codes to AgentRequestError', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/prompt', () => new ResponseError(-32800, 'cancelled'));
      agent.rpc.onRequest('session/list', () => new ResponseError(-32602, 'invalid cursor'));
      await assert.rejects(client.prompt({ sessionId: 's', prompt: [{ type: 'text', text: 'x' }] }), RequestCancelledError);
      await assert.rejects(client.listSessions({ cursor: 'bad' }), (error: Error) => {
        assert.ok(error instanceof AgentRequestError);
        assert.equal(error.code, -32602);
        assert.equal(error.message, 'Memory Agent rejected session/list: invalid cursor (error -32602)');
        return true;
      });
    });

    it('says what an agent put in data.details (the ACP SDKs answer a thrown error with "Internal error")', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/prompt', () => new ResponseError(-32603, 'Internal error', { details: 'Session not found' }));
      agent.rpc.onRequest('session/close', () => new ResponseError(-32603, 'Session not found', { details: 'Session not found' }));
      agent.rpc.onRequest('session/list', () => new ResponseError(-32603, 'Internal error', { details: 42 }));
      await assert.rejects(client.prompt({ sessionId: 's', prompt: [{ type: 'text', text: 'x' }] }), (error: Error) => {
        assert.ok(error instanceof AgentRequestError);
        assert.equal(error.message, 'Memory Agent rejected session/prompt: Internal error: Session not found (error -32603)');
        assert.equal(error.agentMessage, 'Internal error');
        return true;
      });
      await assert.rejects(client.closeSession('s'), { message: 'Memory Agent rejected session/close: Session not found (error -32603)' });
      await assert.rejects(client.listSessions({}), { message: 'Memory Agent rejected session/list: Internal error (error -32603)' });
    });

    it('validates answers: a session/new result without sessionId is an InvalidResponseError', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/new', () => ({ id: 'not-the-field' }));
      await assert.rejects(client.newSession({ cwd: '/a', mcpServers: [] }), (error: Error) => {
        assert.ok(error instanceof InvalidResponseError);
        assert.match(error.message, /invalid answer to session\/new: sessionId/);
        return true;
      });
    });

    it('accepts a null session/load result (real agents send it)', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/load', () => null);
      assert.deepEqual(await client.loadSession({ sessionId: 's', cwd: '/a', mcpServers: [] }), {});
    });
  });

  describe('agent → client requests and notifications', () => {
    it('validates params before the handler runs: bad params get -32602 with a readable message', async () => {
      ({ client, agent } = await ready());
      let calls = 0;
      client.onRequest(acp.ReadTextFileMethod, () => {
        calls++;
        return { content: 'x' };
      });
      await assert.rejects(agent.rpc.sendRequest('fs/read_text_file', { sessionId: 's', path: 42 }), (error: ResponseError<unknown>) => {
        assert.equal(error.code, -32602);
        assert.match(error.message, /Invalid params for fs\/read_text_file: path: .*expected string/);
        return true;
      });
      assert.equal(calls, 0);
      assert.deepEqual(await agent.rpc.sendRequest('fs/read_text_file', { sessionId: 's', path: '/a' }), { content: 'x' });
      assert.equal(calls, 1);
    });

    it('answers unknown requests, extension (`_`) or not, with -32601', async () => {
      ({ client, agent } = await ready());
      for (const method of ['_vendor/ping', 'fs/teleport']) {
        await assert.rejects(agent.rpc.sendRequest(method, {}), (error: ResponseError<unknown>) => error.code === -32601);
      }
    });

    it('answers -32603 with the message when a handler throws, or the code of a HandlerError', async () => {
      ({ client, agent } = await ready());
      client.onRequest(acp.ReadTextFileMethod, () => {
        throw new Error('disk on fire');
      });
      client.onRequest(acp.WriteTextFileMethod, () => {
        throw new HandlerError(-32002, 'outside the roots');
      });
      await assert.rejects(agent.rpc.sendRequest('fs/read_text_file', { sessionId: 's', path: '/a' }), (e: ResponseError<unknown>) => {
        return e.code === -32603 && e.message === 'disk on fire';
      });
      await assert.rejects(agent.rpc.sendRequest('fs/write_text_file', { sessionId: 's', path: '/a', content: '' }), (e: ResponseError<unknown>) => {
        return e.code === -32002 && e.message === 'outside the roots';
      });
    });

    it('ignores and logs unknown notifications, and keeps working', async () => {
      let logger;
      ({ client, agent, logger } = connectToMemoryAgent());
      agent.acceptInitialize();
      await client.initialize({ clientInfo });
      const updates: string[] = [];
      client.onNotification(acp.SessionUpdateNotification, (n) => updates.push(n.update.sessionUpdate));
      await agent.rpc.sendNotification('_vendor/progress', { pct: 5 });
      await agent.rpc.sendNotification('session/teleported', {});
      await agent.rpc.sendNotification('session/update', { sessionId: 's', update: { sessionUpdate: 'current_mode_update', currentModeId: 'a' } });
      await flush();
      assert.deepEqual(updates, ['current_mode_update']);
      assert.ok(logger.lines.some((l) => l.message.includes('session/teleported')));
      assert.ok(logger.lines.some((l) => l.message.includes('_vendor/progress')));
    });

    it('reports an invalid notification without calling the handler, then delivers the next', async () => {
      ({ client, agent } = await ready());
      const errors: string[] = [];
      const updates: unknown[] = [];
      client.onProtocolError((e) => errors.push(e.message));
      client.onNotification(acp.SessionUpdateNotification, (n) => updates.push(n.update));
      await agent.rpc.sendNotification('session/update', { update: { sessionUpdate: 'plan', entries: [] } });
      await agent.rpc.sendNotification('session/update', { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } });
      await flush();
      assert.equal(updates.length, 1);
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /Memory Agent sent an invalid session\/update notification: sessionId/);
    });

    it('survives a notification handler that throws', async () => {
      let logger;
      ({ client, agent, logger } = await ready());
      let calls = 0;
      client.onNotification(acp.SessionUpdateNotification, () => {
        calls++;
        throw new Error('renderer bug');
      });
      const u = { sessionId: 's', update: { sessionUpdate: 'current_mode_update', currentModeId: 'a' } };
      await agent.rpc.sendNotification('session/update', u);
      await agent.rpc.sendNotification('session/update', u);
      await flush();
      assert.equal(calls, 2);
      assert.ok(logger.lines.some((l) => l.level === 'error' && l.message.includes('renderer bug')));
    });

    it('reports lines the agent wrote that are not JSON-RPC, naming the agent, and reads on', async () => {
      ({ client, agent } = await ready());
      const errors: string[] = [];
      const updates: unknown[] = [];
      client.onProtocolError((e) => errors.push(e.message));
      client.onNotification(acp.SessionUpdateNotification, (n) => updates.push(n));
      agent.writeRaw('Loading model weights...\n');
      await agent.rpc.sendNotification('session/update', { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } });
      await flush();
      assert.equal(updates.length, 1);
      assert.match(errors[0]!, /^Memory Agent wrote a line that is not JSON/);
    });

    it('refuses to register two handlers for one method', async () => {
      ({ client, agent } = connectToMemoryAgent());
      client.onRequest(acp.ReadTextFileMethod, () => ({ content: '' }));
      assert.throws(() => client!.onRequest(acp.ReadTextFileMethod, () => ({ content: '' })), /already registered/);
    });
  });

  describe('ordering, concurrency, cancellation and disposal', () => {
    it('delivers 2,000 updates in order, and load-replayed updates before the load result', async () => {
      ({ client, agent } = await ready());
      const seen: number[] = [];
      let resolvedAfter = -1;
      client.onNotification(acp.SessionUpdateNotification, (n) => {
        if (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text') seen.push(Number(n.update.content.text));
      });
      agent.rpc.onRequest('session/load', async () => {
        for (let i = 0; i < 2000; i++) {
          void agent!.rpc.sendNotification('session/update', {
            sessionId: 's',
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: String(i) } },
          });
        }
        return {};
      });
      await client.loadSession({ sessionId: 's', cwd: '/a', mcpServers: [] });
      resolvedAfter = seen.length;
      assert.equal(resolvedAfter, 2000);
      assert.deepEqual(
        seen,
        Array.from({ length: 2000 }, (_v, i) => i),
      );
    });

    it('keeps concurrent requests apart when the agent answers out of order', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/list', async (p: { cwd: string }) => {
        await new Promise((r) => setTimeout(r, p.cwd === '/slow' ? 30 : 1));
        return { sessions: [{ sessionId: p.cwd, cwd: p.cwd }] };
      });
      const [slow, fast] = await Promise.all([client.listSessions({ cwd: '/slow' }), client.listSessions({ cwd: '/fast' })]);
      assert.equal(slow.sessions[0]!.sessionId, '/slow');
      assert.equal(fast.sessions[0]!.sessionId, '/fast');
    });

    it('sends $/cancel_request {requestId} when a request is cancelled, and surfaces -32800', async () => {
      ({ client, agent } = await ready());
      let release: (() => void) | undefined;
      agent.rpc.onRequest('session/prompt', async (_p, token) => {
        await new Promise<void>((resolve) => {
          release = resolve;
          token.onCancellationRequested(() => resolve());
        });
        return new ResponseError(-32800, 'Request cancelled');
      });
      const seenCancel: unknown[] = [];
      agent.rpc.onNotification('$/cancel_request', (p: unknown) => {
        seenCancel.push(p);
        release?.();
      });
      const source = new CancellationTokenSource();
      const pending = client.prompt({ sessionId: 's', prompt: [{ type: 'text', text: 'long' }] }, source.token);
      await flush();
      source.cancel();
      await assert.rejects(pending, RequestCancelledError);
      const promptId = agent.sent('session/prompt')[0]!.id;
      assert.deepEqual(seenCancel, [{ requestId: promptId }]);
    });

    it('cancels a handler token when the agent sends $/cancel_request for its request', async () => {
      ({ client, agent } = await ready());
      let cancelled = false;
      client.onRequest(
        acp.RequestPermissionMethod,
        (_params, token) =>
          new Promise((resolve) => {
            token.onCancellationRequested(() => {
              cancelled = true;
              resolve({ outcome: { outcome: 'cancelled' } });
            });
          }),
      );
      const answer = agent.rpc.sendRequest('session/request_permission', {
        sessionId: 's',
        toolCall: { toolCallId: 'c' },
        options: [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }],
      });
      await flush();
      const request = agent.written.find((m) => (m as { method?: string }).method === 'session/request_permission') as unknown as { id: number };
      // ACP's own form, as an agent sends it (vscode-jsonrpc itself would send LSP's $/cancelRequest).
      await agent.rpc.sendNotification('$/cancel_request', { requestId: request.id });
      assert.deepEqual(await answer, { outcome: { outcome: 'cancelled' } });
      assert.ok(cancelled);
    });

    it('fails outstanding requests with the close reason, and later calls at once', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/prompt', () => new Promise(() => undefined));
      const pending = client.prompt({ sessionId: 's', prompt: [{ type: 'text', text: 'x' }] });
      await flush();
      client.dispose('Memory Agent exited (exit code 42).');
      await assert.rejects(pending, (error: Error) => {
        assert.ok(error instanceof ConnectionClosedError);
        assert.equal(error.message, 'session/prompt to Memory Agent failed: Memory Agent exited (exit code 42).');
        return true;
      });
      await assert.rejects(client.listSessions({}), /Memory Agent exited \(exit code 42\)/);
    });

    it('on close(reason), first delivers everything the agent sent before its output ended', async () => {
      ({ client, agent } = await ready());
      const seen: string[] = [];
      client.onNotification(acp.SessionUpdateNotification, (n) => seen.push(n.update.sessionUpdate));
      agent.rpc.onRequest('session/prompt', () => new Promise(() => undefined));
      const pending = client.prompt({ sessionId: 's', prompt: [{ type: 'text', text: 'x' }] });
      for (let i = 0; i < 500; i++) void agent.rpc.sendNotification('session/update', { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } });
      agent.stdout.end();
      client.close('Memory Agent exited (exit code 42).'); // the exit is often noticed before the output is read
      await assert.rejects(pending, /Memory Agent exited \(exit code 42\)/);
      assert.equal(seen.length, 500);
    });

    it('closes by itself when the agent output ends, failing what is outstanding', async () => {
      ({ client, agent } = await ready());
      agent.rpc.onRequest('session/prompt', () => new Promise(() => undefined));
      const pending = client.prompt({ sessionId: 's', prompt: [{ type: 'text', text: 'x' }] });
      await flush();
      agent.stdout.end();
      await assert.rejects(pending, /Memory Agent closed the connection/);
      assert.ok(client.isClosed);
    });
  });
});
