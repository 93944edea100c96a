/**
 * Text a new user reads in every webview (the chat, the Review Changes tab, the Sessions view) keeps WCAG contrast
 * in each of the four kinds of theme, and an added diff line stands out in each (issue 25 item 11: inline code was
 * black on black in Dark High Contrast and white on near-white in Light High Contrast, and added lines had no
 * highlight in either, where the themes define a border for them instead of a background).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { contrastOf, parseColour, type ProbeElement } from './probes';
import { useWorkbench } from './workbench';

/** WCAG AA for normal text. */
const AA = 4.5;

interface Look {
  readonly foreground: string;
  /** The element's own background and its ancestors', innermost first. */
  readonly backgrounds: string[];
  /** Its outline and border colours and widths ("rgb(…) 1px"), to see whether it has a visible edge. */
  readonly edges: string[];
}

/** The colours the element is drawn with. */
function lookOf(locator: Locator): Promise<Look> {
  return locator.evaluate((element) => {
    const start = element as unknown as ProbeElement;
    const view = start.ownerDocument.defaultView!;
    const backgrounds: string[] = [];
    for (let e: ProbeElement | null = start; e; e = e.parentElement) backgrounds.push(view.getComputedStyle(e)['backgroundColor']!);
    const style = view.getComputedStyle(start);
    const edges = [
      `${style['outlineColor']} ${style['outlineStyle'] === 'none' ? '0px' : style['outlineWidth']}`,
      ...['Top', 'Left'].map((side) => `${style[`border${side}Color`]} ${style[`border${side}Style`] === 'none' ? '0px' : style[`border${side}Width`]}`),
    ];
    return { foreground: style['color']!, backgrounds, edges };
  });
}

/** Whether a line stands apart from what is around it: a background that differs from its parent's, or a visible edge. */
function standsOut(look: Look): string | undefined {
  const own = parseColour(look.backgrounds[0]!);
  const below = look.backgrounds.slice(1);
  if (own[3] > 0 && contrastOf(look.backgrounds[0]!, below) >= 1.1) return `background ${look.backgrounds[0]}`;
  const edge = look.edges.find((e) => {
    const [colour, width] = e.split(/ (?=[\d.]+px$)/) as [string, string];
    return parseFloat(width) > 0 && parseColour(colour)[3] > 0 && contrastOf(colour, below) >= 3;
  });
  return edge ? `edge ${edge}` : undefined;
}

describe('contrast in the four kinds of theme (real workbench, Chromium)', function () {
  this.timeout(180_000);
  let file = '';
  const bench = useWorkbench('multi-root', (paths) => {
    file = path.join(paths.workspaces, 'multi-root', 'app', 'src', 'contrast.ts');
    fs.writeFileSync(file, 'export const contrast = 1;\n');
  });
  let chat: FrameLocator;
  let review: FrameLocator;

  /** Preferences: Color Theme, then the theme, as a person picks it. */
  async function setTheme(label: string) {
    const page = bench().page;
    const input = await bench().openCommandPalette();
    await input.fill('>Preferences: Color Theme');
    await page.locator('.quick-input-widget .monaco-list-row[aria-label^="Preferences: Color Theme"]').first().click({ timeout: 30_000 });
    await bench().pick(label);
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  }

  before(async () => {
    const workbench = bench();
    await workbench.newSession('Reference Agent (offline)');
    await workbench.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click({ timeout: 30_000 });
    chat = await workbench.webview('.prompt-input', 60_000);
    const input = chat.locator('.prompt-input');
    await input.fill('Echo the `inline code` and a [link](https://example.com)');
    await input.press('Enter');
    await chat.locator('.entry.agent .markdown :not(pre) > code', { hasText: 'inline code' }).waitFor({ timeout: 60_000 });
    await input.fill(`prepend-direct ${file} // an added line`);
    await input.press('Enter');
    const changes = chat.locator('.entry.changes');
    await changes.waitFor({ timeout: 60_000 });
    await changes.locator('button', { hasText: 'Review' }).click();
    review = await workbench.webview('.review-header', 60_000);
    await review.locator('.diff-line.added', { hasText: 'an added line' }).waitFor({ timeout: 30_000 });
  });

  for (const theme of [
    { label: 'Light Modern', bodyClass: 'vscode-light' },
    { label: 'Dark Modern', bodyClass: 'vscode-dark' },
    { label: 'Dark High Contrast', bodyClass: 'vscode-high-contrast' },
    { label: 'Light High Contrast', bodyClass: 'vscode-high-contrast-light' },
  ]) {
    it(`keeps text readable and added lines marked in ${theme.label}`, async () => {
      await setTheme(theme.label);
      const problems: string[] = [];
      const readable = async (what: string, locator: Locator) => {
        const look = await lookOf(locator);
        const ratio = contrastOf(look.foreground, look.backgrounds);
        if (ratio < AA)
          problems.push(`${what}: ${ratio.toFixed(2)}:1 (${look.foreground} on ${look.backgrounds.filter((b) => parseColour(b)[3] > 0).join(' / ')})`);
      };

      // The Review Changes tab.
      await bench().page.locator('.tab', { hasText: 'Review:' }).first().click();
      review = await bench().webview('.review-header', 60_000);
      await review.locator(`body.${theme.bodyClass}`).waitFor({ timeout: 30_000 });
      const added = review.locator('.diff-line.added', { hasText: 'an added line' }).first();
      await readable('review: an added line', added.locator('.line-text'));
      await readable('review: a file name', review.locator('.file-card .path-name').first());
      const row = await lookOf(added);
      const cell = await lookOf(added.locator('.line-text'));
      if (!standsOut(row) && !standsOut(cell))
        problems.push(`review: an added line has no highlight (row ${JSON.stringify(row)}, text ${JSON.stringify(cell)})`);

      // The chat.
      await bench().page.locator('.tab', { hasText: 'Reference Agent (offline)', hasNotText: 'Review:' }).first().click();
      chat = await bench().webview('.prompt-input');
      await chat.locator(`body.${theme.bodyClass}`).waitFor({ timeout: 30_000 });
      const answer = chat.locator('.entry.agent', { hasText: 'inline code' }).first();
      await readable('chat: inline code', answer.locator('.markdown :not(pre) > code').first());
      await readable('chat: the agent’s text', answer.locator('.markdown p').first());
      await readable('chat: a link', answer.locator('.markdown a').first());
      await readable('chat: the user’s message', chat.locator('.entry.user').first());
      await readable('chat: the prompt box', chat.locator('.prompt-input'));

      // The Sessions view.
      await bench().openAcpContainer();
      const sessions = await bench().webview('.sessions', 60_000);
      await sessions.locator(`body.${theme.bodyClass}`).waitFor({ timeout: 30_000 });
      await sessions.locator('.row.session').first().waitFor({ timeout: 60_000 });
      await readable('sessions: a session’s title', sessions.locator('.row.session').first());

      assert.deepEqual(problems, [], `${theme.label}`);
    });
  }
});
