/**
 * A Sandbox Agent server's agent in the real VS Code: the real `sandbox-agent server` 0.4.2 on 127.0.0.1 serving
 * opencode (from npm, its ACP adapter installed from a registry on loopback, its model the scripted model server),
 * added as a `remote` entry. When opencode dies inside the server and the server stays up, the Agents view says
 * the connection was lost, the agent reconnects (a new opencode), the chat is reopened and answers again, and no
 * prompt fails with the server's "HTTP 502 … Broken pipe" or a hint meant for local agents.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import { SandboxAgentServer } from '../../../src/remote/sandboxAgentServer';
import type { ViewEntry } from '../../../src/shared/chatModel';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { plainAnswer } from '../../interop/modelScript';
import { ModelServer } from '../../interop/modelServer';
import { LoopbackRegistry, SandboxServerProcess } from '../../interop/sandboxAgentServer';
import { activate, waitFor } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const NAME = 'Sandbox opencode';

describe('an agent on a Sandbox Agent server (the real 0.4.2 binary, opencode), in the real extension host', function () {
  this.timeout(240_000);
  let api: TestApi;
  let scratch: string;
  let model: ModelServer;
  let registry: LoopbackRegistry;
  let server: SandboxServerProcess;
  let chat: Chat | undefined;

  const entries = (): ViewEntry[] => chat!.controller.thread.snapshot().entries;
  const lastAgentText = () => {
    const last = entries()
      .filter((e) => e.kind === 'agent')
      .at(-1);
    return last?.kind === 'agent' ? last.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
  };
  async function prompt(text: string): Promise<void> {
    const ends = entries().filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length;
    await api.chats.dispatch(chat!, { type: 'prompt', text, attachments: [] });
    await waitFor(() => entries().filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn for "${text}"`, 90_000);
  }

  before(async () => {
    api = await activate();
    api.setRootsUi(new ScriptedRootsUi());
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-sandbox-agent-')));
    model = await ModelServer.start();
    registry = await LoopbackRegistry.start(scratch);
    server = await SandboxServerProcess.start({ home: path.join(scratch, 'home'), registryUrl: registry.url, modelUrl: model.url });
    await new SandboxAgentServer({ baseUrl: server.url, credentials: {}, allowInsecure: false }).install('opencode');
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    const others = (config.get<unknown[]>('agents') ?? []).filter((a) => (a as { name?: string }).name !== NAME);
    await config.update('agents', [...others, { name: NAME, remote: { url: server.url, sandboxAgent: 'opencode' } }], vscode.ConfigurationTarget.Global);
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the Sandbox Agent entry in the agent list');
    const [started] = await api.starter.newSession({ agentName: NAME, primaryIndex: 0 });
    chat = api.chats.open(started!.session);
  });

  after(async () => {
    chat?.panel.dispose();
    if (api.agents.find(NAME)) await api.agents.stop(NAME);
    api.setRootsUi(undefined);
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    const others = (config.get<unknown[]>('agents') ?? []).filter((a) => (a as { name?: string }).name !== NAME);
    await config.update('agents', others.length > 0 ? others : undefined, vscode.ConfigurationTarget.Global);
    await server?.stop();
    await registry?.close();
    await model?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('answers through the server', async () => {
    await prompt('hello through the sandbox');
    assert.equal(lastAgentText(), plainAnswer('hello through the sandbox'), `model server problems: ${model.problems.join('; ')}\n${server.log}`);
  });

  it('notices opencode dying inside the server that stays up: the connection is lost, the agent reconnects, the chat goes on', async () => {
    const [pid, ...others] = server.agentPids();
    assert.ok(pid !== undefined && others.length === 0, `one agent process under the server: ${[pid, ...others].join(', ')}`);
    process.kill(pid, 'SIGKILL');
    await waitFor(
      () => /^Lost the connection to Sandbox opencode/.test(api.agents.find(NAME)?.message ?? ''),
      'the Agents view to say the connection was lost (it said running)',
      30_000,
    );
    assert.match(api.agents.find(NAME)!.message!, /opencode stopped on the Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+|answered HTTP 502/);
    await waitFor(
      () => api.agents.find(NAME)?.state === 'running' && !chat!.controller.session.connection.isClosed,
      'the agent to reconnect and the chat to be reopened',
      120_000,
    );
    assert.notDeepEqual(server.agentPids(), [pid], 'a new opencode');
    await prompt('after opencode was killed');
    assert.equal(lastAgentText(), plainAnswer('after opencode was killed'));
    const errors = entries().filter((e): e is Extract<ViewEntry, { kind: 'error' }> => e.kind === 'error');
    for (const error of errors) {
      assert.doesNotMatch(error.message, /HTTP 502|Broken pipe/, 'no prompt failed on the dead agent');
      assert.doesNotMatch(error.advice ?? '', /stderr/, 'no hint meant for a local agent');
    }
    const info = entries()
      .filter((e): e is Extract<ViewEntry, { kind: 'info' }> => e.kind === 'info')
      .map((e) => e.text);
    assert.ok(
      info.some((t) => /Session (resumed|reopened)/.test(t)),
      info.join('\n'),
    );
  });
});
