import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LocalSessionIndex } from '../../../src/history/localIndex';
import { activate, addRecordingAgent, extension, isAlive, waitFor } from '../shared/extension';

describe('deactivation (runs last)', () => {
  it('stops every agent process and writes the session history: no agent is left and every change is on disk after deactivate()', async () => {
    const api = await activate();
    const agent = await addRecordingAgent('Short-lived Agent', ['--fault', 'spawn-child,ignore-stdin-close']);
    await waitFor(() => api.agents.find('Short-lived Agent') !== undefined, 'the setting');
    await api.agents.start('Short-lived Agent');
    const pid = api.agents.find('Short-lived Agent')!.process!.pid!;
    assert.ok(isAlive(pid));

    // A session renamed just before the window reloads, and another one renamed while the agents stop (as a
    // chat's last words arrive then): the history writes a moment after each change, and the reload must not
    // lose either.
    const cwd = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    for (const sessionId of ['renamed_before', 'renamed_while_stopping']) api.history.index.record({ agentName: 'Short-lived Agent', sessionId, cwd });
    api.history.index.setLocal('Short-lived Agent', 'renamed_before', { localTitle: 'Renamed just before the reload' });
    const stopping = api.agents.onDidChange(() => {
      if (api.agents.find('Short-lived Agent')?.state !== 'stopped') return;
      stopping.dispose();
      api.history.index.setLocal('Short-lived Agent', 'renamed_while_stopping', { localTitle: 'Renamed while the agents stopped' });
    });

    // The same module instance VS Code loaded: call its real deactivate().
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const main = require(path.join(extension().extensionPath, 'dist', 'extension.js')) as { deactivate(): Promise<void> };
    await main.deactivate();
    assert.equal(isAlive(pid), false, 'the agent process is gone');
    // What the next window reads.
    const stored = new LocalSessionIndex(api.history.index['dir'] as string);
    assert.equal(stored.get('Short-lived Agent', 'renamed_before')?.localTitle, 'Renamed just before the reload');
    assert.equal(stored.get('Short-lived Agent', 'renamed_while_stopping')?.localTitle, 'Renamed while the agents stopped');
    await agent.dispose();
  });
});
