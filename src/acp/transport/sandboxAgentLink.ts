/**
 * A {@link RemoteLink} to one agent on a Sandbox Agent server (rivet-dev/sandbox-agent 0.4.2), over its ACP
 * endpoint `<base>/v1/acp/<serverId>?agent=<id>`. What the server does (checked against the real 0.4.2 binary,
 * see CONTRIBUTING.md, "Transports"):
 * - the first POST to a new `serverId` must carry `?agent=`; it starts the agent and answers once the agent
 *   answered (a request's answer is the POST's `application/json` body; a notification or an answer we send gets
 *   `202` with no body). A GET before that first POST is `404 session_not_found`;
 * - `GET` is a `text/event-stream` that carries every message of the agent in order, the answers to our requests
 *   included, from the first one on (it replays what came before the GET), plus `: heartbeat` comments;
 * - agent→client requests come on that stream and are answered by POSTing the JSON-RPC answer (`202`);
 * - `DELETE` stops the agent; it may answer `204` only after a long while, so it is bounded here;
 * - errors are `application/problem+json` (`401 token_invalid`, `400 invalid_request`, `404 session_not_found`);
 * - when the agent's process ends, the server stays up and says so on the stream (`_adapter/agent_exited`
 *   `{ code, success }`, its own notification); the connection stays known to it, and every later POST is answered
 *   `502 stream_error` ("failed writing to agent stdin: Broken pipe"). A new connection starts the agent again.
 *
 * A redirect is never followed (fetch would carry the token, the extra headers and the body to any host): it ends
 * the link with `http`, no retry, saying where it pointed, as the server client (`remote/sandboxAgentServer.ts`) does.
 *
 * So the event stream is the one source of what the agent says: answers are taken from it, in order with the
 * updates before them (a POST body could overtake the stream and end a turn before its last chunks), and POST
 * bodies are drained unread. An HTTP error on a request's POST answers that request with the server's words.
 * An agent gone from a server that stays up (the exit notice, or a later POST answered 502) ends the link as
 * `closed`, worth a retry: the remote agent reconnects and its chats are reopened, as after a lost connection.
 */
import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import type { Message } from 'vscode-jsonrpc/node';
import { readHttpError, type RemoteHttpError } from './httpProblem';
import { LinkEnding, LinkReader, LinkWriter } from './linkChannel';
import { failedRequestAnswer, messageKind, requestIdOf } from './messageIntake';
import { networkCause } from './networkError';
import { checkRemoteEndpoint, credentialHeaders, DEFAULT_MAX_MESSAGE_BYTES, displayUrl, type LinkEnd, type RemoteLink, type RemoteLinkOptions } from './remote';
import { readSseEvents } from './sse';
import { SseIntake } from './sseIntake';
import type { TransportHooks } from './transport';
import { retryableStatus } from './ws';

/** How long `close()` waits for the server's answer to DELETE (0.4.2 may take much longer; the agent is stopped anyway). */
const DELETE_TIMEOUT_MS = 2_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** The server's own notification, on the stream, when the agent's process ended (0.4.2). */
export const AGENT_EXITED_METHOD = '_adapter/agent_exited';
/** The problem types of a POST the server could not hand to its agent, whose process is gone. */
const AGENT_GONE_TYPES = new Set(['urn:sandbox-agent:error:stream_error', 'urn:sandbox-agent:error:agent_process_exited']);

/** A link to `options.endpoint.sandboxAgent` on the Sandbox Agent server at `options.endpoint.url`. */
export function sandboxAgentLink(options: RemoteLinkOptions): RemoteLink {
  return new SandboxAgentLink(options);
}

/** The ACP endpoint of one connection (`serverId`) to one agent on a server whose base URL is `base`. */
export function sandboxAcpUrl(base: URL, serverId: string, agent: string | undefined): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/acp/${encodeURIComponent(serverId)}`;
  url.search = '';
  url.hash = '';
  if (agent !== undefined) url.searchParams.set('agent', agent);
  return url;
}

class SandboxAgentLink implements RemoteLink {
  readonly peer: string;
  private readonly ending = new LinkEnding();
  readonly ended: Promise<LinkEnd> = this.ending.promise;
  private readonly maxMessageBytes: number;
  private readonly serverId = randomUUID();
  /** Aborts every request in flight when the link ends. */
  private readonly abort = new AbortController();
  private url: URL | undefined;
  private channel: { readonly reader: LinkReader; readonly writer: LinkWriter; readonly intake: SseIntake } | undefined;
  /** The chain of POSTs: each starts once the one before it was accepted (or, for a request, sent). */
  private sending: Promise<void> = Promise.resolve();
  /** The first POST created the connection on the server (then the stream may be read and DELETE means something). */
  private created = false;
  /** The first POST went out (the server may have started the agent even if its answer never came). */
  private posted = false;
  private deleted = false;
  /** Requests sent and not yet answered on the stream, so an HTTP error can answer them instead. */
  private readonly unanswered = new Set<string | number>();

  constructor(private readonly options: RemoteLinkOptions) {
    this.peer = options.peer;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  open(hooks: TransportHooks): { reader: LinkReader; writer: LinkWriter } {
    if (this.channel) throw new Error(`The link to ${this.peer} was already opened.`);
    const reader = new LinkReader(hooks);
    const writer = new LinkWriter(this.peer, hooks, this.maxMessageBytes, reader, (message, text) => this.send(message, text));
    this.channel = { reader, writer, intake: new SseIntake(this.peer, this.maxMessageBytes, reader, (message) => this.received(message)) };
    const url = checkRemoteEndpoint(this.options.endpoint);
    if (url instanceof Error) this.finish({ cause: 'http', reason: url.message, retry: false });
    else this.url = url;
    return { reader, writer };
  }

  /**
   * Ends the link and deletes the connection on the server, which stops the agent there: also after the link ended
   * by itself (a broken stream may leave the agent running on a server that is still up).
   */
  async close(): Promise<void> {
    this.finish({ cause: 'stopped', reason: l10n.t('The connection to {0} was closed.', this.peer), retry: false });
    if (!this.posted || this.deleted || !this.url) return;
    this.deleted = true;
    // The server stops the agent on DELETE; its answer may be slow, so the wait is bounded.
    await fetch(sandboxAcpUrl(this.url, this.serverId, undefined), {
      method: 'DELETE',
      headers: this.headers(),
      redirect: 'manual',
      signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
    })
      .then((response) => response.body?.cancel())
      .catch(() => undefined);
  }

  private get where(): string {
    return displayUrl(this.options.endpoint.url);
  }

  private headers(extra?: Record<string, string>): Record<string, string> {
    return { ...credentialHeaders(this.options.credentials), ...extra };
  }

  /** Queues one POST behind the others; resolves once this message was accepted (a request: once it was sent). */
  private send(message: Message, text: string): Promise<void> {
    let sent!: () => void;
    const started = new Promise<void>((resolve) => (sent = resolve));
    const done = this.sending.then(() => this.post(message, text, sent));
    if (requestIdOf(message) !== undefined) {
      // A request does not hold up the next message (a cancel must reach the agent during a prompt); how it
      // fails reaches the connection as its answer or as the link's end.
      done.catch(() => undefined);
      this.sending = started;
      return started;
    }
    this.sending = done.catch(() => undefined);
    return done;
  }

  private async post(message: Message, body: string, sent: () => void): Promise<void> {
    if (this.ending.done || !this.url) {
      sent();
      throw new Error(l10n.t('Cannot send to {0}: the connection is closed.', this.peer));
    }
    const first = !this.created;
    const id = requestIdOf(message);
    if (id !== undefined) this.unanswered.add(id);
    const connectTimeoutMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const signals = [this.abort.signal];
    if (first) signals.push(AbortSignal.timeout(connectTimeoutMs));
    let response: Response;
    this.posted = true;
    try {
      const pending = fetch(sandboxAcpUrl(this.url, this.serverId, first ? this.options.endpoint.sandboxAgent : undefined), {
        method: 'POST',
        headers: this.headers({ 'content-type': 'application/json', accept: 'application/json' }),
        body,
        // A redirect is answered, never followed (see RemoteHttpError.redirect).
        redirect: 'manual',
        signal: AbortSignal.any(signals),
      });
      // The server must know the connection before anything else is sent or the stream is read.
      if (!first) sent();
      response = await pending;
    } catch (error) {
      sent();
      if (this.ending.done) throw new Error(l10n.t('Cannot send to {0}: the connection is closed.', this.peer));
      const timedOut = (error as Error).name === 'TimeoutError';
      const refused = (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';
      this.finish({
        cause: 'network',
        reason: timedOut
          ? l10n.t('{0} at {1} did not answer within {2} seconds.', this.peer, this.where, Math.round(connectTimeoutMs / 1000))
          : first || refused
            ? l10n.t('Cannot reach {0} at {1}: {2}', this.peer, this.where, networkCause(error))
            : l10n.t('The connection to {0} at {1} broke: {2}', this.peer, this.where, networkCause(error)),
        retry: true,
      });
      throw new Error(this.ending.done!.reason);
    }
    if (first) {
      sent();
      if (response.ok) {
        this.created = true;
        void this.readStream();
      }
    }
    if (response.ok) {
      // The answer also comes on the event stream, in order: the body is drained without being kept.
      await drain(response);
      return;
    }
    const error = await readHttpError(response, this.peer, l10n.t('{0} at {1}', messageKind(message), this.where));
    this.failed(error, id, first);
  }

  /** A POST answered with an HTTP error: the link ends when it cannot go on, else the request fails with the words. */
  private failed(error: RemoteHttpError, id: string | number | undefined, first: boolean): void {
    if (error.auth) this.finish({ cause: 'auth', reason: error.message, retry: false });
    else if (error.redirect) this.finish({ cause: 'http', reason: error.message, retry: false });
    // The server no longer knows this connection (it restarted, or it stopped the agent): a new link may help.
    else if (error.status === 404 && !first) this.finish({ cause: 'closed', reason: error.message, retry: true });
    // The server is up but its agent is gone (its stdin broke): every later message would fail the same way, and
    // a new link starts the agent again.
    else if (!first && (error.status === 502 || (error.type !== undefined && AGENT_GONE_TYPES.has(error.type))))
      this.finish({ cause: 'closed', reason: error.message, retry: true });
    else if (first) this.finish({ cause: 'http', reason: error.message, retry: retryableStatus(error.status) });
    if (id === undefined) throw error;
    if (this.unanswered.delete(id) && !this.ending.done) this.channel!.reader.answer(failedRequestAnswer(id, error.message));
  }

  /** Reads the event stream until it ends; then the link ends. */
  private async readStream(): Promise<void> {
    let response: Response;
    try {
      response = await fetch(sandboxAcpUrl(this.url!, this.serverId, undefined), {
        headers: this.headers({ accept: 'text/event-stream' }),
        redirect: 'manual',
        signal: this.abort.signal,
      });
    } catch (error) {
      this.finish({ cause: 'network', reason: l10n.t('Cannot reach {0} at {1}: {2}', this.peer, this.where, networkCause(error)), retry: true });
      return;
    }
    if (!response.ok) {
      const error = await readHttpError(response, this.peer, l10n.t('the event stream at {0}', this.where));
      this.finish({ cause: error.auth ? 'auth' : 'http', reason: error.message, retry: !error.auth && retryableStatus(error.status) });
      return;
    }
    if (!response.body) {
      this.finish({ cause: 'protocol', reason: l10n.t('{0} at {1} sent an empty event stream.', this.peer, this.where), retry: true });
      return;
    }
    try {
      for await (const items of readSseEvents(response.body, this.maxMessageBytes)) this.channel!.intake.take(items);
    } catch (error) {
      if (this.ending.done) return;
      this.finish({ cause: 'network', reason: l10n.t('The connection to {0} at {1} broke: {2}', this.peer, this.where, networkCause(error)), retry: true });
      return;
    }
    this.finish({ cause: 'closed', reason: l10n.t('{0} at {1} ended the connection.', this.peer, this.where), retry: true });
  }

  /**
   * A message from the stream, before it is handed on: an answer settles its request; the server's notice that the
   * agent exited ends the link once the notice itself was handed on (the trace shows it).
   */
  private received(message: Message): void {
    const id = (message as { id?: unknown }).id;
    if (requestIdOf(message) === undefined && (typeof id === 'string' || typeof id === 'number')) this.unanswered.delete(id);
    if ((message as { method?: unknown }).method === AGENT_EXITED_METHOD) queueMicrotask(() => this.agentExited((message as { params?: unknown }).params));
  }

  /** The agent's process ended on a server that stays up: the link is gone, and a new one starts the agent again. */
  private agentExited(params: unknown): void {
    const code = (params as { code?: unknown } | undefined)?.code;
    const agent = this.options.endpoint.sandboxAgent ?? this.peer;
    this.finish({
      cause: 'closed',
      reason:
        typeof code === 'number' && Number.isInteger(code)
          ? l10n.t('{0} exited with code {1} on the Sandbox Agent server at {2}.', agent, code, this.where)
          : l10n.t('{0} stopped on the Sandbox Agent server at {1}.', agent, this.where),
      retry: true,
    });
  }

  /** Ends the link once: settles {@link ended}, stops every request, and ends the reader after what it already has. */
  private finish(end: LinkEnd): void {
    if (!this.ending.settle(end)) return;
    if (end.cause !== 'stopped') this.options.logger?.warn(end.reason);
    this.abort.abort();
    this.channel?.writer.ended(end);
    this.channel?.reader.end();
  }
}

async function drain(response: Response): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  try {
    while (!(await reader.read()).done) {
      // Discarded: the event stream carries the same answer.
    }
  } catch {
    // The link ended meanwhile; the stream says why.
  }
}
