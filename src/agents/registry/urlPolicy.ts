/**
 * Which URLs the extension fetches registry documents, icons and agent archives from: HTTPS anywhere, plain HTTP
 * only to this machine (a registry or mirror served on loopback, as tests and local mirrors do). Anything else
 * (file:, data:, ftp:, credentials in the URL) is refused with why.
 */
import * as l10n from '@vscode/l10n';
import { isLoopback } from '../../common/loopback';

export { isLoopback };

/** The URL as parsed, or an Error whose message says why it is not fetched. */
export function checkFetchUrl(text: string): URL | Error {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return new Error(l10n.t('"{0}" is not a valid URL.', clip(text)));
  }
  if (url.username || url.password) return new Error(l10n.t('{0} carries a user name or password: put credentials elsewhere, never in the URL.', url.host));
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url;
  if (url.protocol === 'http:')
    return new Error(l10n.t('{0} uses plain HTTP: only HTTPS is used, except for this machine (127.0.0.1, localhost).', clip(text)));
  return new Error(l10n.t('{0} is not an HTTPS address.', clip(text)));
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
