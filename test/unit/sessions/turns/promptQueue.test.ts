import * as assert from 'node:assert/strict';
import { ResponseError } from 'vscode-jsonrpc/node';
import type { AcpConnection } from '../../../../src/acp/connection';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { PromptQueue, QUEUE_LIMIT, QueueFullError } from '../../../../src/sessions/turns/promptQueue';
import { SessionController } from '../../../../src/sessions/turns/sessionController';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { Thread } from '../../../../src/thread/thread';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent, type MemoryAgent } from '../../../helpers/memoryPeer';

describe('PromptQueue: the rules of messages sent while the agent works', () => {
  const texts = (queue: PromptQueue) => queue.messages.map((m) => m.text);

  it('keeps messages in the order they were sent and gives them out one at a time, oldest first', () => {
    const queue = new PromptQueue();
    queue.add('one', []);
    queue.add('two', [{ kind: 'file', path: '/w/a.ts', label: 'a.ts' }]);
    queue.add('three', []);
    assert.deepEqual(texts(queue), ['one', 'two', 'three']);
    assert.equal(queue.take()?.text, 'one');
    const second = queue.take();
    assert.deepEqual([second?.text, second?.attachments], ['two', [{ kind: 'file', path: '/w/a.ts', label: 'a.ts' }]]);
    assert.equal(queue.take()?.text, 'three');
    assert.equal(queue.take(), undefined);
  });

  it(`holds at most ${QUEUE_LIMIT} messages and says so when full`, () => {
    const queue = new PromptQueue();
    for (let i = 0; i < QUEUE_LIMIT; i++) queue.add(`m${i}`, []);
    assert.throws(
      () => queue.add('one too many', []),
      (error: unknown) => error instanceof QueueFullError && /queue is full \(20 messages\)/.test(error.message),
    );
    assert.equal(queue.size, QUEUE_LIMIT);
    queue.restore([{ text: 'restored', attachments: [] }]);
    assert.equal(queue.size, QUEUE_LIMIT, 'restoring does not overflow it either');
  });

  it('removes and edits messages; an edit emptied of text removes the message', () => {
    const queue = new PromptQueue();
    const [a, b, c] = [queue.add('a', []), queue.add('b', []), queue.add('c', [])];
    assert.equal(queue.remove(b.id), true);
    assert.equal(queue.remove(b.id), false, 'removed once');
    assert.equal(queue.startEditing(c.id), true);
    assert.equal(queue.view().items.find((item) => item.id === c.id)?.editing, true);
    queue.finishEditing(c.id, '  c, edited  ');
    assert.deepEqual(texts(queue), ['a', 'c, edited']);
    queue.finishEditing(a.id, '   ');
    assert.deepEqual(texts(queue), ['c, edited']);
  });

  it('does not give out a message being edited, nor the ones after it, until the edit ends', () => {
    const queue = new PromptQueue();
    const a = queue.add('a', []);
    queue.add('b', []);
    queue.startEditing(a.id);
    assert.equal(queue.take(), undefined);
    queue.finishEditing(a.id);
    assert.equal(queue.take()?.text, 'a', 'a cancelled edit leaves the text');
    const b = queue.messages[0]!;
    queue.startEditing(b.id);
    queue.stopEditing(); // the chat view was recreated
    assert.equal(queue.take()?.text, 'b');
  });

  it('a held queue gives out nothing until released; an empty queue holds nothing', () => {
    const queue = new PromptQueue();
    queue.hold('stopped');
    assert.equal(queue.held, undefined, 'nothing to hold');
    queue.add('a', []);
    queue.add('b', []);
    queue.hold('stopped');
    assert.equal(queue.held, 'stopped');
    assert.equal(queue.take(), undefined);
    assert.deepEqual(queue.view().held, 'stopped');
    queue.release();
    assert.equal(queue.take()?.text, 'a');
    queue.hold('failed');
    queue.clear();
    assert.deepEqual([queue.size, queue.held], [0, undefined]);
  });

  it('messages restored after a window reload are held', () => {
    const queue = new PromptQueue();
    queue.restore([
      { text: 'kept 1', attachments: [] },
      { text: 'kept 2', attachments: [] },
    ]);
    assert.deepEqual([texts(queue), queue.held], [['kept 1', 'kept 2'], 'restored']);
    assert.equal(queue.take(), undefined);
  });

  it('"Stop and send now" puts the message first and lifts a hold', () => {
    const queue = new PromptQueue();
    queue.add('a', []);
    const b = queue.add('b', []);
    queue.hold('failed');
    assert.equal(queue.moveFirst(b.id), true);
    assert.deepEqual([texts(queue), queue.held], [['b', 'a'], undefined]);
    assert.equal(queue.take()?.text, 'b');
  });

  it('announces every change', () => {
    const queue = new PromptQueue();
    let changes = 0;
    queue.onDidChange(() => changes++);
    const a = queue.add('a', []);
    queue.startEditing(a.id);
    queue.finishEditing(a.id, 'a2');
    queue.hold('stopped');
    queue.release();
    queue.take();
    assert.equal(changes, 6);
  });
});

describe('SessionController: messages sent while a turn runs', () => {
  let client: AcpConnection;
  let agent: MemoryAgent;
  let controller: SessionController;
  /** The prompts the agent received, in order, each with its way to end the turn. */
  let prompts: Array<{ text: string; end: (answer: unknown) => void }>;
  let events: string[];
  let arrived: Array<() => void>;

  beforeEach(async () => {
    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize({ agentCapabilities: FULL_AGENT_CAPABILITIES });
    agent.rpc.onRequest('session/new', () => ({ sessionId: 's1' }));
    prompts = [];
    events = [];
    arrived = [];
    agent.rpc.onRequest('session/prompt', (params: { prompt: Array<{ text?: string }> }) => {
      const text = params.prompt.map((block) => block.text ?? '').join('');
      events.push(`prompt ${text}`);
      return new Promise((resolve) => {
        prompts.push({ text, end: (answer) => (events.push(`end ${text}`), resolve(answer)) });
        for (const wake of arrived.splice(0)) wake();
      });
    });
    agent.rpc.onNotification('session/cancel', () => {
      events.push('cancel');
      for (const wake of arrived.splice(0)) wake();
    });
    await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    const session = await startSession(client, rootSetFromPaths('/w/app'));
    controller = new SessionController(session, new Thread({ agentName: 'Memory Agent', roots: [], prompt: session.connection.caps.prompt }));
  });
  afterEach(() => {
    client.dispose();
    agent.dispose();
  });

  /** Resolves once what the agent received satisfies `predicate` (checked at each prompt and cancel). */
  function agentSaw(predicate: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (predicate() ? resolve() : arrived.push(check));
      check();
    });
  }
  const promptsArrived = (count: number) => agentSaw(() => prompts.length >= count);
  const texts = () => controller.queue.messages.map((m) => m.text);
  const sent = () => prompts.map((p) => p.text);

  it('queues what is sent during a turn and sends it, one per turn, in order, when each turn ends normally', async () => {
    const first = controller.submit('first', []);
    await promptsArrived(1);
    await controller.submit('second', []);
    await controller.submit('third', []);
    assert.deepEqual(texts(), ['second', 'third']);
    assert.deepEqual(sent(), ['first'], 'nothing else went out during the turn');
    prompts[0]!.end({ stopReason: 'end_turn' });
    await first;
    await promptsArrived(2);
    assert.deepEqual([sent(), texts()], [['first', 'second'], ['third']]);
    prompts[1]!.end({ stopReason: 'end_turn' });
    await promptsArrived(3);
    prompts[2]!.end({ stopReason: 'end_turn' });
    await controller.whenIdle();
    assert.deepEqual([sent(), texts()], [['first', 'second', 'third'], []], 'each sent once');
    const users = controller.thread.snapshot().entries.filter((e) => e.kind === 'user').length;
    assert.equal(users, 3);
  });

  it('after Stop, holds the queue: nothing fires until the user says "Send next"', async () => {
    const first = controller.submit('first', []);
    await promptsArrived(1);
    await controller.submit('second', []);
    await controller.submit('third', []);
    await controller.cancel();
    prompts[0]!.end({ stopReason: 'cancelled' });
    await first;
    assert.deepEqual([controller.queue.held, texts(), sent()], ['stopped', ['second', 'third'], ['first']]);
    // Sent while held and idle: the new message goes at once, the held ones stay held.
    const fresh = controller.submit('fresh', []);
    await promptsArrived(2);
    prompts[1]!.end({ stopReason: 'end_turn' });
    await fresh;
    assert.deepEqual([controller.queue.held, texts(), sent()], ['stopped', ['second', 'third'], ['first', 'fresh']]);
    await controller.queueAction({ action: 'sendNext' });
    await promptsArrived(3);
    assert.deepEqual([controller.queue.held, texts(), sent()], [undefined, ['third'], ['first', 'fresh', 'second']]);
    prompts[2]!.end({ stopReason: 'end_turn' });
    await promptsArrived(4);
    assert.equal(sent()[3], 'third', 'the rest follow once the hold is lifted');
    prompts[3]!.end({ stopReason: 'end_turn' });
  });

  it('after a failed turn, or when the agent goes away, holds the queue', async () => {
    const first = controller.submit('first', []);
    await promptsArrived(1);
    await controller.submit('second', []);
    prompts[0]!.end(new ResponseError(-32603, 'the model is overloaded'));
    await first;
    assert.deepEqual([controller.queue.held, texts()], ['failed', ['second']]);

    await controller.queueAction({ action: 'sendNext' });
    await promptsArrived(2);
    await controller.submit('third', []);
    client.dispose('Memory Agent exited (exit code 1).');
    await controller.whenIdle();
    assert.deepEqual([controller.queue.held, texts(), sent()], ['failed', ['third'], ['first', 'second']]);
  });

  it('"Stop and send now" stops the turn and sends that message once the agent acknowledged the stop; the others keep waiting', async () => {
    const first = controller.submit('first', []);
    await promptsArrived(1);
    await controller.submit('a', []);
    await controller.submit('b', []);
    const b = controller.queue.messages[1]!;
    await controller.queueAction({ action: 'sendNow', id: b.id });
    await agentSaw(() => events.includes('cancel'));
    assert.deepEqual(events, ['prompt first', 'cancel'], 'the stop goes out; nothing is sent before the turn ended');
    assert.deepEqual(texts(), ['b', 'a']);
    prompts[0]!.end({ stopReason: 'cancelled' });
    await first;
    await promptsArrived(2);
    assert.deepEqual(events, ['prompt first', 'cancel', 'end first', 'prompt b']);
    assert.deepEqual([controller.queue.held, texts()], [undefined, ['a']], 'not held: the others follow as usual');
    prompts[1]!.end({ stopReason: 'end_turn' });
    await promptsArrived(3);
    assert.deepEqual(sent(), ['first', 'b', 'a']);
    prompts[2]!.end({ stopReason: 'end_turn' });
  });

  it('a prompt sent with "now" (Ctrl+Enter) during a turn stops it and goes first', async () => {
    const first = controller.submit('first', []);
    await promptsArrived(1);
    await controller.submit('waiting', []);
    await controller.submit('urgent', [], true);
    assert.deepEqual(texts(), ['urgent', 'waiting']);
    prompts[0]!.end({ stopReason: 'cancelled' });
    await first;
    await promptsArrived(2);
    assert.deepEqual(sent(), ['first', 'urgent']);
    prompts[1]!.end({ stopReason: 'end_turn' });
    await promptsArrived(3);
    assert.deepEqual(sent(), ['first', 'urgent', 'waiting']);
    prompts[2]!.end({ stopReason: 'end_turn' });
  });

  it('a message being edited waits (and what follows it) until the edit ends, then goes with the new text', async () => {
    const first = controller.submit('first', []);
    await promptsArrived(1);
    await controller.submit('draft', []);
    const queued = controller.queue.messages[0]!;
    await controller.queueAction({ action: 'edit', id: queued.id });
    prompts[0]!.end({ stopReason: 'end_turn' });
    await first;
    await controller.submit('after it', []);
    assert.deepEqual([texts(), sent()], [['draft', 'after it'], ['first']], 'waits behind the edit');
    await controller.queueAction({ action: 'editDone', id: queued.id, text: 'draft, edited' });
    await promptsArrived(2);
    assert.deepEqual([texts(), sent()], [['after it'], ['first', 'draft, edited']]);
    prompts[1]!.end({ stopReason: 'end_turn' });
    await promptsArrived(3);
    prompts[2]!.end({ stopReason: 'end_turn' });
  });

  it('refuses a message when the queue is full, and loses none of those queued', async () => {
    const first = controller.submit('first', []);
    await promptsArrived(1);
    for (let i = 0; i < QUEUE_LIMIT; i++) await controller.submit(`m${i}`, []);
    await assert.rejects(controller.submit('too many', []), QueueFullError);
    assert.equal(controller.queue.size, QUEUE_LIMIT);
    await controller.queueAction({ action: 'clear' });
    prompts[0]!.end({ stopReason: 'end_turn' });
    await first;
  });
});
