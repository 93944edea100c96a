import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { client, type RequestPermissionResponse, type SessionUpdate, type Stream } from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream, type WebSocketConstructor } from '@agentclientprotocol/sdk/experimental/ws-client';
import { client as v1Client } from '@agentclientprotocol/sdk/unstable';
import WebSocket from 'ws';
import { serveReferenceAgent } from '../../fixtures/referenceAgent/serve';
import { PERMISSION_TITLE } from '../../fixtures/referenceAgent/permission';
import {
  ELICIT_MESSAGE,
  ELICIT_URL,
  NULLS_DONE_TITLE,
  NULLS_TITLE,
  SUBAGENT_TEXT,
  SUBAGENT_TITLE,
  TOOL_CANCEL_TITLE,
  UPSERT_FINAL,
} from '../../fixtures/referenceAgent/v2/turn';
import { cleanup, rpcError, startAgent, tempDir } from './harness';
import { cleanupV2, isUpdate, rawExchange, startV2Agent, type V2Agent } from './v2harness';

const INITIALIZE_V2 = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: 2, capabilities: {}, info: { name: 't', version: '0' } },
});
const INITIALIZE_V1 = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });

/** A session in three folders. */
async function threeFolderSession(agent: V2Agent): Promise<{ sessionId: string; folders: string[] }> {
  const folders = [tempDir(), tempDir(), tempDir()];
  const created = await agent.agent.request('session/new', { cwd: folders[0]!, additionalDirectories: folders.slice(1) });
  return { sessionId: created.sessionId, folders };
}

function textOf(update: SessionUpdate): string {
  if (!('content' in update) || !Array.isArray(update.content)) return '';
  return update.content.map((block: { type: string; text?: unknown }) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
}

/** The update kinds (and states) of a session, `state_update` written as its state. */
function kinds(updates: readonly SessionUpdate[]): string[] {
  return updates.map((u) =>
    u.sessionUpdate === 'state_update' ? `state:${String(u.state)}${'stopReason' in u && u.stopReason ? `:${String(u.stopReason)}` : ''}` : u.sessionUpdate,
  );
}

describe('reference agent: ACP v2 beside v1 (--protocol)', function () {
  this.timeout(30_000);
  afterEach(async () => {
    await cleanupV2();
    await cleanup();
  });

  it('answers v2 to a v2 initialize and v1 to a v1 one on the same build (default both)', async () => {
    const agent = await startV2Agent();
    const init = agent.initializeResponse;
    assert.equal(init?.protocolVersion, 2);
    assert.deepEqual(init?.info, { name: 'reference-agent', title: 'Reference Agent (offline)', version: '1.0.0' });
    assert.deepEqual(init?.capabilities, {
      session: { prompt: { image: {}, embeddedContext: {} }, mcp: { stdio: {}, http: {} }, delete: {}, additionalDirectories: {}, fork: {} },
    });
    const v1 = await startAgent();
    assert.equal(v1.initializeResponse?.protocolVersion, 1);
    assert.deepEqual(v1.initializeResponse?.agentCapabilities?.sessionCapabilities?.list, {});
    agent.assertSchemaValid();
  });

  it('--protocol v1 answers protocolVersion 1 when offered 2; --protocol v2 refuses v1 with -32022', async () => {
    const old = await rawExchange(['--protocol', 'v1'], INITIALIZE_V2);
    assert.equal((old.result as { protocolVersion: number }).protocolVersion, 1);
    assert.ok((old.result as { agentCapabilities?: unknown }).agentCapabilities, 'a v1 answer');
    const refused = await rawExchange(['--protocol', 'v2'], INITIALIZE_V1);
    assert.deepEqual(refused.error, { code: -32022, message: 'Unsupported protocol version', data: { requested: 1, supported: [2] } });
    const v2only = await rawExchange(['--protocol=v2'], INITIALIZE_V2);
    assert.equal((v2only.result as { protocolVersion: number }).protocolVersion, 2);
  });

  it('a turn: user_message echo before the answer, then running → updates → idle end_turn, in three folders', async () => {
    const agent = await startV2Agent();
    const { sessionId, folders } = await threeFolderSession(agent);
    const { messageId, stopReason } = await agent.prompt(sessionId, 'status');
    assert.equal(stopReason, 'end_turn');
    const updates = agent.updatesFor(sessionId);
    assert.deepEqual(kinds(updates), [
      'user_message',
      'state:running',
      'session_info_update',
      ...updates.slice(3, -1).map(() => 'agent_message_chunk'),
      'state:idle:end_turn',
    ]);
    const echo = updates[0]!;
    assert.ok(echo.sessionUpdate === 'user_message');
    assert.equal(echo.messageId, messageId);
    assert.equal(textOf(echo), 'status');
    assert.match(agent.agentText(sessionId), new RegExp(`folders ${folders.join(', ')}\\.`));
    const chunkIds = new Set(updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' ? [u.messageId] : [])));
    assert.equal(chunkIds.size, 1, 'one message, one messageId');
    // On the wire: the echo, then the prompt's answer, then running.
    const lines = agent.received.map((line) => JSON.parse(line) as { id?: unknown; params?: { update?: { sessionUpdate?: string; state?: string } } });
    const echoAt = lines.findIndex((m) => m.params?.update?.sessionUpdate === 'user_message');
    const answerAt = lines.findIndex((m) => m.id !== undefined && JSON.stringify(m).includes(messageId) && m.params === undefined);
    const runningAt = lines.findIndex((m) => m.params?.update?.state === 'running');
    assert.ok(echoAt < answerAt && answerAt < runningAt, `echo ${echoAt}, answer ${answerAt}, running ${runningAt}`);
    // A prompt without keywords is echoed back.
    await agent.prompt(sessionId, 'hello there');
    assert.match(agent.agentText(sessionId), /Echo: hello there/);
    agent.assertSchemaValid();
  });

  it('permission: requires_action while the client decides, running after it', async () => {
    let statesAtRequest: string[] = [];
    let title = '';
    const agent = await startV2Agent({
      onPermission: (request): RequestPermissionResponse => {
        statesAtRequest = [...agent.states];
        title = request.title;
        const allow = request.options.find((o) => o.kind === 'allow_once');
        assert.ok(allow);
        assert.equal(request.subject?.type, 'tool_call');
        return { outcome: { outcome: 'selected', optionId: allow.optionId } };
      },
    });
    const { sessionId } = await threeFolderSession(agent);
    assert.equal((await agent.prompt(sessionId, 'permission')).stopReason, 'end_turn');
    assert.equal(title, PERMISSION_TITLE);
    assert.deepEqual(statesAtRequest, ['running', 'requires_action']);
    assert.deepEqual(agent.states, ['running', 'requires_action', 'running', 'idle:end_turn']);
    const tool = agent.updatesFor(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update');
    assert.deepEqual(
      tool.map((u) => (u.sessionUpdate === 'tool_call_update' ? u.status : undefined)),
      ['pending', 'in_progress', 'completed'],
    );
    assert.match(agent.agentText(sessionId), /Permission granted/);
    agent.assertSchemaValid();
  });

  it('cancel: session/cancel ends a hanging turn, and withdraws a pending permission request ($/cancel_request)', async () => {
    let withdrawn = false;
    const agent = await startV2Agent({
      onPermission: (_request, signal) =>
        new Promise<RequestPermissionResponse>((resolve) =>
          signal.addEventListener('abort', () => {
            withdrawn = true;
            resolve({ outcome: { outcome: 'cancelled' } });
          }),
        ),
    });
    const { sessionId } = await threeFolderSession(agent);
    let mark = agent.updatesFor(sessionId).length;
    await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hang' }] });
    await agent.waitFor(() => agent.agentText(sessionId).includes('Echo: hang'), 'the hanging turn to speak');
    await agent.agent.notify('session/cancel', { sessionId });
    assert.equal(await agent.idleAfter(sessionId, mark), 'cancelled');

    mark = agent.updatesFor(sessionId).length;
    await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'permission' }] });
    await agent.waitFor(() => agent.states.at(-1) === 'requires_action', 'requires_action');
    await agent.agent.notify('session/cancel', { sessionId });
    assert.equal(await agent.idleAfter(sessionId, mark), 'cancelled');
    await agent.waitFor(() => withdrawn, 'the permission request to be withdrawn');
    const last = agent
      .updatesFor(sessionId)
      .slice(mark)
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .at(-1);
    assert.ok(last?.sessionUpdate === 'tool_call_update');
    assert.equal(last.status, 'cancelled');
    assert.ok(agent.received.some((line) => line.includes('"$/cancel_request"')));
    agent.assertSchemaValid();
  });

  it('list and resume with replayFrom after a restart: the history as upserts, then the state, then the answer', async () => {
    const store = tempDir();
    const first = await startV2Agent({ args: ['--store', store] });
    const { sessionId, folders } = await threeFolderSession(first);
    const { messageId } = await first.prompt(sessionId, 'think plan diff');
    const live = first.updatesFor(sessionId);
    const liveText = first.agentText(sessionId);
    first.closeStdin();
    assert.equal((await first.exited).code, 0);

    const second = await startV2Agent({ args: ['--store', store] });
    const listed = await second.agent.request('session/list', {});
    assert.deepEqual(
      listed.sessions.map((s) => [s.sessionId, s.cwd, s.additionalDirectories, s.title]),
      [[sessionId, folders[0], folders.slice(1), 'think plan diff']],
    );
    await second.agent.request('session/resume', { sessionId, cwd: folders[0]!, additionalDirectories: folders.slice(1), replayFrom: { type: 'start' } });
    await second.waitFor(() => second.states.length > 0, 'the state after the replay');
    const replayed = second.updatesFor(sessionId);
    assert.deepEqual(kinds(replayed), [
      'user_message',
      'agent_thought',
      'tool_call_update',
      'agent_message',
      'plan_update',
      'session_info_update',
      'state:idle',
    ]);
    // Every replayed line and the state came before the answer.
    const wire = second.received.map((line) => JSON.parse(line) as { method?: string; result?: unknown });
    const answerAt = wire.findIndex(
      (m) => m.method === undefined && m.result !== undefined && !('protocolVersion' in (m.result as object)) && !('sessions' in (m.result as object)),
    );
    assert.equal(answerAt, wire.length - 1, 'the answer is the last line');
    const user = replayed[0]!;
    assert.ok(user.sessionUpdate === 'user_message');
    assert.equal(user.messageId, messageId);
    assert.equal(textOf(replayed[3]!), liveText, 'the replayed message is the streamed chunks joined');
    const tool = replayed.filter(isUpdate('tool_call_update'))[0];
    assert.equal(tool?.status, 'completed');
    assert.equal(tool.content?.[0]?.type, 'diff');
    const livePlan = live.filter((u) => u.sessionUpdate === 'plan_update').at(-1);
    assert.deepEqual(replayed[4], livePlan, 'the plan as it stands');
    // The resumed session takes prompts.
    assert.equal((await second.prompt(sessionId, 'again')).stopReason, 'end_turn');
    second.assertSchemaValid();
  });

  it('close, delete and fork', async () => {
    const agent = await startV2Agent();
    const { sessionId, folders } = await threeFolderSession(agent);
    await agent.prompt(sessionId, 'plan');
    const forked = await agent.agent.request('session/fork', { sessionId, cwd: folders[1]!, additionalDirectories: [folders[2]!] });
    assert.notEqual(forked.sessionId, sessionId);
    assert.ok(forked.configOptions?.some((o) => o.configId === 'mode' && o.category === 'mode'));
    const listed = await agent.agent.request('session/list', {});
    assert.deepEqual(new Set(listed.sessions.map((s) => s.sessionId)), new Set([sessionId, forked.sessionId]));
    assert.deepEqual(listed.sessions.find((s) => s.sessionId === forked.sessionId)?.additionalDirectories, [folders[2]]);
    assert.equal((await agent.prompt(forked.sessionId, 'hello')).stopReason, 'end_turn');

    await agent.agent.request('session/close', { sessionId });
    const closed = await rpcError(agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }));
    assert.equal(closed.code, -32002);
    await agent.agent.request('session/delete', { sessionId: forked.sessionId });
    assert.deepEqual(
      (await agent.agent.request('session/list', {})).sessions.map((s) => s.sessionId),
      [sessionId],
    );
    const gone = await rpcError(agent.agent.request('session/resume', { sessionId: forked.sessionId, cwd: folders[1]! }));
    assert.equal(gone.code, -32002);
    agent.assertSchemaValid();
  });

  it('v2 updates: whole-message upsert, nulls, tool_call/cancel, an own terminal, notice, usage with cost, config options', async () => {
    const agent = await startV2Agent();
    const { sessionId, folders } = await threeFolderSession(agent);
    assert.equal((await agent.prompt(sessionId, 'upsert nulls notice usage')).stopReason, 'end_turn');
    let updates = agent.updatesFor(sessionId);
    const whole = updates.find((u) => u.sessionUpdate === 'agent_message');
    assert.ok(whole?.sessionUpdate === 'agent_message');
    assert.equal(textOf(whole), UPSERT_FINAL);
    assert.ok(
      updates.some((u) => u.sessionUpdate === 'agent_message_chunk' && u.messageId === whole.messageId),
      'chunks of the same message came first',
    );
    const nullsCall = updates.filter(isUpdate('tool_call_update'));
    assert.equal(nullsCall[0]?.title, NULLS_TITLE);
    assert.deepEqual(nullsCall[1], {
      sessionUpdate: 'tool_call_update',
      toolCallId: nullsCall[0]?.toolCallId,
      title: NULLS_DONE_TITLE,
      status: 'completed',
      content: null,
      locations: null,
    });
    assert.ok(updates.some((u) => u.sessionUpdate === 'notice' && u.severity === 'warning'));
    assert.equal(updates.find(isUpdate('usage_update'))?.cost?.currency, 'USD');

    // tool_call/cancel: the call ends cancelled and the turn goes on to end_turn.
    let mark = updates.length;
    await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'tool-cancel' }] });
    const cancellable = () =>
      agent
        .updatesFor(sessionId)
        .slice(mark)
        .filter(isUpdate('tool_call_update'))
        .find((u) => u.title === TOOL_CANCEL_TITLE && u.capabilities?.cancel);
    await agent.waitFor(() => cancellable() !== undefined, 'the cancellable tool call');
    const toolCall = cancellable();
    assert.ok(toolCall);
    await agent.agent.request('tool_call/cancel', { sessionId, toolCallId: toolCall.toolCallId });
    assert.equal(await agent.idleAfter(sessionId, mark), 'end_turn');
    assert.ok(
      agent
        .updatesFor(sessionId)
        .slice(mark)
        .filter(isUpdate('tool_call_update'))
        .some((u) => u.status === 'cancelled'),
    );
    assert.equal((await rpcError(agent.agent.request('tool_call/cancel', { sessionId, toolCallId: toolCall.toolCallId }))).code, -32602);

    // shell-direct: an agent-owned terminal, shown by the tool call, its output streamed, its exit set.
    mark = agent.updatesFor(sessionId).length;
    assert.equal((await agent.prompt(sessionId, 'shell-direct echo from-the-shell && exit 3')).stopReason, 'end_turn');
    updates = agent.updatesFor(sessionId).slice(mark);
    const terminal = updates.filter((u) => u.sessionUpdate === 'terminal_update' || u.sessionUpdate === 'terminal_output_chunk');
    assert.deepEqual(
      terminal.map((u) => u.sessionUpdate),
      ['terminal_update', 'terminal_output_chunk', 'terminal_update'],
    );
    const [opened, output, exited] = terminal;
    assert.ok(opened?.sessionUpdate === 'terminal_update' && opened.command === 'echo from-the-shell && exit 3' && opened.cwd === folders[0]);
    assert.ok(output?.sessionUpdate === 'terminal_output_chunk' && output.data === 'from-the-shell\n');
    assert.ok(exited?.sessionUpdate === 'terminal_update');
    assert.deepEqual(exited.exitStatus, { exitCode: 3, signal: null });
    const call = updates.filter(isUpdate('tool_call_update'));
    assert.equal(call[0]?.content?.[0]?.type, 'terminal');
    assert.equal(call.at(-1)?.status, 'failed');

    // Config options: v2 has no modes, so the mode is a select option; setting one answers the list and sends it.
    mark = agent.updatesFor(sessionId).length;
    const set = await agent.agent.request('session/set_config_option', { sessionId, configId: 'mode', type: 'id', value: 'architect' });
    assert.equal(set.configOptions.find((o) => o.configId === 'mode')?.currentValue, 'architect');
    await agent.waitFor(
      () =>
        agent
          .updatesFor(sessionId)
          .slice(mark)
          .some((u) => u.sessionUpdate === 'config_option_update'),
      'config_option_update',
    );
    await agent.agent.request('session/set_config_option', { sessionId, configId: 'extended_thinking', type: 'boolean', value: true });
    await agent.prompt(sessionId, 'status');
    assert.match(agent.agentText(sessionId), /Status: mode architect; model ref-fast; extended thinking on/);

    const seen = agent.assertSchemaValid();
    for (const expected of [
      'initialize response',
      'session/new response',
      'session/prompt response',
      'session/set_config_option response',
      'tool_call/cancel response',
      'error',
      'user_message',
      'agent_message_chunk',
      'agent_message',
      'agent_thought_chunk',
      'state_update',
      'tool_call_update',
      'terminal_update',
      'terminal_output_chunk',
      'notice',
      'usage_update',
      'config_option_update',
      'session_info_update',
    ]) {
      assert.ok(seen.has(expected), `nothing checked for ${expected}`);
    }
  });

  it('--record records v2 traffic exactly as sent', async () => {
    const file = path.join(tempDir(), 'received.jsonl');
    const agent = await startV2Agent({ args: ['--record', file] });
    const { sessionId } = await threeFolderSession(agent);
    await agent.prompt(sessionId, 'permission');
    agent.closeStdin();
    assert.equal((await agent.exited).code, 0);
    const recorded = fs.readFileSync(file, 'utf8');
    assert.equal(recorded, agent.sent.map((line) => line + '\n').join(''));
    assert.deepEqual(
      recorded
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { method?: string }).method ?? 'response'),
      ['initialize', 'session/new', 'session/prompt', 'response'],
    );
  });

  it('a session made on v2 loads on v1 with the same conversation', async () => {
    const store = tempDir();
    const v2 = await startV2Agent({ args: ['--store', store] });
    const { sessionId, folders } = await threeFolderSession(v2);
    await v2.prompt(sessionId, 'upsert');
    v2.closeStdin();
    await v2.exited;
    const v1 = await startAgent({ args: ['--store', store] });
    await v1.agent.request('session/load', { sessionId, cwd: folders[0]!, mcpServers: [], additionalDirectories: folders.slice(1) });
    assert.equal(v1.agentText(sessionId), UPSERT_FINAL);
    assert.deepEqual(
      // (the commands are announced after the answer, as on any v1 load of a session that never had them)
      v1
        .updatesFor(sessionId)
        .map((u) => u.sessionUpdate)
        .filter((kind) => kind !== 'available_commands_update'),
      ['user_message_chunk', 'session_info_update', 'agent_message_chunk'],
    );
  });

  it('served over WebSocket and Streamable HTTP, each connection negotiates: v2 for a v2 client, v1 for a v1 one', async () => {
    const served = await serveReferenceAgent();
    try {
      const streams: Array<[string, () => Stream]> = [
        ['ws', () => createWebSocketStream(served.wsUrl, { WebSocket: WebSocket as unknown as WebSocketConstructor })],
        ['http', () => createHttpStream(served.httpUrl)],
      ];
      for (const [name, open] of streams) {
        const states: string[] = [];
        let idle = (): void => undefined;
        const idled = new Promise<void>((resolve) => (idle = resolve));
        const answered = await client({ name: 'v2-over-a-link' })
          .onNotification('session/update', ({ params }) => {
            if (params.update.sessionUpdate !== 'state_update') return;
            states.push(String(params.update.state));
            if (params.update.state === 'idle') idle();
          })
          .connectWith(open(), async (agent) => {
            const init = await agent.request('initialize', { protocolVersion: 2, info: { name: 't', version: '0' }, capabilities: {} });
            const { sessionId } = await agent.request('session/new', { cwd: tempDir() });
            await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
            await idled;
            return init.protocolVersion;
          });
        assert.equal(answered, 2, name);
        assert.deepEqual(states, ['running', 'idle'], name);
        const v1 = await v1Client({ name: 'v1-over-a-link' }).connectWith(open(), async (agent) => {
          const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
          return init.protocolVersion;
        });
        assert.equal(v1, 1, name);
      }
    } finally {
      await served.close();
    }
  });

  it('elicitation (form and URL) framed by requires_action, and a subagent speaking in its own session', async () => {
    const agent = await startV2Agent({
      capabilities: { elicitation: { form: {}, url: {} } },
      onElicitation: (request) => (request.mode === 'form' ? { action: 'accept', content: { name: 'Ada', confirm: true } } : { action: 'accept' }),
    });
    const { sessionId } = await threeFolderSession(agent);
    assert.equal((await agent.prompt(sessionId, 'elicit elicit-url subagent')).stopReason, 'end_turn');
    assert.deepEqual(agent.states, ['running', 'requires_action', 'running', 'requires_action', 'running', 'idle:end_turn']);
    assert.deepEqual(
      agent.elicitations.map((e) => [e.mode, e.message]),
      [
        ['form', ELICIT_MESSAGE],
        ['url', 'Sign in to the reference service in your browser'],
      ],
    );
    const url = agent.elicitations[1]!;
    assert.ok(url.mode === 'url' && url.url === ELICIT_URL);
    await agent.waitFor(() => agent.completed.length === 1, 'elicitation/complete');
    assert.equal(agent.completed[0], url.elicitationId);
    assert.match(agent.agentText(sessionId), /Elicitation \(form\) answered accept: \{"name":"Ada","confirm":true\}/);
    const subagents = agent.updatesFor(sessionId).filter(isUpdate('subagent_update'));
    assert.equal(subagents[0]?.title, SUBAGENT_TITLE);
    assert.deepEqual(
      subagents.map((u) => u.state?.state),
      ['running', 'idle'],
    );
    const child = subagents[0]!.sessionId;
    assert.equal(agent.agentText(child), SUBAGENT_TEXT);
    agent.assertSchemaValid();

    // Without the capability the agent does not ask.
    const plain = await startV2Agent();
    const other = await threeFolderSession(plain);
    await plain.prompt(other.sessionId, 'elicit');
    assert.deepEqual(plain.elicitations, []);
    assert.match(plain.agentText(other.sessionId), /Cannot ask: the client did not advertise elicitation.form/);
  });

  it('terminal/cancel stops an agent-owned terminal: exitStatus with the signal, the call failed, the turn ends', async () => {
    const agent = await startV2Agent();
    const { sessionId } = await threeFolderSession(agent);
    const mark = agent.updatesFor(sessionId).length;
    await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'terminal echo started && exec sleep 30' }] });
    const started = () =>
      agent
        .updatesFor(sessionId)
        .slice(mark)
        .some((u) => u.sessionUpdate === 'terminal_output_chunk');
    await agent.waitFor(started, 'the command to start');
    const opened = agent.updatesFor(sessionId).slice(mark).filter(isUpdate('terminal_update'))[0];
    assert.ok(opened?.capabilities?.cancel, 'the terminal says it can be cancelled');
    await agent.agent.request('terminal/cancel', { sessionId, terminalId: opened.terminalId });
    assert.equal(await agent.idleAfter(sessionId, mark), 'end_turn');
    const updates = agent.updatesFor(sessionId).slice(mark);
    const exit = updates.filter(isUpdate('terminal_update')).at(-1);
    assert.deepEqual(exit?.exitStatus, { exitCode: null, signal: 'SIGTERM' });
    assert.equal(updates.filter(isUpdate('tool_call_update')).at(-1)?.status, 'failed');
    assert.match(agent.agentText(sessionId), /signal SIGTERM, first line "started"/);
    assert.equal((await rpcError(agent.agent.request('terminal/cancel', { sessionId, terminalId: opened.terminalId }))).code, -32602);
    agent.assertSchemaValid();
  });
});
