/**
 * A long chat in the real workbench (issue 16): a stored session of 3,000 turns opened from the Sessions
 * view replays through `session/load` in slices and pieces, saying how far it is, then shows whole; the
 * transcript keeps only the entries near the view in the DOM; the reading position holds while the agent
 * streams below it and the view follows at the bottom; keyboard focus and Edit work on an early prompt
 * after scrolling back to it, and focus is not dropped when its entry scrolls out of view.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { seedStore } from '../fixtures/referenceAgent/store';
import type { ProbeElement } from './probes';
import { useWorkbench, type WorkbenchPaths } from './workbench';

const AGENT = 'Reference Agent (offline)';
const TURNS = 3000;

/** The long session in the offline agent's store: a question, an answer in markdown and a tool call per turn. */
function seed(paths: WorkbenchPaths): void {
  const root = path.join(paths.workspaces, 'multi-root');
  const [app, lib, docs] = ['app', 'lib', 'docs'].map((name) => fs.realpathSync.native(path.join(root, name))) as [string, string, string];
  const store = path.join(paths.userData, 'User', 'globalStorage', 'acp-workspace.acp-workspace', 'reference-agent');
  const history: Array<Record<string, unknown>> = [];
  for (let turn = 0; turn < TURNS; turn++) {
    history.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `Question ${turn}: what does part ${turn} of the library do?` } });
    history.push({
      sessionUpdate: 'agent_message_chunk',
      content: {
        type: 'text',
        text: `Answer ${turn}: part ${turn} greets **everyone**.\n\n- it reads \`greet.ts\`\n- it writes the greeting\n\nThat is all for part ${turn}.`,
      },
    });
    history.push({
      sessionUpdate: 'tool_call',
      toolCallId: `read_${turn}`,
      title: `Read greet.ts (${turn})`,
      kind: 'read',
      status: 'pending',
      locations: [{ path: path.join(lib, 'src', 'greet.ts'), line: 1 }],
    });
    history.push({ sessionUpdate: 'tool_call_update', toolCallId: `read_${turn}`, status: 'completed' });
  }
  seedStore(store, [{ sessionId: 'ui_long', cwd: app, additionalDirectories: [lib, docs], title: 'A long session', history: history as never[] }]);
}

/** The page side of the recorder (the tests compile without the DOM library). */
interface Recorder {
  __loading?: string[];
}

describe('a long chat (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root', seed);
  let chat: FrameLocator;

  /** The transcript's scroll state, and the top of an entry (by its text) relative to the transcript. */
  const scroll = () =>
    chat.locator('.transcript').evaluate((element) => {
      const e = element as unknown as ProbeElement & { scrollTop: number; scrollHeight: number; clientHeight: number };
      return { top: e.scrollTop, height: e.scrollHeight, client: e.clientHeight };
    });
  const topOf = (text: string) =>
    chat
      .locator('.slot', { hasText: text })
      .first()
      .evaluate((slot) => {
        const transcript = (slot as unknown as ProbeElement).closest('.transcript')!;
        return (slot as unknown as ProbeElement).getBoundingClientRect().top - transcript.getBoundingClientRect().top;
      });
  const scrollTo = (where: 'top' | 'bottom' | number) =>
    chat.locator('.transcript').evaluate((element, to) => {
      const e = element as unknown as { scrollTop: number; scrollHeight: number };
      e.scrollTop = to === 'top' ? 0 : to === 'bottom' ? e.scrollHeight : to;
    }, where);
  /** Whether the transcript renders an entry in its viewport (not only the spacers standing for the others). */
  const entriesInView = () =>
    chat.locator('.transcript').evaluate((element) => {
      const view = (element as unknown as ProbeElement).getBoundingClientRect();
      return Array.from((element as unknown as ProbeElement).querySelectorAll('.slot')).some((slot) => {
        const box = slot.getBoundingClientRect();
        return box.bottom > view.top && box.top < view.bottom;
      });
    });
  async function until(what: string, check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 600; i++) {
      if (await check()) return;
      await bench().page.waitForTimeout(100);
    }
    assert.fail(`timed out waiting for ${what}`);
  }

  before(async () => {
    // Every document of the page (the webviews' too) records the loading progress it shows, from its start.
    // A webview's document is written into its frame after the frame was created (which drops observers and
    // listeners on the document): its window's timer is what stays.
    await bench()
      .page.context()
      .addInitScript(() => {
        const view = globalThis as unknown as Recorder & {
          document: { querySelectorAll(selector: string): Iterable<{ textContent: string | null }> };
          setInterval(f: () => void, ms: number): unknown;
        };
        view.__loading = [];
        view.setInterval(() => {
          for (const element of view.document.querySelectorAll('#root .loading, #root .status, #root .empty')) {
            const match = /Loading history… \d+%/.exec(element.textContent ?? '');
            if (match && view.__loading!.at(-1) !== match[0]) view.__loading!.push(match[0]);
          }
        }, 4);
      });
  });

  it('replays a session of 3,000 turns: says how far the loading is, then shows the whole transcript at its end', async () => {
    const workbench = bench();
    await workbench.openAcpContainer();
    const sessions = await workbench.webview('.sessions', 60_000);
    await sessions.locator('select[aria-label=Agent]').selectOption(AGENT);
    const row = sessions.locator('.row.session', { has: sessions.locator('.title', { hasText: 'A long session' }) });
    await row.waitFor({ timeout: 60_000 });
    await row.click();
    await sessions.locator('.list').press('Enter');
    const dialog = workbench.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.locator('.monaco-button', { hasText: "Use the Session's Folders" }).click();
    chat = await workbench.webview('.prompt-input', 120_000);
    await chat.locator('.entry.info', { hasText: 'the agent replayed its history' }).waitFor({ timeout: 120_000 });
    await chat.locator('.entry.agent', { hasText: `That is all for part ${TURNS - 1}.` }).waitFor();
    const said = await chat
      .locator('body')
      .evaluate((body) => ((body as unknown as ProbeElement).ownerDocument.defaultView as unknown as Recorder).__loading ?? ['(no recorder)']);
    assert.ok(
      said.some((text) => !text.endsWith('100%')),
      `the chat said how far the loading was: ${JSON.stringify(said)}`,
    );
    assert.equal(
      await chat
        .locator('.status')
        .innerText()
        .then((t) => t.trim()),
      'Ready',
    );
    const { top, height, client } = await scroll();
    assert.ok(height - top - client < 2, 'the view is at the end of the conversation');
    await workbench.screenshot('long-chat-replayed');
  });

  it('keeps only the entries near the view in the DOM, while the scrollbar spans the whole transcript', async () => {
    const rendered = await chat.locator('.slot').count();
    assert.ok(rendered > 3 && rendered < 150, `${rendered} of about ${TURNS * 3} entries in the DOM`);
    const { height, client } = await scroll();
    assert.ok(height > client * 100, `the scrollable height (${height} px) is the whole transcript's`);
    await scrollTo('top');
    await chat.locator('.entry.user', { hasText: 'Question 0:' }).waitFor();
    assert.ok((await chat.locator('.slot').count()) < 150);
    assert.equal(await chat.locator('.entry.agent', { hasText: `part ${TURNS - 1} greets` }).count(), 0, 'the end is out of the DOM now');
    await bench().screenshot('long-chat-top');
  });

  it('moves the keyboard focus through the entries of an early turn, edits its prompt, and keeps the focus when its entry scrolls away', async () => {
    const edit = (turn: number) =>
      chat.locator('.entry.user', { hasText: `Question ${turn}:` }).locator('button[aria-label="Edit this prompt and send it again"]');
    const focused = () =>
      chat.locator('body').evaluate((body) => {
        const active = (body as unknown as ProbeElement).ownerDocument.activeElement;
        const slot = active?.closest('[data-entry-id]');
        return `${active?.tagName.toLowerCase() ?? ''}:${active?.getAttribute('aria-label') ?? active?.textContent?.trim() ?? ''} in ${slot?.textContent?.trim().slice(0, 14) ?? '(no entry)'}`;
      });
    await edit(0).focus();
    assert.equal(await focused(), 'button:Edit this prompt and send it again in Question 0: wh');
    const walk: string[] = [];
    for (let i = 0; i < 12 && !walk.some((f) => f.includes('Question 2')); i++) {
      await bench().page.keyboard.press('Tab');
      walk.push(await focused());
    }
    assert.ok(
      walk.some((f) => f.startsWith('button:greet.ts:1 in Read greet.ts')),
      `a tool call's location is reached: ${walk.join(' → ')}`,
    );
    assert.ok(
      walk.some((f) => f.includes('Question 1')) && walk.some((f) => f.includes('Question 2')),
      `Tab goes on to the next turns' prompts: ${walk.join(' → ')}`,
    );
    for (let i = 0; i < 30 && !(await focused()).includes('Question 0'); i++) await bench().page.keyboard.press('Shift+Tab');
    assert.equal(await focused(), 'button:Edit this prompt and send it again in Question 0: wh', 'Shift+Tab comes back');

    await bench().page.keyboard.press('Enter');
    const box = chat.locator('.entry.user.editing textarea');
    await box.waitFor();
    assert.equal(await box.inputValue(), 'Question 0: what does part 0 of the library do?');
    await box.press('End');
    await bench().page.keyboard.type(' And part 1?');
    // The entry being edited scrolls out of view and back: the focus stays in it, the edit is kept.
    await scrollTo('bottom');
    await chat.locator('.entry.agent', { hasText: `That is all for part ${TURNS - 1}.` }).waitFor();
    assert.equal(await box.count(), 1, 'the entry holding the focus stays rendered');
    assert.match(await focused(), /^textarea:Edit the prompt/);
    await bench().screenshot('long-chat-focus-kept');
    await scrollTo('top');
    await box.waitFor();
    assert.equal(await box.inputValue(), 'Question 0: what does part 0 of the library do? And part 1?');
    await box.press('Escape');
    await edit(0).waitFor();
    assert.equal(await focused(), 'button:Edit this prompt and send it again in Question 0: wh', 'Escape gives the focus back to Edit');
  });

  it('while the agent streams: the text read further up stays in place; at the bottom the view follows', async () => {
    // Sent while reading further up: the view goes to the prompt just sent and follows the answer.
    await scrollTo(Math.round((await scroll()).height / 3));
    await chat.locator('.prompt-input').fill('stream slow');
    await chat.locator('.prompt-input').press('Enter');
    await chat.locator('.slot .entry.user', { hasText: 'stream slow' }).waitFor({ timeout: 30_000 });
    const streaming = chat.locator('.entry.agent').last();
    await streaming.locator('li', { hasText: 'item 1:' }).waitFor({ timeout: 60_000 });
    {
      const { top, height, client } = await scroll();
      assert.ok(height - top - client < 2, `at the bottom once the prompt is sent: ${height - top - client} px below`);
    }

    // Read somewhere in the middle: entries there are rendered and measured now, for the first time. The view
    // renders them with the scroll event, in the next frame: until then the DOM still holds the entries of the
    // end, so nothing is read before an entry is rendered in view.
    const target = Math.round((await scroll()).height / 2);
    await scrollTo(target);
    await until('the entries in view to be rendered', () => entriesInView());
    {
      const { top, client } = await scroll();
      assert.ok(Math.abs(top - target) < client, `the view stays where it was scrolled to while the agent streams (${top} px, scrolled to ${target})`);
    }
    // The first agent entry in view (rendered slots above the view are overscan, which may change as the
    // entries there are measured).
    const anchor = await chat.locator('.transcript').evaluate((element) => {
      const transcript = element as unknown as ProbeElement;
      const top = transcript.getBoundingClientRect().top;
      const entries = Array.from(transcript.querySelectorAll('.slot .entry.agent'));
      const inView = entries.find((entry) => entry.getBoundingClientRect().top >= top) ?? entries[0]!;
      return (inView as unknown as { innerText: string }).innerText.split('\n')[0]!;
    });
    const before = await topOf(anchor);
    // Two more chunks arrive below (the transcript grows), and nothing above moves what is read.
    let grown = (await scroll()).height;
    for (let chunk = 0; chunk < 2; chunk++) {
      const from = grown;
      await until('a streamed chunk', async () => (grown = (await scroll()).height) > from);
    }
    assert.ok(Math.abs((await topOf(anchor)) - before) < 1, `"${anchor}" stays where it was read`);
    await bench().screenshot('long-chat-reading-while-streaming');

    // Back at the bottom, the view follows each chunk.
    await scrollTo('bottom');
    const items = () => streaming.locator('li').count();
    for (let chunk = 0; chunk < 2; chunk++) {
      const count = await items();
      await until('a streamed chunk at the bottom', async () => (await items()) > count);
      const { top, height: now, client } = await scroll();
      assert.ok(now - top - client < 2, `at the bottom after the chunk: ${now - top - client} px below`);
    }
    await chat.locator('.button.stop').click();
    await chat.locator('.entry.turn-end', { hasText: 'Stopped.' }).last().waitFor({ timeout: 30_000 });
  });

  it('comes back whole when its hidden tab is shown again (the webview was torn down: the long snapshot returns in pieces)', async () => {
    const workbench = bench();
    await scrollTo('bottom');
    const last = (await chat.locator('.slot').last().innerText()).trim().split('\n')[0]!;
    await workbench.runCommand('Go to File...');
    await workbench.pick('greet.ts');
    await workbench.page.locator('.editor-instance .monaco-editor', { hasText: 'Hello from lib' }).first().waitFor({ timeout: 30_000 });
    // The Command Palette's hover over the title bar would take the click: move away from it first.
    await workbench.page.mouse.move(600, 500);
    await workbench.page.locator('.tab', { hasText: 'A long session' }).click();
    chat = await workbench.webview('.prompt-input', 60_000);
    await chat.locator('.slot', { hasText: last }).last().waitFor({ timeout: 60_000 });
    assert.ok((await chat.locator('.slot').count()) < 150, 'still only the entries near the view');
    const { top, height, client } = await scroll();
    assert.ok(height - top - client < 2 && height > client * 100, 'at the end of the whole transcript');
    await scrollTo('top');
    await chat.locator('.entry.user', { hasText: 'Question 0:' }).waitFor();
  });
});
