import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as acp from '../../../src/acp/schema';
import { applyOps, type ViewEntry, type ViewSessionState } from '../../../src/shared/chatModel';
import { Thread } from '../../../src/thread/thread';
import { MAX_AGENT_OUTPUT_CHARS } from '../../../src/thread/threadTerminals';
import { transcriptEvent } from '../../../src/acp/v1/transcriptEvents';

const FIXTURES = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'updates');

function newThread(): Thread {
  return new Thread({
    agentName: 'Agent',
    roots: [{ name: 'app', path: '/w/app', primary: true }],
    prompt: { image: false, audio: false, embeddedContext: false },
  });
}

/** Parses an update the way the connection does (zod, tolerant). */
function update(raw: Record<string, unknown>): acp.SessionUpdate {
  return acp.SessionNotification.parse({ sessionId: 's', update: raw }).update;
}

const text = (t: string, messageId?: string, kind = 'agent_message_chunk') =>
  update({ sessionUpdate: kind, content: { type: 'text', text: t }, ...(messageId ? { messageId } : {}) });

/** A webview's view of the thread, built only from the ops it was sent. */
class WebviewModel {
  entries: ViewEntry[] = [];
  index = new Map<string, number>();
  session: ViewSessionState | undefined;
  receive(thread: Thread): void {
    this.session = applyOps(this.entries, this.index, thread.takeOps()) ?? this.session;
  }
}

function loadFixture(name: string): { updates: acp.SessionUpdate[]; stopReason: string | undefined } {
  const updates: acp.SessionUpdate[] = [];
  let stopReason: string | undefined;
  for (const line of fs.readFileSync(path.join(FIXTURES, name), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const raw = JSON.parse(line) as Record<string, unknown>;
    if ('$stopReason' in raw) stopReason = String(raw['$stopReason']);
    else updates.push(update(raw));
  }
  return { updates, stopReason };
}

describe('Thread (the transcript reducer)', () => {
  it('joins chunks with the same messageId into one entry, and starts a new one for another id', () => {
    const thread = newThread();
    thread.apply(transcriptEvent(text('Hel', 'm1')));
    thread.apply(transcriptEvent(text('lo', 'm1')));
    thread.apply(transcriptEvent(text('Next', 'm2')));
    const entries = thread.snapshot().entries;
    assert.deepEqual(
      entries.map((e) => e.kind === 'agent' && e.blocks),
      [[{ type: 'text', text: 'Hello' }], [{ type: 'text', text: 'Next' }]],
    );
  });

  it('joins consecutive chunks without ids, and splits messages around other entries', () => {
    const thread = newThread();
    thread.apply(transcriptEvent(text('a')));
    thread.apply(transcriptEvent(text('b')));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read' })));
    thread.apply(transcriptEvent(text('c')));
    thread.apply(transcriptEvent(text('thinking', undefined, 'agent_thought_chunk')));
    thread.apply(transcriptEvent(text('d')));
    assert.deepEqual(
      thread.snapshot().entries.map((e) => e.kind),
      ['agent', 'tool', 'agent', 'thought', 'agent'],
    );
  });

  it('keeps images and links of a message as blocks next to its text', () => {
    const thread = newThread();
    thread.apply(transcriptEvent(text('See ')));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'AAA', mimeType: 'image/png' } })));
    thread.apply(transcriptEvent(text(' and ')));
    const [entry] = thread.snapshot().entries;
    assert.ok(entry?.kind === 'agent');
    assert.deepEqual(
      entry.blocks.map((b) => b.type),
      ['text', 'image', 'text'],
    );
    assert.equal(entry.blocks[1]?.type === 'image' && entry.blocks[1].dataUrl, 'data:image/png;base64,AAA');
  });

  it('patches tool calls by id: fields present change, content and locations replace', () => {
    const thread = newThread();
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'tool_call',
          toolCallId: 't1',
          title: 'Edit a.ts',
          kind: 'edit',
          status: 'pending',
          locations: [{ path: '/w/a.ts', line: 3 }],
        }),
      ),
    );
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'in_progress' })));
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 't1',
          status: 'completed',
          content: [{ type: 'diff', path: '/w/a.ts', oldText: 'a\nb\n', newText: 'a\nc\nd\n' }],
          locations: [],
        }),
      ),
    );
    const [tool] = thread.snapshot().entries;
    assert.ok(tool?.kind === 'tool');
    assert.equal(tool.title, 'Edit a.ts');
    assert.equal(tool.toolKind, 'edit');
    assert.equal(tool.status, 'completed');
    assert.deepEqual(tool.locations, []);
    assert.deepEqual(tool.content[0], { type: 'diff', path: '/w/a.ts', oldText: 'a\nb\n', newText: 'a\nc\nd\n', added: 2, removed: 1 });
  });

  it('creates an entry for an update to a tool call it never saw, instead of losing it', () => {
    const thread = newThread();
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call_update', toolCallId: 'ghost', status: 'failed' })));
    const [tool] = thread.snapshot().entries;
    assert.ok(tool?.kind === 'tool' && tool.status === 'failed' && tool.title === 'Tool call');
  });

  it('starts a new tool entry when a later turn announces a tool call id again (agents that number calls per turn)', () => {
    const thread = newThread();
    const call = (title: string) => update({ sessionUpdate: 'tool_call', toolCallId: 'call_1', title, kind: 'read', status: 'pending' });
    thread.addUserPrompt([{ type: 'text', text: 'one' }]);
    thread.apply(transcriptEvent(call('Read a')));
    thread.apply(transcriptEvent(call('Read a (again)')));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'completed' })));
    thread.endTurn('end_turn');
    thread.apply(transcriptEvent(update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'two (replayed)' } })));
    thread.apply(transcriptEvent(call('Read b')));
    thread.addUserPrompt([{ type: 'text', text: 'three' }]);
    thread.apply(transcriptEvent(call('Read c')));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'failed' })));
    const tools = thread.snapshot().entries.flatMap((e) => (e.kind === 'tool' ? [[e.title, e.status]] : []));
    assert.deepEqual(tools, [
      ['Read a (again)', 'completed'],
      ['Read b', 'pending'],
      ['Read c', 'failed'],
    ]);
    assert.equal(thread.toolEntry('call_1')?.title, 'Read c', 'updates go to the latest call with the id');
  });

  it('shows a tool call’s input as JSON text, also when it is nested deeper than JSON.stringify can go', () => {
    const thread = newThread();
    const depth = 100_000;
    const deep = JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`) as unknown;
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 'deep', title: 'Deep', rawInput: deep })));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 'flat', title: 'Flat', rawInput: { path: '/w/a', lines: [1, 2] } })));
    const [first, second] = thread.snapshot().entries;
    assert.ok(first?.kind === 'tool' && first.rawInput);
    assert.ok(first.rawInput.startsWith('{\n  "a": {\n    "a": {'), first.rawInput.slice(0, 40));
    assert.doesNotMatch(first.rawInput, /\[object Object\]/);
    assert.ok(first.rawInput.length <= 4001, 'bounded');
    assert.ok(second?.kind === 'tool' && second.rawInput === JSON.stringify({ path: '/w/a', lines: [1, 2] }, null, 2));
  });

  it('replaces the plan in place during a turn, and starts a new plan in the next turn', () => {
    const thread = newThread();
    thread.addUserPrompt([{ type: 'text', text: 'go' }]);
    const plan = (status: string) => update({ sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'high', status }] });
    thread.apply(transcriptEvent(plan('pending')));
    thread.apply(transcriptEvent(text('working')));
    thread.apply(transcriptEvent(plan('completed')));
    thread.endTurn('end_turn');
    thread.addUserPrompt([{ type: 'text', text: 'again' }]);
    thread.apply(transcriptEvent(plan('pending')));
    const plans = thread.snapshot().entries.filter((e) => e.kind === 'plan');
    assert.equal(plans.length, 2);
    assert.equal(plans[0]?.kind === 'plan' && plans[0].entries[0]?.status, 'completed');
  });

  it('keeps session-level state: commands, mode, config options, the agent’s title (null clears; what is shown is set by the title rule), usage', () => {
    const thread = newThread();
    thread.setSession({
      modes: {
        currentModeId: 'code',
        available: [
          { id: 'code', name: 'Code' },
          { id: 'ask', name: 'Ask' },
        ],
      },
    });
    thread.apply(
      transcriptEvent(
        update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'plan', description: 'Plan', input: { hint: 'what' } }] }),
      ),
    );
    thread.apply(transcriptEvent(update({ sessionUpdate: 'current_mode_update', currentModeId: 'ask' })));
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'config_option_update',
          configOptions: [
            {
              id: 'model',
              name: 'Model',
              category: 'model',
              type: 'select',
              currentValue: 'b',
              options: [
                {
                  group: 'g',
                  name: 'Group',
                  options: [
                    { value: 'a', name: 'A' },
                    { value: 'b', name: 'B' },
                  ],
                },
              ],
            },
            { id: 'fast', name: 'Fast', type: 'boolean', currentValue: true },
            { id: 'weird', name: 'Weird', type: 'slider', min: 0 },
          ],
        }),
      ),
    );
    thread.apply(transcriptEvent(update({ sessionUpdate: 'session_info_update', title: 'Fix the build' })));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 0.5, currency: 'EUR' } })));
    const s = thread.session;
    assert.deepEqual(s.commands, [{ name: 'plan', description: 'Plan', hint: 'what' }]);
    assert.equal(s.modes?.currentModeId, 'ask');
    assert.deepEqual(
      s.configOptions.map((o) => o.id),
      ['model', 'fast'],
      'unknown option types are left out',
    );
    assert.deepEqual(s.configOptions[0]?.type === 'select' && s.configOptions[0].options.map((o) => `${o.group}:${o.value}`), ['Group:a', 'Group:b']);
    assert.equal(thread.agentTitle, 'Fix the build');
    assert.equal(s.title, undefined, 'the agent’s title is not what is shown by itself (a rename wins over it)');
    assert.deepEqual(s.usage, { used: 10, size: 100, cost: { amount: 0.5, currency: 'EUR' } });
    thread.apply(transcriptEvent(update({ sessionUpdate: 'session_info_update', title: null })));
    assert.equal(thread.agentTitle, undefined);
  });

  it('shows notices, compaction and unknown variants as entries (never drops them)', () => {
    const thread = newThread();
    thread.apply(transcriptEvent(update({ sessionUpdate: 'notice', severity: 'warning', title: 'Rate limited' })));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'in_progress' })));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'future_variant_xyz', payload: { x: 1 } })));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', title: 'missing id' })));
    const entries = thread.snapshot().entries;
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['notice', 'info', 'unknown', 'unknown'],
    );
    const unknown = entries[2];
    assert.ok(unknown?.kind === 'unknown' && unknown.tag === 'future_variant_xyz' && unknown.raw.includes('"x": 1'));
    const invalid = entries[3];
    assert.ok(invalid?.kind === 'unknown' && /toolCallId/.test(invalid.error ?? ''));
  });

  it('marks the turn end, and unfinished tool calls as cancelled when the turn was cancelled', () => {
    const thread = newThread();
    thread.addUserPrompt([{ type: 'text', text: 'go' }]);
    assert.equal(thread.session.status, 'running');
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Run', status: 'in_progress' })));
    thread.endTurn('cancelled');
    const entries = thread.snapshot().entries;
    assert.equal(entries[1]?.kind === 'tool' && entries[1].status, 'cancelled');
    assert.deepEqual(entries[2]?.kind === 'turnEnd' && entries[2].stopReason, 'cancelled');
    assert.equal(thread.session.status, 'idle');
  });

  it('ends the tool calls of a turn that ended without an answer (the agent went away): interrupted, never left running', () => {
    const thread = newThread();
    thread.addUserPrompt([{ type: 'text', text: 'go' }]);
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'Running', status: 'in_progress' })));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'Waiting', status: 'pending' })));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Done', status: 'completed' })));
    thread.interruptUnfinishedTools();
    assert.deepEqual(
      thread.snapshot().entries.flatMap((e) => (e.kind === 'tool' ? [`${e.toolCallId}:${e.status}`] : [])),
      ['a:interrupted', 'b:interrupted', 'c:completed'],
    );
  });

  /** What a chat shows, in short: kind, then text or tool status. */
  const shown = (entries: readonly ViewEntry[]) =>
    entries.map((e) => {
      switch (e.kind) {
        case 'user':
        case 'agent':
          return `${e.kind}:${e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')}`;
        case 'tool':
          return `tool:${e.toolCallId}:${e.status}`;
        case 'error':
        case 'info':
          return `${e.kind}:${e.kind === 'error' ? e.message : e.text}`;
        default:
          return e.kind;
      }
    });

  it('a load replay over a chat that shows the conversation: the agent’s record replaces it, each message once, and what only this chat showed stays in place', () => {
    const thread = newThread();
    const view = new WebviewModel();
    // The chat: one finished turn, then a turn that crashed in the middle of two tool calls.
    thread.addUserPrompt([{ type: 'text', text: 'hello' }]);
    thread.apply(transcriptEvent(text('Echo: hello', 'm1')));
    thread.endTurn('end_turn');
    thread.addUserPrompt([{ type: 'text', text: 'crash' }]);
    thread.apply(transcriptEvent(text('This turn ', 'm2')));
    thread.apply(transcriptEvent(text('crashes', 'm2')));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Recorded step', status: 'in_progress' })));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 't2', title: 'Step the agent did not record', status: 'in_progress' })));
    thread.interruptUnfinishedTools();
    thread.addError('Agent exited (exit code 42).', ['restart', 'reopen']);
    view.receive(thread);
    const before = view.entries.slice();

    thread.beginReplay();
    for (const u of [
      update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hello' } }),
      text('Echo: hello', 'r1'),
      update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'crash' } }),
      text('This turn ', 'r2'),
      text('crashes', 'r2'),
      update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Recorded step', status: 'in_progress' }),
    ])
      thread.apply(transcriptEvent(u));
    view.receive(thread);
    assert.deepEqual(view.entries, before, 'while the history replays, the chat keeps showing what it showed');
    thread.endReplay();
    view.receive(thread);

    assert.deepEqual(shown(thread.snapshot().entries), [
      'user:hello',
      'agent:Echo: hello',
      'turnEnd',
      'user:crash',
      'agent:This turn crashes',
      'tool:t1:interrupted',
      'tool:t2:interrupted',
      'error:Agent exited (exit code 42).',
    ]);
    assert.deepEqual(view.entries, thread.snapshot().entries, 'the webview gets exactly that');
    assert.equal(thread.toolEntry('t2')?.title, 'Step the agent did not record');
  });

  it('a load replay that left a tool call unfinished (the agent stopped in it) shows it interrupted once the load answered', () => {
    const thread = newThread();
    thread.reset();
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Step', status: 'in_progress' })));
    thread.endReplay();
    assert.equal(thread.toolEntry('t1')?.status, 'interrupted');
  });

  it('a failed load leaves the chat as it was', () => {
    const thread = newThread();
    const view = new WebviewModel();
    thread.addUserPrompt([{ type: 'text', text: 'kept' }]);
    thread.addError('Agent exited.', ['reopen']);
    view.receive(thread);
    const before = thread.snapshot().entries;
    thread.beginReplay();
    thread.apply(transcriptEvent(text('half a replay')));
    thread.abortReplay();
    view.receive(thread);
    assert.deepEqual(thread.snapshot().entries, before);
    assert.deepEqual(view.entries, before);
  });

  it('shows every terminal the agent starts: on its own, until a tool call shows it; one that did not start says why', () => {
    const thread = newThread();
    const view = new WebviewModel();
    thread.addUserPrompt([{ type: 'text', text: 'go' }]);
    thread.apply(transcriptEvent(text('Running it. ')));
    thread.updateTerminal('term-1', { command: 'npm test', cwd: '/w/app', output: '' });
    thread.apply(transcriptEvent(text('Still here.')));
    thread.updateTerminal('term-1', { command: 'npm test', cwd: '/w/app', output: 'ok\n', exitStatus: { exitCode: 0, signal: null } });
    view.receive(thread);
    assert.deepEqual(
      thread.snapshot().entries.map((e) => e.kind),
      ['user', 'agent', 'terminal', 'agent'],
      'the command shows where it started, between the two messages',
    );
    const own = thread.snapshot().entries[2];
    assert.deepEqual(own?.kind === 'terminal' && [own.terminalId, own.command, own.cwd, own.output, own.exitStatus?.exitCode, own.inToolCall], [
      'term-1',
      'npm test',
      '/w/app',
      'ok\n',
      0,
      false,
    ]);

    // A tool call showing the same terminal takes over: one place shows a command.
    thread.updateTerminal('term-2', { command: 'ls', cwd: '/w/app', output: '' });
    thread.apply(
      transcriptEvent(
        update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Run ls', kind: 'execute', content: [{ type: 'terminal', terminalId: 'term-2' }] }),
      ),
    );
    thread.updateTerminal('term-2', { command: 'ls', cwd: '/w/app', output: 'a b\n', exitStatus: { exitCode: 0, signal: null } });
    const entries = thread.snapshot().entries;
    const second = entries.find((e) => e.kind === 'terminal' && e.terminalId === 'term-2');
    assert.equal(second?.kind === 'terminal' && second.inToolCall, true);
    const tool = entries.find((e) => e.kind === 'tool');
    assert.deepEqual(tool?.kind === 'tool' && tool.content[0], {
      type: 'terminal',
      terminalId: 'term-2',
      command: 'ls',
      cwd: '/w/app',
      output: 'a b\n',
      exitStatus: { exitCode: 0, signal: null },
    });
    assert.equal(entries.filter((e) => e.kind === 'terminal').length, 2, 'no second entry for a terminal a tool call shows');

    thread.addTerminalFailure('nosuchcommand --x', '/w/app', 'Cannot run nosuchcommand: not found.');
    const failed = thread.snapshot().entries.at(-1);
    assert.deepEqual(failed?.kind === 'terminal' && [failed.terminalId, failed.command, failed.error, failed.inToolCall], [
      undefined,
      'nosuchcommand --x',
      'Cannot run nosuchcommand: not found.',
      false,
    ]);
    view.receive(thread);
    assert.deepEqual(view.entries, thread.snapshot().entries, 'the webview gets the same through ops');
  });

  it('shows a terminal the agent runs itself (pi-acp: `terminal` content, its output in `_meta.terminal_output`), live, with no terminal/create', () => {
    const thread = newThread();
    const view = new WebviewModel();
    thread.addUserPrompt([{ type: 'text', text: 'list the files' }]);
    // pi-acp 0.0.34 (src/acp/session.ts emitBashToolCall / emitBashOutputUpdate), as it sends them.
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'tool_call',
          toolCallId: 'call_1',
          title: 'ls -1',
          kind: 'execute',
          status: 'pending',
          content: [{ type: 'terminal', terminalId: 'call_1' }],
          _meta: { terminal_info: { terminal_id: 'call_1', cwd: '/w/app' } },
        }),
      ),
    );
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'call_1',
          status: 'in_progress',
          _meta: { terminal_output: { terminal_id: 'call_1', data: 'a.txt\n' } },
        }),
      ),
    );
    let tool = thread.snapshot().entries.find((e) => e.kind === 'tool');
    assert.deepEqual(
      tool?.kind === 'tool' && tool.content,
      [{ type: 'terminal', terminalId: 'call_1', agentOwned: true, cwd: '/w/app', output: 'a.txt\n' }],
      'its output so far, while it runs',
    );
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'call_1',
          status: 'completed',
          _meta: { terminal_output: { terminal_id: 'call_1', data: 'b.txt\n' }, terminal_exit: { terminal_id: 'call_1', exit_code: 0, signal: null } },
        }),
      ),
    );
    view.receive(thread);
    tool = thread.snapshot().entries.find((e) => e.kind === 'tool');
    assert.deepEqual(tool?.kind === 'tool' && [tool.status, tool.content], [
      'completed',
      [{ type: 'terminal', terminalId: 'call_1', agentOwned: true, cwd: '/w/app', output: 'a.txt\nb.txt\n', exitStatus: { exitCode: 0, signal: null } }],
    ]);
    assert.deepEqual(
      thread.snapshot().entries.map((e) => e.kind),
      ['user', 'tool'],
      'no entry of its own: the tool call shows it',
    );
    assert.deepEqual(view.entries, thread.snapshot().entries, 'the webview gets the same through ops');
  });

  it('shows a command codex-acp runs (its output in `_meta.terminal_output_delta`), also when an update names no terminal in its content', () => {
    const thread = newThread();
    thread.addUserPrompt([{ type: 'text', text: 'bash printf hi' }]);
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'tool_call',
          toolCallId: 'call_x',
          title: 'printf hi',
          kind: 'execute',
          status: 'in_progress',
          content: [{ type: 'terminal', terminalId: 'call_x' }],
          _meta: { terminal_info: { cwd: '/w/app', terminal_id: 'call_x' } },
        }),
      ),
    );
    thread.apply(
      transcriptEvent(
        update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_x', _meta: { terminal_output_delta: { data: 'hi', terminal_id: 'call_x' } } }),
      ),
    );
    // A later report replacing the content without the terminal keeps it: its state is the `_meta`'s.
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'call_x',
          status: 'completed',
          content: [{ type: 'content', content: { type: 'text', text: 'done' } }],
          _meta: { terminal_exit: { exit_code: 0, signal: null, terminal_id: 'call_x' } },
        }),
      ),
    );
    // Keys that do not read are ignored, never the update.
    thread.apply(
      transcriptEvent(
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'call_x',
          title: 'printf hi (done)',
          _meta: { terminal_output_delta: { data: 42 }, terminal_exit: 'soon' },
        }),
      ),
    );
    const tool = thread.snapshot().entries.find((e) => e.kind === 'tool');
    assert.deepEqual(tool?.kind === 'tool' && [tool.title, tool.status, tool.content], [
      'printf hi (done)',
      'completed',
      [
        { type: 'terminal', terminalId: 'call_x', agentOwned: true, cwd: '/w/app', output: 'hi', exitStatus: { exitCode: 0, signal: null } },
        { type: 'content', content: { type: 'text', text: 'done' } },
      ],
    ]);
  });

  it('keeps the end of an agent-owned terminal’s output when it grows past the bound, and says earlier output was cut', () => {
    const thread = newThread();
    thread.apply(
      transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'yes', kind: 'execute', content: [{ type: 'terminal', terminalId: 'c' }] })),
    );
    const chunk = 'y\n'.repeat(300_000);
    for (let i = 0; i < 3; i++)
      thread.apply(
        transcriptEvent(update({ sessionUpdate: 'tool_call_update', toolCallId: 'c', _meta: { terminal_output: { terminal_id: 'c', data: chunk } } })),
      );
    thread.apply(
      transcriptEvent(update({ sessionUpdate: 'tool_call_update', toolCallId: 'c', _meta: { terminal_output: { terminal_id: 'c', data: 'end\n' } } })),
    );
    const tool = thread.snapshot().entries.find((e) => e.kind === 'tool');
    const terminal = tool?.kind === 'tool' ? tool.content[0] : undefined;
    assert.ok(terminal?.type === 'terminal');
    assert.equal(terminal.output?.length, MAX_AGENT_OUTPUT_CHARS);
    assert.ok(terminal.output?.endsWith('y\nend\n'));
    assert.equal(terminal.truncated, true);
  });

  it('offers one picker per setting: modes a config option stands for are left out (pi-acp’s thinking levels, a `mode` option), other modes stay', () => {
    const levels = ['off', 'low', 'high'];
    const modes = { currentModeId: 'low', available: levels.map((id) => ({ id, name: `Thinking: ${id}` })) };
    // pi-acp 0.0.34: the thinking levels as modes and as the config option `thought_level`, with the model option.
    const pi = update({
      sessionUpdate: 'config_option_update',
      configOptions: [
        { type: 'select', id: 'model', name: 'Model', category: 'model', currentValue: 'p/m', options: [{ value: 'p/m', name: 'p/m' }] },
        {
          type: 'select',
          id: 'thought_level',
          name: 'Thinking',
          category: 'thought_level',
          currentValue: 'low',
          options: levels.map((value) => ({ value, name: `Thinking: ${value}` })),
        },
      ],
    });
    const thread = newThread();
    const view = new WebviewModel();
    thread.setSession({ modes, configOptions: [] });
    assert.deepEqual(thread.session.modes, modes, 'modes alone: their picker');
    thread.apply(transcriptEvent(pi));
    assert.equal(thread.session.modes, undefined, 'the thought_level option offers the same choices: one picker');
    assert.deepEqual(
      thread.session.configOptions.map((o) => o.id),
      ['model', 'thought_level'],
    );
    // What pi-acp sends when the level changes: both updates; the option's picker follows.
    thread.apply(transcriptEvent(update({ sessionUpdate: 'current_mode_update', currentModeId: 'high' })));
    assert.equal(thread.session.modes, undefined);
    view.receive(thread);
    assert.equal(view.session?.modes, undefined, 'the webview gets no second picker');

    // A config option of category `mode` (claude-agent-acp, codex-acp) stands for the modes whatever its values.
    const claude = newThread();
    claude.setSession({
      modes: {
        currentModeId: 'default',
        available: [
          { id: 'default', name: 'Default' },
          { id: 'plan', name: 'Plan' },
        ],
      },
      configOptions: [
        { type: 'select', id: 'mode', name: 'Mode', category: 'mode', currentValue: 'default', options: [{ value: 'default', name: 'Default' }] },
      ],
    });
    assert.equal(claude.session.modes, undefined);

    // Options that do not offer the modes (a model and a boolean, as the reference agent has) leave them.
    const other = newThread();
    other.setSession({
      modes,
      configOptions: [
        { type: 'select', id: 'model', name: 'Model', category: 'model', currentValue: 'a', options: [{ value: 'a', name: 'A' }] },
        { type: 'boolean', id: 'x', name: 'X', currentValue: false },
      ],
    });
    assert.deepEqual(other.session.modes, modes);
    // …and the modes come back when an agent drops the option that stood for them.
    thread.apply(transcriptEvent(update({ sessionUpdate: 'config_option_update', configOptions: [] })));
    assert.deepEqual(thread.session.modes, { ...modes, currentModeId: 'high' });
  });

  it('records what it refused, with the command for a terminal', () => {
    const thread = newThread();
    thread.addRefusal('write', '/etc/x', '"/etc/x" is outside this session’s folder (/w/app)');
    thread.addRefusal('terminal', '/etc', '"/etc" is outside this session’s folder (/w/app)', 'ls -la');
    const [write, terminal] = thread.snapshot().entries;
    assert.deepEqual(write, {
      kind: 'refusal',
      id: write!.id,
      operation: 'write',
      path: '/etc/x',
      message: '"/etc/x" is outside this session’s folder (/w/app)',
    });
    assert.equal(terminal?.kind === 'refusal' && terminal.command, 'ls -la');
  });

  it('records permission requests and their outcome', () => {
    const thread = newThread();
    const id = thread.addPermission('Run rm', 't1', [{ optionId: 'x', name: 'Allow', kind: 'allow_once' }]);
    thread.resolvePermission(id, { chosen: 'x', name: 'Allow', kind: 'allow_once' });
    const entry = thread.entry(id);
    assert.deepEqual(entry?.kind === 'permission' && entry.state, { chosen: 'x', name: 'Allow', kind: 'allow_once' });
  });

  it('coalesces changes into few ops: appends merge, a later full entry replaces them, creation order is kept', () => {
    const thread = newThread();
    thread.takeOps();
    thread.apply(transcriptEvent(text('a', 'm1')));
    thread.takeOps();
    for (const t of ['b', 'c', 'd']) thread.apply(transcriptEvent(text(t, 'm1')));
    assert.deepEqual(thread.takeOps(), [{ op: 'append', id: 'agent-1', text: 'bcd' }]);

    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'One' })));
    thread.apply(transcriptEvent(text('between')));
    thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' })));
    const ops = thread.takeOps();
    assert.deepEqual(
      ops.map((op) => (op.op === 'entry' ? `${op.entry.kind}:${op.entry.kind === 'tool' ? op.entry.status : ''}` : op.op)),
      ['tool:completed', 'agent:'],
    );
  });

  it('gives the webview, through ops alone, exactly the host state (random sequences)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 50; round++) {
      const thread = newThread();
      const view = new WebviewModel();
      for (let step = 0; step < 200; step++) {
        const r = random();
        if (r < 0.35) thread.apply(transcriptEvent(text(`t${step} `, random() < 0.5 ? 'm1' : `m${step % 3}`)));
        else if (r < 0.45) thread.apply(transcriptEvent(text(`th${step}`, undefined, 'agent_thought_chunk')));
        else if (r < 0.6) thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call', toolCallId: `t${step % 4}`, title: `tool ${step}` })));
        else if (r < 0.7) thread.apply(transcriptEvent(update({ sessionUpdate: 'tool_call_update', toolCallId: `t${step % 4}`, status: 'completed' })));
        else if (r < 0.75)
          thread.apply(transcriptEvent(update({ sessionUpdate: 'plan', entries: [{ content: `p${step}`, priority: 'low', status: 'pending' }] })));
        else if (r < 0.8) thread.addUserPrompt([{ type: 'text', text: `u${step}` }]);
        else if (r < 0.83) thread.endTurn('end_turn');
        else if (r < 0.85) thread.reset();
        else if (r < 0.86) thread.beginReplay();
        else if (r < 0.87) thread.endReplay();
        else if (r < 0.875) thread.abortReplay();
        else if (r < 0.88) thread.interruptUnfinishedTools();
        else if (r < 0.9) thread.apply(transcriptEvent(update({ sessionUpdate: 'session_info_update', title: `title ${step}` })));
        if (random() < 0.3) view.receive(thread);
      }
      view.receive(thread);
      const snapshot = thread.snapshot();
      assert.deepEqual(view.entries, snapshot.entries, `round ${round}`);
      assert.deepEqual(view.session ?? snapshot.session, snapshot.session);
    }
  });

  it('folds a recorded reference-agent turn into the expected transcript', () => {
    const { updates, stopReason } = loadFixture('reference-agent.jsonl');
    const thread = newThread();
    thread.addUserPrompt([{ type: 'text', text: 'think stream diff permission plan usage title Recorded turn' }]);
    for (const u of updates) thread.apply(transcriptEvent(u));
    thread.endTurn(stopReason ?? 'end_turn');
    const kinds = thread.snapshot().entries.map((e) => e.kind);
    assert.deepEqual(kinds.slice(0, 3), ['user', 'thought', 'agent']);
    assert.ok(kinds.includes('tool') && kinds.includes('plan'));
    assert.equal(kinds.at(-1), 'turnEnd');
    assert.equal(thread.agentTitle, 'Recorded turn');
    assert.ok(thread.session.usage);
    assert.ok(!kinds.includes('unknown'), 'every update of a conforming agent is understood');
  });

  it('folds a recorded codex-acp 2.6.0 command: its card shows what the command printed and its exit, from `_meta`', () => {
    const { updates } = loadFixture('codex-acp-2.6.0.jsonl');
    const thread = newThread();
    for (const u of updates) thread.apply(transcriptEvent(u));
    const command = thread.snapshot().entries.find((e) => e.kind === 'tool' && e.title.startsWith("printf 'written by codex"));
    assert.ok(command?.kind === 'tool');
    assert.deepEqual(
      command.content.find((c) => c.type === 'terminal'),
      {
        type: 'terminal',
        terminalId: 'call_scripted_1',
        agentOwned: true,
        cwd: '/tmp/acp-interop/workspace/app',
        output: 'written by codex\n',
        exitStatus: { exitCode: 0, signal: null },
      },
    );
  });

  const recordings = fs.existsSync(FIXTURES) ? fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl')) : [];

  it('has recordings of the reference agent and of the real agents of the interop tier', () => {
    for (const name of [
      'reference-agent.jsonl',
      'claude-agent-acp-0.49.0.jsonl',
      'claude-agent-acp-0.49.0-load.jsonl',
      'sdk-v1-example.jsonl',
      'codex-acp-2.6.0.jsonl',
    ]) {
      assert.ok(recordings.includes(name), `test/fixtures/updates/${name}`);
    }
  });

  for (const file of recordings) {
    it(`folds every recorded update of ${file} without losing any`, () => {
      const raw = fs
        .readFileSync(path.join(FIXTURES, file), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const thread = newThread();
      const view = new WebviewModel();
      const updates: acp.SessionUpdate[] = [];
      /** Per announced tool call (a `tool_call`, or the first update of an unseen id), in order: the last status sent. */
      const calls: Array<{ id: string; status: string | undefined }> = [];
      const current = new Map<string, { id: string; status: string | undefined }>();
      for (const line of raw) {
        if ('$stopReason' in line) {
          thread.endTurn(String(line['$stopReason']));
          current.clear();
        } else {
          const u = update(line);
          updates.push(u);
          thread.apply(transcriptEvent(u));
          if (u.sessionUpdate === 'user_message_chunk') current.clear();
          if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') {
            let call = current.get(u.toolCallId);
            if (!call) {
              call = { id: u.toolCallId, status: undefined };
              calls.push(call);
              current.set(u.toolCallId, call);
            }
            call.status = u.status ?? call.status;
          }
        }
        view.receive(thread);
      }
      const entries = thread.snapshot().entries;
      assert.deepEqual(view.entries, entries);
      const textOf = (kind: 'agent_message_chunk' | 'user_message_chunk' | 'agent_thought_chunk') =>
        updates
          .flatMap((u) =>
            (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_thought_chunk') &&
            u.sessionUpdate === kind &&
            u.content.type === 'text'
              ? [u.content.text]
              : [],
          )
          .join('');
      const blocksText = (kind: 'agent' | 'user') =>
        entries.flatMap((e) => (e.kind === kind ? e.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : [])).join('');
      assert.equal(blocksText('agent'), textOf('agent_message_chunk'), 'all agent text arrives, in order');
      assert.equal(blocksText('user'), textOf('user_message_chunk'), 'all replayed user text arrives, in order');
      assert.equal(entries.flatMap((e) => (e.kind === 'thought' ? [e.text] : [])).join(''), textOf('agent_thought_chunk'), 'all thoughts arrive');
      const tools = entries.flatMap((e) => (e.kind === 'tool' ? [e] : []));
      assert.deepEqual(
        tools.map((t) => [t.toolCallId, t.status]),
        calls.map((c) => [c.id, c.status ?? 'pending']),
        'one entry per tool call, with the last status sent',
      );
      assert.deepEqual(
        entries.filter((e) => e.kind === 'unknown'),
        [],
        'every update of a recorded agent is understood',
      );
    });
  }
});
