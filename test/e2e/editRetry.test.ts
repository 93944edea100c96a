import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { useWorkbench } from './workbench';

/** The reference agent without `session/fork`: an edited prompt cannot go to a fork. */
const NO_FORK_AGENT = 'Reference Agent without fork';

describe('edit and retry a prompt (real workbench, Chromium)', function () {
  this.timeout(240_000);
  let workspaces = '';
  const bench = useWorkbench(
    'multi-root',
    (paths) => (workspaces = paths.workspaces),
    () => ({
      userSettings: {
        'acpWorkspace.agents': [{ name: NO_FORK_AGENT, command: '${node}', args: ['${extensionPath}/dist/reference-agent.js', '--disable', 'fork'] }],
      },
    }),
  );

  async function newSession(agentName: string): Promise<FrameLocator> {
    const workbench = bench();
    await workbench.newSession(agentName);
    const ok = workbench.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' });
    await ok.click({ timeout: 30_000 });
    return workbench.webview(`.agent-name:has-text("${agentName}")`);
  }

  async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 600 && !(await condition()); i++) await bench().page.waitForTimeout(100);
    assert.ok(await condition(), what);
  }

  async function sendAndWait(chat: FrameLocator, text: string): Promise<void> {
    const ends = await chat.locator('.entry.turn-end').count();
    const input = chat.locator('.prompt-input').first();
    await input.fill(text);
    await input.press('Enter');
    await until(async () => (await chat.locator('.entry.turn-end').count()) > ends, `the turn for "${text}" to end`);
  }

  it('edits an earlier prompt with a fork-capable agent: a fork gets the edited prompt, and says so', async () => {
    const chat = await newSession('Reference Agent (offline)');
    await sendAndWait(chat, 'Echo first version');
    await sendAndWait(chat, 'Echo a later turn');
    const first = chat.locator('.entry.user', { hasText: 'Echo first version' });
    await first.hover();
    await first.getByRole('button', { name: 'Edit this prompt and send it again' }).click();
    const box = chat.locator('textarea.prompt-edit');
    assert.equal(await box.inputValue(), 'Echo first version');
    await bench().screenshot('chat-edit-prompt');
    await box.fill('Echo second version');
    await box.press('Enter');

    const fork = await bench().webview('.entry.info:has-text("to send your edited prompt")', 60_000);
    await fork
      .locator('.entry.info', { hasText: 'the fork keeps the conversation up to now, including later turns — ACP cannot fork at a message yet' })
      .waitFor({ timeout: 30_000 });
    await fork.locator('.entry.user', { hasText: 'Echo second version' }).waitFor({ timeout: 30_000 });
    await until(async () => (await fork.locator('.entry.turn-end').count()) >= 1, 'the edited prompt’s turn to end in the fork');
    assert.match(await fork.locator('.entry.agent').last().innerText(), /second version/);

    // Retry: the last prompt again, as a new prompt.
    const retry = fork.getByRole('button', { name: 'Retry' });
    await retry.waitFor({ timeout: 30_000 });
    await bench().screenshot('chat-retry');
    await retry.click();
    await until(async () => (await fork.locator('.entry.user', { hasText: 'Echo second version' }).count()) === 2, 'the retried prompt to show');
    await until(async () => (await fork.locator('.entry.turn-end').count()) >= 2, 'the retried turn to end');
    assert.equal(await fork.locator('.entry.agent', { hasText: 'second version' }).count(), 2);
  });

  it('edits a prompt by keyboard with an agent that cannot fork: sent as a new prompt in the same session, said plainly', async () => {
    const chat = await newSession(NO_FORK_AGENT);
    await sendAndWait(chat, 'Echo draft one');
    const prompt = chat.locator('.entry.user', { hasText: 'Echo draft one' });
    const edit = prompt.getByRole('button', { name: 'Edit this prompt and send it again' });
    await edit.focus();
    await edit.press('Enter');
    const box = chat.locator('textarea.prompt-edit');
    await box.waitFor();
    // Escape cancels and gives the focus back to Edit.
    await box.press('Escape');
    await until(async () => (await chat.locator('textarea.prompt-edit').count()) === 0, 'the edit box to close');
    await until(() => edit.evaluate((el) => el === el.ownerDocument.activeElement), 'the focus back on Edit');
    await edit.press('Enter');
    await box.fill('Echo draft two');
    await box.press('Enter');
    await chat
      .locator('.entry.info', { hasText: 'Sent as a new prompt: this agent cannot fork, so it still sees the earlier turns' })
      .waitFor({ timeout: 30_000 });
    await chat.locator('.entry.user', { hasText: 'Echo draft two' }).waitFor({ timeout: 30_000 });
    await until(async () => (await chat.locator('.entry.turn-end').count()) >= 2, 'the edited prompt’s turn to end');
    assert.equal(await chat.locator('.entry.user', { hasText: 'Echo draft one' }).count(), 1, 'the earlier prompt stays as it was');
  });

  it('exports the chat as Markdown through the Save dialog, and opens it as text', async () => {
    const workbench = bench();
    const chat = await workbench.webview(`.agent-name:has-text("${NO_FORK_AGENT}")`);
    await chat.locator('.prompt-input').first().click();
    await workbench.runCommand('ACP: Export Session as Markdown…');
    await workbench.pick('Save to File…');
    const target = path.join(workspaces, 'multi-root', 'docs', 'exported-session.md');
    const input = workbench.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ timeout: 30_000 });
    // The simple file dialog updates its list as the path is typed, and may take an Enter while it does so
    // without accepting it: accept (OK) until the file is written.
    const ok = workbench.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' });
    await input.fill(target, { timeout: 30_000 });
    await until(async () => {
      if (fs.existsSync(target)) return true;
      // The dialog may also put its default name back after the path was typed: type it again then.
      if ((await input.inputValue({ timeout: 2_000 }).catch(() => target)) !== target) await input.fill(target, { timeout: 2_000 }).catch(() => undefined);
      else await ok.click({ timeout: 2_000 }).catch(() => undefined);
      return fs.existsSync(target);
    }, 'the exported file');
    const text = fs.readFileSync(target, 'utf8');
    assert.match(text, new RegExp(`- \\*\\*Agent:\\*\\* ${NO_FORK_AGENT}`));
    assert.match(text, /## User\n\nEcho draft two\n/);

    await chat.locator('.prompt-input').first().click();
    await workbench.runCommand('ACP: Open Transcript as Text');
    const lines = workbench.page.locator('.editor-instance .view-lines', { hasText: 'Echo draft two' });
    await lines.first().waitFor({ timeout: 30_000 });
    await workbench.screenshot('chat-transcript-text');
  });
});
