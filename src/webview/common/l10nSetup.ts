/**
 * Must be imported by every webview entry before its app: configures `@vscode/l10n` with the display
 * language's strings the host put into the page (src/vscode/webviewHtml.ts), so every `l10n.t` of the
 * webview, module-level ones included, reads them. No bundle (English) or an unreadable one: the messages
 * themselves are shown.
 */
import * as l10n from '@vscode/l10n';

const element = document.getElementById('l10n-bundle');
if (element?.textContent) {
  try {
    const contents: unknown = JSON.parse(element.textContent);
    if (contents && typeof contents === 'object' && !Array.isArray(contents)) {
      const strings = Object.fromEntries(Object.entries(contents).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
      l10n.config({ contents: strings });
    }
  } catch {
    // Not JSON: English it is.
  }
}
