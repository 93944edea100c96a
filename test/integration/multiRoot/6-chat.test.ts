import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { OutsideFileQuestion } from '../../../src/sessions/ports';
import type { ViewEntry } from '../../../src/shared/chatModel';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';
import { activate, addRecordingAgent, assertConforms, waitFor, watchDisposedPanel, type RecordingAgent } from '../shared/extension';

describe('chat sessions in the real extension host', function () {
  this.timeout(60_000);
  let api: TestApi;
  let agent: RecordingAgent;
  let chat: Chat;

  const entries = (): ViewEntry[] => chat.controller.thread.snapshot().entries;
  const received = (method: string) =>
    agent
      .received()
      .filter((m) => m.method === method)
      .map((m) => m.params);
  const lastAgentText = () => {
    const last = entries()
      .filter((e) => e.kind === 'agent')
      .at(-1);
    return last?.kind === 'agent' ? last.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
  };

  async function prompt(text: string): Promise<void> {
    const ends = entries().filter((e) => e.kind === 'turnEnd').length;
    await api.chats.dispatch(chat, { type: 'prompt', text, attachments: [] });
    await waitFor(() => entries().filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn for "${text}"`, 30_000);
  }

  /**
   * Another chat of the Chat Agent whose tab the user closes while the agent waits for a permission;
   * `misuse` records every use of the closed tab.
   */
  async function closeWhileAsking() {
    const [second] = await api.starter.newSession({ agentName: 'Chat Agent' });
    const closed = api.chats.open(second!.session);
    const misuse = watchDisposedPanel(closed.panel.panel);
    void api.chats.dispatch(closed, { type: 'prompt', text: 'permission', attachments: [] });
    await waitFor(() => closed.controller.pendingPermissions === 1, 'the permission request');
    closed.panel.panel.dispose(); // what the tab's close button does
    await waitFor(() => !api.chats.all().includes(closed), 'the chat to close');
    return { closed, misuse };
  }

  before(async () => {
    api = await activate();
    const folders = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath));
    for (const name of ['Chat Agent', 'Locked Agent', 'Terminal Login Agent', 'Load-only Agent', 'Models Agent', 'Thinking Levels Agent'])
      await api.grants.set(name, folders);
    agent = await addRecordingAgent('Chat Agent');
    await waitFor(() => api.agents.find('Chat Agent') !== undefined, 'the agent setting');
    const [started] = await api.starter.newSession({ agentName: 'Chat Agent' });
    chat = api.chats.open(started!.session);
  });

  after(async () => {
    chat?.panel.dispose();
    await api.agents.stop('Chat Agent');
    await agent.dispose();
  });

  it('opens the chat as an editor tab and streams an answer into it, coalescing what it posts', async () => {
    await waitFor(() => chat.panel.visible, 'the chat tab');
    const postsBefore = chat.panel.posts;
    await prompt('stream');
    const streamed = agent.received().length;
    assert.ok(streamed > 0);
    assert.match(lastAgentText(), /# Streaming test[\s\S]*item 1: `value_1`/);
    assert.deepEqual(
      entries()
        .map((e) => e.kind)
        .slice(0, 3),
      ['user', 'agent', 'turnEnd'],
    );
    assert.ok(chat.panel.posts - postsBefore < 50, `${chat.panel.posts - postsBefore} posts for 50 chunks: patches are coalesced`);
  });

  it('approves and rejects permission requests by option kind', async () => {
    const approve = prompt('permission');
    await waitFor(() => chat.controller.pendingPermissions === 1, 'the permission request');
    const pending = entries().find((e) => e.kind === 'permission' && e.state === 'pending')!;
    assert.ok(chat.controller.choosePermissionKind(pending.id, 'allow_once'));
    await approve;
    assert.match(lastAgentText(), /allow_once/);
    const reject = prompt('permission');
    await waitFor(() => chat.controller.pendingPermissions === 1, 'the second permission request');
    const second = entries()
      .filter((e) => e.kind === 'permission')
      .at(-1)!;
    assert.ok(chat.controller.choosePermissionKind(second.id, 'reject_once'));
    await reject;
    const tool = entries()
      .filter((e) => e.kind === 'tool')
      .at(-1);
    assert.equal(tool?.kind === 'tool' && tool.status, 'failed');
  });

  it("opens a tool call's diff in VS Code's native diff editor", async () => {
    await prompt('diff');
    const tool = entries().find((e) => e.kind === 'tool' && e.content.some((c) => c.type === 'diff'))!;
    await api.chats.dispatch(chat, { type: 'openDiff', entryId: tool.id, index: 0 });
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, 'the diff editor');
    const input = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
    assert.equal((await vscode.workspace.openTextDocument(input.original)).getText(), 'Hello, world!\n');
    assert.equal((await vscode.workspace.openTextDocument(input.modified)).getText(), 'Hello, ACP!\n');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it("runs a terminal command in the session's primary folder and shows its output", async () => {
    await prompt('terminal node -e "console.log(process.cwd())"');
    const created = agent.received().filter((m) => typeof (m.result as { terminalId?: unknown } | undefined)?.terminalId === 'string');
    assert.equal(created.length, 1, 'the client answered terminal/create with a terminal id');
    const tool = entries()
      .filter((e) => e.kind === 'tool')
      .at(-1);
    const content = tool?.kind === 'tool' ? tool.content.find((c) => c.type === 'terminal') : undefined;
    assert.ok(content?.type === 'terminal');
    assert.equal(content.output?.trim(), fs.realpathSync.native(vscode.workspace.workspaceFolders![0]!.uri.fsPath));
    assert.equal(content.exitStatus?.exitCode, 0);
  });

  it('shows every terminal the agent starts, also without a tool call; a refused terminal folder shows as a refusal', async () => {
    const wrapped = entries().filter((e) => e.kind === 'terminal');
    assert.ok(wrapped.length > 0 && wrapped.every((e) => e.kind === 'terminal' && e.inToolCall), 'a terminal a tool call shows is shown there only');
    const app = fs.realpathSync.native(vscode.workspace.workspaceFolders![0]!.uri.fsPath);
    const lib = fs.realpathSync.native(vscode.workspace.workspaceFolders![1]!.uri.fsPath);
    await prompt(`run-in ${lib} node -e "console.log(process.cwd())"`);
    assert.match(lastAgentText(), /without a tool call: exit code 0/);
    const own = entries()
      .filter((e) => e.kind === 'terminal')
      .at(-1);
    assert.ok(own?.kind === 'terminal');
    assert.deepEqual(
      [own.command, own.cwd, own.output?.trim(), own.exitStatus?.exitCode, own.inToolCall],
      ['node -e console.log(process.cwd())', lib, lib, 0, false],
    );

    const outside = path.join(path.dirname(app), 'outside');
    await prompt(`run-in ${outside} node -e "console.log(1)"`);
    assert.match(lastAgentText(), /Could not start .*Refused terminal cwd/);
    const refusal = entries()
      .filter((e) => e.kind === 'refusal')
      .at(-1);
    assert.ok(refusal?.kind === 'refusal');
    assert.deepEqual([refusal.operation, refusal.path, refusal.command], ['terminal', outside, 'node -e console.log(1)']);
    assert.match(refusal.message, /is outside this session’s folders/);
    assert.deepEqual(chat.controller.session.refusals.at(-1)?.operation, 'terminal', 'counted with the session’s refusals (Agents view)');
  });

  it('says in the chat that a message over the size limit was discarded: the agent, its size, the limit and its setting', async () => {
    const endsBefore = () => entries().filter((e) => e.kind === 'turnEnd').length;
    const errors = () => entries().filter((e) => e.kind === 'error');
    for (const keyword of ['oversized', 'oversized-unattributed']) {
      const ends = endsBefore();
      const before = errors().length;
      await api.chats.dispatch(chat, { type: 'prompt', text: keyword, attachments: [] });
      await waitFor(() => endsBefore() > ends, `the turn for ${keyword}`, 60_000);
      assert.equal(lastAgentText(), `Echo: ${keyword}`, 'the turn went on');
      assert.equal(errors().length, before + 1, keyword);
    }
    const [attributed, unattributed] = errors()
      .slice(-2)
      .map((e) => (e.kind === 'error' ? e : undefined));
    const size = /^Chat Agent sent a message \(session\/update\) of 33\.0 MiB, over the limit of 32\.0 MiB \(setting acpWorkspace\.maxMessageSizeMiB/;
    assert.match(attributed!.message, size);
    assert.match(attributed!.message, /for this session\. ACP Workspace discarded it/);
    assert.match(unattributed!.message, size);
    assert.match(unattributed!.message, /without being able to tell which of Chat Agent's sessions it was for/);
    assert.deepEqual(attributed!.actions, ['messageSizeSetting', 'showLog']);
    await api.chats.dispatch(chat, { type: 'action', action: 'messageSizeSetting' });
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings', 'the settings editor');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('opens a link or location the agent wrote outside the session’s folders only after a confirmation naming the path', async () => {
    const [app, lib] = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath));
    const secret = path.join(path.dirname(app!), 'outside', 'secret.txt');
    const link = path.join(lib!, 'outside-link');
    const inside = path.join(lib!, 'src', 'greet.ts');
    const asked: OutsideFileQuestion[] = [];
    let answer = false;
    const isOpen = (file: string) =>
      vscode.window.tabGroups.all.some((group) => group.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath === file));
    api.setChatUi({
      confirmOpenOutside: (question) => {
        asked.push(question);
        return Promise.resolve(answer);
      },
    });
    try {
      await api.chats.dispatch(chat, { type: 'openLink', href: pathToFileURL(secret).href });
      await api.chats.dispatch(chat, { type: 'openLink', href: secret });
      await api.chats.dispatch(chat, { type: 'openLocation', path: link });
      assert.deepEqual(
        asked.map((q) => q.path),
        [secret, secret, link],
        'asked each time, naming the path',
      );
      assert.ok(asked.every((q) => q.agentName === 'Chat Agent' && /outside this session’s folders/.test(q.reason)));
      assert.match(asked[2]!.reason, /resolves to .*secret\.txt/, 'the symlink is named with where it leads');
      assert.ok(!isOpen(secret) && !isOpen(link), 'declined: nothing opened');

      await api.chats.dispatch(chat, { type: 'openLink', href: `${pathToFileURL(inside).href}#L2` });
      assert.equal(asked.length, 3, 'a file inside the folders opens without a question');
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, inside);
      assert.equal(vscode.window.activeTextEditor?.selection.active.line, 1);

      answer = true;
      await api.chats.dispatch(chat, { type: 'openLink', href: pathToFileURL(secret).href });
      assert.equal(asked.length, 4);
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, secret, 'opened once the user agreed');
    } finally {
      api.setChatUi(undefined);
      const files = vscode.window.tabGroups.all.flatMap((group) => group.tabs.filter((tab) => tab.input instanceof vscode.TabInputText));
      await vscode.window.tabGroups.close(files);
    }
  });

  it('cancels a running turn', async () => {
    const ends = entries().filter((e) => e.kind === 'turnEnd').length;
    void api.chats.dispatch(chat, { type: 'prompt', text: 'hang', attachments: [] });
    await waitFor(() => chat.controller.isRunning, 'the turn to start');
    await api.chats.dispatch(chat, { type: 'cancel' });
    await waitFor(() => entries().filter((e) => e.kind === 'turnEnd').length > ends, 'the cancelled end');
    const end = entries().at(-1);
    assert.equal(end?.kind === 'turnEnd' && end.stopReason, 'cancelled');
    assert.ok(received('session/cancel').length >= 1);
  });

  it('changes mode and model; the agent sees both', async () => {
    await api.chats.dispatch(chat, { type: 'setMode', modeId: 'architect' });
    await api.chats.dispatch(chat, { type: 'setConfig', configId: 'model', value: 'ref-smart' });
    await api.chats.dispatch(chat, { type: 'setConfig', configId: 'extended_thinking', value: true });
    assert.deepEqual(received('session/set_mode').at(-1), { sessionId: chat.controller.session.sessionId, modeId: 'architect' });
    assert.deepEqual(received('session/set_config_option').at(-1), {
      sessionId: chat.controller.session.sessionId,
      configId: 'extended_thinking',
      type: 'boolean',
      value: true,
    });
    assert.equal(chat.controller.thread.session.modes?.currentModeId, 'architect');
    await prompt('status');
    assert.match(lastAgentText(), /mode architect; model ref-smart; extended thinking on/);
  });

  it('an agent with the unstable models: the chat offers its two models, choosing one sends session/set_model and the agent uses it', async () => {
    const modelsAgent = await addRecordingAgent('Models Agent', ['--models']);
    try {
      await waitFor(() => api.agents.find('Models Agent') !== undefined, 'the agent setting');
      const [started] = await api.starter.newSession({ agentName: 'Models Agent' });
      const own = api.chats.open(started!.session);
      const session = () => own.controller.thread.snapshot().session;
      assert.deepEqual(session().models, {
        currentModelId: 'ref-fast',
        available: [
          { id: 'ref-fast', name: 'Reference Fast', description: undefined },
          { id: 'ref-smart', name: 'Reference Smart', description: undefined },
        ],
      });
      assert.equal(
        session().configOptions.some((o) => o.category === 'model'),
        false,
        'no model config option competes with the models',
      );
      await api.chats.dispatch(own, { type: 'setModel', modelId: 'ref-smart' });
      const sent = modelsAgent
        .received()
        .filter((m) => m.method === 'session/set_model')
        .map((m) => m.params);
      assert.deepEqual(sent, [{ sessionId: own.controller.session.sessionId, modelId: 'ref-smart' }]);
      assert.equal(session().models?.currentModelId, 'ref-smart');
      await api.chats.dispatch(own, { type: 'prompt', text: 'status', attachments: [] });
      const said = () =>
        own.controller.thread
          .snapshot()
          .entries.filter((e) => e.kind === 'agent')
          .map((e) => (e.kind === 'agent' ? e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : ''));
      await waitFor(() => own.controller.thread.session.status === 'idle' && said().some((t) => /model ref-smart/.test(t)), 'the status turn');
      own.panel.dispose();
    } finally {
      await api.agents.stop('Models Agent');
      await modelsAgent.dispose();
    }
  });

  it('an agent offering its modes also as a config option (pi-acp’s thinking levels): one picker, the option’s; choosing sends session/set_config_option', async () => {
    const levelsAgent = await addRecordingAgent('Thinking Levels Agent', ['--modes-option', 'thought_level']);
    try {
      await waitFor(() => api.agents.find('Thinking Levels Agent') !== undefined, 'the agent setting');
      const [started] = await api.starter.newSession({ agentName: 'Thinking Levels Agent' });
      const own = api.chats.open(started!.session);
      const session = () => own.controller.thread.snapshot().session;
      assert.ok(own.controller.session.setup.modes, 'the agent offered modes');
      assert.equal(session().modes, undefined, 'no Mode picker beside the option offering the same choices');
      assert.deepEqual(
        session()
          .configOptions.filter((o) => o.category === 'thought_level')
          .map((o) => o.type === 'select' && [o.id, o.currentValue, o.options.map((c) => c.value)]),
        [['mode', 'code', ['ask', 'code', 'architect']]],
      );
      await api.chats.dispatch(own, { type: 'setConfig', configId: 'mode', value: 'architect' });
      assert.deepEqual(
        levelsAgent
          .received()
          .filter((m) => m.method === 'session/set_config_option')
          .map((m) => m.params),
        [{ sessionId: own.controller.session.sessionId, configId: 'mode', value: 'architect' }],
      );
      assert.equal(levelsAgent.received().filter((m) => m.method === 'session/set_mode').length, 0);
      await api.chats.dispatch(own, { type: 'prompt', text: 'status', attachments: [] });
      const said = () =>
        own.controller.thread
          .snapshot()
          .entries.filter((e) => e.kind === 'agent')
          .map((e) => (e.kind === 'agent' ? e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : ''));
      await waitFor(() => own.controller.thread.session.status === 'idle' && said().some((t) => /mode architect/.test(t)), 'the status turn');
      assert.equal(session().modes, undefined, 'still one picker after the agent said the mode changed');
      own.panel.dispose();
    } finally {
      await api.agents.stop('Thinking Levels Agent');
      await levelsAgent.dispose();
    }
  });

  it('closes a chat tab while its agent waits for a permission: the turn ends, and nothing uses the closed tab', async () => {
    const { closed, misuse } = await closeWhileAsking();
    // The permission is answered "cancelled" and the turn ends after the tab is gone.
    await waitFor(() => closed.controller.thread.snapshot().entries.some((e) => e.kind === 'turnEnd'), 'the cancelled turn to end');
    assert.deepEqual(misuse, [], 'nothing used the closed tab (VS Code throws "Webview is disposed")');
  });

  it('recovers from an agent crash: the transcript stays, the call it crashed in is interrupted, the session is reopened with its complete root list', async () => {
    const before = entries().length;
    await prompt('crash');
    const error = entries().at(-1);
    assert.ok(error?.kind === 'error' && /exited \(exit code 42\)/.test(error.message));
    assert.deepEqual(error?.kind === 'error' && error.actions, ['restart', 'reopen']);
    assert.ok(entries().length > before);
    const tool = entries()
      .filter((e) => e.kind === 'tool')
      .at(-1);
    assert.equal(tool?.kind === 'tool' && tool.status, 'interrupted', 'no tool call is left running');
    await api.chats.dispatch(chat, { type: 'action', action: 'reopen' });
    const resume = received('session/resume').at(-1);
    assert.deepEqual(
      resume?.['additionalDirectories'],
      vscode.workspace.workspaceFolders!.slice(1).map((f) => fs.realpathSync.native(f.uri.fsPath)),
    );
    assert.equal(chat.controller.thread.session.status, 'idle');
    await prompt('hello again');
    assert.equal(lastAgentText(), 'Echo: hello again', JSON.stringify(entries().slice(-4)));
  });

  it('a crash in a chat out of view counts in the badge until the session is back: once the agent restarted and the session was reopened it no longer does (issue 25, item 8)', async () => {
    const document = await vscode.workspace.openTextDocument({ content: 'in front of the chat' });
    await vscode.window.showTextDocument(document, { viewColumn: chat.panel.panel.viewColumn, preview: false });
    await waitFor(() => !chat.panel.visible, 'the chat hidden behind an editor');
    try {
      assert.equal(api.notifications.badge, undefined);
      await prompt('crash');
      await waitFor(() => api.notifications.badge !== undefined, 'the failure counted in the badge');
      assert.match(api.notifications.badge!.tooltip, /the agent failed/);
      await api.chats.dispatch(chat, { type: 'action', action: 'restart' });
      await waitFor(
        () => chat.controller.thread.session.status === 'idle' && !chat.controller.session.connection.isClosed,
        'the agent restarted and the session reopened',
        30_000,
      );
      assert.ok(
        entries().some((e) => e.kind === 'info' && /Session (resumed|reopened)/.test(e.text)),
        'the session was reopened',
      );
      assert.equal(chat.panel.visible, false, 'the chat is still out of view: nobody saw it');
      assert.equal(api.notifications.badge, undefined, 'the failure is over: the badge no longer counts it');
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      chat.panel.reveal();
    }
  });

  it('Restart Agent (the command) reconnects the open chats of that agent: resume with the complete folder list, no "shutting down", a closed tab left alone', async () => {
    // A second chat of the same agent, whose tab the user closes while the agent waits for a permission.
    const { misuse } = await closeWhileAsking();

    const before = entries().length;
    const old = chat.controller.session.connection;
    await vscode.commands.executeCommand('acpWorkspace.restartAgent', 'Chat Agent');
    await waitFor(() => chat.controller.session.connection !== old && chat.controller.thread.session.status === 'idle', 'the chat to reconnect');
    const added = entries().slice(before);
    assert.deepEqual(
      added.filter((e) => e.kind === 'error'),
      [],
      'no error in the chat',
    );
    assert.doesNotMatch(JSON.stringify([added, chat.controller.thread.session]), /shutting down/);
    const resume = received('session/resume').at(-1);
    assert.equal(resume?.['sessionId'], chat.controller.session.sessionId);
    assert.deepEqual(
      resume?.['additionalDirectories'],
      vscode.workspace.workspaceFolders!.slice(1).map((f) => fs.realpathSync.native(f.uri.fsPath)),
    );
    await prompt('hello after the restart');
    assert.equal(lastAgentText(), 'Echo: hello after the restart');
    assert.deepEqual(misuse, [], 'nothing used the closed tab');
  });

  it('passes configured MCP servers, only those the agent can take, and says which were not passed', async () => {
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    await config.update(
      'mcpServers',
      [
        { name: 'files', command: 'mcp-files', args: ['--root', '/tmp'], env: { TOKEN: 'secret-token-value' } },
        { name: 'events', type: 'sse', url: 'https://mcp.example.com/sse', headers: { Authorization: 'Bearer secret' } },
      ],
      vscode.ConfigurationTarget.Global,
    );
    try {
      const [started] = await api.starter.newSession({ agentName: 'Chat Agent' });
      const params = received('session/new').at(-1);
      assert.deepEqual(params?.['mcpServers'], [
        { name: 'files', command: 'mcp-files', args: ['--root', '/tmp'], env: [{ name: 'TOKEN', value: 'secret-token-value' }] },
      ]);
      assert.ok(started!.notes.some((n) => /“events” was not passed: the agent does not support SSE MCP servers/.test(n)));
    } finally {
      await config.update('mcpServers', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('offers the agent\'s sign-in when it answers "authentication required", then starts the session', async () => {
    const locked = await addRecordingAgent('Locked Agent', ['--auth', 'ref-login']);
    try {
      await waitFor(() => api.agents.find('Locked Agent') !== undefined, 'the agent setting');
      await assert.rejects(
        api.starter.newSession({ agentName: 'Locked Agent' }),
        (error: Error) => error.name === 'AuthRequiredError' && /sign in/.test(error.message),
      );
      assert.equal(await api.signIn.run('Locked Agent', 'ref-login'), true);
      const [started] = await api.starter.newSession({ agentName: 'Locked Agent' });
      assert.ok(started?.session.sessionId);
      assert.deepEqual(
        locked
          .received()
          .filter((m) => m.method === 'authenticate')
          .map((m) => m.params),
        [{ methodId: 'ref-login' }],
      );
    } finally {
      await api.agents.stop('Locked Agent');
      await locked.dispose();
    }
  });

  it('runs a terminal sign-in method in a VS Code terminal, then restarts the agent signed in', async () => {
    const locked = await addRecordingAgent('Terminal Login Agent', ['--auth', 'ref-login']);
    try {
      await waitFor(() => api.agents.find('Terminal Login Agent') !== undefined, 'the agent setting');
      await assert.rejects(api.starter.newSession({ agentName: 'Terminal Login Agent' }), (error: Error) => error.name === 'AuthRequiredError');
      const opened = new Promise<vscode.Terminal>((resolve) => {
        const subscription = vscode.window.onDidOpenTerminal((terminal) => {
          subscription.dispose();
          resolve(terminal);
        });
      });
      const signedIn = api.signIn.run('Terminal Login Agent', 'ref-login-terminal');
      const terminal = await opened;
      assert.equal(terminal.name, 'Sign in: Terminal Login Agent');
      assert.equal(await signedIn, true);
      assert.equal(terminal.exitStatus?.code, 0);
      const [started] = await api.starter.newSession({ agentName: 'Terminal Login Agent' });
      assert.ok(started?.session.sessionId);
      assert.deepEqual(
        locked.received().filter((m) => m.method === 'authenticate'),
        [],
        'a terminal method is never passed to authenticate',
      );
    } finally {
      await api.agents.stop('Terminal Login Agent');
      await locked.dispose();
    }
  });

  it('reopens with the current folders on an agent that can only load: the replay replaces the transcript, not added to it', async () => {
    const loadOnly = await addRecordingAgent('Load-only Agent', ['--disable', 'resume']);
    try {
      await waitFor(() => api.agents.find('Load-only Agent') !== undefined, 'the agent setting');
      const [started] = await api.starter.newSession({ agentName: 'Load-only Agent' });
      const own = api.chats.open(started!.session);
      const texts = () =>
        own.controller.thread
          .snapshot()
          .entries.filter((e) => e.kind === 'user' || e.kind === 'agent')
          .map((e) => (e.kind === 'user' || e.kind === 'agent' ? e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : ''));
      await api.chats.dispatch(own, { type: 'prompt', text: 'remember me', attachments: [] });
      await waitFor(() => own.controller.thread.session.status === 'idle' && texts().includes('Echo: remember me'), 'the turn');
      // docs is no longer shared with this agent: the session's folders changed, and reopening gives it what is shared now.
      const ui = new ScriptedRootsUi();
      ui.stale = 'keep';
      ui.consent = () => [];
      api.setRootsUi(ui);
      const docs = fs.realpathSync.native(vscode.workspace.workspaceFolders![2]!.uri.fsPath);
      await api.grants.revoke('Load-only Agent', [docs]);
      assert.deepEqual(
        own.controller.thread.session.roots.filter((r) => r.withdrawn).map((r) => r.path),
        [docs],
        'the chat shows docs as no longer shared',
      );
      await api.chats.dispatch(own, { type: 'action', action: 'reopenWithCurrentFolders' });
      api.setRootsUi(undefined);
      const loads = loadOnly.received().filter((m) => m.method === 'session/load');
      assert.equal(loads.length, 1);
      assert.deepEqual(
        loads[0]!.params?.['additionalDirectories'],
        vscode.workspace.workspaceFolders!.slice(1, 2).map((f) => fs.realpathSync.native(f.uri.fsPath)),
      );
      assert.equal(loadOnly.received().filter((m) => m.method === 'session/resume').length, 0);
      assert.deepEqual(texts(), ['remember me', 'Echo: remember me'], 'each message once, from the replay');
      assert.equal(own.controller.thread.session.status, 'idle');
      own.panel.dispose();
    } finally {
      await api.agents.stop('Load-only Agent');
      await loadOnly.dispose();
    }
  });

  it('reopens a crashed chat on an agent that can only load: the replay shows each message once, the crash and the interrupted call stay', async () => {
    await api.grants.set(
      'Load-only Crash Agent',
      vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath)),
    );
    const loadOnly = await addRecordingAgent('Load-only Crash Agent', ['--disable', 'resume']);
    try {
      await waitFor(() => api.agents.find('Load-only Crash Agent') !== undefined, 'the agent setting');
      const [started] = await api.starter.newSession({ agentName: 'Load-only Crash Agent' });
      const own = api.chats.open(started!.session);
      const shown = () =>
        own.controller.thread.snapshot().entries.map((e) => {
          switch (e.kind) {
            case 'user':
            case 'agent':
              return `${e.kind}: ${e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')}`;
            case 'tool':
              return `tool: ${e.title} (${e.status})`;
            case 'error':
              return `error: ${e.message.slice(0, e.message.indexOf(')') + 1)}`;
            case 'info':
              return `info: ${e.text}`;
            default:
              return e.kind;
          }
        });
      const ask = async (text: string) => {
        const ends = shown().filter((e) => e === 'turnEnd' || e.startsWith('error')).length;
        await api.chats.dispatch(own, { type: 'prompt', text, attachments: [] });
        await waitFor(() => shown().filter((e) => e === 'turnEnd' || e.startsWith('error')).length > ends, `the turn for "${text}"`, 30_000);
      };
      await ask('hello before');
      await ask('crash');
      const crashed = shown();
      assert.match(crashed.at(-3)!, /^agent: This turn crashes /);
      assert.deepEqual(crashed.slice(-2), ['tool: Run a step that crashes the agent (interrupted)', 'error: Load-only Crash Agent exited (exit code 42)']);
      await api.chats.dispatch(own, { type: 'action', action: 'reopen' });
      await waitFor(() => own.controller.thread.session.status === 'idle', 'the chat to be reopened');
      assert.equal(loadOnly.received().filter((m) => m.method === 'session/load').length, 1);
      assert.deepEqual(
        shown(),
        [...crashed, 'info: Session reopened: the agent replayed its history.'],
        'the agent’s record, each message once, with what only the chat showed in place',
      );
      await ask('hello after');
      assert.equal(
        shown()
          .filter((e) => e.startsWith('agent:'))
          .at(-1),
        'agent: Echo: hello after',
      );
      own.panel.dispose();
    } finally {
      await api.agents.stop('Load-only Crash Agent');
      await loadOnly.dispose();
    }
  });

  it('sent only messages that conform to the ACP JSON Schema', () => {
    assertConforms(agent.received());
  });
});
