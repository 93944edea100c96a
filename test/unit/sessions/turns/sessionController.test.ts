import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import type { AcpConnection } from '../../../../src/acp/connection';
import * as acp from '../../../../src/acp/schema/index';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { RootGuard } from '../../../../src/roots/rootGuard';
import { buildPrompt, mentionGlob } from '../../../../src/sessions/turns/promptBuilder';
import { withAttachment, type Attachment } from '../../../../src/shared/chatProtocol';
import { SessionController } from '../../../../src/sessions/turns/sessionController';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { Thread } from '../../../../src/thread/thread';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent, flush, type MemoryAgent } from '../../../helpers/memoryPeer';
import { tempDir } from '../../../helpers/referenceAgent';
import { transcriptEvent } from '../../../../src/acp/v1/transcriptEvents';
import { permissionRequest } from '../../../../src/acp/v1/sessionMapping';

const options = [
  { optionId: 'r2', name: 'Never', kind: 'reject_always' },
  { optionId: 'a1', name: 'Allow', kind: 'allow_once' },
  { optionId: 'r1', name: 'No', kind: 'reject_once' },
  { optionId: 'a2', name: 'Always', kind: 'allow_always' },
];

describe('SessionController: turns, permissions, cancellation', () => {
  let client: AcpConnection;
  let agent: MemoryAgent;
  let controller: SessionController;
  let changes: number;

  beforeEach(async () => {
    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize({ agentCapabilities: FULL_AGENT_CAPABILITIES });
    agent.rpc.onRequest('session/new', () => ({ sessionId: 's1', modes: { currentModeId: 'code', availableModes: [{ id: 'code', name: 'Code' }] } }));
    await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    const session = await startSession(client, rootSetFromPaths('/w/app'));
    changes = 0;
    const thread = new Thread({ agentName: 'Memory Agent', roots: [], prompt: session.connection.caps.prompt });
    thread.onDidChange(() => changes++);
    controller = new SessionController(session, thread);
    client.onNotification(acp.SessionUpdateNotification, (n) => controller.onEvent(transcriptEvent(n.update)));
    client.servePermissions((request, token) => controller.requestPermission(request, token));
  });
  afterEach(() => {
    client.dispose();
    agent.dispose();
  });

  const kinds = () => controller.thread.snapshot().entries.map((e) => e.kind);

  it('runs a turn: the prompt, the streamed answer, the end of turn', async () => {
    agent.rpc.onRequest('session/prompt', async () => {
      await agent.rpc.sendNotification('session/update', {
        sessionId: 's1',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' } },
      });
      return { stopReason: 'end_turn' };
    });
    await controller.prompt([{ type: 'text', text: 'hello' }], [{ type: 'text', text: 'hello' }]);
    assert.deepEqual(kinds(), ['user', 'agent', 'turnEnd']);
    assert.equal(controller.thread.session.status, 'idle');
    assert.equal(controller.thread.session.modes?.currentModeId, 'code', 'setup state was adopted');
    assert.ok(changes > 0);
  });

  it('sorts permission options by kind and answers with the chosen option id', async () => {
    let answered: unknown;
    agent.rpc.onRequest('session/prompt', async () => {
      answered = await agent.rpc.sendRequest('session/request_permission', { sessionId: 's1', toolCall: { toolCallId: 't1', title: 'Delete x' }, options });
      return { stopReason: 'end_turn' };
    });
    const turn = controller.prompt([{ type: 'text', text: 'go' }], []);
    await waitUntil(() => controller.pendingPermissions === 1);
    const entry = controller.thread.snapshot().entries.find((e) => e.kind === 'permission');
    assert.ok(entry?.kind === 'permission');
    assert.deepEqual(
      entry.options.map((o) => o.kind),
      ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
    );
    controller.choosePermission(entry.id, 'not-an-option');
    assert.equal(controller.pendingPermissions, 1, 'an unknown option id is ignored');
    controller.choosePermission(entry.id, 'r1');
    await turn;
    assert.deepEqual(answered, { outcome: { outcome: 'selected', optionId: 'r1' } });
    const resolved = controller.thread.entry(entry.id);
    assert.deepEqual(resolved?.kind === 'permission' && resolved.state, { chosen: 'r1', name: 'No', kind: 'reject_once' });
  });

  it('picks an option by kind, never by position', async () => {
    const answer = controller.requestPermission(
      permissionRequest(acp.RequestPermissionRequest.parse({ sessionId: 's1', toolCall: { toolCallId: 't' }, options })),
    );
    const entryId = controller.thread.snapshot().entries.at(-1)!.id;
    assert.equal(controller.choosePermissionKind(entryId, 'allow_always'), true);
    assert.deepEqual(await answer, { outcome: 'selected', optionId: 'a2' });
  });

  it('on cancel, answers pending permission requests with cancelled before sending session/cancel', async () => {
    const order: string[] = [];
    let permissionAnswer: unknown;
    agent.rpc.onRequest('session/prompt', async () => {
      permissionAnswer = await agent.rpc.sendRequest('session/request_permission', { sessionId: 's1', toolCall: { toolCallId: 't1' }, options });
      order.push('permission answered');
      await new Promise((r) => setTimeout(r, 20));
      return { stopReason: 'cancelled' };
    });
    agent.rpc.onNotification('session/cancel', () => void order.push('session/cancel'));
    const turn = controller.prompt([{ type: 'text', text: 'go' }], []);
    await waitUntil(() => controller.pendingPermissions === 1);
    await controller.cancel();
    await turn;
    assert.deepEqual(permissionAnswer, { outcome: { outcome: 'cancelled' } });
    assert.deepEqual(order, ['permission answered', 'session/cancel']);
    assert.equal(kinds().at(-1), 'turnEnd');
    const end = controller.thread.snapshot().entries.at(-1);
    assert.equal(end?.kind === 'turnEnd' && end.stopReason, 'cancelled');
  });

  it('marks unfinished tool calls cancelled when it sends session/cancel, even if the agent then ends the turn otherwise', async () => {
    let release: () => void = () => undefined;
    agent.rpc.onRequest('session/prompt', async () => {
      const tool = (toolCallId: string, status: string) => ({ sessionId: 's1', update: { sessionUpdate: 'tool_call', toolCallId, title: toolCallId, status } });
      await agent.rpc.sendNotification('session/update', tool('done', 'completed'));
      await agent.rpc.sendNotification('session/update', tool('waiting', 'pending'));
      await agent.rpc.sendNotification('session/update', tool('running', 'in_progress'));
      await new Promise<void>((resolve) => (release = resolve));
      return { stopReason: 'end_turn' };
    });
    const turn = controller.prompt([{ type: 'text', text: 'go' }], []);
    await waitUntil(() => controller.thread.toolEntry('running') !== undefined);
    await controller.cancel();
    const statuses = () => ['done', 'waiting', 'running'].map((id) => controller.thread.toolEntry(id)?.status);
    assert.deepEqual(statuses(), ['completed', 'cancelled', 'cancelled'], 'at once, before the agent answers');
    release();
    await turn;
    const end = controller.thread.snapshot().entries.at(-1);
    assert.equal(end?.kind === 'turnEnd' && end.stopReason, 'end_turn', 'the stop reason is what the agent said');
    assert.deepEqual(statuses(), ['completed', 'cancelled', 'cancelled']);
  });

  it('after Stop, the header no longer says "Stopping…" once the turn ended, however it ended', async () => {
    let release: ((answer: unknown) => void) | undefined;
    agent.rpc.onRequest('session/prompt', () => new Promise((resolve) => (release = resolve)));
    const stopped = controller.prompt([{ type: 'text', text: 'go' }], []);
    await waitUntil(() => release !== undefined);
    await controller.cancel();
    assert.equal(controller.thread.session.statusDetail, 'Stopping…');
    release!({ stopReason: 'cancelled' });
    await stopped;
    assert.deepEqual([controller.thread.session.status, controller.thread.session.statusDetail], ['idle', undefined]);

    release = undefined;
    const failed = controller.prompt([{ type: 'text', text: 'again' }], []);
    await waitUntil(() => release !== undefined);
    await controller.cancel();
    release!(new ResponseError(-32603, 'the agent could not stop cleanly'));
    await failed;
    assert.deepEqual([controller.thread.session.status, controller.thread.session.statusDetail], ['idle', undefined]);
  });

  it('answers cancelled when the agent cancels its own permission request', async () => {
    const source = new CancellationTokenSource();
    const answer = controller.requestPermission(
      permissionRequest(acp.RequestPermissionRequest.parse({ sessionId: 's1', toolCall: { toolCallId: 't' }, options })),
      source.token,
    );
    source.cancel();
    assert.deepEqual(await answer, { outcome: 'cancelled' });
  });

  it('turns agent errors into entries with ways forward; the view keeps working', async () => {
    agent.rpc.onRequest('session/prompt', () => new ResponseError(-32000, 'Please log in'));
    await controller.prompt([{ type: 'text', text: 'x' }], []);
    const error = controller.thread.snapshot().entries.at(-1);
    assert.ok(error?.kind === 'error');
    assert.deepEqual(error.actions, ['signIn']);
    assert.equal(controller.thread.session.status, 'idle');
  });

  it('shows what the agent said about an error (its data) and the likely cause, with the actions that apply', async () => {
    agent.rpc.onRequest('session/prompt', () => new ResponseError(-32603, 'Internal error', { reason: 'getaddrinfo ENOTFOUND api.example.com' }));
    await controller.prompt([{ type: 'text', text: 'x' }], []);
    const error = controller.thread.snapshot().entries.at(-1);
    assert.ok(error?.kind === 'error');
    assert.deepEqual(error.said, ['{"reason":"getaddrinfo ENOTFOUND api.example.com"}']);
    assert.match(error.advice ?? '', /could not reach its service.*network connection, or the proxy/);
    assert.deepEqual(error.actions, ['restart', 'showLog', 'openSettings']);
  });

  it('keeps the transcript when the agent goes away mid-turn, and offers restart and reopen', async () => {
    agent.rpc.onRequest('session/prompt', async () => {
      await agent.rpc.sendNotification('session/update', {
        sessionId: 's1',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'partial' } },
      });
      return new Promise(() => undefined);
    });
    const turn = controller.prompt([{ type: 'text', text: 'x' }], []);
    await waitUntil(() => kinds().includes('agent'));
    client.dispose('Memory Agent exited (exit code 1).');
    await turn;
    assert.deepEqual(kinds(), ['user', 'agent', 'error']);
    const error = controller.thread.snapshot().entries.at(-1);
    assert.ok(error?.kind === 'error' && /exited \(exit code 1\)\. Everything up to here is kept/.test(error.message));
    assert.deepEqual(error?.kind === 'error' && error.actions, ['restart', 'reopen']);
    assert.equal(controller.thread.session.status, 'disconnected');
  });

  it('leaves no tool call running when the agent goes away in the middle of it: it shows interrupted', async () => {
    agent.rpc.onRequest('session/prompt', async () => {
      await agent.rpc.sendNotification('session/update', {
        sessionId: 's1',
        update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Long step', status: 'in_progress' },
      });
      return new Promise(() => undefined);
    });
    const turn = controller.prompt([{ type: 'text', text: 'x' }], []);
    await waitUntil(() => kinds().includes('tool'));
    client.dispose('Memory Agent exited (exit code 42).');
    await turn;
    assert.equal(controller.thread.toolEntry('t1')?.status, 'interrupted');
    assert.deepEqual(kinds(), ['user', 'tool', 'error']);
  });

  it('shows the first sentence of why the agent went away in the header, whole even with a dotted version in it', () => {
    controller.disconnected('codex-acp 0.23.1 closed the connection. Its last output: error: not signed in | see https://example.com/a.b');
    assert.equal(controller.thread.session.statusDetail, 'codex-acp 0.23.1 closed the connection.');
    const error = controller.thread.snapshot().entries.at(-1);
    assert.ok(error?.kind === 'error' && error.message.startsWith('codex-acp 0.23.1 closed the connection. Its last output'));
  });

  it('asks permission for a tool call id reused in a later turn in a new card, not in the old call’s', async () => {
    const options = [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }];
    controller.thread.addUserPrompt([{ type: 'text', text: 'one' }]);
    controller.onEvent(
      transcriptEvent(
        acp.SessionNotification.parse({ sessionId: 's1', update: { sessionUpdate: 'tool_call', toolCallId: 'call_1', title: 'Edit a', status: 'completed' } })
          .update,
      ),
    );
    controller.thread.endTurn('end_turn');
    controller.thread.addUserPrompt([{ type: 'text', text: 'two' }]);
    const answer = controller.requestPermission(
      permissionRequest(
        acp.RequestPermissionRequest.parse({ sessionId: 's1', toolCall: { toolCallId: 'call_1', title: 'Edit b', status: 'pending' }, options }),
      ),
    );
    const tools = controller.thread.snapshot().entries.flatMap((e) => (e.kind === 'tool' ? [[e.title, e.status]] : []));
    assert.deepEqual(tools, [
      ['Edit a', 'completed'],
      ['Edit b', 'pending'],
    ]);
    const card = controller.thread.snapshot().entries.find((e) => e.kind === 'permission');
    assert.ok(card?.kind === 'permission' && card.title === 'Edit b');
    controller.choosePermission(card.id, 'ok');
    assert.deepEqual(await answer, { outcome: 'selected', optionId: 'ok' });
  });

  it('runs its turn hooks around every turn: before the prompt goes out, and after it ended however it ended', async () => {
    const events: string[] = [];
    const session = controller.session;
    const hooked = new SessionController(session, new Thread({ agentName: 'Memory Agent', roots: [], prompt: session.connection.caps.prompt }), {
      turns: {
        before: async () => {
          events.push('before');
          return 'checkpoint';
        },
        after: async (chat, before) => {
          const entries = chat.thread.snapshot().entries;
          const thisTurn = entries.slice(entries.map((e) => e.kind).lastIndexOf('user'));
          events.push(`after ${String(before)} (turn ended: ${thisTurn.some((e) => e.kind === 'turnEnd' || e.kind === 'error')})`);
          chat.thread.addInfo('changed files');
        },
      },
    });
    let answer: () => unknown = () => ({ stopReason: 'end_turn' });
    agent.rpc.onRequest('session/prompt', () => {
      events.push('prompt');
      return answer();
    });
    await hooked.prompt([{ type: 'text', text: 'x' }], []);
    answer = () => new ResponseError(-32603, 'boom');
    await hooked.prompt([{ type: 'text', text: 'y' }], []);
    assert.deepEqual(events, ['before', 'prompt', 'after checkpoint (turn ended: false)', 'before', 'prompt', 'after checkpoint (turn ended: false)']);
    // What `after` shows comes before the turn's end (or its error).
    assert.deepEqual(
      hooked.thread.snapshot().entries.map((e) => e.kind),
      ['user', 'info', 'turnEnd', 'user', 'info', 'error'],
    );
  });

  it('stopped while its checkpoint is still being taken, a turn never sends its prompt and ends cancelled', async () => {
    const session = controller.session;
    let release!: () => void;
    const checkpointTaken = new Promise<void>((resolve) => (release = resolve));
    const hooked = new SessionController(session, new Thread({ agentName: 'Memory Agent', roots: [], prompt: session.connection.caps.prompt }), {
      turns: { before: () => checkpointTaken, after: async () => undefined },
    });
    let prompts = 0;
    agent.rpc.onRequest('session/prompt', () => {
      prompts++;
      return new Promise(() => undefined); // like `hang`: only a cancel would end it
    });
    const turn = hooked.prompt([{ type: 'text', text: 'hang' }], []);
    await hooked.cancel();
    release();
    await turn;
    assert.equal(prompts, 0, 'the prompt was not sent');
    const end = hooked.thread.snapshot().entries.at(-1);
    assert.equal(end?.kind === 'turnEnd' && end.stopReason, 'cancelled');
    assert.equal(hooked.isRunning, false);
  });

  it('tells how each turn ended (stopped by the user or not) and each failure once, for notifications', async () => {
    const events: string[] = [];
    const watched = new SessionController(
      controller.session,
      new Thread({ agentName: 'Memory Agent', roots: [], prompt: controller.session.connection.caps.prompt }),
      {
        onTurnEnded: (stopReason, stoppedByUser) => events.push(`ended ${stopReason}${stoppedByUser ? ' by the user' : ''}`),
        onFailed: (message, actions) => events.push(`failed ${actions.join('+')}: ${message}`),
      },
    );
    let release: ((answer: unknown) => void) | undefined;
    agent.rpc.onRequest('session/prompt', () => new Promise((resolve) => (release = resolve)));
    const first = watched.prompt([{ type: 'text', text: 'one' }], []);
    await waitUntil(() => release !== undefined);
    release!({ stopReason: 'end_turn' });
    await first;
    release = undefined;
    const stopped = watched.prompt([{ type: 'text', text: 'two' }], []);
    await waitUntil(() => release !== undefined);
    await watched.cancel();
    release!({ stopReason: 'cancelled' });
    await stopped;
    release = undefined;
    const refused = watched.prompt([{ type: 'text', text: 'three' }], []);
    await waitUntil(() => release !== undefined);
    release!({ stopReason: 'refusal' });
    await refused;
    release = undefined;
    const crashed = watched.prompt([{ type: 'text', text: 'four' }], []);
    await waitUntil(() => release !== undefined);
    client.dispose('Memory Agent exited (exit code 42).');
    await crashed;
    watched.disconnected('Memory Agent exited (exit code 42).');
    assert.deepEqual(events, [
      'ended end_turn',
      'ended cancelled by the user',
      'ended refusal',
      'failed restart+reopen: Memory Agent exited (exit code 42). Everything up to here is kept; restart the agent, or reopen this session to continue.',
    ]);
    watched.dispose();
  });

  it('refuses a second prompt while a turn runs', async () => {
    agent.rpc.onRequest('session/prompt', () => new Promise(() => undefined));
    void controller.prompt([{ type: 'text', text: 'one' }], []);
    await flush();
    await assert.rejects(controller.prompt([{ type: 'text', text: 'two' }], []), /already running/);
  });
});

describe('buildPrompt (attachments → content blocks)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    dir = fs.realpathSync(dir);
    fs.mkdirSync(path.join(dir, 'app'));
    fs.writeFileSync(path.join(dir, 'app', 'main.ts'), 'export const x = 1;\n');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'outside');
  });
  afterEach(() => cleanup());

  it('sends files as resource links, or as embedded resources when the agent takes them', async () => {
    const guard = new RootGuard([path.join(dir, 'app')]);
    const file = path.join(dir, 'app', 'main.ts');
    const attachment = { kind: 'file' as const, path: file, label: 'app/main.ts' };
    const links = await buildPrompt('look', [attachment], { image: false, embeddedContext: false }, guard);
    assert.deepEqual(links.blocks[1], { type: 'resource_link', uri: `file://${file}`, name: 'main.ts', title: 'app/main.ts' });
    const embedded = await buildPrompt('look', [attachment], { image: false, embeddedContext: true }, guard);
    assert.deepEqual(embedded.blocks[1], {
      type: 'resource',
      resource: { uri: `file://${file}`, text: 'export const x = 1;\n', mimeType: 'text/x-typescript' },
    });
    for (const block of embedded.blocks) assert.ok(acp.OutgoingContentBlock.safeParse(block).success);
  });

  it('never embeds a file outside the roots; it becomes a link and the user is told', async () => {
    const guard = new RootGuard([path.join(dir, 'app')]);
    const built = await buildPrompt(
      '',
      [{ kind: 'file', path: path.join(dir, 'secret.txt'), label: 'secret.txt' }],
      { image: false, embeddedContext: true },
      guard,
    );
    assert.equal(built.blocks[0]?.type, 'resource_link');
    assert.match(built.skipped[0] ?? '', /sent as a link only: .*outside/);
  });

  it('sends a selection as an embedded resource or as quoted text, and images only to agents that take them', async () => {
    const guard = new RootGuard([dir]);
    const selection = { kind: 'selection' as const, path: '/w/a.ts', label: 'a.ts:2-3', startLine: 2, endLine: 3, text: 'b\nc' };
    const asText = await buildPrompt('', [selection], { image: false, embeddedContext: false }, guard);
    assert.deepEqual(asText.blocks, [{ type: 'text', text: '/w/a.ts, lines 2-3:\n```\nb\nc\n```' }]);
    const asResource = await buildPrompt('', [selection], { image: false, embeddedContext: true }, guard);
    assert.equal(asResource.blocks[0]?.type === 'resource' && asResource.blocks[0].resource.uri, 'file:///w/a.ts#L2-3');
    const image = { kind: 'image' as const, label: 'shot.png', mimeType: 'image/png', data: 'AAAA' };
    assert.deepEqual((await buildPrompt('', [image], { image: true, embeddedContext: false }, guard)).blocks, [
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
    ]);
    const refused = await buildPrompt('', [image], { image: false, embeddedContext: false }, guard);
    assert.deepEqual(refused.blocks, []);
    assert.match(refused.skipped[0] ?? '', /does not accept images/);
  });
});

async function waitUntil(predicate: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('@-mentions and context chips', () => {
  it('finds files by a query in any case, ignoring glob syntax in it', () => {
    assert.equal(mentionGlob(''), '**/*');
    assert.equal(mentionGlob('Gre'), '**/*[gG][rR][eE]*');
    assert.equal(mentionGlob('a.ts'), '**/*[aA].[tT][sS]*');
    assert.equal(mentionGlob('{x,*}?[!]'), '**/*[xX],*');
  });

  it('keeps one chip per file, range and image', () => {
    const file: Attachment = { kind: 'file', path: '/w/lib/a.ts', label: 'lib/a.ts' };
    const sameFile: Attachment = { kind: 'file', path: '/w/lib/a.ts', label: 'a.ts' };
    const range: Attachment = { kind: 'selection', path: '/w/lib/a.ts', label: 'a.ts:1-3', startLine: 1, endLine: 3, text: 'x' };
    const otherRange: Attachment = { ...range, label: 'a.ts:2-3', startLine: 2 };
    let chips = withAttachment([], file);
    chips = withAttachment(chips, sameFile);
    chips = withAttachment(chips, range);
    chips = withAttachment(chips, range);
    chips = withAttachment(chips, otherRange);
    assert.deepEqual(chips, [file, range, otherRange]);
  });
});
