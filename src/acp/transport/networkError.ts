/** A failure to reach a remote agent (refused, reset, DNS, TLS, timeout), in words without any secret. */
import * as l10n from '@vscode/l10n';
import { errorMessage } from '../../common/errors';

/** Codes Node gives network failures, in the user's words. */
const WORDS: Readonly<Record<string, () => string>> = {
  ECONNREFUSED: () => l10n.t('the connection was refused (is the server running?)'),
  ECONNRESET: () => l10n.t('the connection was reset'),
  ENOTFOUND: () => l10n.t('the host name was not found'),
  EAI_AGAIN: () => l10n.t('the host name could not be looked up'),
  ETIMEDOUT: () => l10n.t('the connection timed out'),
  EHOSTUNREACH: () => l10n.t('the host is unreachable'),
  ENETUNREACH: () => l10n.t('the network is unreachable'),
  EPIPE: () => l10n.t('the connection was closed while sending'),
  UND_ERR_SOCKET: () => l10n.t('the connection was closed by the other side'),
  UND_ERR_CONNECT_TIMEOUT: () => l10n.t('the connection timed out'),
  CERT_HAS_EXPIRED: () => l10n.t('its TLS certificate has expired'),
  DEPTH_ZERO_SELF_SIGNED_CERT: () => l10n.t('its TLS certificate is self-signed and not trusted'),
  SELF_SIGNED_CERT_IN_CHAIN: () => l10n.t('its TLS certificate chain is not trusted'),
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: () => l10n.t('its TLS certificate could not be verified'),
  ERR_TLS_CERT_ALTNAME_INVALID: () => l10n.t('its TLS certificate is for another host name'),
};

/** "Box opencode could not reach wss://host/acp: the connection was refused (is the server running?)." */
export function networkWords(peer: string, where: string, error: unknown): string {
  return l10n.t('{0} could not be reached at {1}: {2}.', peer, where, describe(error));
}

/**
 * "ECONNREFUSED — the connection was refused (is the server running?)": the code the system gave first (what a user
 * searches for), then the words; for a failure without such a code, the words alone. fetch's own codes
 * (`UND_ERR_SOCKET`…) name undici's internals, not anything a user can look up: only their words are said.
 */
export function networkCause(error: unknown): string {
  const code = codeOf(error);
  return code === undefined || code.startsWith('UND_ERR') ? describe(error) : `${code} — ${describe(error)}`;
}

/**
 * The first network failure code in the cause chain that has words (`ENOTFOUND` → "the host name was not found"),
 * for a message that says it in words rather than quoting Node's `getaddrinfo ENOTFOUND host`.
 */
export function knownNetworkFailure(error: unknown): { readonly code: string; readonly words: string } | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && WORDS[code]) return { code, words: WORDS[code]() };
  }
  return undefined;
}

/** The first error code in the cause chain (fetch wraps the socket's error in `cause`, sometimes twice). */
function codeOf(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function describe(error: unknown): string {
  // fetch wraps the socket's error in `cause`, sometimes twice.
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && WORDS[code]) return WORDS[code]();
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || /timed out/i.test(error.message))) return WORDS.ETIMEDOUT!();
  const inner = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const message = errorMessage(inner);
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}
