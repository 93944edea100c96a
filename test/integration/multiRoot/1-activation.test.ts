import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activate, addRecordingAgent, extension, waitFor } from '../shared/extension';

interface Manifest {
  contributes: { commands: Array<{ command: string }> };
}

describe('activation', () => {
  // First in the suite: nothing has used the extension yet, so its core is not loaded.
  it('activates without loading its core; a command run then loads it and gets its arguments, and settings changed before are in effect', async () => {
    const entry = await extension().activate();
    assert.ok(entry, 'the extension returns its test entry in the Extension Test mode');
    assert.equal(entry.coreLoaded, false, 'activation alone does not load the core');
    const contributed = (extension().packageJSON as Manifest).contributes.commands.map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      contributed.filter((command) => !registered.has(command)),
      [],
      'every command is there before the core loads',
    );

    // A setting the core reads when it is composed, changed while it is not loaded.
    const early = await addRecordingAgent('Agent Added Before The Core');
    try {
      assert.equal(entry.coreLoaded, false);
      const asked: unknown[] = [];
      // A session as the command gets it (from the chat header or the Agents view), of a session nothing knows.
      const session = {
        agentName: early.name,
        sessionId: 'not-a-known-session',
        rootSet: { cwd: { path: '/tmp', name: 'tmp' }, additionalDirectories: [] },
        withdrawn: [],
        markStale: (stale: unknown) => asked.push(stale),
      };
      await vscode.commands.executeCommand('acpWorkspace.keepSessionFolders', session);
      assert.equal(entry.coreLoaded, true, 'the command loaded the core');
      assert.deepEqual(asked, [undefined], 'the real command ran once, with the argument given to the stand-in');
      const api = entry.core();
      await waitFor(() => api.agents.find(early.name) !== undefined, 'the agent added to the settings before the core loaded');
      const after = new Set(await vscode.commands.getCommands(true));
      assert.deepEqual(
        contributed.filter((command) => !after.has(command)),
        [],
        'every command is there once the core registered its own',
      );
    } finally {
      await early.dispose();
    }
  });

  it('activates in the real extension host and returns the test API in Extension Test mode', async () => {
    const api = await activate();
    assert.ok(extension().isActive);
    assert.ok(api.agents.list().length >= 5, 'the presets are listed');
  });

  it('declares itself a workspace extension with lazy activation', () => {
    const manifest = extension().packageJSON as { extensionKind: string[]; activationEvents: string[]; engines: { vscode: string } };
    assert.deepEqual(manifest.extensionKind, ['workspace']);
    // Views and commands activate by their contributions; the tabs restored after a reload need their own.
    assert.deepEqual(manifest.activationEvents, [
      'onWebviewPanel:acpWorkspace.chat',
      'onWebviewPanel:acpWorkspace.review',
      'onWebviewPanel:acpWorkspace.agentGallery',
    ]);
    assert.equal(manifest.engines.vscode, '^1.100.0');
    assert.equal(vscode.version, '1.100.3', 'the tests run on the VS Code the engines field targets');
  });
});
