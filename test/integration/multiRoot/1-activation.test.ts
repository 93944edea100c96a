import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activate, extension } from '../shared/extension';

describe('activation', () => {
  it('activates in the real extension host and returns the test API in Extension Test mode', async () => {
    const api = await activate();
    assert.ok(extension().isActive);
    assert.ok(api.agents.list().length >= 5, 'the presets are listed');
  });

  it('declares itself a workspace extension with lazy activation', () => {
    const manifest = extension().packageJSON as { extensionKind: string[]; activationEvents: string[]; engines: { vscode: string } };
    assert.deepEqual(manifest.extensionKind, ['workspace']);
    // Views and commands activate by their contributions; a chat tab restored after a reload needs its own.
    assert.deepEqual(manifest.activationEvents, ['onWebviewPanel:acpWorkspace.chat']);
    assert.equal(manifest.engines.vscode, '^1.100.0');
    assert.equal(vscode.version, '1.100.3', 'the tests run on the VS Code the engines field targets');
  });
});
