import * as assert from 'node:assert/strict';
import { useWorkbench } from './workbench';

/** What the test reads and writes in the workbench's page (the e2e code is compiled without the DOM's types). */
interface Page {
  webviewFocused: number;
  document: {
    activeElement: { closest(selector: string): unknown } | null;
    querySelectorAll(selector: string): Iterable<{ contentWindow: { focus(): void } | null }>;
  };
}

/**
 * The Command Palette opened while a chat has the keyboard. When a quick input closes, VS Code gives the keyboard
 * back to what had it before, or else to the active editor; a webview editor takes it asynchronously, with a
 * `focus` message into its frame. If that message lands after the next quick input opened (a command's own quick
 * pick, a Save dialog after a pick: on a busy machine it does), the quick input loses the keyboard and closes
 * (microsoft/vscode#93950). The UI tests run commands the way that does not start that race (Workbench.runCommand);
 * this test counts every time the workbench gives a webview's frame the keyboard, so a harness that started the
 * race fails here every time, not now and then under load.
 */
describe('the Command Palette from a chat (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench('multi-root');

  it('runs an ACP command whose quick picks keep the keyboard: nothing hands it back to the chat’s webview', async () => {
    const workbench = bench();
    const chat = await workbench.newChat('Reference Agent (offline)');
    const page = workbench.page;
    await chat.locator('.prompt-input').first().click();
    // Counts every time the workbench gives the keyboard to a webview's frame from now on (the start of the race).
    await page.evaluate(() => {
      const scope = globalThis as unknown as Page;
      scope.webviewFocused = 0;
      for (const frame of scope.document.querySelectorAll('iframe.webview')) {
        const view = frame.contentWindow;
        if (!view) continue;
        const focus = view.focus;
        view.focus = () => {
          scope.webviewFocused++;
          focus.call(view);
        };
      }
    });
    const webviewFocused = () => page.evaluate(() => (globalThis as unknown as Page).webviewFocused);
    const keyboardInQuickInput = () => page.evaluate(() => Boolean((globalThis as unknown as Page).document.activeElement?.closest('.quick-input-widget')));
    const title = (text: string) => page.locator('.quick-input-widget .quick-input-title', { hasText: text });

    await workbench.runCommand('ACP: Manage Shared Folders');
    await title('Shared Folders').waitFor({ timeout: 30_000 });
    assert.equal(await webviewFocused(), 0, 'the palette gave the keyboard back to the chat’s webview (its late focus can close the quick pick)');
    assert.ok(await keyboardInQuickInput(), 'the quick pick has the keyboard');

    // The second step: the first pick closing must not hand the keyboard to the chat either.
    await workbench.pick('Reference Agent (offline)');
    await title('Folders shared with Reference Agent (offline)').waitFor({ timeout: 30_000 });
    assert.equal(await webviewFocused(), 0, 'the first pick gave the keyboard back to the chat’s webview');
    assert.ok(await keyboardInQuickInput(), 'the second pick has the keyboard');
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  });
});
