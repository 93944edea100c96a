import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import { activate, addRecordingAgent, waitFor, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

describe('the Sessions view with nothing to list', () => {
  const NAME = 'Empty History Agent';
  let api: TestApi;
  let agent: RecordingAgent;

  before(async () => {
    api = await activate();
    api.setRootsUi(new ScriptedRootsUi());
    await api.grants.set(
      NAME,
      vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath)),
    );
    agent = await addRecordingAgent(NAME);
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent setting');
  });

  after(async () => {
    for (const chat of api.chats.all().filter((c) => c.controller.session.agentName === NAME)) chat.panel.panel.dispose();
    await api.agents.stop(NAME);
    await agent.dispose();
    api.setRootsUi(undefined);
  });

  it("starts a session with the view's agent from the empty list's New Session button", async () => {
    await api.sessionsView.receive({ type: 'settings', seq: 1, settings: { agent: NAME, scope: 'workspace', query: '', showHidden: false } });
    await api.agents.start(NAME);
    // The agent lists nothing: what the view reads when it shows the list's end.
    await waitFor(() => api.history.entries().find((e) => e.name === NAME)?.catalog !== undefined, "the agent's catalog");
    await api.sessionsView.loadMore(NAME);
    await waitFor(() => api.sessionsView.model.compute().count === 0, 'an empty list of the running agent');
    assert.equal(api.sessionsView.model.compute().empty, 'No sessions with exactly this workspace’s folders yet. “These folders” and “All” show more.');
    await api.sessionsView.receive({ type: 'newSession', agentName: NAME });
    await waitFor(() => api.chats.all().some((c) => c.controller.session.agentName === NAME), 'a chat with the agent');
    assert.ok(agent.received().some((m) => m.method === 'session/new'));
  });
});
