/**
 * The webviews' controls and accessibility in the real workbench (issue 15): announcements a screen
 * reader hears, every action of a chat reached by keyboard, accessible names, and the controls taking the
 * colours of the light and high-contrast themes (with screenshots of each).
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';
import type { ProbeElement } from './probes';
import { useWorkbench } from './workbench';

/** The page side of the announcement recorder (the tests compile without the DOM library). */
interface Recorder {
  __said?: string[];
  MutationObserver: new (callback: () => void) => { observe(target: unknown, options: { childList: boolean; characterData: boolean; subtree: boolean }): void };
}

describe('controls and accessibility (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root');

  /** Preferences: Color Theme, then the theme, as a person picks it (clicking the command: Enter would take the first row, "Browse Color Themes"). */
  async function setTheme(label: string) {
    const page = bench().page;
    const input = await bench().openCommandPalette();
    await input.fill('>Preferences: Color Theme');
    await page.locator('.quick-input-widget .monaco-list-row[aria-label^="Preferences: Color Theme"]').first().click({ timeout: 30_000 });
    await bench().pick(label);
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  }
  let chat: FrameLocator;

  const turnEnds = () => chat.locator('.entry.turn-end').count();
  async function untilTurnEnds(before: number) {
    for (let i = 0; i < 300 && (await turnEnds()) <= before; i++) await bench().page.waitForTimeout(100);
    assert.ok((await turnEnds()) > before, 'the turn ended');
  }

  /** What has focus in the chat: its tag and its name. */
  const focused = () =>
    chat.locator('body').evaluate((body) => {
      const active = (body as unknown as ProbeElement).ownerDocument.activeElement;
      if (!active) return '';
      const name = active.getAttribute('aria-label') ?? active.textContent?.trim() ?? '';
      return `${active.tagName.toLowerCase()}${active.getAttribute('data-kind') ? `[${active.getAttribute('data-kind')}]` : ''}:${name}`;
    });

  before(async () => {
    const workbench = bench();
    await workbench.newSession('Reference Agent (offline)');
    await workbench.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click({ timeout: 30_000 });
    chat = await workbench.webview('.prompt-input', 60_000);
  });

  it('announces politely that the agent works, its finished answer whole, and that it finished; the transcript does not announce each chunk', async () => {
    assert.equal(await chat.locator('[role=log]').getAttribute('aria-live'), 'off', 'the transcript is a log that does not announce');
    const announcer = chat.locator('.announcer[aria-live=polite]');
    await announcer.evaluate((element) => {
      const view = (element as unknown as ProbeElement).ownerDocument.defaultView as unknown as Recorder;
      view.__said = [];
      new view.MutationObserver(() => view.__said!.push(element.textContent ?? '')).observe(element, { childList: true, characterData: true, subtree: true });
    });
    const before = await turnEnds();
    await chat.locator('.prompt-input').fill('stream');
    await chat.locator('.prompt-input').press('Enter');
    await untilTurnEnds(before);
    await chat.locator('.announcer', { hasText: 'finished' }).waitFor();
    const said = await announcer.evaluate((element) => ((element as unknown as ProbeElement).ownerDocument.defaultView as unknown as Recorder).__said ?? []);
    const spoken = said.map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
    assert.match(spoken[0] ?? '', /Reference Agent \(offline\) is working/);
    const last = spoken[spoken.length - 1] ?? '';
    for (const part of [
      'This answer arrives in fifty small chunks.',
      'item 1: value_1 is streamed',
      'item 45: value_45 is streamed',
      'const streamed = true;',
    ]) {
      assert.ok(last.includes(part), `the finished answer is announced whole (${part}): ${last}`);
    }
    assert.match(last, /Reference Agent \(offline\) finished\.$/);
    assert.ok(spoken.length <= 3, `a few announcements, not one per chunk: ${spoken.length}`);
  });

  it('reaches every action of a chat by keyboard: prompt box, composer controls, Stop, a tool call’s action and a permission’s buttons', async () => {
    await chat.locator('.prompt-input').fill('diff permission');
    await chat.locator('.prompt-input').press('Enter');
    const card = chat.locator('.entry.permission.pending');
    await card.waitFor({ timeout: 30_000 });
    await chat.locator('.prompt-input').focus();
    assert.equal(await focused(), 'textarea:Prompt');
    const forward: string[] = [];
    for (let i = 0; i < 12; i++) {
      await bench().page.keyboard.press('Tab');
      const now = await focused();
      forward.push(now);
      if (now === 'button:Stop') break;
    }
    assert.ok(forward.includes('button:Mention a file'), forward.join(' → '));
    assert.ok(
      forward.some((f) => f.startsWith('select:')),
      `a select (mode or model) is reached: ${forward.join(' → ')}`,
    );
    assert.equal(forward[forward.length - 1], 'button:Stop', forward.join(' → '));
    const ring = await chat.locator('.button.stop').evaluate((element) => {
      const style = (element as unknown as ProbeElement).ownerDocument.defaultView!.getComputedStyle(element as unknown as ProbeElement);
      return `${style['outlineStyle']} ${style['outlineWidth']}`;
    });
    assert.match(ring, /^solid [1-9]/, `a visible focus ring on the focused button: ${ring}`);
    await bench().screenshot('keyboard-focus-stop', chat.locator('.composer'));

    await chat.locator('.prompt-input').focus();
    const backward: string[] = [];
    for (let i = 0; i < 40; i++) {
      await bench().page.keyboard.press('Shift+Tab');
      const now = await focused();
      backward.push(now);
      if (now.startsWith('button[allow_once]')) break;
    }
    assert.ok(
      backward.some((f) => f.startsWith('button[reject_once]')),
      backward.join(' ← '),
    );
    assert.ok(backward[backward.length - 1]!.startsWith('button[allow_once]'), `the permission's buttons are reached: ${backward.join(' ← ')}`);
    await bench().screenshot('keyboard-focus-permission', card);
    await bench().page.keyboard.press('Shift+Tab');
    const beforePermission: string[] = [];
    for (let i = 0; i < 20 && !beforePermission.includes('button:Open Diff'); i++) {
      beforePermission.push(await focused());
      await bench().page.keyboard.press('Shift+Tab');
    }
    assert.ok(beforePermission.includes('button:Open Diff'), `the tool call's Open Diff is reached: ${beforePermission.join(' ← ')}`);
    await card.locator('button[data-kind=allow_once]').focus();
    await bench().page.keyboard.press('Enter');
    await chat.locator('.entry.permission.resolved', { hasText: 'Allowed once' }).waitFor({ timeout: 30_000 });
  });

  it('gives every control of the chat and the Sessions view an accessible name', async () => {
    const unnamed = (frame: FrameLocator) =>
      frame.locator('button, select, input, textarea, [role=radio], [role=option]').evaluateAll((elements) =>
        elements.flatMap((element) => {
          const e = element as unknown as ProbeElement;
          const label = e.closest('label');
          const name = e.getAttribute('aria-label') ?? (e.textContent?.trim() || label?.textContent?.trim() || e.getAttribute('title') || '');
          return name ? [] : [`${e.tagName.toLowerCase()}.${e.className}`];
        }),
      );
    assert.deepEqual(await unnamed(chat), [], 'chat controls without a name');
    await bench().openAcpContainer();
    const sessions = await bench().webview('.sessions', 60_000);
    await sessions.locator('select[aria-label=Agent]').selectOption('Reference Agent (offline)');
    await sessions.locator('.row.session').first().waitFor({ timeout: 60_000 });
    assert.deepEqual(await unnamed(sessions), [], 'Sessions controls without a name');
    // The scope switch is a radio group: the arrow keys move the choice.
    await sessions.locator('.scope[aria-checked=true]').focus();
    const first = (await sessions.locator('.scope[aria-checked=true]').innerText()).trim();
    await bench().page.keyboard.press('ArrowRight');
    await sessions.locator('.scope[aria-checked=true]', { hasNotText: first }).waitFor();
    await bench().page.keyboard.press('ArrowLeft');
    await sessions.locator('.scope[aria-checked=true]', { hasText: first }).waitFor();
  });

  for (const theme of [
    { label: 'Light Modern', bodyClass: 'vscode-light', name: 'light' },
    { label: 'Dark High Contrast', bodyClass: 'vscode-high-contrast', name: 'hc-dark' },
    { label: 'Light High Contrast', bodyClass: 'vscode-high-contrast-light', name: 'hc-light' },
    { label: 'Dark Modern', bodyClass: 'vscode-dark', name: 'dark' },
  ]) {
    it(`draws the controls in the colours of the ${theme.label} theme`, async () => {
      await setTheme(theme.label);
      /** Each control's computed colour next to the theme variable's own value, resolved the same way. */
      const colours = (frame: FrameLocator) =>
        frame.locator('body').evaluate((body, pairs) => {
          const doc = (body as unknown as ProbeElement).ownerDocument;
          const view = doc.defaultView!;
          const probe = doc.createElement('div') as unknown as ProbeElement & { style: Record<string, string> };
          (doc.body as unknown as { appendChild(e: unknown): void }).appendChild(probe);
          const out: Array<{ what: string; actual: string; expected: string }> = [];
          for (const [selector, property, variable] of pairs) {
            const element = doc.querySelector(selector);
            if (!element) continue;
            probe.style[property] = `var(${variable})`;
            const expected = view.getComputedStyle(probe)[property]!;
            probe.style[property] = '';
            if (!view.getComputedStyle(doc.documentElement).getPropertyValue(variable).trim()) continue; // not defined by this theme
            out.push({ what: `${selector} ${property}`, actual: view.getComputedStyle(element)[property]!, expected });
          }
          (probe as unknown as { remove(): void }).remove();
          return out;
        }, CONTROL_COLOURS);
      chat = await bench().webview('.prompt-input');
      await chat.locator(`body.${theme.bodyClass}`).waitFor({ timeout: 30_000 });
      await chat.locator('.prompt-input').fill('A prompt');
      const chatColours = await colours(chat);
      assert.ok(chatColours.length >= 5, `the chat's controls were found: ${JSON.stringify(chatColours)}`);
      for (const c of chatColours) assert.equal(c.actual, c.expected, `${theme.label}: ${c.what}`);
      if (theme.name.startsWith('hc')) {
        const border = await chat.locator('.button.send').evaluate((element) => {
          const view = (element as unknown as ProbeElement).ownerDocument.defaultView!;
          return view.getComputedStyle(element as unknown as ProbeElement)['borderTopColor']!;
        });
        assert.doesNotMatch(border, /rgba\(0, 0, 0, 0\)/, 'buttons have a visible border in high contrast');
      }
      await bench().screenshot(`controls-${theme.name}`, chat.locator('.composer'));
      await chat.locator('.prompt-input').fill('');
      const sidebar = await bench().openAcpContainer();
      const sessions = await bench().webview('.sessions', 60_000);
      await sessions.locator(`body.${theme.bodyClass}`).waitFor({ timeout: 30_000 });
      const sessionColours = await colours(sessions);
      assert.ok(sessionColours.length >= 3, `the Sessions view's controls were found: ${JSON.stringify(sessionColours)}`);
      for (const c of sessionColours) assert.equal(c.actual, c.expected, `${theme.label}: ${c.what}`);
      await bench().screenshot(`sessions-controls-${theme.name}`, sidebar);
      chat = await bench().webview('.prompt-input');
    });
  }
});

/** [selector, computed style property, theme variable]: what each control's colour must be. */
const CONTROL_COLOURS: ReadonlyArray<readonly [string, string, string]> = [
  ['.button.send', 'backgroundColor', '--vscode-button-background'],
  ['.button.send', 'color', '--vscode-button-foreground'],
  ['.composer .select', 'backgroundColor', '--vscode-dropdown-background'],
  ['.composer .select', 'color', '--vscode-dropdown-foreground'],
  ['.composer .select', 'borderTopColor', '--vscode-dropdown-border'],
  ['.checkbox input', 'backgroundColor', '--vscode-checkbox-background'],
  ['.checkbox input', 'borderTopColor', '--vscode-checkbox-border'],
  ['.prompt-input', 'backgroundColor', '--vscode-input-background'],
  ['.prompt-input', 'color', '--vscode-input-foreground'],
  ['.toolbar .select', 'backgroundColor', '--vscode-dropdown-background'],
  ['.toolbar .select', 'color', '--vscode-dropdown-foreground'],
  ['.segment[aria-checked=true]', 'backgroundColor', '--vscode-inputOption-activeBackground'],
  ['.search', 'backgroundColor', '--vscode-input-background'],
];
