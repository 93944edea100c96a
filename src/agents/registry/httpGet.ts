/**
 * The one way the registry code fetches from the network: Node's global `fetch` (VS Code's extension host applies
 * the user's proxy settings to it), with redirects followed by hand so every hop passes {@link checkFetchUrl},
 * a time limit combined with the caller's signal, and a bound on how much of a body is read. Errors are in words.
 */
import * as l10n from '@vscode/l10n';
import { knownNetworkFailure } from '../../acp/transport/networkError';
import { checkFetchUrl } from './urlPolicy';

/** At most this many redirects are followed (browsers allow 20; a registry, icon or archive needs one or two). */
export const MAX_REDIRECTS = 5;
/** The time limit when the caller gives none. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface FetchFollowingOptions {
  readonly signal?: AbortSignal;
  readonly headers?: Readonly<Record<string, string>>;
  /** For the whole exchange: every redirect, and (in {@link fetchBounded}) reading the body. */
  readonly timeoutMs?: number;
  /** Tests pass their own; the global `fetch` otherwise. */
  readonly fetch?: typeof fetch;
}

/** The final answer after redirects, its body not yet read. */
export interface FollowedResponse {
  readonly response: Response;
  /** The URL that answered (after redirects). */
  readonly url: string;
  /** Aborts when the caller's signal does or the time limit passes; pass it on to whatever reads the body. */
  readonly signal: AbortSignal;
  /** Turns an error thrown while reading the body into one in words (a timeout, a cancel, a dropped connection). */
  describeError(error: unknown): Error;
}

/**
 * GETs `url`, following up to {@link MAX_REDIRECTS} redirects by hand, each target checked by
 * {@link checkFetchUrl}. Resolves with the final response whatever its status (a 304 or a 404 is the caller's to
 * judge); rejects with an Error in words when a URL is refused, the server cannot be reached, redirects loop or
 * go on too long, the time runs out or the caller aborts. The body is left unread: a downloader streams it,
 * {@link fetchBounded} reads it with a bound.
 */
export async function fetchFollowingRedirects(url: string, options: FetchFollowingOptions = {}): Promise<FollowedResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const describeError = (error: unknown, at: string = url): Error => describe(error, at, options.signal, timeout, timeoutMs);
  const doFetch = options.fetch ?? fetch;
  let current = url;
  for (let hop = 0; ; hop++) {
    const checked = checkFetchUrl(current);
    if (checked instanceof Error) throw checked;
    let response: Response;
    try {
      response = await doFetch(checked, { method: 'GET', headers: { ...options.headers }, redirect: 'manual', signal });
    } catch (error) {
      throw describeError(error, current);
    }
    if (!isRedirect(response.status)) return { response, url: checked.href, signal, describeError: (error) => describeError(error, checked.href) };
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    if (!location) throw new Error(l10n.t('{0} answered with a redirect ({1}) but no address to go to.', checked.href, response.status));
    if (hop >= MAX_REDIRECTS) throw new Error(l10n.t('{0} redirected more than {1} times; stopped there.', url, MAX_REDIRECTS));
    try {
      current = new URL(location, checked).href;
    } catch {
      throw new Error(l10n.t('{0} redirected to "{1}", which is not a valid URL.', checked.href, location.slice(0, 200)));
    }
  }
}

export interface FetchBoundedOptions extends FetchFollowingOptions {
  /** The body may have at most this many bytes; a longer one is cut off and the fetch fails. */
  readonly maxBytes: number;
}

/** A whole answer, its body read. */
export interface BoundedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
  /** The URL that answered (after redirects). */
  readonly url: string;
}

/**
 * {@link fetchFollowingRedirects}, then reads the body, at most `maxBytes` of it: a body announced or found to be
 * longer fails with an Error in words, and reading stops there (the rest is never downloaded). Resolves whatever
 * the status; rejects only with an Error in words.
 */
export async function fetchBounded(url: string, options: FetchBoundedOptions): Promise<BoundedResponse> {
  const followed = await fetchFollowingRedirects(url, options);
  const { response } = followed;
  const tooBig = (): Error => new Error(l10n.t('{0} sent more than {1}; stopped reading there.', followed.url, formatBytes(options.maxBytes)));
  const announced = Number(response.headers.get('content-length'));
  if (Number.isFinite(announced) && announced > options.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooBig();
  }
  const chunks: Buffer[] = [];
  let length = 0;
  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        length += value.byteLength;
        if (length > options.maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw tooBig();
        }
        chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      }
    } catch (error) {
      if (length > options.maxBytes) throw error;
      throw followed.describeError(error);
    } finally {
      reader.releaseLock();
    }
  }
  return { status: response.status, headers: response.headers, body: Buffer.concat(chunks, length), url: followed.url };
}

/** `12.3 MiB`, `256 KiB`, `17 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return l10n.t('{0} MiB', round(bytes / (1024 * 1024)));
  if (bytes >= 1024) return l10n.t('{0} KiB', round(bytes / 1024));
  return l10n.t('{0} bytes', bytes);
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function describe(error: unknown, url: string, callerSignal: AbortSignal | undefined, timeout: AbortSignal, timeoutMs: number): Error {
  if (callerSignal?.aborted) {
    const cancelled = new Error(l10n.t('Fetching {0} was cancelled.', url));
    cancelled.name = 'AbortError';
    return cancelled;
  }
  if (timeout.aborted) return new Error(l10n.t('{0} did not answer within {1} seconds.', url, Math.round(timeoutMs / 100) / 10));
  return new Error(l10n.t('Could not fetch {0}: {1}', url, reasonOf(error)));
}

/**
 * undici says "fetch failed" and puts the reason (ENOTFOUND, ECONNREFUSED, a TLS error) in `cause`: said in words when
 * it is a known network failure, else its message.
 */
function reasonOf(error: unknown): string {
  // A failure Node names by a code ("getaddrinfo ENOTFOUND host"): in words, the code after them to look up.
  const known = knownNetworkFailure(error);
  if (known) return known.code.startsWith('UND_ERR') ? known.words : `${known.words} (${known.code})`;
  const seen = new Set<unknown>();
  let current: unknown = error;
  let reason = String(error);
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    reason = typeof code === 'string' && !current.message.includes(code) ? `${current.message} (${code})` : current.message;
    current = current.cause;
  }
  return reason;
}
