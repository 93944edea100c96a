import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import { activate, addRecordingAgent, assertConforms, waitFor, type RecordingAgent } from '../shared/extension';

describe('an agent from settings, in the real extension host', () => {
  let api: TestApi;
  let agent: RecordingAgent;

  before(async () => {
    api = await activate();
    agent = await addRecordingAgent('Recording Agent');
    await waitFor(() => api.agents.find('Recording Agent') !== undefined, 'the new setting to be picked up');
  });

  after(async () => {
    await api.agents.stop('Recording Agent');
    await agent.dispose();
  });

  it('starts from the ACP: Start Agent command and completes initialize', async () => {
    await vscode.commands.executeCommand('acpWorkspace.startAgent', 'Recording Agent');
    const status = api.agents.find('Recording Agent');
    assert.equal(status?.state, 'running');
    const [initialize] = agent.received().filter((m) => m.method === 'initialize');
    assert.ok(initialize, 'the agent received initialize');
    assert.equal(initialize.params?.['protocolVersion'], 1);
    assert.deepEqual(initialize.params?.['clientInfo'], {
      name: 'acp-workspace',
      title: 'ACP Workspace',
      version: String(vscode.extensions.getExtension('acp-workspace.acp-workspace')!.packageJSON.version),
    });
    assert.deepEqual(
      initialize.params?.['clientCapabilities'],
      {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        auth: { terminal: true },
        session: { configOptions: { boolean: {} }, notices: {}, compaction: {} },
      },
      'exactly what the extension serves: fs through the session roots, terminals, sign-in in a terminal, and what the chat renders',
    );
    assert.equal(status?.process?.caps?.agentInfo?.name, 'reference-agent');
  });

  it('creates a session: the agent receives session/new with an absolute cwd and no extra fields', async () => {
    const connection = await api.agents.start('Recording Agent');
    const cwd = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const { sessionId } = await connection.newSession({ cwd, mcpServers: [] });
    assert.match(sessionId, /\S/);
    const [newSession] = agent.received().filter((m) => m.method === 'session/new');
    assert.deepEqual(newSession?.params, { cwd, mcpServers: [] });
    const end = await connection.startTurn({ sessionId, prompt: [{ type: 'text', text: 'hello from the integration tests' }] }).ended;
    assert.deepEqual(end, { reason: 'stopped', stopReason: 'end_turn' });
    const [prompt] = agent.received().filter((m) => m.method === 'session/prompt');
    assert.deepEqual(prompt?.params, { sessionId, prompt: [{ type: 'text', text: 'hello from the integration tests' }] });
  });

  it('sent only messages that conform to the ACP JSON Schema', () => {
    const received = agent.received();
    assert.ok(received.length >= 3);
    assertConforms(received);
  });

  it('shows an agent from the settings in the Agents view with its command line once (the tooltip repeated it)', () => {
    const status = api.agents.find('Recording Agent');
    assert.ok(status);
    const tooltip = api.agentsView.getTreeItem(status).tooltip;
    assert.ok(tooltip instanceof vscode.MarkdownString);
    const text = tooltip.value.replace(/\\(.)/g, '$1'); // as shown: markdown escapes removed
    const script = 'args' in status.definition ? status.definition.args[0]! : '';
    assert.equal(text.split(script).length - 1, 1, text);
    assert.match(text, /from the acpWorkspace\.agents setting/);
  });
});
