import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { ViewEntry } from '../../../src/shared/chatModel';
import { activate, addRecordingAgent, waitFor, type RecordingAgent } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';
import { UPSERT_FINAL } from '../../fixtures/referenceAgent/v2/turn';

const NAME = 'Agent over ACP v2';

/**
 * An agent whose entry chooses ACP v2 (`"protocol": "v2"`), in the real extension host: the reference agent speaks
 * both versions and answers v2. What the user sees is the same as over v1; the Agents view says which version it
 * speaks and what guards the files, since v2 has no client file system.
 */
describe('an agent over ACP v2 (an entry’s protocol, the real extension host)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let agent: RecordingAgent;
  const ui = new ScriptedRootsUi();

  before(async () => {
    api = await activate();
    // Only the primary folder: no folder question.
    ui.consent = () => [];
    api.setRootsUi(ui);
    agent = await addRecordingAgent(NAME, [], { protocol: 'v2' });
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent setting');
    await api.grants.set(NAME, []);
  });
  after(async () => {
    api.setRootsUi(undefined);
    for (const tab of api.chats.all()) if (tab.controller.session.agentName === NAME) tab.panel.dispose();
    await api.agents.stop(NAME);
    await agent.dispose();
  });

  it('speaks v2 when its entry says so, and the Agents view says what guards the files', async () => {
    const connection = await api.agents.start(NAME);
    assert.equal(connection.caps.protocolVersion, 2);
    assert.equal(agent.received().find((m) => m.method === 'initialize')?.params?.['protocolVersion'], 2);
    const tooltip = api.agentsView.getTreeItem(api.agents.find(NAME)!).tooltip;
    assert.ok(tooltip instanceof vscode.MarkdownString);
    const text = tooltip.value.replace(/\\(.)/g, '$1');
    assert.match(
      text,
      /Speaks ACP v2\. It reads and writes files and runs commands itself \(ACP v2 has no client file system\), so the folder guard does not apply/,
    );
    assert.match(text, /reopen with history \(session\/resume with replayFrom\)/);
  });

  it('a chat over v2 shows the prompt once (though the agent echoes it), the streamed answer replaced whole, and the turn’s end', async () => {
    const [started] = await api.starter.newSession({ agentName: NAME, primaryIndex: 0 });
    const chat = api.chats.open(started!.session);
    await api.chats.dispatch(chat, { type: 'prompt', text: 'upsert', attachments: [] });
    const entries = (): ViewEntry[] => chat.controller.thread.snapshot().entries;
    await waitFor(() => entries().some((e) => e.kind === 'turnEnd'), 'the turn’s end');
    const kinds = entries()
      .filter((e) => e.kind === 'user' || e.kind === 'agent' || e.kind === 'turnEnd')
      .map((e) => e.kind);
    assert.deepEqual(kinds, ['user', 'agent', 'turnEnd']);
    const answer = entries().find((e) => e.kind === 'agent');
    assert.deepEqual(answer?.kind === 'agent' ? answer.blocks : undefined, [{ type: 'text', text: UPSERT_FINAL }]);
    assert.equal(chat.controller.thread.session.status, 'idle');
  });
});
