import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../../src/acp/connection';
import * as acp from '../../../../src/acp/schema/index';
import { silentLogger } from '../../../../src/common/logger';
import type { SessionView } from '../../../../src/history/sessionView';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { PromptEdits } from '../../../../src/sessions/opening/promptEdits';
import { SessionController } from '../../../../src/sessions/turns/sessionController';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import type { Attachment } from '../../../../src/shared/chatProtocol';
import { Thread } from '../../../../src/thread/thread';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent, type MemoryAgent } from '../../../helpers/memoryPeer';
import { transcriptEvent } from '../../../../src/acp/v1/transcriptEvents';

const selection: Attachment = { kind: 'selection', path: '/w/app/a.ts', label: 'a.ts:1-1', startLine: 1, endLine: 1, text: 'const a = 1;' };

describe('PromptEdits: edit an earlier prompt, retry the last one', () => {
  let client: AcpConnection;
  let agent: MemoryAgent;
  let prompts: Array<{ sessionId: string; prompt: unknown[] }>;
  let sessions = 0;

  async function setup(fork: boolean) {
    ({ client, agent } = connectToMemoryAgent());
    const { fork: _fork, ...withoutFork } = FULL_AGENT_CAPABILITIES.sessionCapabilities;
    agent.acceptInitialize({
      agentCapabilities: { ...FULL_AGENT_CAPABILITIES, sessionCapabilities: fork ? FULL_AGENT_CAPABILITIES.sessionCapabilities : withoutFork },
    });
    sessions = 0;
    agent.rpc.onRequest('session/new', () => ({ sessionId: `s${++sessions}` }));
    prompts = [];
    agent.rpc.onRequest('session/prompt', (params: { sessionId: string; prompt: unknown[] }) => {
      prompts.push(params);
      return { stopReason: 'end_turn' };
    });
    await client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    const chat = await newChat();
    client.onNotification(acp.SessionUpdateNotification, (n) => chat.onEvent(transcriptEvent(n.update)));
    return chat;
  }

  async function newChat(): Promise<SessionController> {
    const session = await startSession(client, rootSetFromPaths('/w/app'));
    return new SessionController(session, new Thread({ agentName: 'Memory Agent', roots: [], prompt: session.connection.caps.prompt }));
  }

  /** HistoryActions.reopen as the Sessions view's Fork runs it: here it answers with `forked`. */
  function edits(forked: () => Promise<SessionController | undefined>) {
    const asked: Array<{ view: SessionView; verb: string }> = [];
    const promptEdits = new PromptEdits({
      history: { view: (agentName, sessionId, fallback) => ({ agentName, sessionId, ...fallback }) as unknown as SessionView },
      historyActions: {
        reopen: (view, verb) => {
          asked.push({ view, verb });
          return forked();
        },
      },
      logger: silentLogger,
    });
    return { promptEdits, asked };
  }

  afterEach(() => {
    client.dispose();
    agent.dispose();
  });

  const texts = (chat: SessionController, kind: 'info' | 'error') =>
    chat.thread.snapshot().entries.flatMap((e) => (e.kind === kind ? [e.kind === 'info' ? e.text : e.message] : []));
  const userTexts = (chat: SessionController) =>
    chat.thread.snapshot().entries.flatMap((e) => (e.kind === 'user' ? [e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')] : []));

  it('without fork: sends the edited prompt in the same session with the original attachments, and says so', async () => {
    const chat = await setup(false);
    await chat.send('first', [selection]);
    await chat.send('second', []);
    const firstId = chat.thread.snapshot().entries.find((e) => e.kind === 'user')!.id;
    const { promptEdits, asked } = edits(() => Promise.reject(new Error('no fork expected')));
    assert.equal(await promptEdits.edit(chat, firstId, 'first, edited'), 'sameSession');
    assert.equal(asked.length, 0);
    assert.deepEqual(texts(chat, 'info'), ['Sent as a new prompt: this agent cannot fork, so it still sees the earlier turns.']);
    assert.deepEqual(userTexts(chat), ['first', 'second', 'first, edited']);
    assert.equal(prompts.length, 3);
    assert.deepEqual(prompts[2]!.prompt[0], { type: 'text', text: 'first, edited' });
    assert.ok(JSON.stringify(prompts[2]!.prompt).includes('const a = 1;'), 'the selection is attached again');
  });

  it('with fork: forks through the Sessions view’s path and sends the edited prompt in the fork, both chats saying what happened', async () => {
    const chat = await setup(true);
    chat.thread.setSession({ title: 'Greeting fix' });
    await chat.send('first', [selection]);
    const firstId = chat.thread.snapshot().entries.find((e) => e.kind === 'user')!.id;
    let fork: SessionController | undefined;
    const { promptEdits, asked } = edits(async () => (fork = await newChat()));
    const outcome = await promptEdits.edit(chat, firstId, 'first, edited');
    assert.ok(typeof outcome === 'object' && outcome.forked === fork);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.verb, 'fork');
    assert.equal(asked[0]!.view.sessionId, chat.session.sessionId);
    assert.deepEqual(userTexts(chat), ['first'], 'the original chat keeps its conversation');
    assert.match(texts(chat, 'info')[0]!, /^Your edited prompt was sent in a fork of this session/);
    assert.deepEqual(texts(fork!, 'info'), [
      'Forked from “Greeting fix” to send your edited prompt; the fork keeps the conversation up to now, including later turns — ACP cannot fork at a message yet.',
    ]);
    assert.deepEqual(userTexts(fork!), ['first, edited']);
    assert.equal(prompts.at(-1)!.sessionId, fork!.session.sessionId);
    assert.ok(JSON.stringify(prompts.at(-1)!.prompt).includes('const a = 1;'), 'the selection goes with the edited prompt');
  });

  it('with fork: a cancelled fork or a failed one sends nothing and says why', async () => {
    const chat = await setup(true);
    await chat.send('first', []);
    const firstId = chat.thread.snapshot().entries.find((e) => e.kind === 'user')!.id;
    assert.equal(await edits(() => Promise.resolve(undefined)).promptEdits.edit(chat, firstId, 'edited'), 'notSent');
    assert.deepEqual(texts(chat, 'info'), ['The edited prompt was not sent: forking the session was cancelled.']);
    assert.equal(await edits(() => Promise.reject(new Error('The agent said no.'))).promptEdits.edit(chat, firstId, 'edited'), 'notSent');
    assert.deepEqual(texts(chat, 'error'), ['The edited prompt was not sent: the session could not be forked. The agent said no.']);
    assert.equal(prompts.length, 1);
  });

  it('retries the last prompt with the same text and attachments, as a new prompt', async () => {
    const chat = await setup(false);
    await chat.send('only', [selection]);
    await edits(() => Promise.resolve(undefined)).promptEdits.retry(chat);
    assert.deepEqual(userTexts(chat), ['only', 'only']);
    assert.equal(prompts.length, 2);
    assert.deepEqual(prompts[1]!.prompt, prompts[0]!.prompt);
  });

  it('retries a prompt replayed from the agent’s history by its text', async () => {
    const chat = await setup(false);
    chat.thread.apply(transcriptEvent({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'from history' } }));
    await edits(() => Promise.resolve(undefined)).promptEdits.retry(chat);
    assert.deepEqual(
      prompts.map((p) => p.prompt),
      [[{ type: 'text', text: 'from history' }]],
    );
  });

  it('neither edits nor retries while a turn runs', async () => {
    const chat = await setup(true);
    let finish: ((value: { stopReason: string }) => void) | undefined;
    agent.rpc.onRequest('session/prompt', () => new Promise((resolve) => (finish = resolve)));
    const turn = chat.send('slow', []);
    while (!finish) await new Promise((resolve) => setTimeout(resolve, 5));
    const { promptEdits, asked } = edits(() => Promise.reject(new Error('no fork expected')));
    const id = chat.thread.snapshot().entries.find((e) => e.kind === 'user')!.id;
    assert.equal(await promptEdits.edit(chat, id, 'edited'), 'notSent');
    await promptEdits.retry(chat);
    assert.equal(asked.length, 0);
    assert.equal(texts(chat, 'info').length, 2);
    finish!({ stopReason: 'end_turn' });
    await turn;
  });
});
