import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { activate, addRecordingAgent, extension, isAlive, waitFor } from '../shared/extension';

describe('deactivation (runs last)', () => {
  it('stops every agent process: none is left after deactivate()', async () => {
    const api = await activate();
    const agent = await addRecordingAgent('Short-lived Agent', ['--fault', 'spawn-child,ignore-stdin-close']);
    await waitFor(() => api.agents.find('Short-lived Agent') !== undefined, 'the setting');
    await api.agents.start('Short-lived Agent');
    const pid = api.agents.find('Short-lived Agent')!.process!.pid!;
    assert.ok(isAlive(pid));
    // The same module instance VS Code loaded: call its real deactivate().
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const main = require(path.join(extension().extensionPath, 'dist', 'extension.js')) as { deactivate(): Promise<void> };
    await main.deactivate();
    assert.equal(isAlive(pid), false, 'the agent process is gone');
    await agent.dispose();
  });
});
