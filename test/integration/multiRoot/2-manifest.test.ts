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
    const viewIds = Object.values(manifest.contributes.views)
      .flat()
      .map((v) => `${v.id}.`);
    const registered = (await vscode.commands.getCommands(true))
      .filter((c) => c.startsWith('acpWorkspace.') && !viewIds.some((prefix) => c.startsWith(prefix)))
      .sort();
    assert.deepEqual(registered, contributed);
    for (const command of manifest.contributes.commands) assert.equal(command.category, 'ACP', `${command.command} is in the ACP category`);
  });

  it('links its welcome content and walkthrough only to commands VS Code has', async () => {
    const contributes = (
      extension().packageJSON as {
        contributes: { viewsWelcome: Array<{ contents: string }>; walkthroughs: Array<{ steps: Array<{ description: string; completionEvents: string[] }> }> };
      }
    ).contributes;
    const texts = [...contributes.viewsWelcome.map((w) => w.contents), ...contributes.walkthroughs.flatMap((w) => w.steps.map((s) => s.description))];
    const linked = new Set(texts.flatMap((text) => [...text.matchAll(/\]\(command:([\w.-]+)/g)].map((m) => m[1]!)));
    const onCommand = contributes.walkthroughs.flatMap((w) =>
      w.steps.flatMap((s) => s.completionEvents.filter((e) => e.startsWith('onCommand:')).map((e) => e.slice('onCommand:'.length))),
    );
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      [...linked, ...onCommand].filter((command) => !registered.has(command)),
      [],
    );
    assert.ok(linked.has('workbench.trust.manage') && linked.has('acpWorkspace.newSession'));
  });

  it('lists the agents when the workspace is trusted and has folders', async () => {
    const api = await activate();
    assert.ok(api.agentsView.getChildren().length >= 4);
  });

  it('obeys no setting a workspace must not set: the fixture asks for a 1 GiB message limit, sharing everything, its own agent and MCP server', async () => {
    const file = vscode.workspace.workspaceFile;
    assert.ok(file);
    const asked = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
    for (const key of ['maxMessageSizeMiB', 'shareAllWorkspaceFolders', 'agents', 'defaultAgent', 'mcpServers'])
      assert.match(asked, new RegExp(`"acpWorkspace\\.${key}"`));
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    assert.equal(config.get('maxMessageSizeMiB'), 32);
    assert.equal(config.get('shareAllWorkspaceFolders'), false);
    // Only the user settings' agent (the launcher's reference agent), not the workspace's.
    assert.deepEqual(
      config.get<Array<{ name: string }>>('agents')?.map((a) => a.name),
      ['Reference Agent (offline)'],
    );
    assert.equal(config.get('defaultAgent'), '');
    assert.deepEqual(config.get('mcpServers'), []);
    const api = await activate();
    assert.equal(api.agents.find('Workspace Agent'), undefined, 'no agent from the workspace');
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
