/**
 * Localization end to end (issue 15, "Localizable"): the extension, in a copy with a pseudo-locale bundle
 * (`l10n/bundle.l10n.qps-ploc.json`: every message bracketed), runs in a workbench whose display language
 * is that pseudo-locale. Translated text then shows from all three places strings are made: a notice in
 * the chat from a plain-Node layer (@vscode/l10n configured at activation), the Review Changes tab's title
 * from the host (vscode.l10n.t) and its text and buttons from the webview (@vscode/l10n configured from the
 * bundle in its HTML), and the manifest's own strings (`package.nls.qps-ploc.json`) in the Command Palette.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, useWorkbench } from './workbench';

const LOCALE = 'qps-ploc';
const pseudo = (message: string): string => `⟦${message}⟧`;

/** A copy of the built extension with the pseudo-locale bundle and manifest strings next to the English ones. */
function extensionWithPseudoLocale(scratch: string): string {
  const dir = path.join(scratch, 'extension');
  for (const entry of ['package.json', 'package.nls.json', 'dist', 'media', 'l10n'])
    fs.cpSync(path.join(REPO_ROOT, entry), path.join(dir, entry), { recursive: true });
  const english = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;
  const translated = Object.fromEntries(Object.keys(english).map((key) => [key, pseudo(key)]));
  fs.writeFileSync(path.join(dir, 'l10n', `bundle.l10n.${LOCALE}.json`), JSON.stringify(translated, null, 2));
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
  fs.writeFileSync(
    path.join(dir, `package.nls.${LOCALE}.json`),
    JSON.stringify(Object.fromEntries(Object.entries(manifest).map(([key, text]) => [key, pseudo(text)])), null, 2),
  );
  return dir;
}

/** A command as the Command Palette lists it in the pseudo-locale: its category and title from package.nls.qps-ploc.json. */
const command = (title: string): string => `${pseudo('ACP')}: ${pseudo(title)}`;

/**
 * VS Code uses a display language only when a language pack provides it: a stand-in pack for the
 * pseudo-locale, as the workbench's record of installed packs lists it (no core string is translated).
 */
function pseudoLanguagePack(userData: string): void {
  fs.mkdirSync(userData, { recursive: true });
  const translations = path.join(userData, 'pseudo-language-pack.i18n.json');
  fs.writeFileSync(translations, JSON.stringify({ contents: {} }));
  fs.writeFileSync(
    path.join(userData, 'languagepacks.json'),
    JSON.stringify({
      [LOCALE]: {
        hash: 'pseudo',
        label: 'Pseudo',
        extensions: [{ extensionIdentifier: { id: 'test.pseudo-language-pack' }, version: '0.0.1' }],
        translations: { vscode: translations },
      },
    }),
  );
}

describe('localization: a pseudo-locale shows in the host, a plain-Node layer and a webview (real workbench, Chromium)', function () {
  this.timeout(180_000);
  const bench = useWorkbench(
    'multi-root',
    (paths) => pseudoLanguagePack(paths.userData),
    (scratch) => ({ locale: LOCALE, extensionPath: extensionWithPseudoLocale(scratch) }),
  );

  it('a command title, a chat notice and the Review Changes tab of a new session are in the pseudo-locale', async () => {
    const workbench = bench();
    // The manifest's strings: the Command Palette lists the command only under its translated category and title.
    await workbench.newSession('Reference Agent (offline)', command('New Session'));
    await workbench.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click({ timeout: 30_000 });
    const chat = await workbench.webview('.prompt-input');

    // A plain-Node layer's text (sessions/review/changeReview.ts, @vscode/l10n configured at activation), in the chat.
    await workbench.runCommand(command('Undo Last Turn'));
    await chat.getByText(pseudo('No turn of this session changed files that can still be undone.'), { exact: true }).waitFor({ timeout: 30_000 });
    await workbench.screenshot('l10n-chat-pseudo-locale', chat.locator('body'));

    await workbench.runCommand(command('Review Changes'));
    const review = await workbench.webview('.review-header', 60_000);
    // The webview's own text (@vscode/l10n in the browser, configured from the bundle in its HTML).
    await review.getByText(pseudo('No changes to review.'), { exact: true }).waitFor({ timeout: 30_000 });
    const acceptAll = review.locator('.review-actions button').first();
    assert.equal((await acceptAll.innerText()).trim(), pseudo('Accept All'));
    assert.equal(await acceptAll.getAttribute('title'), pseudo('Keep every change'));
    // The host's text (vscode.l10n.t): the tab's title.
    assert.match(await workbench.page.locator('.tabs-container .tab.active').innerText(), /^⟦Review: .+⟧$/);
    await workbench.screenshot('l10n-review-pseudo-locale', review.locator('main.review'));
  });
});
