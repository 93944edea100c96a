import * as assert from 'node:assert/strict';
import * as acp from '../../../src/acp/schema';
import { validateAgainstOfficialSchema } from '../../helpers/conformance';
import { corpus } from './corpus';

const kindOf = (definition: acp.RequestDefinition | acp.NotificationDefinition) => (definition.kind === 'request' ? 'Request' : 'Notification');

describe('ACP schemas: corpus per method (ours and the official JSON Schema agree)', () => {
  it('covers every method definition this client knows', () => {
    const known = [...acp.clientToAgentRequests, ...acp.agentToClientRequests].map((d) => d.method);
    const covered = new Set(corpus.map((entry) => entry.definition.method));
    for (const method of known) assert.ok(covered.has(method), `${method} has no corpus entry`);
  });

  for (const entry of corpus) {
    const { definition, side } = entry;
    // A retired method cannot be cross-checked: the official schema must still lack it (else check it there).
    const official = (method: string, kind: 'Request' | 'Response' | 'Notification', example: unknown): string[] =>
      entry.retired ? [] : validateAgainstOfficialSchema(method, side, kind, example);
    const officialRejects = (method: string, kind: 'Request' | 'Notification', example: unknown): boolean =>
      entry.retired !== undefined || validateAgainstOfficialSchema(method, side, kind, example).length > 0;
    describe(`${definition.method} (${definition.direction})`, () => {
      if (entry.retired) {
        it(`is still absent from the official schema (${entry.retired})`, () => {
          assert.deepEqual(validateAgainstOfficialSchema(definition.method, side, kindOf(definition), {}), [
            `the official schema has no ${kindOf(definition)} for ${definition.method}`,
          ]);
        });
      }
      entry.params.valid.forEach((example, i) => {
        it(`accepts valid params #${i + 1}`, () => {
          const parsed = definition.params.safeParse(example);
          assert.ok(parsed.success, parsed.success ? '' : acp.formatIssues(parsed.error.issues));
          assert.deepEqual(official(definition.method, kindOf(definition), example), []);
        });
      });
      entry.params.invalid.forEach((example, i) => {
        it(`rejects invalid params #${i + 1}: ${JSON.stringify(example).slice(0, 60)}`, () => {
          assert.equal(definition.params.safeParse(example).success, false, 'our schema accepted it');
          assert.ok(officialRejects(definition.method, kindOf(definition), example), 'the official schema accepted it');
        });
      });
      if (definition.kind === 'request' && entry.result) {
        const { result } = definition;
        entry.result.valid.forEach((example, i) => {
          it(`accepts valid result #${i + 1}`, () => {
            const parsed = result.safeParse(example);
            assert.ok(parsed.success, parsed.success ? '' : acp.formatIssues(parsed.error.issues));
            // `null` for an empty result is tolerated by us (real agents send it) but is not in the schema.
            if (example !== null) assert.deepEqual(official(definition.method, 'Response', example), []);
          });
        });
        entry.result.invalid.forEach((example, i) => {
          it(`rejects invalid result #${i + 1}: ${JSON.stringify(example)?.slice(0, 60)}`, () => {
            assert.equal(result.safeParse(example).success, false);
          });
        });
      }
    });
  }
});

describe('ACP schemas: tolerant reading', () => {
  it('reads the unstable models of a setup answer: bad models skipped, a bad block marked invalid, the rest kept', () => {
    const good = acp.NewSessionResponse.parse({
      sessionId: 's',
      models: { currentModelId: 'a', availableModels: [{ modelId: 'a', name: 'A', future: 1 }, { modelId: 7 }, { name: 'no id' }], future: true },
    });
    assert.ok(!(good.models instanceof acp.InvalidModels));
    assert.deepEqual(
      good.models?.availableModels.map((m) => m.modelId),
      ['a'],
    );
    const bad = acp.NewSessionResponse.parse({ sessionId: 's', models: { availableModels: [] }, modes: { currentModeId: 'x', availableModes: [] } });
    assert.ok(bad.models instanceof acp.InvalidModels);
    assert.match(bad.models.issues, /currentModelId/);
    assert.equal(bad.modes?.currentModeId, 'x');
    assert.equal(acp.LoadSessionResponse.parse({ models: null }).models, undefined);
    const many = Array.from({ length: 250 }, (_, i) => ({ modelId: `m${i}`, name: `M${i}` }));
    const bounded = acp.ResumeSessionResponse.parse({ models: { currentModelId: 'm0', availableModels: many } }).models;
    assert.ok(bounded && !(bounded instanceof acp.InvalidModels));
    assert.equal(bounded.availableModels.length, 200);
  });

  const update = (u: Record<string, unknown>) => acp.SessionNotification.parse({ sessionId: 's', update: u }).update;

  it('preserves unknown fields and _meta on messages and nested objects', () => {
    const parsed = acp.SessionNotification.parse({
      sessionId: 's',
      futureTopLevel: 1,
      _meta: { a: 1 },
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x', futureField: 'y', _meta: { b: 2 } } },
    }) as Record<string, unknown>;
    assert.equal(parsed['futureTopLevel'], 1);
    assert.deepEqual(parsed['_meta'], { a: 1 });
    const content = (parsed['update'] as { content: Record<string, unknown> }).content;
    assert.equal(content['futureField'], 'y');
    assert.deepEqual(content['_meta'], { b: 2 });
  });

  it('keeps an unknown session/update variant as $unknown with its raw payload', () => {
    const u = update({ sessionUpdate: 'future_variant_xyz', payload: [1, 2] });
    assert.equal(u.sessionUpdate, '$unknown');
    if (u.sessionUpdate !== '$unknown') return;
    assert.equal(u.tag, 'future_variant_xyz');
    assert.deepEqual(u.raw, { sessionUpdate: 'future_variant_xyz', payload: [1, 2] });
    assert.equal(u.error, undefined);
  });

  it('keeps a known variant that fails validation as $unknown with the reason', () => {
    const u = update({ sessionUpdate: 'tool_call', title: 'no id' });
    assert.equal(u.sessionUpdate, '$unknown');
    if (u.sessionUpdate !== '$unknown') return;
    assert.equal(u.tag, 'tool_call');
    assert.match(u.error ?? '', /toolCallId/);
  });

  it('does not reject a message for an unknown enum value', () => {
    const u = update({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 't', kind: 'teleport', status: 'paused' });
    assert.equal(u.sessionUpdate, 'tool_call');
    if (u.sessionUpdate !== 'tool_call') return;
    assert.equal(u.kind, 'teleport');
    assert.equal(u.status, 'paused');
    assert.equal(acp.PromptResponse.parse({ stopReason: 'error' }).stopReason, 'error');
    const permission = acp.RequestPermissionRequest.parse({
      sessionId: 's',
      toolCall: { toolCallId: 'c' },
      options: [{ optionId: 'x', name: 'Allow for this project', kind: 'allow_project' }],
    });
    assert.equal(permission.options[0]!.kind, 'allow_project');
  });

  it('reverts a wrongly typed optional field to absent instead of rejecting (default on error)', () => {
    const u = update({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 't', status: 42, locations: 'nowhere', _meta: 'x' });
    assert.equal(u.sessionUpdate, 'tool_call');
    if (u.sessionUpdate !== 'tool_call') return;
    assert.equal(u.status, undefined);
    assert.deepEqual(u.locations, []);
    assert.equal(u._meta, undefined);
  });

  it('skips invalid items of lists the schema marks as skippable, keeping the rest', () => {
    const u = update({
      sessionUpdate: 'available_commands_update',
      availableCommands: [{ name: 'ok', description: 'fine' }, { name: 'no description' }, 7],
    });
    assert.equal(u.sessionUpdate, 'available_commands_update');
    if (u.sessionUpdate !== 'available_commands_update') return;
    assert.deepEqual(
      u.availableCommands.map((c) => c.name),
      ['ok'],
    );
    const list = acp.ListSessionsResponse.parse({ sessions: [{ sessionId: 'a', cwd: '/a' }, { cwd: '/b' }] });
    assert.deepEqual(
      list.sessions.map((s) => s.sessionId),
      ['a'],
    );
  });

  it('keeps unknown content and tool content types as $unknown instead of rejecting the update', () => {
    const u = update({ sessionUpdate: 'agent_message_chunk', content: { type: 'hologram', data: 'x' } });
    assert.equal(u.sessionUpdate, 'agent_message_chunk');
    if (u.sessionUpdate !== 'agent_message_chunk') return;
    assert.equal(u.content.type, '$unknown');
    const call = update({
      sessionUpdate: 'tool_call',
      toolCallId: 'c',
      title: 't',
      content: [
        { type: 'map', x: 1 },
        { type: 'diff', path: '/a', newText: 'n' },
      ],
    });
    if (call.sessionUpdate !== 'tool_call') return assert.fail('tool_call expected');
    assert.deepEqual(
      call.content?.map((c) => c.type),
      ['$unknown', 'diff'],
    );
  });

  it('distinguishes "unchanged" (absent) from "cleared" (null) in session_info_update', () => {
    const cleared = update({ sessionUpdate: 'session_info_update', title: null });
    const unchanged = update({ sessionUpdate: 'session_info_update', updatedAt: '2026-01-01T00:00:00Z' });
    assert.ok(cleared.sessionUpdate === 'session_info_update' && cleared.title === null);
    assert.ok(unchanged.sessionUpdate === 'session_info_update' && !('title' in unchanged));
  });

  it('reads capability objects: {} supported, null/absent not, true tolerated as supported', () => {
    const init = acp.InitializeResponse.parse({
      protocolVersion: 1,
      agentCapabilities: { sessionCapabilities: { list: {}, resume: null, close: true, delete: 'yes' } },
    });
    const sessions = init.agentCapabilities.sessionCapabilities;
    assert.deepEqual(sessions.list, {});
    assert.equal(sessions.resume, null);
    assert.deepEqual(sessions.close, {});
    assert.equal(sessions.delete, undefined);
    assert.equal(init.agentCapabilities.loadSession, false);
    assert.deepEqual(init.authMethods, []);
  });

  it('reads an auth method without a type as an agent method', () => {
    const init = acp.InitializeResponse.parse({
      protocolVersion: 1,
      authMethods: [
        { id: 'k', name: 'Key' },
        { type: 'terminal', id: 't', name: 'Login' },
      ],
    });
    assert.deepEqual(
      init.authMethods.map((m) => m.type),
      ['agent', 'terminal'],
    );
  });

  it('reads a null session/load or close result as an empty object', () => {
    assert.deepEqual(acp.SessionLoadMethod.result.parse(null), {});
    assert.deepEqual(acp.SessionCloseMethod.result.parse(undefined), {});
  });

  it('formats zod issues as readable "path: message" text', () => {
    const parsed = acp.ReadTextFileRequest.safeParse({ sessionId: 's', path: 5 });
    assert.equal(parsed.success, false);
    if (parsed.success) return;
    assert.match(acp.formatIssues(parsed.error.issues), /^path: .*expected string/);
  });
});
