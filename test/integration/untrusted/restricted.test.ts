import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activate, extension } from '../shared/extension';

describe('an untrusted workspace (Restricted Mode)', () => {
  it('is untrusted, and the extension still activates with limited support', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    await activate();
    const manifest = extension().packageJSON as { capabilities: { untrustedWorkspaces: { supported: string; description: string } } };
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.match(manifest.capabilities.untrustedWorkspaces.description, /not started in Restricted Mode/);
  });

  it('starts no agent, and says why', async () => {
    const api = await activate();
    await assert.rejects(api.agents.start('Reference Agent (offline)'), /not started in Restricted Mode: an agent runs programs and reads and writes files/);
    assert.equal(api.agents.find('Reference Agent (offline)')?.process, undefined, 'no process was spawned');
    await assert.rejects(api.starter.newSession({ agentName: 'Reference Agent (offline)' }), /Restricted Mode/);
    assert.equal(api.sessions.all().length, 0);
  });

  it('shows no agents in the Agents view, so its welcome content says why and offers Manage Workspace Trust', async () => {
    const api = await activate();
    assert.deepEqual(api.agentsView.getChildren(), []);
    const welcome = (extension().packageJSON as { contributes: { viewsWelcome: Array<{ view: string; when: string; contents: string }> } }).contributes
      .viewsWelcome;
    assert.match(
      welcome.find((w) => w.view === 'acpWorkspace.agents' && w.when === '!isWorkspaceTrusted')?.contents ?? '',
      /\[Manage Workspace Trust\]\(command:workbench\.trust\.manage\)/,
    );
    assert.ok((await vscode.commands.getCommands(true)).includes('workbench.trust.manage'));
  });
});
