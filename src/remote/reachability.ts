/**
 * Whether anything answers at an address: a TCP connection to the URL's host and port (443/80 by default for
 * wss/https and ws/http), closed at once. Nothing is sent, so no token or header leaves this machine; TLS and the
 * WebSocket handshake are left to the agent's link. Used by Add Remote Agent… for WebSocket URLs (an http(s) URL
 * is probed through the Sandbox Agent server's health check instead).
 */
import * as l10n from '@vscode/l10n';
import * as net from 'node:net';
import { networkCause } from '../acp/transport/networkError';
import { displayUrl } from '../acp/transport/remote';
import { ServerUnreachableError } from './sandboxAgentServer';

const DEFAULT_TIMEOUT_MS = 10_000;

/** Resolves once a connection to `url`'s host and port opened; rejects with a {@link ServerUnreachableError} in words. */
export function probeAddress(url: string, signal: AbortSignal, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
  const where = displayUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.reject(new ServerUnreachableError(l10n.t('"{0}" is not a valid URL.', where)));
  }
  const secure = parsed.protocol === 'wss:' || parsed.protocol === 'https:';
  const port = parsed.port === '' ? (secure ? 443 : 80) : Number(parsed.port);
  // An IPv6 literal is written in brackets in a URL, not to connect().
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
      return;
    }
    const socket = net.connect({ host, port });
    const done = (error?: Error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => done(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
    const timer = setTimeout(
      () => done(new ServerUnreachableError(l10n.t('Nothing answered at {0} within {1} seconds.', where, Math.round(timeoutMs / 1000)))),
      timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done());
    socket.once('error', (error) => done(new ServerUnreachableError(l10n.t('Cannot reach {0}: {1}', where, networkCause(error)))));
  });
}
