/**
 * A stand-in for a Sandbox Agent 0.4.2 server on 127.0.0.1, speaking the dialect measured against the real binary
 * (CONTRIBUTING.md, "Transports"): the first POST to a connection needs `?agent=`; a request's answer is the POST
 * body and is also on the event stream; notifications and answers get 202; GET replays every event of the
 * connection from the first, then streams; DELETE ends it (204); errors are problem+json; `--token` is a Bearer
 * token on every route. The agent behind it is a small script ({@link FakeAgent}); tests can also push raw SSE.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

/** What the agent does with one request: its answer, after the notifications (and requests) it sends first. */
export type FakeAgent = (message: Json, connection: FakeConnection) => Promise<unknown> | unknown;

export class FakeConnection {
  /** Every event sent on the stream, as raw SSE text. */
  readonly events: string[] = [];
  /** Every message the client POSTed. */
  readonly received: Json[] = [];
  readonly streams = new Set<http.ServerResponse>();
  private readonly waiting = new Map<unknown, (answer: Json) => void>();
  private nextId = 1000;
  deleted = false;

  constructor(readonly agent: string) {}

  /** Sends a message on the stream. */
  emit(message: unknown): void {
    this.raw(`event: message\nid: ${this.events.length + 1}\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Sends raw SSE text (tests of the framing). */
  raw(text: string): void {
    this.events.push(text);
    for (const stream of this.streams) stream.write(text);
  }

  /** An agent→client request; resolves with the client's answer (POSTed back). */
  request(method: string, params: unknown): Promise<Json> {
    const id = this.nextId++;
    const answer = new Promise<Json>((resolve) => this.waiting.set(id, resolve));
    this.emit({ jsonrpc: '2.0', id, method, params });
    return answer;
  }

  /** An answer from the client. */
  answered(message: Json): void {
    this.waiting.get(message.id)?.(message);
    this.waiting.delete(message.id);
  }

  /** Ends every open stream (as a server going away does). */
  endStreams(): void {
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }
}

export interface FakeServerOptions {
  readonly token?: string;
  readonly agent?: FakeAgent;
  /** Answer every `GET /v1/agents` with this body. */
  readonly agents?: unknown;
}

export class FakeSandboxAgentServer {
  readonly connections = new Map<string, FakeConnection>();
  /** Every request: method and path (no query), and the Authorization header. */
  readonly requests: Array<{ method: string; path: string; authorization?: string }> = [];
  /** Answer the next POST with this status and problem instead (then cleared); `kind` ends the problem's `type` (default `x`). */
  failNextPost: { status: number; title: string; detail: string; kind?: string } | undefined;

  private constructor(
    private readonly server: http.Server,
    private readonly options: FakeServerOptions,
  ) {}

  static async start(options: FakeServerOptions = {}): Promise<FakeSandboxAgentServer> {
    const server = http.createServer();
    const fake = new FakeSandboxAgentServer(server, options);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => void fake.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The one connection made so far. */
  get only(): FakeConnection {
    const [first, ...rest] = [...this.connections.values()];
    if (!first || rest.length > 0) throw new Error(`expected one connection, found ${this.connections.size}`);
    return first;
  }

  async stop(): Promise<void> {
    for (const connection of this.connections.values()) connection.endStreams();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private problem(response: http.ServerResponse, status: number, kind: string, title: string, detail: string): void {
    response.writeHead(status, { 'content-type': 'application/problem+json' });
    response.end(JSON.stringify({ type: `urn:sandbox-agent:error:${kind}`, title, status, detail }));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://x');
    this.requests.push({ method: request.method ?? '', path: url.pathname, authorization: request.headers.authorization });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (this.options.token !== undefined && request.headers.authorization !== `Bearer ${this.options.token}`) {
      return this.problem(response, 401, 'token_invalid', 'Token Invalid', 'token invalid');
    }
    if (url.pathname === '/v1/health') return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (url.pathname === '/v1/agents' && request.method === 'GET') {
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.options.agents ?? { agents: [] }));
    }
    const install = /^\/v1\/agents\/([^/]+)\/install$/.exec(url.pathname);
    if (install && request.method === 'POST') {
      if (request.headers['content-type'] !== 'application/json')
        return void response.writeHead(415).end('Expected request with `Content-Type: application/json`');
      if (install[1] !== 'mock') return this.problem(response, 502, 'install_failed', 'Install Failed', `cannot download ${install[1]}`);
      return void response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    }
    const acp = /^\/v1\/acp\/([^/]+)$/.exec(url.pathname);
    if (!acp) return this.problem(response, 404, 'not_found', 'Not Found', `no route ${url.pathname}`);
    const id = decodeURIComponent(acp[1]!);
    let connection = this.connections.get(id);
    if (request.method === 'DELETE') {
      if (connection) {
        connection.deleted = true;
        connection.endStreams();
        this.connections.delete(id);
      }
      return void response.writeHead(204).end();
    }
    if (request.method === 'GET') {
      if (!connection) return this.problem(response, 404, 'session_not_found', 'Session Not Found', `session not found: ${id}`);
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of connection.events) response.write(event);
      connection.streams.add(response);
      response.on('close', () => connection!.streams.delete(response));
      return;
    }
    if (this.failNextPost) {
      const { status, title, detail, kind } = this.failNextPost;
      this.failNextPost = undefined;
      return this.problem(response, status, kind ?? 'x', title, detail);
    }
    if (!connection) {
      const agent = url.searchParams.get('agent');
      if (!agent)
        return this.problem(
          response,
          400,
          'invalid_request',
          'Invalid Request',
          `invalid request: missing required 'agent' query parameter for first POST to /v1/acp/${id}`,
        );
      connection = new FakeConnection(agent);
      this.connections.set(id, connection);
    }
    let message: Json;
    try {
      message = JSON.parse(body) as Json;
    } catch {
      return this.problem(response, 400, 'invalid_request', 'Invalid Request', 'invalid request: invalid JSON body');
    }
    connection.received.push(message);
    if (typeof message.method !== 'string') {
      connection.answered(message);
      return void response.writeHead(202).end();
    }
    if (message.id === undefined) {
      void this.options.agent?.(message, connection);
      return void response.writeHead(202).end();
    }
    let answer: Json;
    try {
      answer = { jsonrpc: '2.0', id: message.id, result: await this.options.agent?.(message, connection) };
    } catch (error) {
      answer = { jsonrpc: '2.0', id: message.id, error: { code: -32603, message: (error as Error).message } };
    }
    connection.emit(answer);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }
}
