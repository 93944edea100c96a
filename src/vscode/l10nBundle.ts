/**
 * The display language's strings for the code that cannot call `vscode.l10n.t`: the plain-Node layers (one
 * `@vscode/l10n` instance in the extension bundle, configured here at activation) and the webviews (the
 * bundle goes into their HTML, see webviewHtml.ts). In English there is no bundle: the messages are the keys.
 */
import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';

/** Configures `@vscode/l10n` for the plain-Node layers; call first in activate(). */
export function configureL10n(): void {
  const bundle = vscode.l10n.bundle;
  if (bundle) l10n.config({ contents: bundle });
}

/** The bundle as JSON safe to put inside a `<script type="application/json">` element, or undefined in English. */
export function l10nBundleJson(bundle: { [key: string]: string } | undefined = vscode.l10n.bundle): string | undefined {
  if (!bundle) return undefined;
  return JSON.stringify(bundle).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}
