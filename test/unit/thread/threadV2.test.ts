import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TranscriptEvent } from '../../../src/acp/port/events';
import { readV2SessionUpdate } from '../../../src/acp/v2/sessionUpdates';
import { applyOps, type ViewEntry, type ViewSessionState } from '../../../src/shared/chatModel';
import { Thread } from '../../../src/thread/thread';

const WIRE = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'v2-wire');

function newThread(): Thread {
  return new Thread({
    agentName: 'Agent',
    roots: [{ name: 'app', path: '/w/app', primary: true }],
    prompt: { image: false, audio: false, embeddedContext: false },
  });
}

/** The transcript events one v2 `session/update` reads to (the update as an agent sends it). */
function v2(thread: Thread, update: Record<string, unknown>): void {
  const read = readV2SessionUpdate({ sessionId: 's', update });
  assert.ok(read.ok);
  for (const r of read.reads) if (r.kind === 'transcript') thread.apply(r.event);
}

const text = (t: string) => ({ type: 'text', text: t });
const chunk = (role: 'user' | 'agent' | 'thought', messageId: string, t: string) => ({
  sessionUpdate: role === 'thought' ? 'agent_thought_chunk' : `${role}_message_chunk`,
  messageId,
  content: text(t),
});

/** The entries without their ids (which the thread numbers itself). */
function shown(thread: Thread): unknown[] {
  return thread.snapshot().entries.map(({ id: _id, ...rest }) => rest);
}

/** A webview's view of the thread, built only from the ops it was sent. */
class WebviewModel {
  entries: ViewEntry[] = [];
  index = new Map<string, number>();
  session: ViewSessionState | undefined;
  receive(thread: Thread): void {
    this.session = applyOps(this.entries, this.index, thread.takeOps()) ?? this.session;
  }
}

describe('Thread: ACP v2 upserts keyed by id', () => {
  it('a chunk appends to the message with its id wherever it is; an id not seen creates the message', () => {
    const thread = newThread();
    v2(thread, chunk('agent', 'm1', 'Hel'));
    v2(thread, chunk('agent', 'm2', 'Other'));
    v2(thread, chunk('agent', 'm1', 'lo'));
    v2(thread, chunk('thought', 't1', 'hmm'));
    v2(thread, chunk('thought', 't1', '…'));
    v2(thread, { sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' } });
    assert.deepEqual(shown(thread), [
      { kind: 'agent', blocks: [text('Hello')] },
      { kind: 'agent', blocks: [text('Other'), { type: 'link', uri: 'file:///w/a.ts', name: 'a.ts', title: undefined }] },
      { kind: 'thought', text: 'hmm…' },
    ]);
  });

  it('a whole message replaces the content of the message with its id (chunks included), creates it, leaves it when content is absent, clears it with null', () => {
    const thread = newThread();
    v2(thread, chunk('agent', 'm1', 'draft'));
    v2(thread, { sessionUpdate: 'agent_message', messageId: 'm1', content: [text('final')] });
    v2(thread, { sessionUpdate: 'agent_message', messageId: 'm1' });
    v2(thread, chunk('agent', 'm1', '!'));
    v2(thread, { sessionUpdate: 'agent_thought', messageId: 't1', content: [text('a'), text('b')] });
    v2(thread, { sessionUpdate: 'agent_message', messageId: 'm2', content: [text('x')] });
    v2(thread, { sessionUpdate: 'agent_message', messageId: 'm2', content: null });
    v2(thread, { sessionUpdate: 'agent_thought', messageId: 't1', content: [] });
    v2(thread, { sessionUpdate: 'agent_message', messageId: 'm3' });
    assert.deepEqual(shown(thread), [
      { kind: 'agent', blocks: [text('final!')] },
      { kind: 'thought', text: '' },
      { kind: 'agent', blocks: [] },
      { kind: 'agent', blocks: [] },
    ]);
  });

  it('a tool call is created by its first update at the defaults, patched by later ones; absent fields stay, null clears', () => {
    const thread = newThread();
    v2(thread, { sessionUpdate: 'tool_call_update', toolCallId: 'tc1' });
    assert.deepEqual(shown(thread), [
      { kind: 'tool', toolCallId: 'tc1', title: 'Tool call', toolKind: 'other', status: 'pending', content: [], locations: [], rawInput: undefined },
    ]);
    v2(thread, {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'tc1',
      title: 'Read a.ts',
      kind: 'read',
      status: 'in_progress',
      content: [{ type: 'content', content: text('x') }],
      locations: [{ path: '/w/a.ts', line: 2 }],
      rawInput: { path: '/w/a.ts' },
    });
    v2(thread, { sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: 'completed' });
    assert.deepEqual(shown(thread), [
      {
        kind: 'tool',
        toolCallId: 'tc1',
        title: 'Read a.ts',
        toolKind: 'read',
        status: 'completed',
        content: [{ type: 'content', content: text('x') }],
        locations: [{ path: '/w/a.ts', line: 2 }],
        rawInput: '{\n  "path": "/w/a.ts"\n}',
      },
    ]);
    v2(thread, { sessionUpdate: 'tool_call_update', toolCallId: 'tc1', title: null, kind: null, status: null, content: null, locations: [], rawInput: null });
    assert.deepEqual(shown(thread), [
      { kind: 'tool', toolCallId: 'tc1', title: 'Tool call', toolKind: 'other', status: 'pending', content: [], locations: [], rawInput: undefined },
    ]);
  });

  it('a tool call content chunk appends one item to the call, creating the call when its id is new', () => {
    const thread = newThread();
    v2(thread, { sessionUpdate: 'tool_call_content_chunk', toolCallId: 'tc9', content: { type: 'content', content: text('one') } });
    v2(thread, chunk('agent', 'm1', 'between'));
    v2(thread, { sessionUpdate: 'tool_call_content_chunk', toolCallId: 'tc9', content: { type: 'content', content: text('two') } });
    const tool = thread.toolEntry('tc9');
    assert.deepEqual(tool?.content, [
      { type: 'content', content: text('one') },
      { type: 'content', content: text('two') },
    ]);
    assert.equal(thread.length, 2);
  });

  it('a plan replaces the plan with its id in place, another id shows another plan', () => {
    const thread = newThread();
    const plan = (planId: string, status: string) => ({
      sessionUpdate: 'plan_update',
      plan: { type: 'items', planId, entries: [{ content: 'Read', priority: 'high', status }] },
    });
    v2(thread, plan('p1', 'pending'));
    v2(thread, chunk('agent', 'm1', 'working'));
    v2(thread, plan('p1', 'completed'));
    v2(thread, plan('p2', 'pending'));
    assert.deepEqual(shown(thread), [
      { kind: 'plan', entries: [{ content: 'Read', priority: 'high', status: 'completed' }] },
      { kind: 'agent', blocks: [text('working')] },
      { kind: 'plan', entries: [{ content: 'Read', priority: 'high', status: 'pending' }] },
    ]);
  });

  it('a compaction is one line, changed in place as its status moves, with its summary as a thought replaced whole and appended to', () => {
    const thread = newThread();
    v2(thread, { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' });
    v2(thread, { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: text('Draft') });
    v2(thread, chunk('agent', 'm1', 'meanwhile'));
    v2(thread, { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed', summary: [text('Short.')] });
    v2(thread, { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: text(' More.') });
    const kinds = shown(thread).map((e) => (e as { kind: string }).kind);
    assert.deepEqual(kinds, ['info', 'thought', 'agent']);
    const [info, thought] = thread.snapshot().entries;
    assert.deepEqual(info?.kind === 'info' && info.text, 'Context compaction completed');
    assert.deepEqual(thought?.kind === 'thought' && thought.text, 'Short. More.');
  });

  it('usage: an absent cost leaves the last one (v2), null clears it; v1 usage without a cost still shows none', () => {
    const thread = newThread();
    v2(thread, { sessionUpdate: 'usage_update', used: 1, size: 10, cost: { amount: 0.5, currency: 'USD' } });
    v2(thread, { sessionUpdate: 'usage_update', used: 2, size: 10 });
    assert.deepEqual(thread.session.usage, { used: 2, size: 10, cost: { amount: 0.5, currency: 'USD' } });
    v2(thread, { sessionUpdate: 'usage_update', used: 3, size: 10, cost: null });
    assert.deepEqual(thread.session.usage, { used: 3, size: 10, cost: undefined });
    v2(thread, { sessionUpdate: 'usage_update', used: 3, size: 10, cost: { amount: 1, currency: 'USD' } });
    thread.apply({ type: 'usage', used: 4, size: 10 });
    assert.deepEqual(thread.session.usage, { used: 4, size: 10, cost: undefined });
  });

  it('an agent-owned terminal shows on its own until a tool call shows it, its output appended by chunks and replaced by a snapshot', () => {
    const thread = newThread();
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    v2(thread, { sessionUpdate: 'terminal_update', terminalId: 'term1', command: 'npm test', cwd: '/w/app' });
    v2(thread, { sessionUpdate: 'terminal_output_chunk', terminalId: 'term1', data: b64('one\n') });
    assert.deepEqual(shown(thread), [{ kind: 'terminal', terminalId: 'term1', command: 'npm test', cwd: '/w/app', output: 'one\n', inToolCall: false }]);
    v2(thread, { sessionUpdate: 'tool_call_update', toolCallId: 'tc1', title: 'Run tests', content: [{ type: 'terminal', terminalId: 'term1' }] });
    v2(thread, { sessionUpdate: 'terminal_output_chunk', terminalId: 'term1', data: b64('two\n') });
    v2(thread, { sessionUpdate: 'terminal_update', terminalId: 'term1', exitStatus: { exitCode: 0 } });
    const terminal = {
      type: 'terminal',
      terminalId: 'term1',
      agentOwned: true,
      command: 'npm test',
      cwd: '/w/app',
      output: 'one\ntwo\n',
      exitStatus: { exitCode: 0, signal: null },
    };
    assert.deepEqual(thread.toolEntry('tc1')?.content, [terminal]);
    const own = thread.snapshot().entries[0];
    assert.equal(own?.kind === 'terminal' && own.inToolCall, true);
    v2(thread, { sessionUpdate: 'terminal_update', terminalId: 'term1', output: { data: b64('all\n') } });
    assert.deepEqual(thread.toolEntry('tc1')?.content, [{ ...terminal, output: 'all\n' }]);
  });
});

describe('Thread: the echo of the user’s prompt (ACP v2)', () => {
  const promptBlocks = [{ type: 'text' as const, text: 'READFILE notes.txt' }];
  const userEntries = (thread: Thread) => thread.snapshot().entries.filter((e) => e.kind === 'user');

  it('a whole user message before the prompt is accepted is its echo: shown once, as the user sent it', () => {
    const thread = newThread();
    thread.addUserPrompt(promptBlocks);
    v2(thread, { sessionUpdate: 'user_message', messageId: 'u1', content: [text('READFILE notes.txt (as the agent saw it)')] });
    thread.apply({ type: 'promptAccepted', messageId: 'u1' });
    v2(thread, chunk('user', 'u1', ' more'));
    v2(thread, chunk('agent', 'a1', 'Done.'));
    assert.deepEqual(
      userEntries(thread).map((e) => e.kind === 'user' && e.blocks),
      [promptBlocks],
    );
    assert.equal(thread.length, 2);
  });

  it('a user message chunk is an echo too, and so is one that arrives after the prompt’s answer named the prompt', () => {
    const thread = newThread();
    thread.addUserPrompt(promptBlocks);
    v2(thread, chunk('user', 'u1', 'READFILE notes.txt'));
    thread.apply({ type: 'promptAccepted', messageId: 'u1' });
    thread.endTurn('end_turn');
    thread.addUserPrompt([{ type: 'text', text: 'again' }]);
    thread.apply({ type: 'promptAccepted', messageId: 'u2' });
    v2(thread, { sessionUpdate: 'user_message', messageId: 'u2', content: [text('again')] });
    assert.deepEqual(
      userEntries(thread).map((e) => e.kind === 'user' && e.blocks),
      [promptBlocks, [{ type: 'text', text: 'again' }]],
    );
  });

  it('two prompts waiting to be named are named in the order they were sent', () => {
    const thread = newThread();
    const first = thread.addUserPrompt([{ type: 'text', text: 'first' }]);
    const second = thread.addUserPrompt([{ type: 'text', text: 'second' }]);
    thread.apply({ type: 'promptAccepted', messageId: 'u1' });
    v2(thread, chunk('user', 'u2', 'second'));
    thread.apply({ type: 'promptAccepted', messageId: 'u2' });
    v2(thread, chunk('user', 'u1', 'first'));
    assert.deepEqual(
      userEntries(thread).map((e) => e.id),
      [first, second],
    );
  });

  it('a user message the agent sends on its own (no prompt waiting, or after the turn ended) is shown', () => {
    const thread = newThread();
    v2(thread, { sessionUpdate: 'user_message', messageId: 'x1', content: [text('from elsewhere')] });
    thread.addUserPrompt(promptBlocks);
    thread.endTurn('end_turn');
    v2(thread, chunk('user', 'x2', 'later'));
    assert.deepEqual(
      userEntries(thread).map((e) => e.kind === 'user' && e.blocks),
      [[text('from elsewhere')], promptBlocks, [text('later')]],
    );
  });

  it('in a replay, user messages are history and are shown, over a chat that showed the prompt too', () => {
    const thread = newThread();
    thread.addUserPrompt(promptBlocks);
    thread.beginReplay();
    v2(thread, { sessionUpdate: 'user_message', messageId: 'u1', content: [text('READFILE notes.txt')] });
    v2(thread, chunk('agent', 'a1', 'Done.'));
    thread.endReplay();
    assert.deepEqual(shown(thread), [
      { kind: 'user', blocks: [text('READFILE notes.txt')] },
      { kind: 'agent', blocks: [text('Done.')] },
    ]);
  });
});

describe('Thread: real v2 turns fold into the transcript', () => {
  /**
   * Plays a recorded connection as the v2 adapter and the chat do: the prompt the client sent is shown
   * (`addUserPrompt`), the prompt's answer names it (`promptAccepted`), every update is read and folded, and an
   * `idle` state ends the turn.
   */
  function play(file: string): { thread: Thread; webview: WebviewModel; stopReasons: string[] } {
    const thread = newThread();
    const webview = new WebviewModel();
    const stopReasons: string[] = [];
    for (const line of fs.readFileSync(path.join(WIRE, file), 'utf8').split('\n')) {
      if (line === '') continue;
      const message = JSON.parse(line.slice(2)) as { method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> };
      if (line.startsWith('> ') && message.method === 'session/prompt') {
        const prompt = message.params?.['prompt'] as Array<{ type: 'text'; text: string }>;
        thread.addUserPrompt(prompt.map((b) => ({ type: 'text', text: b.text })));
      } else if (line.startsWith('< ') && typeof message.result?.['messageId'] === 'string') {
        thread.apply({ type: 'promptAccepted', messageId: message.result['messageId'] } satisfies TranscriptEvent);
      } else if (line.startsWith('< ') && message.method === 'session/update') {
        const read = readV2SessionUpdate(message.params);
        assert.ok(read.ok);
        for (const r of read.reads) {
          if (r.kind === 'transcript') thread.apply(r.event);
          else if (r.kind === 'turn' && r.signal.state === 'idle') {
            stopReasons.push(r.signal.stopReason ?? '');
            thread.endTurn(r.signal.stopReason ?? 'end_turn');
          }
        }
        webview.receive(thread);
      }
    }
    webview.receive(thread);
    return { thread, webview, stopReasons };
  }

  const withoutIds = (entries: readonly ViewEntry[]) =>
    entries.map((entry) => {
      const { id: _id, ...rest } = entry;
      return entry.kind === 'turnEnd' ? { kind: 'turnEnd', stopReason: entry.stopReason } : rest;
    });

  it('claude-agent-acp 0.101: the prompt once, the agent’s two messages, the Read call completed with its content, the notice, the title and cost', () => {
    const { thread, webview, stopReasons } = play('wire-claude-0.101-v2.jsonl');
    const notice = thread.snapshot().entries[3];
    assert.match(notice?.kind === 'notice' ? (notice.description ?? '') : '', /^We're changing auto mode .*auto-mode-classifier-billing$/);
    const expected = [
      { kind: 'user', blocks: [text('READFILE /home/user/ws/lib/notes.txt')] },
      { kind: 'agent', blocks: [text('Let me read that file.')] },
      {
        kind: 'tool',
        toolCallId: 'toolu_fake_2',
        title: 'Read /home/user/ws/lib/notes.txt',
        toolKind: 'read',
        status: 'completed',
        content: [{ type: 'content', content: text('```\n1\tlib notes\n```') }],
        locations: [{ path: '/home/user/ws/lib/notes.txt', line: 1 }],
        rawInput: '{\n  "file_path": "/home/user/ws/lib/notes.txt"\n}',
      },
      {
        kind: 'notice',
        severity: 'warning',
        title: 'Claude reported a warning',
        description: notice?.kind === 'notice' ? notice.description : 'missing',
      },
      { kind: 'agent', blocks: [text('Done. The tool returned: 1 lib notes 2 ')] },
      { kind: 'turnEnd', stopReason: 'end_turn' },
    ];
    assert.deepEqual(withoutIds(thread.snapshot().entries), expected);
    assert.deepEqual(withoutIds(webview.entries), expected);
    assert.deepEqual(stopReasons, ['end_turn']);
    assert.equal(thread.agentTitle, 'READFILE /home/user/ws/lib/notes.txt');
    assert.deepEqual(thread.session.usage, { used: 15, size: 1000000, cost: { amount: 0.00042, currency: 'USD' } });
    assert.ok(thread.session.commands.length > 0);
  });

  it('codex-acp 2.6.0: the prompt once (its echo a chunk), the notice, the agent’s two messages', () => {
    const { thread, webview, stopReasons } = play('wire-codex-2.6.0-v2.jsonl');
    const entries = withoutIds(thread.snapshot().entries);
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['user', 'notice', 'agent', 'agent', 'turnEnd'],
    );
    assert.deepEqual(entries[0], { kind: 'user', blocks: [text('READFILE /home/user/ws/lib/notes.txt')] });
    assert.deepEqual(entries[2], { kind: 'agent', blocks: [text('Let me cat that file.')] });
    const answer = entries[3] as { blocks: Array<{ text: string }> };
    assert.match(answer.blocks[0]?.text ?? '', /^Done\. The tool returned: Chunk ID: 902b85 .*bwrap: execvp cod$/);
    assert.deepEqual(withoutIds(webview.entries), entries);
    assert.deepEqual(stopReasons, ['end_turn']);
    assert.equal(thread.agentTitle, 'READFILE /home/user/ws/lib/notes.txt');
    assert.deepEqual(thread.session.usage, { used: 15, size: 258400, cost: undefined });
  });
});
