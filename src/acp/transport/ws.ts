/**
 * ACP over WebSocket (the RFD "streamable-http-websocket-transport"): one JSON-RPC message per text frame, on
 * `ws`. A {@link RemoteLink}: the connection never knows it is not stdio.
 *
 * - The upgrade carries `Authorization: Bearer <token>` and the entry's headers; a refusal with 401/403 ends the
 *   link with cause `auth`, any other status with `http` (the body read as problem+json when it is one). A redirect
 *   is never followed (it would carry the token and the headers elsewhere): `http`, no retry, saying where it pointed.
 * - Refused, reset, DNS, TLS and timeouts (`connectTimeoutMs` for the handshake) end it with `network`; a close by
 *   the server with `closed`: both may be retried. TLS uses Node's default verification, never weakened.
 * - A frame over `maxMessageBytes` cannot be skipped (ws refuses it by its header and closes with 1009), so it is
 *   reported like the stdio framing does (a FramingError naming the agent and the limit) and the link ends with
 *   `protocol`, its reason naming the setting `acpWorkspace.maxMessageSizeMiB`. A binary frame, or text that is not
 *   a JSON-RPC message, is reported and reading goes on.
 * - A ping goes out every 30 s; no pong before the next one ends the link with `network` (a peer that vanished
 *   without closing is found out).
 * - `close()` sends a close frame and waits (at most 2 s) for the server's, then ends with `stopped`.
 */
import * as l10n from '@vscode/l10n';
import WebSocket, { type RawData } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { Message } from 'vscode-jsonrpc/node';
import { httpError } from './httpProblem';
import { LinkEnding, LinkReader, LinkWriter } from './linkChannel';
import { parseMessage } from './messageIntake';
import { FramingError, formatSize } from './ndjson';
import { networkWords } from './networkError';
import { checkRemoteEndpoint, credentialHeaders, DEFAULT_MAX_MESSAGE_BYTES, displayUrl, type LinkEnd, type RemoteLink, type RemoteLinkOptions } from './remote';

/** How often a ping goes out, and how long its pong may take. */
export const KEEPALIVE_MS = 30_000;
/** How long close() waits for the server's close frame before it drops the socket. */
const CLOSE_WAIT_MS = 2_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** The most of a refused upgrade's body that is read. */
const REFUSAL_BODY_BYTES = 8 * 1024;

export interface WebSocketLinkOptions extends RemoteLinkOptions {
  /** The ping interval (default {@link KEEPALIVE_MS}); shorter only in tests. */
  readonly keepAliveMs?: number;
}

/** A link to an agent served over WebSocket (`ws:`/`wss:`). */
export function webSocketLink(options: WebSocketLinkOptions): RemoteLink {
  const peer = options.peer;
  const where = displayUrl(options.endpoint.url);
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const ending = new LinkEnding();
  let socket: WebSocket | undefined;
  let stopping: Promise<void> | undefined;
  let finish: ((end: LinkEnd) => void) | undefined;

  const link: RemoteLink = {
    peer,
    ended: ending.promise,
    open(hooks) {
      if (finish) throw new Error(`The link to ${peer} was already opened.`);
      const reader = new LinkReader(hooks);
      /** Writes made before the socket is open, in order. */
      const waiting: { readonly text: string; readonly resolve: () => void; readonly reject: (error: Error) => void }[] = [];
      const sendNow = (text: string, resolve: () => void, reject: (error: Error) => void) => socket!.send(text, (error) => (error ? reject(error) : resolve()));
      const writer = new LinkWriter(
        peer,
        hooks,
        maxMessageBytes,
        reader,
        (_message: Message, text: string) =>
          new Promise<void>((resolve, reject) => {
            if (socket?.readyState === WebSocket.OPEN) sendNow(text, resolve, reject);
            else waiting.push({ text, resolve, reject });
          }),
      );
      let keepAlive: NodeJS.Timeout | undefined;
      finish = (end: LinkEnd) => {
        if (!ending.settle(end)) return;
        clearInterval(keepAlive);
        options.logger?.info(`${peer}: link ended (${end.cause}): ${end.reason}`);
        for (const entry of waiting.splice(0)) entry.reject(new Error(`Cannot send to ${peer}: ${end.reason}`));
        writer.ended(end);
        reader.end();
      };

      const url = checkRemoteEndpoint(options.endpoint);
      if (url instanceof Error) {
        // Refused before any socket: nothing was sent anywhere.
        queueMicrotask(() => finish?.({ cause: 'network', reason: url.message, retry: false }));
        return { reader, writer };
      }
      const ws = new WebSocket(url, {
        headers: credentialHeaders(options.credentials),
        maxPayload: maxMessageBytes,
        handshakeTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        perMessageDeflate: false,
        // ws's default, said here because it matters: a redirected upgrade would carry the token and the headers.
        followRedirects: false,
      });
      socket = ws;
      let oversize = false;

      ws.on('open', () => {
        options.logger?.info(`${peer}: connected to ${where}`);
        for (const entry of waiting.splice(0)) sendNow(entry.text, entry.resolve, entry.reject);
        let awaitingPong = false;
        keepAlive = setInterval(() => {
          if (awaitingPong) {
            ws.terminate();
            finish?.({
              cause: 'network',
              reason: l10n.t(
                '{0} at {1} did not answer a ping within {2} seconds; the connection is considered lost.',
                peer,
                where,
                Math.round((options.keepAliveMs ?? KEEPALIVE_MS) / 1000),
              ),
              retry: true,
            });
            return;
          }
          awaitingPong = true;
          ws.ping();
        }, options.keepAliveMs ?? KEEPALIVE_MS);
        keepAlive.unref?.();
        ws.on('pong', () => (awaitingPong = false));
      });
      ws.on('message', (data: RawData, isBinary: boolean) => {
        if (isBinary) {
          reader.report(
            new FramingError(
              `${peer} sent a binary WebSocket frame (${formatSize(byteLength(data))}); ACP messages are text frames. It was discarded.`,
              peer,
              'shape',
            ),
          );
          return;
        }
        const intake = parseMessage(text(data), peer);
        if ('error' in intake) reader.report(intake.error);
        else reader.deliver(intake.message);
      });
      ws.on('unexpected-response', (_request, response: IncomingMessage) => {
        void readRefusal(response).then((body) => {
          const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
          const error = httpError(
            response.statusCode ?? 0,
            String(response.headers['content-type'] ?? ''),
            body,
            peer,
            l10n.t('the WebSocket connection to {0}', where),
            location,
            url.href,
          );
          ws.terminate();
          finish?.({ cause: error.auth ? 'auth' : 'http', reason: error.message, retry: !error.auth && retryableStatus(error.status) });
        });
      });
      ws.on('error', (error: Error & { code?: string }) => {
        if (stopping) return;
        if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
          oversize = true;
          const message = l10n.t(
            '{0} sent a message longer than {1}; a WebSocket message cannot be skipped, so the connection was closed. Raise the limit with the setting acpWorkspace.maxMessageSizeMiB if the agent needs it.',
            peer,
            formatSize(maxMessageBytes),
          );
          reader.report(new FramingError(message, peer, 'oversize'));
          finish?.({ cause: 'protocol', reason: message, retry: false });
          return;
        }
        finish?.({ cause: 'network', reason: networkWords(peer, where, error), retry: true });
      });
      ws.on('close', (code: number, reasonBuffer: Buffer) => {
        if (oversize || stopping) return;
        const said = reasonBuffer.toString('utf8').slice(0, 200);
        if (code === 1006) {
          finish?.({ cause: 'network', reason: l10n.t('The connection to {0} at {1} was lost.', peer, where), retry: true });
          return;
        }
        finish?.({
          cause: 'closed',
          reason: said
            ? l10n.t('{0} at {1} closed the connection (code {2}: {3}).', peer, where, code, said)
            : l10n.t('{0} at {1} closed the connection (code {2}).', peer, where, code),
          retry: true,
        });
      });
      return { reader, writer };
    },
    close() {
      if (stopping) return stopping;
      const stoppedEnd: LinkEnd = { cause: 'stopped', reason: l10n.t('The connection to {0} was closed by this client.', peer), retry: false };
      const ws = socket;
      if (!ws || ending.done || ws.readyState === WebSocket.CLOSED) {
        stopping = Promise.resolve();
        finish?.(stoppedEnd);
        if (!finish) ending.settle(stoppedEnd);
        return stopping;
      }
      stopping = new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          ws.terminate();
          resolve();
        }, CLOSE_WAIT_MS);
        ws.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(1000, 'client closed');
      }).then(() => finish?.(stoppedEnd));
      return stopping;
    },
  };
  return link;
}

/** 5xx, 408 and 429 may pass; other 4xx will not. */
export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

function readRefusal(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
    response.on('data', (chunk: Buffer) => {
      if (size >= REFUSAL_BODY_BYTES) return;
      chunks.push(chunk.subarray(0, REFUSAL_BODY_BYTES - size));
      size += chunk.length;
      if (size >= REFUSAL_BODY_BYTES) {
        response.destroy();
        done();
      }
    });
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
  });
}

function text(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data.byteLength;
}
