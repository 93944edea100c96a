import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import { startFailureText, type StartFailure } from '../../../src/process/startFailure';
import { FAIL_NEW_SESSION_DETAILS, FAIL_NEW_SESSION_STDERR } from '../../fixtures/referenceAgent/faults';
import { activate, addRecordingAgent, waitFor, type RecordingAgent } from '../shared/extension';

const NAME = 'Failing Agent';
const CHAT_AGENT = 'Stderr Agent';

describe('an agent that fails to start a session says why, in its own words', function () {
  this.timeout(60_000);
  let api: TestApi;
  let agent: RecordingAgent;
  const shown: StartFailure[] = [];

  before(async () => {
    api = await activate();
    const folders = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath));
    await api.grants.set(NAME, folders);
    await api.grants.set(CHAT_AGENT, folders);
    agent = await addRecordingAgent(NAME, ['--fault', 'fail-new-session']);
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent setting');
    api.setStartFailureUi({
      show: (failure) => {
        shown.push(failure);
        return Promise.resolve(undefined);
      },
    });
  });

  after(async () => {
    api.setStartFailureUi(undefined);
    await api.agents.stop(NAME);
    await agent.dispose();
  });

  it('a failed turn shows in the chat with the agent’s last stderr lines, the likely cause and the actions', async () => {
    const chatAgent = await addRecordingAgent(CHAT_AGENT);
    try {
      await waitFor(() => api.agents.find(CHAT_AGENT) !== undefined, 'the agent setting');
      const [started] = await api.starter.newSession({ agentName: CHAT_AGENT });
      const chat = api.chats.open(started!.session);
      await api.chats.dispatch(chat, { type: 'prompt', text: 'fail-with-stderr', attachments: [] });
      const errorEntry = () => chat.controller.thread.snapshot().entries.find((e) => e.kind === 'error');
      await waitFor(() => errorEntry() !== undefined, 'the error entry', 30_000);
      const error = errorEntry();
      assert.ok(error?.kind === 'error');
      assert.match(error.message, new RegExp(FAIL_NEW_SESSION_DETAILS));
      for (const line of FAIL_NEW_SESSION_STDERR) assert.ok(error.said?.includes(line), `the chat quotes “${line}”: ${JSON.stringify(error.said)}`);
      assert.match(error.advice ?? '', /network connection, or the proxy/);
      assert.deepEqual(error.actions, ['restart', 'showLog', 'openSettings']);
      chat.panel.dispose();
    } finally {
      await api.agents.stop(CHAT_AGENT);
      await chatAgent.dispose();
    }
  });

  it('New Session shows what failed, the agent’s last stderr lines and error details, the likely cause and the actions', async () => {
    const started = await vscode.commands.executeCommand<unknown[]>('acpWorkspace.newSession', NAME);
    assert.deepEqual(started, []);
    assert.equal(shown.length, 1, 'one notification');
    const failure = shown[0]!;
    assert.equal(failure.agent, NAME);
    assert.match(failure.summary, /rejected session\/new/);
    assert.match(failure.summary, new RegExp(FAIL_NEW_SESSION_DETAILS), 'the error’s data.details');
    for (const line of FAIL_NEW_SESSION_STDERR)
      assert.ok(failure.agentWords.includes(line), `the agent’s words include “${line}”: ${JSON.stringify(failure.agentWords)}`);
    assert.equal(failure.cause, 'network');
    assert.match(failure.advice ?? '', /network.*proxy/);
    assert.deepEqual(failure.actions, ['restart', 'showLog', 'openSettings']);
    const text = startFailureText(failure, 3);
    assert.match(text, /Failing Agent said: .*ECONNREFUSED 127\.0\.0\.1:9/, 'the notification’s text quotes the agent');
  });
});
