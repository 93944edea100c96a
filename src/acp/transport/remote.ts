/**
 * The contract of a link to an agent that runs elsewhere: ACP over WebSocket, over Streamable HTTP (POST + SSE,
 * the ACP RFD "streamable-http-websocket-transport"), or through a Sandbox Agent server's ACP endpoint
 * (`POST/GET/DELETE /v1/acp/{serverId}?agent=<id>`). A link is an {@link AcpTransport} (the connection never knows
 * which one it has) that also says when and why it ended, so the agent's connection can close with that reason
 * and the remote agent can decide whether reconnecting may help.
 */
import * as l10n from '@vscode/l10n';
import { isLoopback } from '../../common/loopback';
import type { Logger } from '../../common/logger';
import type { AcpTransport } from './transport';

/** How the agent is reached. */
export type RemoteKind = 'websocket' | 'http' | 'sandbox-agent';

export interface RemoteEndpoint {
  /**
   * `ws:`/`wss:` for WebSocket, `http:`/`https:` for Streamable HTTP; for `sandbox-agent`, the server's base URL
   * (`http(s)://host:port`, the ACP endpoint is `<base>/v1/acp/<serverId>?agent=<sandboxAgent>`).
   */
  readonly url: string;
  readonly kind: RemoteKind;
  /** The agent's id on a Sandbox Agent server (`kind: 'sandbox-agent'` only), e.g. `opencode`. */
  readonly sandboxAgent?: string;
  /** Plain `ws:`/`http:` to a host that is not this machine, allowed by the user (machine-scoped setting). */
  readonly allowInsecure: boolean;
}

/** What authenticates the client, read from VS Code's SecretStorage at each connect; never logged. */
export interface RemoteCredentials {
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Extra headers on every request (and on the WebSocket upgrade). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The headers every request (and WebSocket upgrade) carries for `credentials`: the extra headers, and
 * `Authorization: Bearer <token>` when there is a token, which then replaces an `Authorization` header of the extras
 * whatever its case (two of them would be sent joined).
 */
export function credentialHeaders(credentials: RemoteCredentials): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(credentials.headers ?? {})) {
    if (credentials.token && name.toLowerCase() === 'authorization') continue;
    headers[name] = value;
  }
  if (credentials.token) headers.Authorization = `Bearer ${credentials.token}`;
  return headers;
}

export interface RemoteLinkOptions {
  /** The agent's display name, for errors ("Box opencode"). */
  readonly peer: string;
  readonly endpoint: RemoteEndpoint;
  readonly credentials: RemoteCredentials;
  /** Largest accepted message in bytes, in both directions (default 32 MiB, as stdio's line limit). */
  readonly maxMessageBytes?: number;
  /** How long the connect (WebSocket handshake, first HTTP answer) may take. Default 30 s. */
  readonly connectTimeoutMs?: number;
  readonly logger?: Logger;
}

/** Why a link ended. */
export type LinkEndCause =
  /** The server closed it (normal close, end of the SSE stream, server process gone). */
  | 'closed'
  /** The network failed: refused, reset, DNS, TLS, timeout. */
  | 'network'
  /** The server refused the credentials (401/403, WebSocket upgrade refused with 401/403). */
  | 'auth'
  /** The server answered with an HTTP error that is not about credentials (problem+json title/detail in words). */
  | 'http'
  /** The other side broke the protocol in a way that leaves the link unusable. */
  | 'protocol'
  /** We closed it (stop, restart, dispose). */
  | 'stopped';

export interface LinkEnd {
  readonly cause: LinkEndCause;
  /** In words, for the chat and the Agents view, naming the agent and the URL (never a secret). */
  readonly reason: string;
  /** Whether reconnecting may help (network trouble, server restarted); false for auth, stopped, most HTTP 4xx. */
  readonly retry: boolean;
}

/**
 * A link to one remote agent. Besides the {@link AcpTransport} contract (order, `intercept` first, unreadable or
 * oversized messages reported through the reader's `onError` naming the agent with reading going on,
 * END_OF_STREAM after the last message, writes rejected once closed):
 * - `open()` starts connecting; writes made before the link is up wait for it (in order);
 * - a connect that fails, or a link that drops later, settles {@link ended} and ends the reader (END_OF_STREAM);
 * - every HTTP error is read as `application/problem+json` when it is one (`title`, `detail`), else a bounded
 *   text excerpt, and said in words.
 */
export interface RemoteLink extends AcpTransport {
  /** Settles once, never rejects: why the link is gone for good (a closed link is never reused). */
  readonly ended: Promise<LinkEnd>;
  /** Ends the link (WebSocket close; HTTP DELETE of the connection), settling {@link ended} with `stopped`. Bounded in time. */
  close(): Promise<void>;
}

export type RemoteLinkFactory = (options: RemoteLinkOptions) => RemoteLink;

/** Default largest message, both directions: the same as the stdio line limit. */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/**
 * Whether the extension connects to `endpoint`: TLS (`wss:`, `https:`) anywhere; plain `ws:`/`http:` only to this
 * machine unless the user allowed it; no credentials in the URL; the scheme fits the kind. Returns the parsed URL,
 * or an Error saying why not and what to do.
 */
export function checkRemoteEndpoint(endpoint: RemoteEndpoint): URL | Error {
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    return new Error(l10n.t('"{0}" is not a valid URL.', clip(endpoint.url)));
  }
  if (url.username || url.password)
    return new Error(l10n.t('{0} carries a user name or password: set a token with "ACP: Set Remote Agent Token…" instead.', url.host));
  const secure = endpoint.kind === 'websocket' ? 'wss:' : 'https:';
  const plain = endpoint.kind === 'websocket' ? 'ws:' : 'http:';
  if (url.protocol !== secure && url.protocol !== plain) {
    return new Error(
      endpoint.kind === 'websocket'
        ? l10n.t('{0} is not a WebSocket address (ws:// or wss://).', clip(endpoint.url))
        : l10n.t('{0} is not an HTTP address (http:// or https://).', clip(endpoint.url)),
    );
  }
  if (url.protocol === plain && !isLoopback(url.hostname) && !endpoint.allowInsecure) {
    return new Error(
      l10n.t(
        '{0} is not encrypted: plain {1} is used only to this machine. Use {2}, or allow it with "allowInsecure": true in the agent\'s entry if the network is trusted.',
        clip(endpoint.url),
        plain.slice(0, -1),
        secure.slice(0, -1),
      ),
    );
  }
  if (endpoint.kind === 'sandbox-agent' && !endpoint.sandboxAgent)
    return new Error(l10n.t('A Sandbox Agent server entry needs the agent\'s id ("sandboxAgent").'));
  return url;
}

/** The URL without its query and fragment, for messages and the log (a query may carry a token). */
export function displayUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return clip(text);
  }
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
