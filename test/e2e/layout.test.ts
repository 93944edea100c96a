/**
 * Layout defects of issue 15 (defect 9), measured in the real workbench: nothing cut off or clipped, search
 * highlights that do not split words, readable finished plan steps, `@` chips that name their folder; at a
 * narrow window and a narrow sidebar.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';
import { contrastOf, type ProbeElement } from './probes';
import { useWorkbench } from './workbench';

describe('layout: nothing cut off, clipped or split (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root');
  let chat: FrameLocator;
  const quickInput = () => bench().page.locator('.quick-input-widget');

  const turnEnds = () => chat.locator('.entry.turn-end').count();
  async function send(text: string) {
    const before = await turnEnds();
    const input = chat.locator('.prompt-input');
    await input.fill(text);
    await input.press('Enter');
    for (let i = 0; i < 300 && (await turnEnds()) <= before; i++) await bench().page.waitForTimeout(100);
    assert.ok((await turnEnds()) > before, 'the turn ended');
  }

  it('says in full what the folder consent prompt asks, in a narrow window', async () => {
    const page = bench().page;
    await page.setViewportSize({ width: 760, height: 820 });
    await bench().newSession('Reference Agent (offline)');
    const title = quickInput().locator('.quick-input-title');
    await title.filter({ hasText: 'Reference Agent (offline)' }).waitFor({ timeout: 30_000 });
    await quickInput().locator('.quick-input-list .monaco-list-row').first().waitFor();
    await bench().screenshot('consent-prompt-narrow', quickInput());
    const fits = await quickInput().evaluate((widget) => {
      const root = widget as unknown as ProbeElement;
      const titleBox = root.querySelector('.quick-input-title')!;
      const input = root.querySelector('.quick-input-box input')!;
      const style = input.ownerDocument.defaultView!.getComputedStyle(input);
      const canvas = root.ownerDocument.createElement('canvas') as unknown as {
        getContext(kind: '2d'): { font: string; measureText(text: string): { width: number } };
      };
      const context = canvas.getContext('2d');
      context.font = `${style['fontSize']} ${style['fontFamily']}`;
      const placeholder = input.getAttribute('placeholder') ?? '';
      const box = input.getBoundingClientRect();
      let right = box.right - parseFloat(style['paddingRight']!);
      // The "2 Selected" count sits over the end of the input box.
      for (const badge of Array.from(root.querySelectorAll('.quick-input-count, .quick-input-visible-count'))) {
        const b = badge.getBoundingClientRect();
        if (b.width > 0 && b.left < right && b.left > box.left) right = b.left;
      }
      return {
        title: titleBox.textContent ?? '',
        titleCut: titleBox.scrollWidth > titleBox.clientWidth + 1,
        placeholder,
        placeholderWidth: context.measureText(placeholder).width,
        room: right - box.left - parseFloat(style['paddingLeft']!),
      };
    });
    // The chat the next tests use opens whatever the measurements say.
    await quickInput().locator('.quick-input-action .monaco-button', { hasText: 'OK' }).click();
    chat = await bench().webview('.prompt-input', 60_000);
    assert.equal(fits.titleCut, false, `the title is cut off: ${fits.title}`);
    assert.ok(
      fits.placeholderWidth <= fits.room,
      `the question is cut off (${Math.round(fits.placeholderWidth)} px of text in ${Math.round(fits.room)} px): ${fits.placeholder}`,
    );
    assert.match(fits.title + fits.placeholder, /read and change/, 'the prompt still says what sharing means');
  });

  it('wraps a notice with a long path instead of cutting it off', async () => {
    await send('notice about the greeting');
    const notice = chat.locator('.entry.notice').last();
    await notice.waitFor();
    await bench().screenshot('chat-notice-narrow', notice);
    const overflow = await notice.evaluate((element) => {
      const entry = element as unknown as ProbeElement;
      const transcript = entry.closest('.transcript')!.getBoundingClientRect();
      const cut = [entry, ...Array.from(entry.querySelectorAll('*'))].filter(
        (e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > transcript.right + 1,
      );
      return cut.map((e) => `${e.className}: ${e.scrollWidth} > ${e.clientWidth}`);
    });
    assert.deepEqual(overflow, [], 'no part of the notice is wider than the chat');
    assert.match(await notice.innerText(), /settings\.json and found no readable file\./);
  });

  it('shows finished plan steps with a check and normal contrast, not struck through and faded', async () => {
    await send('plan');
    const done = chat.locator('.entry.plan').last().locator('.plan-item.completed');
    await done.nth(2).waitFor();
    await bench().screenshot('chat-plan-finished', chat.locator('.entry.plan').last());
    for (const item of await done.all()) {
      const look = await item.evaluate((element) => {
        const li = element as unknown as ProbeElement;
        const text = li.querySelector('.plan-text') ?? li.lastElementChild!;
        const view = li.ownerDocument.defaultView!;
        let opacity = 1;
        const backgrounds: string[] = [];
        for (let e: ProbeElement | null = text; e; e = e.parentElement) {
          opacity *= Number(view.getComputedStyle(e)['opacity']);
          backgrounds.push(view.getComputedStyle(e)['backgroundColor']!);
        }
        return {
          check: !!li.querySelector('.codicon-check, .codicon-pass, .codicon-pass-filled, .codicon-check-all'),
          decoration: view.getComputedStyle(text)['textDecorationLine'],
          opacity,
          colours: { foreground: view.getComputedStyle(text)['color']!, background: backgrounds },
        };
      });
      assert.ok(look.check, 'a finished step has a check icon');
      assert.equal(look.decoration, 'none', 'a finished step is not struck through');
      assert.equal(look.opacity, 1, 'a finished step is not faded');
      const ratio = contrastOf(look.colours.foreground, look.colours.background);
      assert.ok(ratio >= 4.5, `contrast ${ratio.toFixed(2)}:1 of ${look.colours.foreground} on ${look.colours.background}`);
    }
  });

  it('names the folder of an @-mentioned file on its chip and in the sent message', async () => {
    const input = chat.locator('.prompt-input');
    await input.fill('');
    await input.pressSequentially('Summarise @GRE');
    await chat.locator('.completion[aria-label=Files] li', { hasText: 'lib/src/greet.ts' }).waitFor({ timeout: 30_000 });
    await input.press('Enter');
    const chip = chat.locator('.attachments .chip').first();
    await chip.waitFor();
    const text = (await chip.innerText()).trim();
    assert.match(text, /greet\.ts/);
    assert.match(text, /\blib\b/, `the chip says which folder: ${text}`);
    assert.match((await chip.getAttribute('title')) ?? '', /multi-root\/lib\/src\/greet\.ts$/, 'the full path is in the tooltip');
    const remove = chip.getByRole('button', { name: 'Remove greet.ts' });
    assert.ok(await remove.isVisible(), 'the chip can be removed');
    const glyph = await remove.evaluate((element) => {
      const button = element as unknown as ProbeElement;
      const icon = button.querySelector('.codicon')!;
      const view = button.ownerDocument.defaultView!;
      const box = icon.getBoundingClientRect();
      const style = view.getComputedStyle(icon);
      return {
        width: box.width,
        height: box.height,
        color: style['color']!,
        font: style['fontFamily']!,
        content: view.getComputedStyle(icon).getPropertyValue('content'),
        visibility: style['visibility']!,
        opacity: style['opacity']!,
      };
    });
    assert.ok(glyph.width >= 10 && glyph.height >= 10 && glyph.visibility === 'visible' && glyph.opacity === '1', `the × shows: ${JSON.stringify(glyph)}`);
    await bench().screenshot('chat-mention-chip', chat.locator('.composer'));
    const before = await turnEnds();
    await input.press('Enter');
    for (let i = 0; i < 300 && (await turnEnds()) <= before; i++) await bench().page.waitForTimeout(100);
    const sent = chat.locator('.entry.user').last();
    await sent.locator('.location', { hasText: 'greet.ts' }).waitFor();
    assert.match((await sent.innerText()).replace(/\s+/g, ' '), /greet\.ts · lib/, 'the sent message names the folder too');
    const link = await sent.locator('.location', { hasText: 'greet.ts' }).evaluate((element) => {
      const view = (element as unknown as ProbeElement).ownerDocument.defaultView!;
      const backgrounds: string[] = [];
      for (let e: ProbeElement | null = element as unknown as ProbeElement; e; e = e.parentElement)
        backgrounds.push(view.getComputedStyle(e)['backgroundColor']!);
      return { foreground: view.getComputedStyle(element as unknown as ProbeElement)['color']!, backgrounds };
    });
    const linkContrast = contrastOf(link.foreground, link.backgrounds);
    assert.ok(linkContrast >= 4.5, `the sent file's name is readable on its chip: ${linkContrast.toFixed(2)}:1`);
  });

  it('keeps whole words in search highlights of the Sessions view', async () => {
    const sidebar = await bench().openAcpContainer();
    const view = await bench().webview('.sessions', 60_000);
    await view.locator('select[aria-label=Agent]').selectOption('Reference Agent (offline)');
    await view.locator('.search-input').fill('greet');
    const row = view.locator('.row.session', { hasText: 'notice about the greeting' }).first();
    await row.locator('.snippet mark').first().waitFor({ timeout: 60_000 });
    await bench().screenshot('sessions-search-highlight', sidebar);
    const gaps = await row.evaluate((element) => {
      const found: string[] = [];
      for (const mark of Array.from((element as unknown as ProbeElement).querySelectorAll('mark'))) {
        const box = mark.getBoundingClientRect();
        // A highlight past the ellipsis of a clipped line (a later hit in a long snippet) is not shown.
        const clip = mark.parentElement?.getBoundingClientRect();
        if (clip && box.right > clip.right) continue;
        for (const [side, node] of [
          ['before', mark.previousSibling],
          ['after', mark.nextSibling],
        ] as const) {
          if (!node || !node.textContent) continue;
          const range = mark.ownerDocument.createRange();
          range.selectNodeContents(node);
          const rects = Array.from(range.getClientRects());
          const edge = side === 'before' ? rects[rects.length - 1]?.right : rects[0]?.left;
          const gap = edge === undefined ? 0 : side === 'before' ? box.left - edge : edge - box.right;
          if (Math.abs(gap) > 0.5) found.push(`${Math.round(gap)} px ${side} “${mark.textContent}”`);
        }
      }
      return found;
    });
    assert.deepEqual(gaps, [], 'a highlight sits flush with the text around it');
    const snippet = (await row.locator('.snippet').innerText()).replace(/\s+/g, ' ');
    assert.match(snippet, /notice about the greeting/, 'the snippet reads as the text');
  });

  it('shows every button of the Sessions details pane, in a narrow sidebar', async () => {
    const page = bench().page;
    const sidebar = page.locator('#workbench\\.parts\\.sidebar');
    const box = (await sidebar.boundingBox())!;
    // Drag the sidebar's edge to make it narrow, as a person would.
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 200, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    const view = await bench().webview('.sessions', 60_000);
    await view.locator('.search-input').fill('');
    const row = view.locator('.row.session', { hasText: 'notice about the greeting' }).first();
    await row.click();
    const details = view.locator('.details');
    await details.waitFor();
    await bench().screenshot('sessions-details-narrow', sidebar);
    const clipped = await details.evaluate((element) => {
      const pane = element as unknown as ProbeElement;
      const frame = pane.ownerDocument.documentElement.getBoundingClientRect();
      const outer = pane.getBoundingClientRect();
      return Array.from(pane.querySelectorAll('button')).flatMap((button) => {
        const b = button.getBoundingClientRect();
        const inside = b.top >= outer.top - 0.5 && b.bottom <= outer.bottom + 0.5 && b.left >= outer.left - 0.5 && b.right <= outer.right + 0.5;
        const onScreen = b.bottom <= frame.bottom + 0.5 && b.right <= frame.right + 0.5;
        const cut = button.scrollWidth > button.clientWidth + 1;
        return inside && onScreen && !cut
          ? []
          : [
              `${button.textContent}: ${Math.round(b.left)},${Math.round(b.top)}–${Math.round(b.right)},${Math.round(b.bottom)} in ${Math.round(outer.left)},${Math.round(outer.top)}–${Math.round(outer.right)},${Math.round(outer.bottom)} (page ${Math.round(frame.right)}×${Math.round(frame.bottom)}, text ${button.scrollWidth}/${button.clientWidth})`,
            ];
      });
    });
    assert.deepEqual(clipped, [], 'every action of the details pane shows whole');
    // And on the screen: inside the sidebar the person sees (page coordinates, across the webview's frames).
    const visible = (await sidebar.boundingBox())!;
    for (const button of await details.locator('button').all()) {
      const b = (await button.boundingBox())!;
      const name = (await button.innerText()).trim();
      assert.ok(
        b.y >= visible.y - 0.5 && b.y + b.height <= visible.y + visible.height + 0.5,
        `${name} is cut off at the bottom of the sidebar (${Math.round(b.y + b.height)} > ${Math.round(visible.y + visible.height)})`,
      );
      assert.ok(b.x >= visible.x - 0.5 && b.x + b.width <= visible.x + visible.width + 0.5, `${name} is cut off at the side of the sidebar`);
    }
    assert.ok((await details.locator('button').count()) >= 8);
  });
});
