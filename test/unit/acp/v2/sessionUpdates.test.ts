import * as assert from 'node:assert/strict';
import { ToolCallUpdate } from '../../../../src/acp/v2/schema';
import { readV2SessionUpdate, v2ToolCallPatch, type V2UpdateRead } from '../../../../src/acp/v2/sessionUpdates';
import { recordedUpdates, v2SchemaViolations } from './v2Schema';

const S = 'sess-1';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const t = (event: unknown) => ({ kind: 'transcript', event }) as V2UpdateRead;

/** One of each v2 update variant (nulls, open values, unknown variants included) and what it reads to. */
const HAND_WRITTEN: ReadonlyArray<{ readonly name: string; readonly update: Record<string, unknown>; readonly reads: readonly V2UpdateRead[] }> = [
  {
    name: 'user_message_chunk',
    update: { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: { type: 'text', text: 'hi' } },
    reads: [t({ type: 'messageAppend', role: 'user', messageId: 'u1', content: { type: 'text', text: 'hi' } })],
  },
  {
    name: 'user_message (whole)',
    update: {
      sessionUpdate: 'user_message',
      messageId: 'u1',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
      ],
    },
    reads: [
      t({
        type: 'messageUpsert',
        role: 'user',
        messageId: 'u1',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'link', uri: 'file:///w/a.ts', name: 'a.ts' },
        ],
      }),
    ],
  },
  {
    name: 'user_message with content null (cleared)',
    update: { sessionUpdate: 'user_message', messageId: 'u1', content: null },
    reads: [t({ type: 'messageUpsert', role: 'user', messageId: 'u1', content: null })],
  },
  {
    name: 'agent_message_chunk of an image',
    update: { sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'image', mimeType: 'image/png', data: 'AAA' } },
    reads: [t({ type: 'messageAppend', role: 'agent', messageId: 'a1', content: { type: 'image', mimeType: 'image/png', data: 'AAA' } })],
  },
  {
    name: 'agent_message without content (unchanged)',
    update: { sessionUpdate: 'agent_message', messageId: 'a1', _meta: { k: 1 } },
    reads: [t({ type: 'messageUpsert', role: 'agent', messageId: 'a1' })],
  },
  {
    name: 'agent_thought_chunk',
    update: { sessionUpdate: 'agent_thought_chunk', messageId: 'th1', content: { type: 'text', text: 'hmm' }, _meta: null },
    reads: [t({ type: 'messageAppend', role: 'thought', messageId: 'th1', content: { type: 'text', text: 'hmm' } })],
  },
  {
    name: 'agent_thought with []',
    update: { sessionUpdate: 'agent_thought', messageId: 'th1', content: [] },
    reads: [t({ type: 'messageUpsert', role: 'thought', messageId: 'th1', content: [] })],
  },
  {
    name: 'an unknown content block in a chunk',
    update: { sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: '_hologram', depth: 3 } },
    reads: [t({ type: 'messageAppend', role: 'agent', messageId: 'a1', content: { type: 'unknown', tag: '_hologram', raw: { type: '_hologram', depth: 3 } } })],
  },
  {
    name: 'state_update running',
    update: { sessionUpdate: 'state_update', state: 'running', background: [] },
    reads: [{ kind: 'turn', signal: { state: 'running' } }],
  },
  {
    name: 'state_update requires_action',
    update: { sessionUpdate: 'state_update', state: 'requires_action' },
    reads: [{ kind: 'turn', signal: { state: 'requires_action' } }],
  },
  {
    name: 'state_update idle with a stop reason',
    update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
    reads: [{ kind: 'turn', signal: { state: 'idle', stopReason: 'end_turn' } }],
  },
  {
    name: 'state_update idle with an error',
    update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: { code: -32603, message: 'model failed' } },
    reads: [{ kind: 'turn', signal: { state: 'idle', stopReason: 'error' } }],
  },
  {
    name: 'state_update idle, stopReason null',
    update: { sessionUpdate: 'state_update', state: 'idle', stopReason: null },
    reads: [{ kind: 'turn', signal: { state: 'idle' } }],
  },
  {
    name: 'state_update of a future state',
    update: { sessionUpdate: 'state_update', state: '_waiting_for_quota' },
    reads: [{ kind: 'turn', signal: { state: 'unknown', raw: { sessionUpdate: 'state_update', state: '_waiting_for_quota' } } }],
  },
  {
    name: 'tool_call_update creating a call',
    update: {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'tc1',
      name: 'Read',
      title: 'Read a.ts',
      kind: 'read',
      status: 'in_progress',
      content: [{ type: 'content', content: { type: 'text', text: 'x' } }],
      locations: [{ path: '/w/a.ts', line: 3 }, { path: '/w/b.ts' }],
      rawInput: { path: '/w/a.ts' },
      capabilities: { cancel: {} },
    },
    reads: [
      t({
        type: 'toolCallUpsert',
        call: {
          toolCallId: 'tc1',
          title: 'Read a.ts',
          kind: 'read',
          status: 'in_progress',
          content: [{ type: 'content', content: { type: 'text', text: 'x' } }],
          locations: [{ path: '/w/a.ts', line: 3 }, { path: '/w/b.ts' }],
          rawInput: { path: '/w/a.ts' },
        },
      }),
    ],
  },
  {
    name: 'tool_call_update clearing with nulls',
    update: {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'tc1',
      title: null,
      kind: null,
      status: null,
      content: null,
      locations: null,
      rawInput: null,
      _meta: null,
    },
    reads: [t({ type: 'toolCallUpsert', call: { toolCallId: 'tc1', title: null, kind: null, status: null, content: null, locations: null, rawInput: null } })],
  },
  {
    name: 'tool_call_update of an open kind and status',
    update: { sessionUpdate: 'tool_call_update', toolCallId: 'tc2', kind: '_browse', status: 'paused' },
    reads: [t({ type: 'toolCallUpsert', call: { toolCallId: 'tc2', kind: '_browse', status: 'paused' } })],
  },
  {
    name: 'tool_call_content_chunk of a diff',
    update: {
      sessionUpdate: 'tool_call_content_chunk',
      toolCallId: 'tc1',
      content: {
        type: 'diff',
        changes: [
          { operation: 'modify', path: '/w/a.ts', fileType: 'text' },
          { operation: 'move', oldPath: '/w/b.ts', path: '/w/c.ts' },
        ],
        patch: { format: 'git_patch', text: '--- a/a.ts\n+++ b/a.ts\n' },
      },
    },
    reads: [
      t({
        type: 'toolCallAppend',
        toolCallId: 'tc1',
        content: {
          type: 'patch',
          changes: [
            { operation: 'modify', path: '/w/a.ts' },
            { operation: 'move', path: '/w/c.ts', oldPath: '/w/b.ts' },
          ],
          patch: { format: 'git_patch', text: '--- a/a.ts\n+++ b/a.ts\n' },
        },
      }),
    ],
  },
  {
    name: 'tool_call_content_chunk of a terminal',
    update: { sessionUpdate: 'tool_call_content_chunk', toolCallId: 'tc3', content: { type: 'terminal', terminalId: 'term1' } },
    reads: [t({ type: 'toolCallAppend', toolCallId: 'tc3', content: { type: 'terminal', terminalId: 'term1' } })],
  },
  {
    name: 'tool_call_content_chunk of an unknown kind of content',
    update: { sessionUpdate: 'tool_call_content_chunk', toolCallId: 'tc3', content: { type: '_chart', points: [1, 2] } },
    reads: [t({ type: 'toolCallAppend', toolCallId: 'tc3', content: { type: 'unknown', tag: '_chart', raw: { type: '_chart', points: [1, 2] } } })],
  },
  {
    name: 'terminal_update',
    update: {
      sessionUpdate: 'terminal_update',
      terminalId: 'term1',
      command: 'npm test',
      cwd: '/w',
      output: { data: b64('ok\n') },
      exitStatus: { exitCode: 0, signal: null },
      size: { cols: 80, rows: 24 },
      capabilities: { cancel: {} },
    },
    reads: [
      t({
        type: 'agentTerminal',
        report: { terminalId: 'term1', command: 'npm test', cwd: '/w', output: 'ok\n', outputReplaces: true, exitStatus: { exitCode: 0, signal: null } },
      }),
    ],
  },
  {
    name: 'terminal_update clearing with nulls',
    update: { sessionUpdate: 'terminal_update', terminalId: 'term1', command: null, cwd: null, output: null, exitStatus: null },
    reads: [t({ type: 'agentTerminal', report: { terminalId: 'term1' } })],
  },
  {
    name: 'terminal_output_chunk',
    update: { sessionUpdate: 'terminal_output_chunk', terminalId: 'term1', data: b64('more ✓') },
    reads: [t({ type: 'agentTerminal', report: { terminalId: 'term1', output: 'more ✓' } })],
  },
  {
    name: 'plan_update',
    update: {
      sessionUpdate: 'plan_update',
      plan: { type: 'items', planId: 'p1', entries: [{ content: 'Read', priority: 'high', status: 'in_progress' }] },
    },
    reads: [t({ type: 'plan', planId: 'p1', entries: [{ content: 'Read', priority: 'high', status: 'in_progress' }] })],
  },
  {
    name: 'plan_update of a future kind of plan',
    update: { sessionUpdate: 'plan_update', plan: { type: '_markdown', planId: 'p2', text: '# Plan' } },
    reads: [t({ type: 'unknown', tag: 'plan_update/_markdown', raw: { type: '_markdown', planId: 'p2', text: '# Plan' } })],
  },
  {
    name: 'available_commands_update',
    update: {
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { type: 'command', name: 'review', description: 'Review', input: { type: 'text', hint: 'what' } },
        { type: '_macro', name: 'macro', description: 'A macro' },
      ],
    },
    reads: [
      t({
        type: 'commands',
        commands: [
          { name: 'review', description: 'Review', hint: 'what' },
          { name: 'macro', description: 'A macro' },
        ],
      }),
    ],
  },
  {
    name: 'config_option_update',
    update: {
      sessionUpdate: 'config_option_update',
      configOptions: [
        {
          configId: 'model',
          name: 'Model',
          category: 'model',
          type: 'select',
          currentValue: 'a',
          options: [{ groupId: 'g', name: 'Fast', options: [{ value: 'a', name: 'A', description: null }] }],
        },
        { configId: 'think', name: 'Think', type: 'boolean', currentValue: true, description: 'Think more' },
        { configId: 'x', name: 'X', type: '_slider', min: 0 },
      ],
    },
    reads: [
      t({
        type: 'configOptions',
        options: [
          { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'a', options: [{ value: 'a', name: 'A', group: 'Fast' }] },
          { id: 'think', name: 'Think', description: 'Think more', type: 'boolean', currentValue: true },
        ],
      }),
    ],
  },
  {
    name: 'session_info_update clearing the title',
    update: { sessionUpdate: 'session_info_update', title: null, updatedAt: null },
    reads: [t({ type: 'sessionInfo', title: null })],
  },
  {
    name: 'usage_update clearing the cost',
    update: { sessionUpdate: 'usage_update', used: 5, size: 100, cost: null },
    reads: [t({ type: 'usage', used: 5, size: 100, cost: null, costPatch: true })],
  },
  {
    name: 'notice without a description',
    update: { sessionUpdate: 'notice', severity: 'info', title: 'Heads up', description: null },
    reads: [t({ type: 'notice', severity: 'info', title: 'Heads up' })],
  },
  {
    name: 'compaction_update with its summary',
    update: { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed', summary: [{ type: 'text', text: 'Short.' }], error: null },
    reads: [
      t({ type: 'compaction', compactionId: 'c1', status: 'completed', upsert: true }),
      t({ type: 'messageUpsert', role: 'thought', messageId: 'compaction:c1', content: [{ type: 'text', text: 'Short.' }] }),
    ],
  },
  {
    name: 'compaction_summary_chunk',
    update: { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: { type: 'text', text: ' More.' } },
    reads: [t({ type: 'messageAppend', role: 'thought', messageId: 'compaction:c1', content: { type: 'text', text: ' More.' } })],
  },
  { name: 'replay_complete', update: { sessionUpdate: 'replay_complete' }, reads: [{ kind: 'replayComplete' }] },
  {
    name: 'an extension variant',
    update: { sessionUpdate: '_vendor_progress', percent: 40 },
    reads: [t({ type: 'unknown', tag: '_vendor_progress', raw: { sessionUpdate: '_vendor_progress', percent: 40 } })],
  },
  {
    name: 'a future variant',
    update: { sessionUpdate: 'subagent_update', subagentId: 'x' },
    reads: [t({ type: 'unknown', tag: 'subagent_update', raw: { sessionUpdate: 'subagent_update', subagentId: 'x' } })],
  },
];

describe('ACP v2 session/update → transcript events and turn signals', () => {
  it('every update of the corpus (both recordings and one of each variant) is valid under the official v2 schema', () => {
    const corpus = [
      ...recordedUpdates('wire-claude-0.101-v2.jsonl'),
      ...recordedUpdates('wire-codex-2.6.0-v2.jsonl'),
      ...HAND_WRITTEN.map((c) => ({ sessionId: S, update: c.update })),
    ];
    assert.ok(corpus.length > 80, `${corpus.length} updates`);
    const problems = corpus.flatMap((params) =>
      v2SchemaViolations('UpdateSessionNotification', params).map((p) => `${JSON.stringify(params.update).slice(0, 120)}: ${p}`),
    );
    assert.deepEqual(problems, []);
  });

  for (const c of HAND_WRITTEN) {
    it(`reads ${c.name}`, () => {
      const read = readV2SessionUpdate({ sessionId: S, update: c.update });
      assert.ok(read.ok);
      assert.equal(read.sessionId, S);
      assert.deepEqual(read.reads, c.reads);
    });
  }

  it('reads every update of both recordings, none as unknown', () => {
    for (const file of ['wire-claude-0.101-v2.jsonl', 'wire-codex-2.6.0-v2.jsonl']) {
      for (const params of recordedUpdates(file)) {
        const read = readV2SessionUpdate(params);
        assert.ok(read.ok, file);
        for (const r of read.reads) assert.ok(r.kind !== 'transcript' || r.event.type !== 'unknown', `${file}: ${JSON.stringify(params.update).slice(0, 200)}`);
      }
    }
  });

  it('a text chunk read by hand reads as the schema reads it, and one the schema would refuse takes the schema’s way', () => {
    const update = { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: 'a', annotations: { priority: 'high' } }, extra: 1 };
    assert.deepEqual(readV2SessionUpdate({ sessionId: S, update }), {
      ok: true,
      sessionId: S,
      reads: [t({ type: 'messageAppend', role: 'agent', messageId: 'm', content: { type: 'text', text: 'a' } })],
    });
    // v2 chunks name their message: without a messageId the update is invalid, kept as unknown with the reason.
    const invalid = readV2SessionUpdate({ sessionId: S, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } });
    assert.ok(invalid.ok);
    const [only] = invalid.reads;
    assert.equal(only?.kind, 'transcript');
    assert.ok(
      only?.kind === 'transcript' && only.event.type === 'unknown' && only.event.tag === 'agent_message_chunk' && /messageId/.test(only.event.error ?? ''),
    );
    assert.notDeepEqual(
      v2SchemaViolations('UpdateSessionNotification', { sessionId: S, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } }),
      [],
    );
  });

  it('a permission request’s tool call reads to the same patch as a tool_call_update (the client applies it before it asks)', () => {
    const toolCall = { toolCallId: 'tc1', title: 'Edit a.ts', kind: 'edit', status: null, locations: [{ path: '/w/a.ts', line: 'x' }] };
    assert.deepEqual(v2SchemaViolations('ToolCallUpdate', toolCall).length > 0, true, 'a line that is not a number is invalid under the schema');
    const valid = { ...toolCall, locations: [{ path: '/w/a.ts' }] };
    assert.deepEqual(v2SchemaViolations('ToolCallUpdate', valid), []);
    assert.deepEqual(v2ToolCallPatch(ToolCallUpdate.parse(valid)), {
      toolCallId: 'tc1',
      title: 'Edit a.ts',
      kind: 'edit',
      status: null,
      locations: [{ path: '/w/a.ts' }],
    });
    // Tolerant where the schema says so: a malformed optional line reads as no line.
    assert.deepEqual(v2ToolCallPatch(ToolCallUpdate.parse(toolCall)).locations, [{ path: '/w/a.ts' }]);
  });

  it('never throws: params without a sessionId are an error, an update that is not an object is unknown', () => {
    for (const params of [undefined, null, 'x', [], { update: { sessionUpdate: 'replay_complete' } }, { sessionId: 7, update: {} }]) {
      const read = readV2SessionUpdate(params);
      assert.equal(read.ok, false, JSON.stringify(params));
      assert.ok(!read.ok && read.error instanceof Error);
    }
    for (const update of [undefined, 5, { no: 'tag' }]) {
      const read = readV2SessionUpdate({ sessionId: S, update });
      assert.ok(read.ok);
      assert.equal(read.reads.length, 1);
      assert.ok(read.reads[0]?.kind === 'transcript' && read.reads[0].event.type === 'unknown' && read.reads[0].event.tag === '');
    }
  });
});
