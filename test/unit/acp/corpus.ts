/**
 * A corpus of valid and invalid params and results for every ACP method this client knows.
 * "valid" examples must be accepted by our zod schemas AND by the official JSON Schema; "invalid" ones
 * must be rejected by both (tolerance beyond the official schema is tested separately).
 */
import * as acp from '../../../src/acp/schema';

export interface Examples {
  readonly valid: readonly unknown[];
  readonly invalid: readonly unknown[];
}

export interface CorpusEntry {
  readonly definition: acp.RequestDefinition | acp.NotificationDefinition;
  /** Who handles the message: 'agent' (client → agent), 'client' (agent → client), 'protocol' (both). */
  readonly side: 'agent' | 'client' | 'protocol';
  readonly params: Examples;
  readonly result?: Examples;
  /**
   * Why the official JSON Schema cannot check this method: it was unstable and the current schema dropped it
   * (the examples then follow the last published shape, and the test asserts the official schema still lacks it).
   */
  readonly retired?: string;
}

const meta = { _meta: { 'vendor.example/trace': 'abc' } };
const setupResult = {
  modes: {
    currentModeId: 'code',
    availableModes: [
      { id: 'code', name: 'Code' },
      { id: 'ask', name: 'Ask', description: 'Questions only' },
    ],
  },
  configOptions: [
    { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'fast', options: [{ value: 'fast', name: 'Fast' }] },
    { id: 'think', name: 'Think', type: 'boolean', currentValue: false },
  ],
};
/** The unstable `models` block (retired from the current schema, still sent by opencode and Sandbox Agent). */
const modelsResult = {
  models: {
    currentModelId: 'fast',
    availableModels: [
      { modelId: 'fast', name: 'Fast' },
      { modelId: 'smart', name: 'Smart', description: 'Slower, better', _meta: {} },
    ],
  },
};
const toolCallUpdate = { toolCallId: 'call_1', title: 'Edit file', kind: 'edit', status: 'pending' };

export const corpus: readonly CorpusEntry[] = [
  {
    definition: acp.InitializeMethod,
    side: 'agent',
    params: {
      valid: [
        { protocolVersion: 1 },
        {
          protocolVersion: 1,
          clientCapabilities: {
            fs: { readTextFile: true, writeTextFile: true },
            terminal: true,
            session: { configOptions: { boolean: {} }, notices: {}, compaction: {} },
            auth: { terminal: true },
            elicitation: { form: {} },
          },
          clientInfo: { name: 'acp-workspace', title: 'ACP Workspace', version: '0.1.0' },
          ...meta,
        },
      ],
      invalid: [{}, { protocolVersion: '1' }, { protocolVersion: -1 }, { protocolVersion: 70000 }],
    },
    result: {
      valid: [
        { protocolVersion: 1 },
        {
          protocolVersion: 1,
          agentCapabilities: {
            loadSession: true,
            promptCapabilities: { image: true, audio: false, embeddedContext: true },
            mcpCapabilities: { http: true, sse: false },
            sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {}, fork: {} },
            auth: { logout: {} },
          },
          authMethods: [
            { id: 'api-key', name: 'API key', description: 'Use ANTHROPIC_API_KEY' },
            { type: 'terminal', id: 'login', name: 'Log in', args: ['--login'], env: { MODE: 'tui' } },
          ],
          agentInfo: { name: 'agent', version: '2.0.0' },
        },
      ],
      invalid: [{}, { protocolVersion: 'one' }, null],
    },
  },
  {
    definition: acp.AuthenticateMethod,
    side: 'agent',
    params: { valid: [{ methodId: 'api-key' }], invalid: [{}, { methodId: 3 }] },
    result: { valid: [{}, meta], invalid: [] },
  },
  {
    definition: acp.LogoutMethod,
    side: 'agent',
    params: { valid: [{}], invalid: [] },
    result: { valid: [{}], invalid: [] },
  },
  {
    definition: acp.SessionNewMethod,
    side: 'agent',
    params: {
      valid: [
        { cwd: '/work/app', mcpServers: [] },
        {
          cwd: '/work/app',
          additionalDirectories: ['/work/lib', '/work/docs'],
          mcpServers: [
            { name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/work'], env: [{ name: 'TOKEN', value: 'x' }] },
            { type: 'http', name: 'web', url: 'https://mcp.example.com', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
            { type: 'sse', name: 'events', url: 'https://mcp.example.com/sse', headers: [] },
          ],
        },
      ],
      invalid: [
        { mcpServers: [] },
        { cwd: '/work/app' },
        { cwd: 7, mcpServers: [] },
        { cwd: '/a', mcpServers: [], additionalDirectories: [null] },
        { cwd: '/a', mcpServers: [], additionalDirectories: '/b' },
        { cwd: '/a', mcpServers: [{ name: 'broken' }] },
      ],
    },
    result: {
      valid: [{ sessionId: 'sess_1' }, { sessionId: 'sess_1', ...setupResult, ...meta }, { sessionId: 'sess_1', ...modelsResult }],
      invalid: [{}, { sessionId: 5 }, null],
    },
  },
  {
    definition: acp.SessionLoadMethod,
    side: 'agent',
    params: {
      valid: [
        { sessionId: 's', cwd: '/a', mcpServers: [] },
        { sessionId: 's', cwd: '/a', additionalDirectories: [], mcpServers: [] },
      ],
      invalid: [
        { cwd: '/a', mcpServers: [] },
        { sessionId: 's', mcpServers: [] },
        { sessionId: 's', cwd: '/a' },
      ],
    },
    result: { valid: [null, {}, setupResult, { ...setupResult, ...modelsResult }], invalid: [] },
  },
  {
    definition: acp.SessionResumeMethod,
    side: 'agent',
    params: {
      valid: [
        { sessionId: 's', cwd: '/a' },
        { sessionId: 's', cwd: '/a', additionalDirectories: ['/b'], mcpServers: [] },
      ],
      invalid: [{ sessionId: 's' }, { cwd: '/a' }],
    },
    result: { valid: [{}, setupResult, modelsResult], invalid: [] },
  },
  {
    definition: acp.SessionForkMethod,
    side: 'agent',
    params: {
      valid: [{ sessionId: 's', cwd: '/a', additionalDirectories: ['/b', '/c'], mcpServers: [] }],
      invalid: [{ sessionId: 's' }, { sessionId: 1, cwd: '/a' }],
    },
    result: {
      valid: [{ sessionId: 'fork_1' }, { sessionId: 'fork_1', ...setupResult }, { sessionId: 'fork_1', ...modelsResult }],
      invalid: [{}, { sessionId: null }],
    },
  },
  {
    definition: acp.SessionListMethod,
    side: 'agent',
    params: { valid: [{}, { cwd: '/a' }, { cwd: '/a', cursor: 'opaque==' }], invalid: [{ cwd: 1 }, { cursor: {} }] },
    result: {
      valid: [
        { sessions: [] },
        {
          sessions: [
            { sessionId: 's1', cwd: '/a', additionalDirectories: ['/b'], title: 'Fix the build', updatedAt: '2026-11-20T10:00:00Z', ...meta },
            { sessionId: 's2', cwd: '/b' },
          ],
          nextCursor: 'next==',
        },
      ],
      // A missing or malformed `sessions` list is read as empty (the schema's default-on-error).
      invalid: [null, 'sessions'],
    },
  },
  {
    definition: acp.SessionCloseMethod,
    side: 'agent',
    params: { valid: [{ sessionId: 's' }], invalid: [{}, { sessionId: null }] },
    result: { valid: [{}, null], invalid: [] },
  },
  {
    definition: acp.SessionDeleteMethod,
    side: 'agent',
    params: { valid: [{ sessionId: 's' }], invalid: [{}] },
    result: { valid: [{}], invalid: [] },
  },
  {
    definition: acp.SessionSetModeMethod,
    side: 'agent',
    params: { valid: [{ sessionId: 's', modeId: 'ask' }], invalid: [{ sessionId: 's' }, { modeId: 'ask' }] },
    result: { valid: [{}], invalid: [] },
  },
  {
    definition: acp.SessionSetModelMethod,
    side: 'agent',
    retired: 'session/set_model was unstable; the current schema moved models to config options of category "model"',
    params: {
      valid: [
        { sessionId: 's', modelId: 'smart' },
        { sessionId: 's', modelId: 'smart', ...meta },
      ],
      invalid: [{ sessionId: 's' }, { modelId: 'smart' }, { sessionId: 's', modelId: 3 }],
    },
    result: { valid: [{}, null, meta], invalid: [] },
  },
  {
    definition: acp.SessionSetConfigOptionMethod,
    side: 'agent',
    params: {
      valid: [
        { sessionId: 's', configId: 'model', value: 'smart' },
        { sessionId: 's', configId: 'think', type: 'boolean', value: true },
      ],
      invalid: [
        { sessionId: 's', configId: 'model' },
        { sessionId: 's', value: 'x' },
        { sessionId: 's', configId: 'think', value: true },
      ],
    },
    result: { valid: [{ configOptions: setupResult.configOptions }, { configOptions: [] }], invalid: [null] },
  },
  {
    definition: acp.SessionSetTitleMethod,
    side: 'agent',
    params: { valid: [{ sessionId: 's', title: 'Refactor' }], invalid: [{ sessionId: 's' }, { sessionId: 's', title: null }] },
    result: { valid: [{ title: 'Refactor' }], invalid: [] },
  },
  {
    definition: acp.SessionPromptMethod,
    side: 'agent',
    params: {
      valid: [
        { sessionId: 's', prompt: [{ type: 'text', text: 'Hello' }] },
        {
          sessionId: 's',
          prompt: [
            { type: 'text', text: 'Look at these', annotations: { audience: ['user'], priority: 0.5 } },
            { type: 'resource_link', uri: 'file:///a/b.ts', name: 'b.ts', mimeType: 'text/typescript' },
            { type: 'resource', resource: { uri: 'file:///a/c.ts', text: 'const c = 1;', mimeType: 'text/typescript' } },
            { type: 'resource', resource: { uri: 'file:///a/d.bin', blob: 'AAEC' } },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
            { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
          ],
        },
      ],
      invalid: [
        { sessionId: 's' },
        { sessionId: 's', prompt: 'Hello' },
        { sessionId: 's', prompt: [{ type: 'text' }] },
        { sessionId: 's', prompt: [{ type: 'image', data: 'x' }] },
        { sessionId: 's', prompt: [{ type: 'video', uri: 'x' }] },
      ],
    },
    result: {
      valid: [{ stopReason: 'end_turn' }, { stopReason: 'cancelled' }, { stopReason: 'refusal', ...meta }],
      invalid: [{}, { stopReason: 3 }],
    },
  },
  {
    definition: acp.SessionCancelNotification,
    side: 'agent',
    params: { valid: [{ sessionId: 's' }], invalid: [{}] },
  },
  {
    definition: acp.CancelRequestNotification,
    side: 'protocol',
    params: { valid: [{ requestId: 3 }, { requestId: 'req-1' }], invalid: [{}, { requestId: {} }] },
  },
  {
    definition: acp.SessionUpdateNotification,
    side: 'client',
    params: {
      valid: [
        { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' }, messageId: 'm1' } },
        { sessionId: 's', update: { sessionUpdate: 'user_message_chunk', content: { type: 'resource_link', uri: 'file:///x', name: 'x' } } },
        { sessionId: 's', update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Hmm' } } },
        {
          sessionId: 's',
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: 'c1',
            title: 'Edit a.ts',
            kind: 'edit',
            status: 'in_progress',
            content: [
              { type: 'diff', path: '/a/a.ts', oldText: 'a', newText: 'b' },
              { type: 'content', content: { type: 'text', text: 'done' } },
              { type: 'terminal', terminalId: 't1' },
            ],
            locations: [{ path: '/a/a.ts', line: 3 }],
            rawInput: { file: 'a.ts' },
          },
        },
        { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', rawOutput: { ok: true } } },
        {
          sessionId: 's',
          update: { sessionUpdate: 'plan', entries: [{ content: 'Step', priority: 'high', status: 'pending' }] },
        },
        {
          sessionId: 's',
          update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'plan', description: 'Plan', input: { hint: 'what' } }] },
        },
        { sessionId: 's', update: { sessionUpdate: 'current_mode_update', currentModeId: 'ask' } },
        { sessionId: 's', update: { sessionUpdate: 'config_option_update', configOptions: setupResult.configOptions } },
        { sessionId: 's', update: { sessionUpdate: 'session_info_update', title: 'Fix', updatedAt: '2026-11-21T10:00:00Z' } },
        { sessionId: 's', update: { sessionUpdate: 'session_info_update', title: null } },
        { sessionId: 's', update: { sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.02, currency: 'USD' } } },
        { sessionId: 's', update: { sessionUpdate: 'notice', severity: 'warning', title: 'Rate limited', description: 'Retrying' } },
        { sessionId: 's', update: { sessionUpdate: 'compaction_update', compactionId: 'k1', status: 'in_progress' } },
        { sessionId: 's', update: { sessionUpdate: 'compaction_summary_chunk', compactionId: 'k1', content: { type: 'text', text: 'Summary' } } },
      ],
      invalid: [{ update: { sessionUpdate: 'plan', entries: [] } }, { sessionId: 's' }, { sessionId: 's', update: 'plan' }, { sessionId: 's', update: {} }],
    },
  },
  {
    definition: acp.RequestPermissionMethod,
    side: 'client',
    params: {
      valid: [
        {
          sessionId: 's',
          toolCall: toolCallUpdate,
          options: [
            { optionId: 'o1', name: 'Allow once', kind: 'allow_once' },
            { optionId: 'o2', name: 'Always', kind: 'allow_always' },
            { optionId: 'o3', name: 'Reject', kind: 'reject_once' },
            { optionId: 'o4', name: 'Never', kind: 'reject_always' },
          ],
        },
      ],
      invalid: [
        { sessionId: 's', options: [] },
        { sessionId: 's', toolCall: {}, options: [] },
        { sessionId: 's', toolCall: toolCallUpdate, options: [{ name: 'x' }] },
      ],
    },
    result: {
      valid: [{ outcome: { outcome: 'cancelled' } }, { outcome: { outcome: 'selected', optionId: 'o1' } }],
      invalid: [{}, { outcome: { outcome: 'selected' } }, { outcome: { outcome: 'maybe' } }],
    },
  },
  {
    definition: acp.ReadTextFileMethod,
    side: 'client',
    params: {
      valid: [
        { sessionId: 's', path: '/a/b.ts' },
        { sessionId: 's', path: '/a/b.ts', line: 10, limit: 20 },
      ],
      invalid: [{ sessionId: 's' }, { sessionId: 's', path: '/a', line: -1 }, { sessionId: 's', path: '/a', limit: 1.5 }],
    },
    result: { valid: [{ content: 'text' }], invalid: [{}, { content: 1 }] },
  },
  {
    definition: acp.WriteTextFileMethod,
    side: 'client',
    params: {
      valid: [{ sessionId: 's', path: '/a/b.ts', content: 'x' }],
      invalid: [
        { sessionId: 's', path: '/a' },
        { path: '/a', content: '' },
      ],
    },
    result: { valid: [{}], invalid: [] },
  },
  {
    definition: acp.TerminalCreateMethod,
    side: 'client',
    params: {
      valid: [
        { sessionId: 's', command: 'npm' },
        { sessionId: 's', command: 'npm', args: ['test'], env: [{ name: 'CI', value: '1' }], cwd: '/a', outputByteLimit: 4096 },
      ],
      invalid: [{ sessionId: 's' }, { sessionId: 's', command: 'npm', args: 'test' }, { sessionId: 's', command: 'x', outputByteLimit: -5 }],
    },
    result: { valid: [{ terminalId: 't1' }], invalid: [{}] },
  },
  {
    definition: acp.TerminalOutputMethod,
    side: 'client',
    params: { valid: [{ sessionId: 's', terminalId: 't1' }], invalid: [{ sessionId: 's' }] },
    result: {
      valid: [
        { output: 'ok', truncated: false },
        { output: '', truncated: true, exitStatus: { exitCode: 0, signal: null } },
      ],
      invalid: [{ output: 'x' }, { truncated: false }],
    },
  },
  {
    definition: acp.TerminalWaitForExitMethod,
    side: 'client',
    params: { valid: [{ sessionId: 's', terminalId: 't1' }], invalid: [{ terminalId: 't1' }] },
    result: { valid: [{ exitCode: 1 }, { signal: 'SIGTERM' }, {}], invalid: [] },
  },
  {
    definition: acp.TerminalKillMethod,
    side: 'client',
    params: { valid: [{ sessionId: 's', terminalId: 't1' }], invalid: [{}] },
    result: { valid: [{}], invalid: [] },
  },
  {
    definition: acp.TerminalReleaseMethod,
    side: 'client',
    params: { valid: [{ sessionId: 's', terminalId: 't1' }], invalid: [{ sessionId: 's', terminalId: 5 }] },
    result: { valid: [{}], invalid: [] },
  },
  {
    definition: acp.ElicitationCreateMethod,
    side: 'client',
    params: {
      valid: [
        {
          sessionId: 's',
          mode: 'form',
          message: 'Which branch?',
          requestedSchema: {
            type: 'object',
            properties: {
              branch: { type: 'string', title: 'Branch', enum: ['main', 'dev'] },
              count: { type: 'integer', minimum: 1 },
              ratio: { type: 'number' },
              force: { type: 'boolean', default: false },
              tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
            },
            required: ['branch'],
          },
        },
        { sessionId: 's', mode: 'url', message: 'Sign in', elicitationId: 'e1', url: 'https://example.com/login' },
      ],
      invalid: [
        { sessionId: 's', mode: 'form', requestedSchema: {} },
        { sessionId: 's', mode: 'url', message: 'x', url: 'https://x' },
      ],
    },
    result: {
      valid: [{ action: 'accept', content: { branch: 'main', count: 2, force: true, tags: ['a'] } }, { action: 'decline' }, { action: 'cancel' }],
      invalid: [{}, { action: 'accept', content: { x: { nested: true } } }],
    },
  },
  {
    definition: acp.ElicitationCompleteNotification,
    side: 'client',
    params: { valid: [{ elicitationId: 'e1' }], invalid: [{}] },
  },
];
