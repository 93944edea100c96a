import * as assert from 'node:assert/strict';
import * as acp from '../../../../src/acp/schema';
import { transcriptEvent, toolCallChange } from '../../../../src/acp/v1/transcriptEvents';

/** Parses an update the way the connection does (zod, tolerant), then maps it as the v1 adapter does. */
function event(raw: Record<string, unknown>) {
  return transcriptEvent(acp.SessionNotification.parse({ sessionId: 's', update: raw }).update);
}

describe('ACP v1 → transcript events', () => {
  it('maps message chunks by role, with their messageId when they have one', () => {
    assert.deepEqual(event({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } }), {
      type: 'message',
      role: 'user',
      content: { type: 'text', text: 'hi' },
    });
    assert.deepEqual(event({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'a' } }), {
      type: 'message',
      role: 'agent',
      messageId: 'm1',
      content: { type: 'text', text: 'a' },
    });
    assert.deepEqual(
      event({ sessionUpdate: 'agent_thought_chunk', messageId: null, content: { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' } }),
      {
        type: 'message',
        role: 'thought',
        content: { type: 'link', uri: 'file:///w/a.ts', name: 'a.ts' },
      },
    );
  });

  it('maps every kind of content, an unknown one kept with what the agent sent', () => {
    const content = (block: Record<string, unknown>) => {
      const mapped = event({ sessionUpdate: 'agent_message_chunk', content: block });
      assert.equal(mapped.type, 'message');
      return mapped.type === 'message' ? mapped.content : undefined;
    };
    assert.deepEqual(content({ type: 'image', mimeType: 'image/png', data: 'AAA', uri: null }), { type: 'image', mimeType: 'image/png', data: 'AAA' });
    assert.deepEqual(content({ type: 'audio', mimeType: 'audio/wav', data: 'AAA' }), { type: 'audio', mimeType: 'audio/wav' });
    assert.deepEqual(content({ type: 'resource', resource: { uri: 'file:///w/a', text: 'x', mimeType: 'text/plain' } }), {
      type: 'resource',
      uri: 'file:///w/a',
      text: 'x',
      mimeType: 'text/plain',
    });
    assert.deepEqual(content({ type: 'resource', resource: { uri: 'file:///w/b', blob: 'AAA' } }), { type: 'resource', uri: 'file:///w/b' });
    assert.deepEqual(content({ type: 'hologram', depth: 3 }), { type: 'unknown', tag: 'hologram', raw: { type: 'hologram', depth: 3 } });
  });

  it('maps a tool call and its update, with diffs, terminals and locations, absent fields left out', () => {
    assert.deepEqual(
      event({
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: 'Edit a.ts',
        kind: 'edit',
        status: 'pending',
        content: [
          { type: 'diff', path: '/w/a.ts', oldText: null, newText: 'x' },
          { type: 'terminal', terminalId: 'term-1' },
          { type: 'content', content: { type: 'text', text: 'ok' } },
        ],
        locations: [{ path: '/w/a.ts', line: 2 }, { path: '/w/b.ts' }],
        rawInput: { path: '/w/a.ts' },
      }),
      {
        type: 'toolCall',
        isNew: true,
        call: {
          toolCallId: 't1',
          title: 'Edit a.ts',
          kind: 'edit',
          status: 'pending',
          content: [
            { type: 'diff', path: '/w/a.ts', newText: 'x' },
            { type: 'terminal', terminalId: 'term-1' },
            { type: 'content', content: { type: 'text', text: 'ok' } },
          ],
          locations: [{ path: '/w/a.ts', line: 2 }, { path: '/w/b.ts' }],
          rawInput: { path: '/w/a.ts' },
          agentTerminals: [],
        },
      },
    );
    assert.deepEqual(event({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }), {
      type: 'toolCall',
      isNew: false,
      call: { toolCallId: 't1', status: 'completed', agentTerminals: [] },
    });
  });

  it("maps pi-acp's and codex-acp's `_meta` terminal reports to the call's agent terminals", () => {
    const mapped = event({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      _meta: {
        terminal_info: { terminal_id: 'c1', cwd: '/w/app' },
        terminal_output_delta: { terminal_id: 'c1', data: 'out\n' },
        terminal_exit: { terminal_id: 'c1', exit_code: 0, signal: null },
      },
    });
    assert.deepEqual(mapped.type === 'toolCall' && mapped.call.agentTerminals, [
      { terminalId: 'c1', cwd: '/w/app', output: 'out\n', exitStatus: { exitCode: 0, signal: null } },
    ]);
  });

  it('maps the session state updates', () => {
    assert.deepEqual(event({ sessionUpdate: 'plan', entries: [{ content: 'Read', priority: 'high', status: 'pending' }] }), {
      type: 'plan',
      entries: [{ content: 'Read', priority: 'high', status: 'pending' }],
    });
    assert.deepEqual(
      event({
        sessionUpdate: 'available_commands_update',
        availableCommands: [
          { name: 'web', description: 'Search', input: { hint: 'query' } },
          { name: 'plan', description: 'Plan', input: null },
        ],
      }),
      {
        type: 'commands',
        commands: [
          { name: 'web', description: 'Search', hint: 'query' },
          { name: 'plan', description: 'Plan' },
        ],
      },
    );
    assert.deepEqual(event({ sessionUpdate: 'current_mode_update', currentModeId: 'ask' }), { type: 'currentMode', modeId: 'ask' });
    assert.deepEqual(event({ sessionUpdate: 'session_info_update', title: 'Fix' }), { type: 'sessionInfo', title: 'Fix' });
    assert.deepEqual(event({ sessionUpdate: 'session_info_update', title: null }), { type: 'sessionInfo', title: null });
    assert.deepEqual(event({ sessionUpdate: 'session_info_update', _meta: { codex: {} } }), { type: 'sessionInfo' });
    assert.deepEqual(event({ sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount: 0.5, currency: 'USD' } }), {
      type: 'usage',
      used: 1,
      size: 2,
      cost: { amount: 0.5, currency: 'USD' },
    });
    assert.deepEqual(event({ sessionUpdate: 'notice', severity: 'warning', title: 'Slow' }), { type: 'notice', severity: 'warning', title: 'Slow' });
    assert.deepEqual(event({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'failed', error: 'full' }), {
      type: 'compaction',
      compactionId: 'k',
      status: 'failed',
      error: 'full',
    });
    assert.deepEqual(event({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'k', content: { type: 'text', text: 'S' } }), {
      type: 'compactionSummary',
      compactionId: 'k',
      content: { type: 'text', text: 'S' },
    });
  });

  it('maps config options, groups flattened, kinds the client does not render left out', () => {
    const mapped = event({
      sessionUpdate: 'config_option_update',
      configOptions: [
        {
          id: 'model',
          name: 'Model',
          category: 'model',
          type: 'select',
          currentValue: 'a',
          options: [{ group: 'fast', name: 'Fast', options: [{ value: 'a', name: 'A', description: 'quick' }] }],
        },
        { id: 'think', name: 'Think', type: 'boolean', currentValue: true },
        { id: 'slider', name: 'Slider', type: 'range', currentValue: 3 },
      ],
    });
    assert.deepEqual(mapped, {
      type: 'configOptions',
      options: [
        {
          id: 'model',
          name: 'Model',
          category: 'model',
          type: 'select',
          currentValue: 'a',
          options: [{ value: 'a', name: 'A', description: 'quick', group: 'Fast' }],
        },
        { id: 'think', name: 'Think', type: 'boolean', currentValue: true },
      ],
    });
  });

  it('keeps an unknown update, and a known one that does not validate, with the reason', () => {
    assert.deepEqual(event({ sessionUpdate: 'plan_update', steps: 2 }), {
      type: 'unknown',
      tag: 'plan_update',
      raw: { sessionUpdate: 'plan_update', steps: 2 },
    });
    const invalid = event({ sessionUpdate: 'usage_update', used: 'many' });
    assert.equal(invalid.type, 'unknown');
    assert.ok(invalid.type === 'unknown' && invalid.tag === 'usage_update' && typeof invalid.error === 'string');
  });

  it("maps a permission request's tool call like a tool call update", () => {
    const request = acp.RequestPermissionMethod.params.parse({
      sessionId: 's',
      toolCall: { toolCallId: 't9', title: 'Run ls', kind: 'execute' },
      options: [{ optionId: 'y', name: 'Yes', kind: 'allow_once' }],
    });
    assert.deepEqual(toolCallChange(request.toolCall), { toolCallId: 't9', title: 'Run ls', kind: 'execute', agentTerminals: [] });
  });
});
