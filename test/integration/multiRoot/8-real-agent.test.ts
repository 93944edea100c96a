/**
 * A real agent in the real VS Code: claude-agent-acp (from npm, offline against the scripted model server
 * of the interop tier) used through the extension like a user would: a chat with the workspace's three
 * folders, then the session history: listed, reopened with its replayed history, forked.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension';
import type { ViewEntry } from '../../../src/shared/chatModel';
import type { SessionRow } from '../../../src/shared/historyProtocol';
import type { ChatTab as Chat } from '../../../src/vscode/chat/chatActions';
import { claudeAgentAcp } from '../../interop/agents';
import { ModelServer } from '../../interop/modelServer';
import { activate, reopenFromHistory, waitFor } from '../shared/extension';
import { ScriptedRootsUi } from '../shared/scriptedRootsUi';

const NAME = 'Claude Code (offline test)';

describe('a real agent in the real extension host: claude-agent-acp, offline', function () {
  this.timeout(120_000);
  let api: TestApi;
  let model: ModelServer;
  let home: string;
  let app: string;
  let lib: string;
  let docs: string;
  let chat: Chat;
  let sessionId: string;

  const text = (entry: ViewEntry | undefined) =>
    entry && (entry.kind === 'agent' || entry.kind === 'user') ? entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
  const entriesOf = (c: Chat) => c.controller.thread.snapshot().entries;

  async function prompt(c: Chat, words: string): Promise<void> {
    const ends = entriesOf(c).filter((e) => e.kind === 'turnEnd').length;
    await api.chats.dispatch(c, { type: 'prompt', text: words, attachments: [] });
    await waitFor(() => entriesOf(c).filter((e) => e.kind === 'turnEnd' || e.kind === 'error').length > ends, `the turn "${words}"`, 60_000);
    const last = entriesOf(c).at(-1);
    assert.equal(last?.kind, 'turnEnd', JSON.stringify(last));
  }

  before(async () => {
    api = await activate();
    api.setRootsUi(new ScriptedRootsUi());
    [app, lib, docs] = vscode.workspace.workspaceFolders!.map((f) => fs.realpathSync.native(f.uri.fsPath)) as [string, string, string];
    await api.grants.set(NAME, [lib, docs]);
    model = await ModelServer.start();
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-claude-home-')));
    const agent = claudeAgentAcp(home, model.url);
    const env: Record<string, string | null> = Object.fromEntries(Object.entries(agent.env).filter((e): e is [string, string] => e[1] !== undefined));
    // Claude Code refuses to run as root when IS_SANDBOX is set to anything but 1 (see docs/interop.md).
    env['IS_SANDBOX'] = null;
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    await config.update(
      'agents',
      [...(config.get<unknown[]>('agents') ?? []), { name: NAME, command: agent.command.command, args: [...agent.command.args], env }],
      vscode.ConfigurationTarget.Global,
    );
    await waitFor(() => api.agents.find(NAME) !== undefined, 'the agent setting');
  });

  after(async () => {
    for (const c of api.chats.all()) if (c.controller.session.agentName === NAME) c.panel.dispose();
    await api.agents.stop(NAME);
    const config = vscode.workspace.getConfiguration('acpWorkspace');
    const rest = (config.get<Array<{ name?: string }>>('agents') ?? []).filter((a) => a.name !== NAME);
    await config.update('agents', rest.length > 0 ? rest : undefined, vscode.ConfigurationTarget.Global);
    api.setRootsUi(undefined);
    await model?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('starts a chat with the three folders; the agent reads a file in another folder without asking', async () => {
    const [started] = await api.starter.newSession({ agentName: NAME });
    assert.ok(started);
    sessionId = started.session.sessionId;
    assert.equal(api.agents.find(NAME)?.process?.connection?.caps.sessions.additionalDirectories, true);
    chat = api.chats.open(started.session);
    const file = path.join(lib, 'src', 'greet.ts');
    await prompt(chat, `read ${file}`);
    assert.equal(
      entriesOf(chat).some((e) => e.kind === 'permission'),
      false,
      'no permission prompt inside the roots',
    );
    const answer = entriesOf(chat)
      .filter((e) => e.kind === 'agent')
      .map(text)
      .join('\n');
    assert.match(answer, /Hello from lib/);
    assert.ok(
      entriesOf(chat).some((e) => e.kind === 'tool'),
      'the read shows as a tool call',
    );
  });

  it('streams a plain answer into the chat', async () => {
    await prompt(chat, 'hello from the real VS Code');
    assert.match(
      text(
        entriesOf(chat)
          .filter((e) => e.kind === 'agent')
          .at(-1),
      ),
      /You said: "hello from the real VS Code"/,
    );
  });

  it('lists the session in the Sessions view with its folders, then reopens it with its replayed history', async () => {
    await api.sessionsView.receive({ type: 'settings', seq: 1, settings: { agent: NAME, scope: 'workspace', query: '', showHidden: false } });
    const rows = () => {
      const state = api.sessionsView.model.compute();
      return api.sessionsView.model.rows(0, state.count).filter((r): r is SessionRow => r.kind === 'session');
    };
    // The agent lists a session a moment after its turn ends: refresh until it does.
    for (let i = 0; i < 40 && !rows().some((r) => r.sessionId === sessionId); i++) {
      api.sessionsView.refresh();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const row = rows().find((r) => r.sessionId === sessionId);
    assert.ok(row, 'the session is listed');
    assert.deepEqual(
      row.roots.map((r) => r.path),
      [app, lib, docs],
      'the roots come from the client’s record (the agent lists none)',
    );
    chat.panel.dispose();
    await waitFor(() => !rows().find((r) => r.sessionId === sessionId)?.open, 'the chat to close');

    const reopened = await reopenFromHistory(api, api.sessionsView.model.find(row.key)!, 'open');
    assert.ok(reopened);
    const replayed = entriesOf(reopened)
      .filter((e) => e.kind === 'user' || e.kind === 'agent')
      .map(text);
    assert.ok(
      replayed.some((t) => t.includes('hello from the real VS Code')),
      JSON.stringify(replayed),
    );
    assert.ok(
      replayed.some((t) => /You said: "hello from the real VS Code"/.test(t)),
      JSON.stringify(replayed),
    );
    await prompt(reopened, 'history');
    assert.match(
      text(
        entriesOf(reopened)
          .filter((e) => e.kind === 'agent')
          .at(-1),
      ),
      /Earlier prompts: .*"hello from the real VS Code"/,
    );
    reopened.panel.dispose();
  });

  it('forks the session with the complete root list; the fork continues from its history', async () => {
    const row = (() => {
      const state = api.sessionsView.model.compute();
      return api.sessionsView.model.rows(0, state.count).find((r): r is SessionRow => r.kind === 'session' && r.sessionId === sessionId)!;
    })();
    const fork = await reopenFromHistory(api, api.sessionsView.model.find(row.key)!, 'fork');
    assert.ok(fork);
    assert.notEqual(fork.controller.session.sessionId, sessionId);
    assert.deepEqual([fork.controller.session.rootSet.cwd.path, ...fork.controller.session.rootSet.additionalDirectories.map((r) => r.path)], [app, lib, docs]);
    await prompt(fork, 'history');
    assert.match(
      text(
        entriesOf(fork)
          .filter((e) => e.kind === 'agent')
          .at(-1),
      ),
      /Earlier prompts: .*"hello from the real VS Code"/,
    );
  });

  it('the model server answered every request it got', () => {
    assert.deepEqual(model.problems, []);
  });
});
