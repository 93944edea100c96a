import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activate, extension } from '../shared/extension';

interface Manifest {
  contributes: {
    views: Record<string, Array<{ id: string }>>;
    commands: Array<{ command: string; category?: string; title: string }>;
    configuration: { properties: Record<string, { default: unknown; scope?: string }> };
  };
}

describe('contributions', () => {
  before(() => activate());

  it('registers every contributed command, and contributes every command it registers', async () => {
    const manifest = extension().packageJSON as Manifest;
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    // VS Code itself adds `<viewId>.focus`, `.open`… for every contributed view: those are not ours to register.
    const viewIds = Object.values(manifest.contributes.views).flat().map((v) => `${v.id}.`);
    const registered = (await vscode.commands.getCommands(true))
      .filter((c) => c.startsWith('acpWorkspace.') && !viewIds.some((prefix) => c.startsWith(prefix)))
      .sort();
    assert.deepEqual(registered, contributed);
    for (const command of manifest.contributes.commands) assert.equal(command.category, 'ACP', `${command.command} is in the ACP category`);
  });

  it('has the documented setting defaults, and agents are machine-scoped', () => {
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    assert.deepEqual(config.inspect('agents')?.defaultValue, []);
    assert.equal(config.inspect('defaultAgent')?.defaultValue, '');
    assert.equal(config.inspect('trace')?.defaultValue, 'off');
    assert.equal(config.inspect('maxMessageSizeMiB')?.defaultValue, 32);
    const properties = (extension().packageJSON as Manifest).contributes.configuration.properties;
    assert.equal(properties['acpWorkspace.agents']?.scope, 'machine', 'a workspace cannot choose programs to run');
    assert.ok(Object.keys(properties).every((key) => key.startsWith('acpWorkspace.')));
  });
});
