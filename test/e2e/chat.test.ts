import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { PNG } from 'pngjs';
import { useWorkbench } from './workbench';

describe('the chat (real workbench, Chromium)', function () {
  this.timeout(180_000);
  let workspaces = '';
  const bench = useWorkbench('multi-root', (paths) => (workspaces = paths.workspaces));
  let chat: FrameLocator;

  before(async () => {
    const workbench = bench();
    chat = await workbench.newChat('Reference Agent (offline)');
  });

  async function send(text: string) {
    const input = chat.locator('.prompt-input');
    await input.fill(text);
    await input.press('Enter');
  }

  it('puts the cursor in the prompt box when a new session opens: typing goes there at once', async () => {
    await chat.locator('.prompt-input').waitFor();
    for (let i = 0; i < 100 && !(await chat.locator('.prompt-input').evaluate((el) => el === el.ownerDocument.activeElement)); i++)
      await bench().page.waitForTimeout(100);
    await bench().page.keyboard.type('typed at once');
    assert.equal(await chat.locator('.prompt-input').inputValue(), 'typed at once');
    await chat.locator('.prompt-input').fill('');
  });

  it('shows the agent, its folders and an empty conversation', async () => {
    await chat.locator('.agent-name', { hasText: 'Reference Agent (offline)' }).waitFor();
    const roots = await chat.locator('.roots .chip').allInnerTexts();
    assert.deepEqual(
      roots.map((r) => r.trim()),
      ['app', 'lib', 'docs'],
    );
    await bench().screenshot('chat-empty');
  });

  it('streams an answer as markdown, with thoughts collapsed, a plan and a diff', async () => {
    await send('think stream plan diff usage');
    await chat.locator('.entry.turn-end').first().waitFor({ timeout: 60_000 });
    assert.ok((await chat.locator('.entry.agent .markdown').count()) >= 1);
    assert.equal(await chat.locator('details.entry.thought').first().getAttribute('open'), null, 'thoughts are collapsed');
    await chat.locator('.entry.plan .plan-item').first().waitFor();
    await chat.locator('.diff-summary', { hasText: 'hello.txt' }).waitFor();
    await bench().screenshot('chat-streamed');
  });

  it('renders HTML and script in agent text inert', async () => {
    await send('Echo <img src=x onerror="document.title=1"><script>document.title=2</script> **bold**');
    await chat.locator('.entry.user', { hasText: '<script>' }).waitFor();
    const answer = chat.locator('.entry.agent').last();
    await answer.locator('strong', { hasText: 'bold' }).waitFor();
    assert.equal(await answer.locator('script, img[onerror]').count(), 0);
    assert.match(await answer.innerText(), /<img src=x onerror=/, 'the markup shows as text');
  });

  const lastAgentText = async () => (await chat.locator('.entry.agent').last().innerText()).trim();
  const turnEnds = () => chat.locator('.entry.turn-end').count();
  async function untilTurnEnds(before: number) {
    for (let i = 0; i < 300 && (await turnEnds()) <= before; i++) await bench().page.waitForTimeout(100);
    assert.ok((await turnEnds()) > before, 'the turn ended');
  }

  it('completes @-mentions from the session folders and sends the file as context', async () => {
    const input = chat.locator('.prompt-input');
    await input.fill('');
    await input.pressSequentially('Summarise @GRE');
    const option = chat.locator('.completion[aria-label=Files] li', { hasText: 'lib/src/greet.ts' });
    await option.waitFor({ timeout: 30_000 });
    await bench().screenshot('chat-mention');
    await input.press('Enter');
    await chat.locator('.attachments .chip[title$="/lib/src/greet.ts"]', { hasText: 'greet.ts' }).waitFor();
    assert.equal(await input.inputValue(), 'Summarise @greet.ts ');
    const before = await turnEnds();
    await input.press('Enter');
    await untilTurnEnds(before);
    assert.match(await lastAgentText(), /Attachments: resource file:\/\/\S+\/lib\/src\/greet\.ts/);
    assert.equal(await chat.locator('.attachments .chip').count(), 0, 'the context is cleared once sent');
  });

  it("completes the agent's slash commands, and /title renames the chat tab", async () => {
    const input = chat.locator('.prompt-input');
    await input.pressSequentially('/ti');
    const commands = chat.locator('.completion[aria-label="Slash commands"] li');
    await commands.first().waitFor({ timeout: 10_000 });
    assert.deepEqual(
      (await commands.allInnerTexts()).map((t) => t.split(/\s/)[0]),
      ['/title'],
    );
    await input.press('Tab');
    assert.equal(await input.inputValue(), '/title ');
    await input.pressSequentially('Greeting work');
    const before = await turnEnds();
    await input.press('Enter');
    await untilTurnEnds(before);
    await bench().page.locator('.tab', { hasText: 'Greeting work · Reference Agent (offline)' }).waitFor({ timeout: 10_000 });
  });

  it('sends a complete slash command on Enter although its popup is open; Enter on a partial one completes it', async () => {
    const input = chat.locator('.prompt-input');
    const commands = chat.locator('.completion[aria-label="Slash commands"] li');
    await input.pressSequentially('/pl');
    await commands.first().waitFor({ timeout: 10_000 });
    await input.press('Enter');
    assert.equal(await input.inputValue(), '/plan ', 'a partial command: Enter completes it (what the popup shows)');
    await input.fill('');
    await input.pressSequentially('/plan');
    await commands.first().waitFor({ timeout: 10_000 });
    assert.deepEqual(
      (await commands.allInnerTexts()).map((t) => t.split(/\s/)[0]),
      ['/plan'],
      'the popup is open',
    );
    const users = await chat.locator('.entry.user').count();
    const before = await turnEnds();
    await input.press('Enter');
    await untilTurnEnds(before);
    assert.equal(await chat.locator('.entry.user').count(), users + 1, 'the command was sent');
    assert.equal((await chat.locator('.entry.user').last().innerText()).trim(), '/plan');
    assert.equal(await input.inputValue(), '', 'the box is empty');
  });

  it('adds the editor selection to the chat with ACP: Add Selection to Chat', async () => {
    const page = bench().page;
    await bench().runCommand('Go to File...');
    await bench().pick('greet.ts');
    const editor = page.locator('.editor-instance .monaco-editor', { hasText: 'Hello from lib' }).first();
    await editor.waitFor({ timeout: 30_000 });
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+A');
    await bench().runCommand('ACP: Add Selection to Chat');
    chat = await bench().webview('.prompt-input');
    await chat.locator('.attachments .chip').first().waitFor({ timeout: 30_000 });
    assert.deepEqual(
      (await chat.locator('.attachments .chip').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
      ['greet.ts:1-3 · lib'],
    );
    const before = await turnEnds();
    await chat.locator('.prompt-input').fill('What does this do?');
    await chat.locator('.prompt-input').press('Enter');
    await untilTurnEnds(before);
    assert.match(await lastAgentText(), /Attachments: resource file:\/\/\S+\/lib\/src\/greet\.ts#L1-3/);
    const context = chat.locator('.entry.user').last().locator('details.resource');
    assert.equal((await context.locator('summary').innerText()).trim(), 'greet.ts · lib, lines 1–3');
    await context.locator('summary').click({ position: { x: 4, y: 4 } });
    await context.locator('pre', { hasText: 'Hello from lib' }).waitFor();
  });

  it('does not load remote images in agent text until the user asks: a placeholder link instead, loaded on a click', async () => {
    // A picture server on loopback stands for a diagram the user wants; any request to the tracker's host is a leak.
    const picture = new PNG({ width: 48, height: 32 });
    for (let i = 0; i < picture.data.length; i += 4) picture.data.set([200, 60, 40, 255], i);
    const png = PNG.sync.write(picture);
    const served: string[] = [];
    const server = http.createServer((request, response) => {
      served.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      response.end(png);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const diagram = `http://127.0.0.1:${(server.address() as AddressInfo).port}/diagram.png`;
    const context = bench().page.context();
    const tracked: string[] = [];
    const onRequest = (request: { url(): string }) => void (request.url().includes('images.example.test') && tracked.push(request.url()));
    context.on('request', onRequest);
    await context.route('https://images.example.test/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: png }));
    try {
      const before = await turnEnds();
      await send(`Echo ![pixel](https://images.example.test/pixel.png?reader=42) and ![the diagram](${diagram}) and ![a sketch](docs/sketch.png)`);
      await untilTurnEnds(before);
      const answer = chat.locator('.entry.agent').last();
      const placeholders = answer.locator('button.remote-image');
      await placeholders.nth(1).waitFor();
      assert.equal(await placeholders.count(), 2);
      assert.equal((await answer.locator('a.remote-image').getAttribute('href'))?.endsWith('docs/sketch.png'), true, 'a local image is a link to open it');
      assert.match(await placeholders.nth(0).innerText(), /pixel[\s\S]*images\.example\.test/);
      assert.match(await placeholders.nth(1).innerText(), /the diagram[\s\S]*127\.0\.0\.1/);
      assert.equal(await answer.locator('img').count(), 0, 'no image element: nothing is fetched');
      await bench().screenshot('chat-remote-image-placeholder');
      await placeholders.nth(1).click();
      const loaded = answer.locator('img[alt="the diagram"]');
      await loaded.waitFor({ timeout: 30_000 });
      const shown = () =>
        loaded.evaluate((element) => {
          const image = element as unknown as { complete: boolean; naturalWidth: number };
          return image.complete && image.naturalWidth === 48;
        });
      for (let i = 0; i < 100 && !(await shown()); i++) await bench().page.waitForTimeout(100);
      assert.ok(await shown(), 'the diagram shows');
      assert.deepEqual(served, ['/diagram.png'], 'the diagram was fetched once, after the click');
      assert.deepEqual(tracked, [], "nothing was ever requested from the tracker's host");
      assert.equal(await answer.locator('button.remote-image').count(), 1, 'the other image is still a placeholder');
      await bench().screenshot('chat-remote-image-loaded');
      // Another tab shown and this one again: VS Code recreates the chat's webview, which shows the image again
      // from what the host kept for the session, without fetching it again.
      await bench().runCommand('File: New Untitled Text File');
      await bench().page.locator('.tabs-container .tab.active', { hasText: 'Untitled' }).waitFor();
      await bench().runCommand('View: Revert and Close Editor');
      chat = await bench().webview('.prompt-input');
      const again = chat.locator('.entry.agent').last().locator('img[alt="the diagram"]');
      await again.waitFor({ timeout: 30_000 });
      assert.deepEqual(served, ['/diagram.png'], 'shown again, the diagram was not fetched again');
    } finally {
      context.off('request', onRequest);
      await context.unroute('https://images.example.test/**');
      server.close();
    }
  });

  it('shows every terminal the agent starts, also without a tool call: command, folder, output and exit', async () => {
    const app = path.join(workspaces, 'multi-root', 'app');
    const before = await turnEnds();
    await send(`run-in ${app} echo started-without-a-tool-call`);
    await untilTurnEnds(before);
    const terminal = chat.locator('.entry.terminal-run').last();
    await terminal.waitFor();
    assert.equal(await terminal.locator('xpath=ancestor::*[contains(@class, "tool")]').count(), 0, 'not inside a tool call');
    assert.equal((await terminal.locator('.terminal-command').innerText()).trim(), 'echo started-without-a-tool-call');
    assert.match(await terminal.locator('.terminal-folder').innerText(), /\bapp\b/);
    await terminal.locator('.terminal-output', { hasText: 'started-without-a-tool-call' }).waitFor();
    await terminal.locator('.exit.ok', { hasText: 'exit 0' }).waitFor();
    await bench().screenshot('chat-terminal-without-tool-call', terminal);
  });

  it('shows a terminal folder it refused like a refused file access', async () => {
    const outside = path.join(workspaces, 'multi-root', 'outside');
    const before = await turnEnds();
    await send(`run-in ${outside} echo never-runs`);
    await untilTurnEnds(before);
    const refusal = chat.locator('.entry.refusal').last();
    await refusal.waitFor();
    const text = await refusal.innerText();
    assert.match(text, /refused the agent’s request to run echo never-runs in .*outside/i);
    assert.match(text, /outside this session’s folders/);
    assert.equal(await chat.locator('.terminal-output', { hasText: 'never-runs' }).count(), 0);
  });

  it('says exactly what it refused when the agent asks to write outside the folders, and that the agent’s own tools are not confined', async () => {
    const planted = path.join(workspaces, 'multi-root', 'outside', 'planted.txt');
    const before = await turnEnds();
    await send(`write ${planted} nope`);
    await untilTurnEnds(before);
    const refusal = chat.locator('.entry.refusal').last();
    await refusal.waitFor();
    const text = await refusal.innerText();
    assert.doesNotMatch(text, /Blocked a write/);
    assert.match(text, /refused the agent’s request to write .*planted\.txt/i);
    assert.match(text, /fs\/write_text_file/);
    assert.match(text, /own tools .* not confined/i);
    await bench().screenshot('chat-refusal', refusal);
  });

  it('leads with what happened when the agent writes a refused file with its own tools anyway (as opencode does)', async () => {
    const file = path.join(workspaces, 'multi-root', 'outside', 'written-anyway.txt');
    const before = await turnEnds();
    await send(`write ${file} through-the-client\nwrite-direct ${file} with-its-own-tools`);
    await untilTurnEnds(before);
    const refusal = chat.locator('.entry.refusal', { hasText: 'written-anyway.txt' }).last();
    await refusal.waitFor();
    const lead = await refusal.locator('.refusal-request').innerText();
    assert.match(
      lead,
      /wrote .*written-anyway\.txt with its own tools: ACP Workspace refused its request to write it \(fs\/write_text_file\), which did not stop it/,
      lead,
    );
    assert.doesNotMatch(lead, /^ACP Workspace refused/, 'it does not lead with the refusal');
    await bench().screenshot('chat-refusal-written-anyway', refusal);
  });

  it('asks for permission inline and approves by the option kind', async () => {
    const before = await turnEnds();
    await send('permission');
    const card = chat.locator('.entry.permission.pending');
    await card.waitFor({ timeout: 30_000 });
    assert.deepEqual(
      await card.locator('button').evaluateAll((b) => b.map((x) => x.getAttribute('data-kind'))),
      ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
      'options are ordered by kind, whatever order the agent sent',
    );
    await bench().screenshot('chat-permission');
    await card.locator('button[data-kind=allow_once]').click();
    await untilTurnEnds(before);
    await chat.locator('.entry.permission.resolved', { hasText: 'Allowed once' }).waitFor();
    assert.match(await lastAgentText(), /allow_once/);
  });

  it('rejects a permission request, and the tool call fails', async () => {
    const before = await turnEnds();
    await send('permission');
    await chat.locator('.entry.permission.pending button[data-kind=reject_once]').click({ timeout: 30_000 });
    await untilTurnEnds(before);
    await chat.locator('.entry.permission.resolved', { hasText: 'Rejected' }).last().waitFor();
    await chat.locator('.entry.tool.status-failed').last().waitFor();
  });

  it('says in a notification that a permission request waits when the chat is hidden after it arrived', async () => {
    const before = await turnEnds();
    await send('permission');
    await chat.locator('.entry.permission.pending').waitFor({ timeout: 30_000 });
    // Another editor in front of the chat: the request now waits unseen.
    await bench().runCommand('File: New Untitled Text File');
    const toast = bench().page.locator('.notifications-toasts .notification-toast', { hasText: 'asks:' });
    await toast.waitFor({ timeout: 30_000 });
    await bench().screenshot('permission-notification', toast);
    await toast
      .locator('.monaco-button', { hasText: /^Allow/ })
      .first()
      .click();
    await bench().runCommand('View: Revert and Close Editor');
    // The chat is in front again, in a new webview (VS Code tore the hidden one down).
    chat = await bench().webview('.prompt-input');
    await untilTurnEnds(before);
    await chat.locator('.entry.permission.resolved', { hasText: 'Allowed' }).last().waitFor();
    // A turn that ended before the chat was back in front also said so in a notification (notifications.test.ts).
    await bench().runCommand('Notifications: Clear All Notifications');
  });

  it("opens a diff in VS Code's diff editor", async () => {
    await chat.locator('.diff-summary button', { hasText: 'Open Diff' }).first().click();
    await bench().page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
    await bench().page.locator('.tab', { hasText: 'hello.txt' }).first().waitFor();
    await bench().screenshot('chat-diff');
    await bench().page.keyboard.press('Control+W');
  });

  it('runs a terminal command for the agent and shows its output in the tool call', async () => {
    chat = await bench().webview('.prompt-input');
    const before = await turnEnds();
    await send('terminal echo hello-from-a-terminal');
    await untilTurnEnds(before);
    const terminal = chat.locator('.terminal').last();
    await terminal.locator('.terminal-output', { hasText: 'hello-from-a-terminal' }).waitFor();
    await terminal.locator('.exit.ok', { hasText: 'exit 0' }).waitFor();
    await bench().screenshot('chat-terminal');
  });

  it('shows the output of a command the agent runs itself (no terminal/create) in its tool call, as pi-acp and codex-acp report it', async () => {
    const before = await turnEnds();
    await send('shell-direct echo hello-from-its-own-shell');
    await untilTurnEnds(before);
    const card = chat.locator('.entry.tool', { hasText: 'Run echo hello-from-its-own-shell' }).last();
    await card.locator('.terminal-output', { hasText: 'hello-from-its-own-shell' }).waitFor();
    await card.locator('.exit.ok', { hasText: 'exit 0' }).waitFor();
    assert.equal(await card.getByText('belonged to an earlier run').count(), 0, 'not taken for a terminal of an earlier run');
    assert.equal(await card.getByRole('button', { name: 'Show in Terminal' }).count(), 0, 'there is no client terminal to show');
    await bench().screenshot('chat-agent-owned-terminal', card);
  });

  it('stops a running turn', async () => {
    const before = await turnEnds();
    await send('hang');
    await chat.locator('.button.stop').click({ timeout: 30_000 });
    await untilTurnEnds(before);
    await chat.locator('.entry.turn-end', { hasText: 'Stopped.' }).last().waitFor();
    await chat.locator('.button.send').waitFor();
  });

  it('changes the mode and the model, and the agent works with them', async () => {
    await chat.locator('select[aria-label=Mode]').selectOption('ask');
    await chat.locator('select[data-category=model]').selectOption('ref-smart');
    // No wait: the choices reach the agent before a prompt sent after them (the host sends each request as the
    // chat view asks, in order), which is what the answer below checks.
    const before = await turnEnds();
    await send('status');
    await untilTurnEnds(before);
    assert.match(await lastAgentText(), /mode ask; model ref-smart/);
    assert.equal(await chat.locator('select[aria-label=Mode]').inputValue(), 'ask');
  });

  it('survives the agent crashing mid-turn: keeps the transcript, shows the call it crashed in as interrupted, and reopens the session', async () => {
    const entries = await chat.locator('.entry').count();
    await send('crash');
    const error = chat.locator('.entry.error').last();
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.innerText(), /exited \(exit code 42\)/);
    assert.ok((await chat.locator('.entry').count()) > entries, 'nothing shown so far was lost');
    // The tool call it crashed in says so, and nothing spins any more.
    await chat.locator('.entry.tool.status-interrupted', { hasText: 'Run a step that crashes the agent' }).waitFor();
    assert.equal(await chat.locator('.entry.tool .codicon-modifier-spin').count(), 0, 'no tool call spins');
    await bench().screenshot('chat-crash');
    await error.locator('button', { hasText: 'Reopen Session' }).click();
    await chat.locator('.entry.info', { hasText: 'Session resumed.' }).waitFor({ timeout: 30_000 });
    const before = await turnEnds();
    await send('hello again');
    await untilTurnEnds(before);
    assert.equal(await lastAgentText(), 'Echo: hello again');
  });

  it('comes back after the window reloads: the tab reopens its session with the replayed history and the unsent text', async () => {
    const page = bench().page;
    // Reloaded right after typing: the tab keeps what was typed in its own state at once (persist.ts).
    await chat.locator('.prompt-input').fill('half-written question');
    await bench().reloadWindow();
    await page.locator('.tab', { hasText: 'Greeting work · Reference Agent (offline)' }).waitFor({ timeout: 60_000 });
    chat = await bench().webview('.prompt-input', 60_000);
    await chat.locator('.entry.info', { hasText: 'the agent replayed its history' }).waitFor({ timeout: 60_000 });
    assert.ok((await chat.locator('.entry.user', { hasText: 'hello again' }).count()) >= 1, 'earlier prompts are back');
    assert.equal(await lastAgentText(), 'Echo: hello again');
    assert.equal(await chat.locator('.prompt-input').inputValue(), 'half-written question');
    assert.deepEqual(
      (await chat.locator('.roots .chip').allInnerTexts()).map((r) => r.trim()),
      ['app', 'lib', 'docs'],
    );
    // The replayed terminal tool call names a terminal of the agent process before the reload.
    await chat.locator('.entry.tool .terminal', { hasText: 'no longer available' }).first().waitFor();
    await bench().screenshot('chat-restored');
    const before = await turnEnds();
    await send('after the reload');
    await untilTurnEnds(before);
    assert.equal(await lastAgentText(), 'Echo: after the reload');
  });

  it('reconnects after Restart Agent from the Command Palette: no "shutting down", no error, the next prompt works', async () => {
    const errors = await chat.locator('.entry.error').count();
    const resumed = await chat.locator('.entry.info', { hasText: 'Session resumed.' }).count();
    await bench().runCommand('ACP: Restart Agent');
    await bench().pick('Reference Agent (offline)');
    chat = await bench().webview('.prompt-input');
    await chat.locator('.entry.info', { hasText: 'Restarting Reference Agent (offline)…' }).waitFor({ timeout: 60_000 });
    for (let i = 0; i < 600 && (await chat.locator('.entry.info', { hasText: 'Session resumed.' }).count()) <= resumed; i++)
      await bench().page.waitForTimeout(100);
    assert.ok((await chat.locator('.entry.info', { hasText: 'Session resumed.' }).count()) > resumed, 'the chat was reopened');
    await bench().screenshot('chat-restarted');
    assert.equal(await chat.locator('.entry.error').count(), errors, 'no error');
    assert.doesNotMatch(await chat.locator('body').innerText(), /shutting down/);
    const before = await turnEnds();
    await send('hello once more');
    await untilTurnEnds(before);
    assert.equal(await lastAgentText(), 'Echo: hello once more');
  });
});
