/**
 * A scripted model server for real agents, offline: `node:http` on 127.0.0.1 (a free port) speaking the
 * Anthropic Messages API. `POST /v1/messages` answers with server-sent events when `stream` is true
 * (message_start, content_block_start / delta / stop with `text_delta` and `input_json_delta`,
 * message_delta with stop_reason and usage, message_stop) and with one JSON message otherwise; what it
 * says is decided by {@link scriptReply}. `POST /v1/messages/count_tokens` counts roughly; `HEAD /` and
 * `GET /` (connectivity probes) answer 200.
 *
 * Every request is recorded, so tests can assert on what the agent asked the model. Anything the script
 * cannot answer gets an Anthropic-style JSON error (400, or 404 for an unknown path) whose message says
 * what was wrong, and is listed in {@link ModelServer.problems}, so a test fails with that message
 * instead of hanging.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScriptError, lastUserTurn, promptText, scriptReply, type MessagesRequest, type Reply } from './modelScript';

export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined when there was none). */
  readonly body: unknown;
  /** `messages`, `count_tokens`, `probe`, or `unexpected`. */
  readonly kind: 'messages' | 'count_tokens' | 'probe' | 'unexpected';
  /** For messages: the scenario the script chose (see {@link Reply.scenario}). */
  readonly scenario?: string;
  /** For messages with tools: the prompt of the last user turn. */
  readonly prompt?: string;
  readonly status: number;
  /** Why the request could not be answered as asked. */
  readonly error?: string;
}

export interface ModelServerOptions {
  /** Pause between streamed events, in ms (default 0: events are written as fast as possible). */
  readonly eventDelayMs?: number;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

export class ModelServer {
  readonly requests: RecordedRequest[] = [];
  private nextId = 1;
  /** Answers held after their first words, by the text their prompt contains (see {@link holdAnswersTo}). */
  private readonly holds = new Map<string, Promise<void>>();

  private constructor(
    private readonly server: http.Server,
    private readonly options: ModelServerOptions,
  ) {}

  /** Starts a server on 127.0.0.1 and a free port. */
  static async start(options: ModelServerOptions = {}): Promise<ModelServer> {
    const server = http.createServer();
    const model = new ModelServer(server, options);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => void model.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return model;
  }

  /** `http://127.0.0.1:<port>`, what `ANTHROPIC_BASE_URL` is set to. */
  get url(): string {
    const address = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  /**
   * Streamed answers to a prompt containing `text` stop after their first words until the returned function is
   * called or the client goes away: a test that cancels a turn mid-answer does so whatever the machine's load.
   */
  holdAnswersTo(text: string): () => void {
    let release!: () => void;
    this.holds.set(text, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.holds.delete(text);
      release();
    };
  }

  /** The conversation requests (messages with tools offered), optionally only those of one scenario. */
  conversation(scenario?: string | RegExp): RecordedRequest[] {
    return this.requests.filter(
      (r) =>
        r.kind === 'messages' &&
        r.prompt !== undefined &&
        (scenario === undefined || (typeof scenario === 'string' ? r.scenario === scenario : scenario.test(r.scenario ?? ''))),
    );
  }

  /** Readable descriptions of every request that could not be answered as asked. */
  get problems(): string[] {
    return this.requests.filter((r) => r.error !== undefined).map((r) => `${r.method} ${r.path} → ${r.status}: ${r.error}`);
  }

  /** Stops listening and closes every connection (keep-alive ones too). */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  // ---- internals ----------------------------------------------------------------------------------

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = request.method ?? 'GET';
    const base = { method, path: url.pathname, query: url.search, headers: request.headers };
    let raw: string;
    try {
      raw = await readBody(request);
    } catch (error) {
      this.record({ ...base, body: undefined, kind: 'unexpected', status: 413, error: String(error) });
      return sendError(response, 413, 'request_too_large', String(error));
    }
    let body: unknown;
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        const error = `the body is not JSON: ${raw.slice(0, 80)}`;
        this.record({ ...base, body: raw, kind: 'unexpected', status: 400, error });
        return sendError(response, 400, 'invalid_request_error', `scripted model server: ${error}`);
      }
    }

    if ((method === 'HEAD' || method === 'GET') && url.pathname === '/') {
      this.record({ ...base, body, kind: 'probe', status: 200 });
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(method === 'HEAD' ? undefined : 'scripted model server');
      return;
    }
    if (method === 'POST' && url.pathname === '/v1/messages/count_tokens') {
      const tokens = Math.max(1, Math.ceil(raw.length / 4));
      this.record({ ...base, body, kind: 'count_tokens', status: 200 });
      return sendJson(response, 200, { input_tokens: tokens });
    }
    if (method === 'POST' && url.pathname === '/v1/messages') return this.messages(response, base, body as MessagesRequest);

    const error = `no such endpoint in the scripted model server: ${method} ${url.pathname}`;
    this.record({ ...base, body, kind: 'unexpected', status: 404, error });
    return sendError(response, 404, 'not_found_error', error);
  }

  private async messages(
    response: http.ServerResponse,
    base: Pick<RecordedRequest, 'method' | 'path' | 'query' | 'headers'>,
    body: MessagesRequest,
  ): Promise<void> {
    let reply: Reply;
    let prompt: string | undefined;
    try {
      if (typeof body !== 'object' || body === null) throw new ScriptError('the body is not a JSON object');
      if ((body.tools ?? []).length > 0) prompt = lastUserTurn(body.messages).prompt;
      reply = scriptReply(body, () => `toolu_scripted_${this.nextId++}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.record({ ...base, body, kind: 'messages', prompt, status: 400, error: message });
      return sendError(response, 400, 'invalid_request_error', `scripted model server: ${message}`);
    }
    this.record({ ...base, body, kind: 'messages', prompt, scenario: reply.scenario, status: 200 });
    const message = { id: `msg_scripted_${this.nextId++}`, model: body.model ?? 'scripted-model' };
    const inputTokens = Math.max(1, Math.ceil(JSON.stringify(body.messages).length / 4));
    const last = [...body.messages].reverse().find((m) => m.role === 'user');
    const said = last ? promptText(last) : '';
    const hold = [...this.holds].find(([text]) => said.includes(text))?.[1];
    if (body.stream === true) await this.stream(response, message, reply, inputTokens, hold);
    else sendJson(response, 200, messageJson(message, reply, inputTokens));
  }

  private async stream(
    response: http.ServerResponse,
    message: { id: string; model: string },
    reply: Reply,
    inputTokens: number,
    hold?: Promise<void>,
  ): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const gone = new Promise<void>((resolve) => response.once('close', () => resolve()));
    for (const event of streamEvents(message, reply, inputTokens)) {
      if (response.destroyed) return;
      response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      if (hold && event.type === 'content_block_delta') {
        await Promise.race([hold, gone]);
        hold = undefined;
      }
      if (this.options.eventDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.eventDelayMs));
    }
    response.end();
  }

  private record(entry: RecordedRequest): void {
    this.requests.push(entry);
  }
}

/** The server-sent events of one streamed answer, in order (each has `type`, also the event name). */
export function streamEvents(message: { id: string; model: string }, reply: Reply, inputTokens: number): Array<{ type: string } & Record<string, unknown>> {
  const events: Array<{ type: string } & Record<string, unknown>> = [
    {
      type: 'message_start',
      message: {
        id: message.id,
        type: 'message',
        role: 'assistant',
        model: message.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    },
    { type: 'ping' },
  ];
  reply.blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of block.chunks) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      for (const partial of [json.slice(0, half), json.slice(half)]) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } });
      }
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: reply.stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens(reply) } });
  events.push({ type: 'message_stop' });
  return events;
}

/** The same answer as one JSON message (`stream: false`). */
export function messageJson(message: { id: string; model: string }, reply: Reply, inputTokens: number): Record<string, unknown> {
  return {
    id: message.id,
    type: 'message',
    role: 'assistant',
    model: message.model,
    content: reply.blocks.map((block) =>
      block.type === 'text' ? { type: 'text', text: block.chunks.join('') } : { type: 'tool_use', id: block.id, name: block.name, input: block.input },
    ),
    stop_reason: reply.stopReason,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: outputTokens(reply), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function outputTokens(reply: Reply): number {
  const size = reply.blocks.reduce((n, b) => n + (b.type === 'text' ? b.chunks.join('').length : JSON.stringify(b.input).length), 0);
  return Math.max(1, Math.ceil(size / 4));
}

/** A request's body as text, refused past {@link MAX_BODY_BYTES} (shared with the OpenAI stand-in). */
export function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`the body is larger than ${MAX_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: http.ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_scripted_${Date.now()}` });
  response.end(JSON.stringify(value));
}

/** An error in the Anthropic API's shape: `{type: "error", error: {type, message}}`. */
function sendError(response: http.ServerResponse, status: number, type: string, message: string): void {
  sendJson(response, status, { type: 'error', error: { type, message } });
}
