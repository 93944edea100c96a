import * as assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';
import { useWorkbench } from './workbench';

/**
 * The prompt box while the agent works: messages sent then are queued visibly (editable, removable) and sent
 * one per turn when the turn ends; "Stop and send now" (and Ctrl+Enter) interrupts; Esc stops the turn; Up
 * recalls the previous prompts. With the offline reference agent: `hang` keeps a turn running until it is
 * stopped, `slow` streams a chunk every 2 s.
 */
describe('the message queue (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root');
  let chat: FrameLocator;

  before(async () => {
    const workbench = bench();
    chat = await workbench.newChat('Reference Agent (offline)');
  });

  const input = () => chat.locator('.prompt-input');
  const queued = () => chat.locator('.queue .queued');
  const turnEnds = () => chat.locator('.entry.turn-end').count();
  const userTexts = async () => (await chat.locator('.entry.user').allInnerTexts()).map((t) => t.trim());
  async function until(condition: () => Promise<boolean>, what: string, tries = 600) {
    for (let i = 0; i < tries && !(await condition()); i++) await bench().page.waitForTimeout(100);
    assert.ok(await condition(), what);
  }
  async function send(text: string) {
    await input().fill(text);
    await input().press('Enter');
  }
  async function startWorking(text: string) {
    await send(text);
    await chat.locator('.status-running').waitFor({ timeout: 30_000 });
  }
  async function stopIfRunning() {
    if ((await chat.locator('.status-running').count()) > 0) {
      await chat.locator('button.stop').click();
      await chat.locator('.status-idle').waitFor({ timeout: 30_000 });
    }
  }

  it('queues a message sent while the agent works and sends it when the turn ends: nothing lost', async () => {
    await startWorking('slow Echo first of all, with a few more words to say slowly to the chat');
    await send('Echo the queued one');
    await queued().first().waitFor({ timeout: 10_000 });
    assert.match(await queued().first().innerText(), /Echo the queued one/);
    assert.equal(await input().inputValue(), '', 'the prompt box is free for the next message');
    // The first turn ends normally; the queued message is the next turn, and its answer appears.
    await chat.locator('.entry.agent', { hasText: 'Echo: Echo the queued one' }).waitFor({ timeout: 90_000 });
    await until(async () => (await queued().count()) === 0, 'the queue is empty once the message went');
    const users = await userTexts();
    assert.equal(users.filter((t) => t.includes('Echo the queued one')).length, 1, 'sent once');
    await chat.locator('.status-idle').waitFor({ timeout: 30_000 });
  });

  it('holds several messages in order, edits and removes them, and shows the queue', async () => {
    await startWorking('hang while queued');
    await send('Echo one');
    await send('Echo two');
    // The third with a file as context: its chip shows with it.
    await input().fill('');
    await input().pressSequentially('Echo three @GRE');
    await chat.locator('.completion[aria-label=Files] li', { hasText: 'lib/src/greet.ts' }).waitFor({ timeout: 30_000 });
    await input().press('Enter');
    await chat.locator('.attachments .chip[title$="/lib/src/greet.ts"]').waitFor();
    await input().press('Enter');
    await until(async () => (await queued().count()) === 3, 'three queued');
    assert.deepEqual(
      (await queued().locator('.queued-text').allInnerTexts()).map((t) => t.trim()),
      ['Echo one', 'Echo two', 'Echo three @greet.ts'],
    );
    assert.equal((await queued().nth(2).locator('.chip').innerText()).replace(/\s+/g, ' ').trim(), 'greet.ts · lib', 'a queued file chip says its folder');
    assert.equal(await chat.locator('.attachments .chip').count(), 0, 'the context went with the queued message');
    // Remove the second one.
    await queued().nth(1).locator('button[aria-label="Remove from queue"]').click();
    await until(async () => (await queued().count()) === 2, 'one removed');
    // Edit the last one in place.
    await queued().nth(1).locator('button[aria-label="Edit"]').click();
    const editor = chat.locator('.queue .queued-editor');
    await editor.waitFor();
    await editor.fill('Echo three, edited');
    await editor.press('Enter');
    await chat.locator('.queue .queued-text', { hasText: 'Echo three, edited' }).waitFor({ timeout: 10_000 });
    assert.equal((await queued().nth(1).locator('.chip').innerText()).replace(/\s+/g, ' ').trim(), 'greet.ts · lib', 'the edit keeps the context');
    await bench().screenshot('queue', chat.locator('.chat'));
    // Stop holds the queue: nothing fires by itself; "Send next" sends on the user's word.
    const ends = await turnEnds();
    await chat.locator('button.stop').click();
    await chat.locator('.queue-held', { hasText: '2 queued messages held after Stop' }).waitFor({ timeout: 30_000 });
    await until(async () => (await turnEnds()) > ends, 'the stopped turn ended');
    assert.equal(await queued().count(), 2, 'still queued after Stop');
    await bench().screenshot('queue-held', chat.locator('.queue'));
    // The host keeps the queue: hiding the chat tab and showing it again loses nothing.
    const page = bench().page;
    await bench().runCommand('Go to File...');
    await bench().pick('greet.ts');
    await page.locator('.editor-instance .monaco-editor', { hasText: 'Hello from lib' }).first().waitFor({ timeout: 30_000 });
    // The palette left the pointer over the title bar: its hover would take the click.
    await page.mouse.move(700, 500);
    await page
      .locator('.context-view .hover-contents')
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(() => undefined);
    await page.locator('.tab', { hasText: 'Reference Agent (offline)' }).click();
    chat = await bench().webview('.prompt-input');
    await chat.locator('.queue-held', { hasText: '2 queued messages held after Stop' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(
      (await queued().locator('.queued-text').allInnerTexts()).map((t) => t.trim()),
      ['Echo one', 'Echo three, edited'],
    );
    assert.ok(!(await userTexts()).some((t) => t.includes('Echo one')), 'not sent after Stop');
    await chat.locator('.queue-held button', { hasText: 'Send next' }).click();
    await chat.locator('.entry.agent', { hasText: 'Echo: Echo three, edited' }).waitFor({ timeout: 60_000 });
    const users = await userTexts();
    const one = users.findIndex((t) => t.includes('Echo one'));
    const three = users.findIndex((t) => t.includes('Echo three, edited'));
    assert.ok(one >= 0 && three > one, 'sent in order, one per turn');
    await until(async () => (await queued().count()) === 0, 'the queue is empty');
    await chat.locator('.status-idle').waitFor({ timeout: 30_000 });
  });

  it('"Stop and send now" stops the turn and sends that message at once; so does Ctrl+Enter', async () => {
    await startWorking('hang until interrupted');
    await send('Echo interrupting');
    await queued().first().waitFor({ timeout: 10_000 });
    await queued().first().locator('button[aria-label="Stop and send now"]').click();
    await chat.locator('.entry.agent', { hasText: 'Echo: Echo interrupting' }).waitFor({ timeout: 60_000 });
    await chat.locator('.status-idle').waitFor({ timeout: 30_000 });

    await startWorking('hang until Ctrl+Enter');
    await input().fill('Echo typed and sent now');
    await input().press('Control+Enter');
    await chat.locator('.entry.agent', { hasText: 'Echo: Echo typed and sent now' }).waitFor({ timeout: 60_000 });
    await chat.locator('.status-idle').waitFor({ timeout: 30_000 });
    assert.equal(await queued().count(), 0);
  });

  it('Esc in the prompt box stops the running turn', async () => {
    const ends = await turnEnds();
    await startWorking('hang until Esc');
    await input().focus();
    await input().press('Escape');
    await chat.locator('.status-idle').waitFor({ timeout: 30_000 });
    await until(async () => (await turnEnds()) > ends, 'the turn ended');
    assert.equal(await chat.locator('.entry.turn-end').last().getAttribute('class'), 'entry turn-end reason-cancelled');
  });

  it('Up in the empty prompt box recalls the previous prompts; Down past the newest restores the typing', async () => {
    await stopIfRunning();
    await input().fill('');
    await input().press('ArrowUp');
    assert.equal(await input().inputValue(), 'hang until Esc');
    await input().press('ArrowUp');
    assert.equal(await input().inputValue(), 'Echo typed and sent now');
    await input().press('ArrowDown');
    assert.equal(await input().inputValue(), 'hang until Esc');
    await input().press('ArrowDown');
    assert.equal(await input().inputValue(), '', 'back to what was typed');
  });

  it('keeps queued messages across a window reload, held until the user sends them', async () => {
    const page = bench().page;
    await stopIfRunning();
    await startWorking('hang before the reload');
    await send('Echo kept across the reload');
    await queued().first().waitFor({ timeout: 10_000 });
    await bench().reloadWindow();
    await page.locator('.tab', { hasText: 'Reference Agent (offline)' }).first().waitFor({ timeout: 60_000 });
    chat = await bench().webview('.prompt-input', 60_000);
    await chat.locator('.queue-held', { hasText: 'One queued message kept from before the window reloaded' }).waitFor({ timeout: 60_000 });
    assert.equal((await queued().locator('.queued-text').innerText()).trim(), 'Echo kept across the reload');
    await chat.locator('.status-idle').waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator('.entry.user', { hasText: 'Echo kept across the reload' }).count(), 0, 'not sent by itself');
    // The prompt history has the replayed prompts too.
    await input().fill('');
    await input().press('ArrowUp');
    assert.equal(await input().inputValue(), 'hang before the reload');
    await input().press('ArrowDown');
    assert.equal(await input().inputValue(), '');
    await chat.locator('.queue-held button', { hasText: 'Send next' }).click();
    await chat.locator('.entry.agent', { hasText: 'Echo: Echo kept across the reload' }).waitFor({ timeout: 60_000 });
    await until(async () => (await queued().count()) === 0, 'the queue is empty');
  });
});
