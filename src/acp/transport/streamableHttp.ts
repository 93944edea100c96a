/**
 * ACP over Streamable HTTP (the RFD "streamable-http-websocket-transport"), on Node's `fetch` and the bounded
 * SSE reader ({@link readSseEvents}). A {@link RemoteLink}: the connection never knows it is not stdio.
 *
 * - `initialize` is POSTed first; its answer comes in the POST's body with the `Acp-Connection-Id` every later
 *   request carries. The client then keeps a GET event stream open for the connection and one per session
 *   (`Acp-Session-Id`), opened before the session's first message is POSTed (and as soon as an answer names a
 *   new session, so its updates are read at once). Each message is POSTed in order, one after the other.
 * - An answer to an agent's request that came on a session's stream is POSTed with that session's id.
 * - An event over `maxMessageBytes` is skipped as it streams in and reported (a FramingError naming the agent and
 *   the limit; an answer that was skipped fails its request): unlike WebSocket, the link goes on.
 * - HTTP errors are read through httpProblem (problem+json in words): 401/403 end the link with `auth`, 404/410
 *   (the server no longer knows the connection) with `closed`; any other error fails only the request that was
 *   POSTed. A redirect (3xx) is never followed (fetch would carry the token, the extra headers and the body to
 *   any host, plain `http:` included): it ends the link with `http`, no retry, saying where it pointed. A refused or reset connection, DNS, TLS or a timeout (`connectTimeoutMs`, until the answer's headers)
 *   end it with `network`; the connection's event stream ending, with `closed`.
 * - `close()` aborts the streams and DELETEs the connection (bounded), ending with `stopped`.
 */
import * as l10n from '@vscode/l10n';
import type { Message } from 'vscode-jsonrpc/node';
import { readHttpError, type RemoteHttpError } from './httpProblem';
import { LinkEnding, LinkReader, LinkWriter } from './linkChannel';
import { failedRequestAnswer, messageKind, requestIdOf } from './messageIntake';
import { networkWords } from './networkError';
import { checkRemoteEndpoint, credentialHeaders, DEFAULT_MAX_MESSAGE_BYTES, displayUrl, type LinkEnd, type RemoteLink, type RemoteLinkOptions } from './remote';
import { readSseEvents, type SseItem } from './sse';
import { SseIntake } from './sseIntake';
import { retryableStatus } from './ws';

export const CONNECTION_ID_HEADER = 'Acp-Connection-Id';
export const SESSION_ID_HEADER = 'Acp-Session-Id';
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** How long close() waits for the DELETE. */
const CLOSE_WAIT_MS = 2_000;

export interface StreamableHttpLinkOptions extends RemoteLinkOptions {
  /** The fetch to use (default: the global one, to which VS Code applies the user's proxy). */
  readonly fetch?: typeof fetch;
}

/** A link to an agent served over Streamable HTTP (`http:`/`https:`). */
export function streamableHttpLink(options: StreamableHttpLinkOptions): RemoteLink {
  const peer = options.peer;
  const where = displayUrl(options.endpoint.url);
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const fetchImpl = options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init));
  const ending = new LinkEnding();
  const abort = new AbortController();
  let connectionId: string | undefined;
  let stopping: Promise<void> | undefined;
  let finish: ((end: LinkEnd) => void) | undefined;
  let url: URL | Error = new Error('not opened');

  const baseHeaders = (): Record<string, string> => {
    const headers = credentialHeaders(options.credentials);
    if (connectionId) headers[CONNECTION_ID_HEADER] = connectionId;
    return headers;
  };

  /** fetch with the link's abort and, until the headers arrive, a time limit. */
  const request = async (init: RequestInit & { headers: Record<string, string> }, timeoutMs: number | undefined): Promise<Response> => {
    const attempt = new AbortController();
    const onAbort = () => attempt.abort(abort.signal.reason);
    abort.signal.addEventListener('abort', onAbort, { once: true });
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => attempt.abort(new DOMException('timed out', 'TimeoutError')), timeoutMs);
    try {
      // A redirect is answered, never followed (see RemoteHttpError.redirect).
      return await fetchImpl(url as URL, { ...init, redirect: 'manual', signal: attempt.signal });
    } catch (error) {
      throw attempt.signal.reason instanceof Error && attempt.signal.reason.name === 'TimeoutError' ? attempt.signal.reason : error;
    } finally {
      clearTimeout(timer);
      abort.signal.removeEventListener('abort', onAbort);
    }
  };

  const link: RemoteLink = {
    peer,
    ended: ending.promise,
    open(hooks) {
      if (finish) throw new Error(`The link to ${peer} was already opened.`);
      const reader = new LinkReader(hooks);
      /** Session streams opened (or opening), by session id. */
      const sessionStreams = new Map<string, Promise<void>>();
      /** Which session's stream an agent request came on, by its id: the answer goes with that session's id. */
      const requestSessions = new Map<string, string>();
      let chain: Promise<unknown> = Promise.resolve();

      const writer = new LinkWriter(peer, hooks, maxMessageBytes, reader, (message, text) => {
        const sent = chain.then(() => post(message, text));
        chain = sent.catch(() => undefined);
        return sent;
      });

      finish = (end: LinkEnd) => {
        if (!ending.settle(end)) return;
        options.logger?.info(`${peer}: link ended (${end.cause}): ${end.reason}`);
        abort.abort();
        if (connectionId && end.cause !== 'stopped' && end.cause !== 'network' && end.cause !== 'closed') void deleteConnection();
        writer.ended(end);
        reader.end();
      };

      /** The end for an HTTP error that leaves the connection unusable, or undefined when only one message failed. */
      const fatal = (error: RemoteHttpError): LinkEnd | undefined => {
        if (error.auth) return { cause: 'auth', reason: error.message, retry: false };
        if (error.redirect) return { cause: 'http', reason: error.message, retry: false };
        if (error.status === 404 || error.status === 410) return { cause: 'closed', reason: error.message, retry: true };
        return undefined;
      };

      const failed = (error: unknown): Error => {
        if (ending.done) return new Error(`Cannot send to ${peer}: ${ending.done.reason}`);
        const reason = networkWords(peer, where, error);
        finish?.({ cause: 'network', reason, retry: true });
        return new Error(reason);
      };

      /** What one stream carries, to the reader; an agent request's session is remembered for its answer. */
      const intakeFor = (sessionId: string | undefined) =>
        new SseIntake(peer, maxMessageBytes, reader, (message) => {
          const { id, method, result } = message as { id?: unknown; method?: unknown; result?: unknown };
          if (sessionId !== undefined && typeof method === 'string' && id !== undefined) requestSessions.set(idKey(id), sessionId);
          const newSession = sessionOfResult(result);
          if (newSession !== undefined) void openStream(newSession).catch(() => undefined);
        });

      /** Opens the connection's event stream (no session) or a session's; resolves once it is open. */
      const openStream = (sessionId: string | undefined): Promise<void> => {
        if (sessionId !== undefined) {
          const existing = sessionStreams.get(sessionId);
          if (existing) return existing;
        }
        const opened = (async () => {
          const headers = { ...baseHeaders(), Accept: 'text/event-stream', ...(sessionId === undefined ? {} : { [SESSION_ID_HEADER]: sessionId }) };
          let response: Response;
          try {
            response = await request({ method: 'GET', headers }, connectTimeoutMs);
          } catch (error) {
            throw failed(error);
          }
          if (!response.ok || !response.body) {
            const error = await readHttpError(
              response,
              peer,
              sessionId === undefined ? l10n.t('the event stream') : l10n.t('the event stream of session {0}', sessionId),
            );
            const end =
              fatal(error) ?? (sessionId === undefined ? { cause: 'http' as const, reason: error.message, retry: retryableStatus(error.status) } : undefined);
            if (end) finish?.(end);
            else reader.report(error);
            throw error;
          }
          void consume(response.body, sessionId);
        })();
        if (sessionId !== undefined) {
          sessionStreams.set(sessionId, opened);
          opened.catch(() => sessionStreams.delete(sessionId));
        }
        return opened;
      };

      const consume = async (body: ReadableStream<Uint8Array>, sessionId: string | undefined): Promise<void> => {
        const intake = intakeFor(sessionId);
        try {
          for await (const items of readSseEvents(body, maxMessageBytes)) {
            if (ending.done) return;
            intake.take(items);
          }
        } catch (error) {
          if (ending.done || abort.signal.aborted) return;
          finish?.({
            cause: 'network',
            reason: l10n.t('The connection to {0} at {1} was lost: {2}', peer, where, networkWords(peer, where, error)),
            retry: true,
          });
          return;
        }
        if (ending.done) return;
        if (sessionId === undefined) {
          finish?.({ cause: 'closed', reason: l10n.t('{0} at {1} closed the connection.', peer, where), retry: true });
        } else {
          // The next message for the session opens its stream again.
          sessionStreams.delete(sessionId);
        }
      };

      const post = async (message: Message, text: string): Promise<void> => {
        if (ending.done) throw new Error(`Cannot send to ${peer}: ${ending.done.reason}`);
        if (connectionId === undefined) return initialize(message, text);
        const sessionId = sessionOfMessage(message, requestSessions);
        if (sessionId !== undefined) await openStream(sessionId).catch(() => undefined);
        const headers = { ...baseHeaders(), 'Content-Type': 'application/json', ...(sessionId === undefined ? {} : { [SESSION_ID_HEADER]: sessionId }) };
        let response: Response;
        try {
          response = await request({ method: 'POST', headers, body: text }, undefined);
        } catch (error) {
          throw failed(error);
        }
        if (response.ok) {
          void response.body?.cancel().catch(() => undefined);
          return;
        }
        const error = await readHttpError(response, peer, messageKind(message));
        const end = fatal(error);
        if (end) {
          finish?.(end);
          throw error;
        }
        const id = requestIdOf(message);
        if (id === undefined) throw error;
        // Only this request failed: it gets its answer now instead of waiting forever.
        reader.answer(failedRequestAnswer(id, error.message, { status: error.status }));
      };

      const initialize = async (message: Message, text: string): Promise<void> => {
        if ((message as { method?: unknown }).method !== 'initialize') {
          throw new Error(`The first message to ${peer} over HTTP must be initialize.`);
        }
        let response: Response;
        try {
          response = await request(
            { method: 'POST', headers: { ...baseHeaders(), 'Content-Type': 'application/json', Accept: 'application/json' }, body: text },
            connectTimeoutMs,
          );
        } catch (error) {
          throw failed(error);
        }
        if (!response.ok) {
          const error = await readHttpError(response, peer, 'initialize');
          finish?.(
            error.auth
              ? { cause: 'auth', reason: error.message, retry: false }
              : { cause: 'http', reason: error.message, retry: retryableStatus(error.status) },
          );
          throw error;
        }
        const id = response.headers.get(CONNECTION_ID_HEADER);
        if (!id) {
          void response.body?.cancel().catch(() => undefined);
          const reason = l10n.t(
            '{0} at {1} answered initialize without an {2} header: it is not an ACP Streamable HTTP endpoint.',
            peer,
            where,
            CONNECTION_ID_HEADER,
          );
          finish?.({ cause: 'protocol', reason, retry: false });
          throw new Error(reason);
        }
        connectionId = id;
        options.logger?.info(`${peer}: connected to ${where}`);
        const body = await readAnswer(response, maxMessageBytes).catch((error: unknown) => {
          throw failed(error);
        });
        const intake = intakeFor(undefined);
        if (body.kind === 'oversize') intake.take([body]);
        else intake.message(body.data);
        await openStream(undefined);
      };

      url = checkRemoteEndpoint(options.endpoint);
      if (url instanceof Error) {
        // Refused before any request: nothing was sent anywhere.
        const reason = url.message;
        queueMicrotask(() => finish?.({ cause: 'network', reason, retry: false }));
      }
      return { reader, writer };
    },
    close() {
      if (stopping) return stopping;
      const stoppedEnd: LinkEnd = { cause: 'stopped', reason: l10n.t('The connection to {0} was closed by this client.', peer), retry: false };
      const hadConnection = connectionId !== undefined && !ending.done;
      if (finish) finish(stoppedEnd);
      else ending.settle(stoppedEnd);
      stopping = hadConnection ? deleteConnection() : Promise.resolve();
      return stopping;
    },
  };

  /** Tells the server the connection is over (best effort, bounded). */
  async function deleteConnection(): Promise<void> {
    if (!(url instanceof URL) || connectionId === undefined) return;
    const headers = { ...credentialHeaders(options.credentials), [CONNECTION_ID_HEADER]: connectionId };
    try {
      const response = await fetchImpl(url, { method: 'DELETE', headers, redirect: 'manual', signal: AbortSignal.timeout(CLOSE_WAIT_MS) });
      void response.body?.cancel().catch(() => undefined);
    } catch {
      // The server is gone or slow: the connection ends on its side with the streams.
    }
  }

  return link;
}

/** The session a message belongs to: its `params.sessionId`, or for an answer, the session its request came on. */
function sessionOfMessage(message: Message, requestSessions: Map<string, string>): string | undefined {
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (typeof method === 'string') {
    const sessionId = typeof params === 'object' && params !== null ? (params as { sessionId?: unknown }).sessionId : undefined;
    return typeof sessionId === 'string' ? sessionId : undefined;
  }
  if (id === undefined) return undefined;
  const key = idKey(id);
  const sessionId = requestSessions.get(key);
  requestSessions.delete(key);
  return sessionId;
}

function sessionOfResult(result: unknown): string | undefined {
  const sessionId = typeof result === 'object' && result !== null ? (result as { sessionId?: unknown }).sessionId : undefined;
  return typeof sessionId === 'string' ? sessionId : undefined;
}

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/** The body of initialize's answer, bounded: over the limit, only its start is kept. */
async function readAnswer(response: Response, limit: number): Promise<SseItem> {
  if (!response.body) return { kind: 'event', data: '' };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    if (size <= limit) chunks.push(chunk);
    size += chunk.length;
  }
  const all = Buffer.concat(chunks);
  return size > limit ? { kind: 'oversize', bytes: size, head: all.subarray(0, 64 * 1024).toString('utf8') } : { kind: 'event', data: all.toString('utf8') };
}
