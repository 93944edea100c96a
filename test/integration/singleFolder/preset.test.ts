import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activate } from '../shared/extension';

describe('a single-folder workspace', () => {
  it('opens one folder', () => {
    assert.deepEqual(
      vscode.workspace.workspaceFolders?.map((f) => f.name),
      ['single'],
    );
    assert.equal(vscode.workspace.workspaceFile, undefined);
  });

  it('runs the offline Reference Agent from the user settings (as the demo does)', async () => {
    const api = await activate();
    const connection = await api.agents.start('Reference Agent (offline)');
    assert.equal(connection.caps.agentInfo?.name, 'reference-agent');
    const { sessionId } = await connection.newSession({ cwd: vscode.workspace.workspaceFolders![0]!.uri.fsPath, mcpServers: [] });
    const end = await connection.startTurn({ sessionId, prompt: [{ type: 'text', text: 'hello' }] }).ended;
    assert.deepEqual(end, { reason: 'stopped', stopReason: 'end_turn' });
    await api.agents.stop('Reference Agent (offline)');
    assert.equal(api.agents.find('Reference Agent (offline)')?.state, 'stopped');
  });
});
