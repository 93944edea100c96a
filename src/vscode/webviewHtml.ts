/**
 * The HTML shell of a webview: one script and one stylesheet from `dist/webview/`, loaded through
 * `asWebviewUri`, under a strict Content Security Policy with a per-load nonce and no inline handlers.
 * Nothing is loaded from the network: images are the extension's own or `data:` URLs (a remote image the
 * user asks to see in a chat is fetched by the host, see sessions/turns/remoteImage.ts). The display language's
 * strings travel as a JSON data block (not executed, so the CSP has nothing to allow) that the webview's
 * l10nSetup reads before it renders.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { l10nBundleJson } from './l10nBundle';

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')] };
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, bundle: string, title: string): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', file)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const strings = l10nBundleJson();
  return `<!DOCTYPE html>
<html lang="${escapeHtml(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${asset(`${bundle}.css`)}">
</head>
<body>
<div id="root"></div>
${strings ? `<script type="application/json" id="l10n-bundle">${strings}</script>\n` : ''}<script nonce="${nonce}" src="${asset(`${bundle}.js`)}"></script>
</body>
</html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
