/**
 * A scripted OpenAI Responses API server for Codex, offline: `node:http` on 127.0.0.1 (a free port).
 * `POST /v1/responses` with `stream: true` answers with server-sent events the way the Responses API streams
 * (`response.created`, `response.in_progress`, per output item `response.output_item.added`, for a message
 * `response.content_part.added` / `response.output_text.delta` (several) / `response.output_text.done` /
 * `response.content_part.done`, for a function call `response.function_call_arguments.delta` (two halves) /
 * `response.function_call_arguments.done`, then `response.output_item.done`, and last `response.completed`
 * with the usage); `GET /v1/models` lists one model. What it says is decided by {@link scriptResponse}.
 *
 * Every request is recorded, so tests can assert on what the agent sent. Anything the script cannot answer
 * gets an OpenAI-style JSON error (`{error: {message, type}}`, 400, or 404 for an unknown path) whose message
 * says what was wrong, listed in {@link OpenAiModelServer.problems}.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScriptError } from './modelScript';
import { lastPrompt, scriptResponse, type ResponseReply, type ResponsesRequest } from './openaiModelScript';
import { readBody } from './modelServer';

/** The model the server says it is (also what the agent is configured to ask for). */
export const SCRIPTED_MODEL = 'gpt-scripted';

export interface RecordedResponsesRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: unknown;
  readonly kind: 'responses' | 'models' | 'unexpected';
  /** For responses: the scenario the script chose. */
  readonly scenario?: string;
  /** For responses: the prompt of the conversation's last user turn. */
  readonly prompt?: string;
  readonly status: number;
  readonly error?: string;
}

export class OpenAiModelServer {
  readonly requests: RecordedResponsesRequest[] = [];
  private nextId = 1;

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OpenAiModelServer> {
    const server = http.createServer();
    const model = new OpenAiModelServer(server);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => void model.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return model;
  }

  /** `http://127.0.0.1:<port>/v1`, a provider's `base_url`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** The conversation's requests (those that offer tools, so have a prompt), optionally only one scenario's. */
  conversation(scenario?: string): RecordedResponsesRequest[] {
    return this.requests.filter((r) => r.kind === 'responses' && r.prompt !== undefined && (scenario === undefined || r.scenario === scenario));
  }

  /**
   * The output the agent sent back for the last command it ran for `prompt` (the text of the last
   * `function_call_output` of the request that answered it).
   */
  commandOutput(prompt: string): string | undefined {
    const request = this.conversation('bash:result')
      .filter((r) => r.prompt === prompt)
      .at(-1);
    return request && lastPrompt((request.body as ResponsesRequest).input ?? []).results.at(-1);
  }

  get problems(): string[] {
    return this.requests.filter((r) => r.error !== undefined).map((r) => `${r.method} ${r.path} → ${r.status}: ${r.error}`);
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  // ---- internals ----------------------------------------------------------------------------------

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = request.method ?? 'GET';
    const base = { method, path: url.pathname, headers: request.headers };
    let raw: string;
    try {
      raw = await readBody(request);
    } catch (error) {
      this.requests.push({ ...base, body: undefined, kind: 'unexpected', status: 413, error: String(error) });
      return sendError(response, 413, String(error));
    }
    let body: unknown;
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        const error = `the body is not JSON: ${raw.slice(0, 80)}`;
        this.requests.push({ ...base, body: raw, kind: 'unexpected', status: 400, error });
        return sendError(response, 400, `scripted model server: ${error}`);
      }
    }
    if (method === 'GET' && url.pathname === '/v1/models') {
      this.requests.push({ ...base, body, kind: 'models', status: 200 });
      return sendJson(response, 200, { object: 'list', data: [{ id: SCRIPTED_MODEL, object: 'model', created: 0, owned_by: 'acp-workspace-interop' }] });
    }
    if (method === 'POST' && url.pathname === '/v1/responses') return this.responses(response, base, body as ResponsesRequest);
    const error = `no such endpoint in the scripted model server: ${method} ${url.pathname}`;
    this.requests.push({ ...base, body, kind: 'unexpected', status: 404, error });
    return sendError(response, 404, error);
  }

  private responses(response: http.ServerResponse, base: Pick<RecordedResponsesRequest, 'method' | 'path' | 'headers'>, body: ResponsesRequest): void {
    let reply: ResponseReply;
    let prompt: string | undefined;
    try {
      if (typeof body !== 'object' || body === null) throw new ScriptError('the body is not a JSON object');
      if (body.stream !== true) throw new ScriptError('only streamed responses (stream: true) are scripted');
      if ((body.tools ?? []).length > 0) prompt = lastPrompt(body.input ?? []).prompt;
      reply = scriptResponse(body, () => `call_scripted_${this.nextId++}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.requests.push({ ...base, body, kind: 'responses', prompt, status: 400, error: message });
      return sendError(response, 400, `scripted model server: ${message}`);
    }
    this.requests.push({ ...base, body, kind: 'responses', prompt, scenario: reply.scenario, status: 200 });
    const id = `resp_scripted_${this.nextId++}`;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const event of responseEvents(
      id,
      body.model ?? SCRIPTED_MODEL,
      reply,
      Math.max(1, Math.ceil(JSON.stringify(body.input ?? []).length / 4)),
      () => `item_scripted_${this.nextId++}`,
    )) {
      response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    }
    response.end();
  }
}

type SseEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/** The server-sent events of one streamed response, in order (each has `type`, also the event name). */
export function responseEvents(id: string, model: string, reply: ResponseReply, inputTokens: number, itemId: () => string): SseEvent[] {
  const events: SseEvent[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => events.push({ type, sequence_number: events.length, ...fields });
  const shell = { id, object: 'response', created_at: 0, model, status: 'in_progress', output: [] as unknown[] };
  emit('response.created', { response: shell });
  emit('response.in_progress', { response: shell });
  const output: unknown[] = [];
  reply.output.forEach((item, index) => {
    const output_index = index;
    const item_id = itemId();
    if (item.type === 'message') {
      const text = item.chunks.join('');
      emit('response.output_item.added', { output_index, item: { id: item_id, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
      emit('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of item.chunks) emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta });
      emit('response.output_text.done', { item_id, output_index, content_index: 0, text });
      emit('response.content_part.done', { item_id, output_index, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
      const done = { id: item_id, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
      emit('response.output_item.done', { output_index, item: done });
      output.push(done);
    } else {
      const json = JSON.stringify(item.arguments);
      const half = Math.ceil(json.length / 2);
      emit('response.output_item.added', {
        output_index,
        item: { id: item_id, type: 'function_call', status: 'in_progress', call_id: item.callId, name: item.name, arguments: '' },
      });
      for (const delta of [json.slice(0, half), json.slice(half)]) emit('response.function_call_arguments.delta', { item_id, output_index, delta });
      emit('response.function_call_arguments.done', { item_id, output_index, arguments: json });
      const done = { id: item_id, type: 'function_call', status: 'completed', call_id: item.callId, name: item.name, arguments: json };
      emit('response.output_item.done', { output_index, item: done });
      output.push(done);
    }
  });
  const outputTokens = Math.max(1, Math.ceil(JSON.stringify(output).length / 4));
  emit('response.completed', {
    response: {
      ...shell,
      status: 'completed',
      output,
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: inputTokens + outputTokens,
      },
    },
  });
  return events;
}

function sendJson(response: http.ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_scripted_${status}` });
  response.end(JSON.stringify(value));
}

/** An error in the OpenAI API's shape: `{error: {message, type, param, code}}`. */
function sendError(response: http.ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: { message, type: 'invalid_request_error', param: null, code: null } });
}
