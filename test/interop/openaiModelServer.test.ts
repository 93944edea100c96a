import * as assert from 'node:assert/strict';
import { chooseShell, lastPrompt, type InputItem, type ResponsesTool } from './openaiModelScript';
import { OpenAiModelServer, SCRIPTED_MODEL } from './openaiModelServer';

/** Codex 0.166's shell tool as it offers it (abridged), and its stdin tool, which must not be chosen. */
const CODEX_TOOLS: ResponsesTool[] = [
  {
    type: 'function',
    name: 'write_stdin',
    parameters: { properties: { session_id: { type: 'number' }, chars: { type: 'string' } }, required: ['session_id'] },
  },
  {
    type: 'function',
    name: 'exec_command',
    parameters: { properties: { cmd: { type: 'string' }, workdir: { type: 'string' }, sandbox_permissions: { type: 'string' } }, required: ['cmd'] },
  },
  { type: 'web_search' },
];

const user = (text: string): InputItem => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const context: InputItem = user('<environment_context>\n  <cwd>/w/app</cwd>\n</environment_context>');
const developer: InputItem = { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] };

interface ParsedEvent {
  readonly type: string;
  readonly sequence_number: number;
  readonly delta?: string;
  readonly item?: { type: string; name?: string; call_id?: string; arguments?: string; content?: Array<{ text: string }> };
  readonly response?: { status: string; usage?: { input_tokens: number; output_tokens: number; total_tokens: number } };
}

/** Parses an SSE body strictly: each event is `event: <type>` and `data: <json>` with the same type, then a blank line. */
function parseSse(body: string): ParsedEvent[] {
  assert.ok(body.endsWith('\n\n'), 'the stream ends with a complete event');
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((record, index) => {
      const lines = record.split('\n');
      assert.equal(lines.length, 2, `an event is two lines: ${JSON.stringify(record)}`);
      assert.match(lines[0]!, /^event: response\.[a-z_.]+$/);
      const data = JSON.parse(lines[1]!.replace(/^data: /, '')) as ParsedEvent;
      assert.equal(data.type, lines[0]!.slice('event: '.length), 'the data type is the event name');
      assert.equal(data.sequence_number, index, 'sequence numbers count up from 0');
      return data;
    });
}

/** Checks the Responses streaming grammar and returns the output items and the message text deltas. */
function assemble(events: ParsedEvent[]): { items: NonNullable<ParsedEvent['item']>[]; deltas: string[] } {
  assert.deepEqual(
    events.slice(0, 2).map((e) => e.type),
    ['response.created', 'response.in_progress'],
  );
  const last = events.at(-1)!;
  assert.equal(last.type, 'response.completed');
  assert.equal(last.response?.status, 'completed');
  assert.ok((last.response?.usage?.total_tokens ?? 0) > 0, 'the usage is reported');
  const added = events.filter((e) => e.type === 'response.output_item.added').length;
  const items = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item!);
  assert.equal(items.length, added, 'every item added is done');
  return { items, deltas: events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta!) };
}

describe('the scripted Responses API server', () => {
  let server: OpenAiModelServer;
  before(async () => {
    server = await OpenAiModelServer.start();
  });
  after(async () => {
    await server.close();
  });

  async function post(body: unknown): Promise<{ status: number; type: string; text: string }> {
    const response = await fetch(`${server.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  }

  it('listens on 127.0.0.1 and lists its model', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    assert.deepEqual(
      models.data.map((m) => m.id),
      [SCRIPTED_MODEL],
    );
  });

  it('streams a plain answer as valid server-sent events, in several text deltas', async () => {
    const response = await post({ model: SCRIPTED_MODEL, stream: true, tools: CODEX_TOOLS, input: [developer, context, user('tell me something')] });
    assert.equal(response.status, 200);
    assert.match(response.type, /^text\/event-stream/);
    const { items, deltas } = assemble(parseSse(response.text));
    assert.ok(deltas.length >= 5, `${deltas.length} deltas`);
    assert.equal(items.length, 1);
    assert.equal(items[0]!.content?.[0]?.text, deltas.join(''));
    assert.match(deltas.join(''), /^You said: "tell me something"\./);
    assert.equal(server.requests.at(-1)?.scenario, 'text');
  });

  it('answers "bash <command>" with a function call of the offered shell tool, then quotes its output', async () => {
    const first = assemble(parseSse((await post({ stream: true, tools: CODEX_TOOLS, input: [context, user('bash ls -la /w')] })).text));
    const call = first.items.find((i) => i.type === 'function_call');
    assert.equal(call?.name, 'exec_command');
    assert.deepEqual(JSON.parse(call!.arguments!), { cmd: 'ls -la /w' });
    assert.match(call!.call_id!, /^call_scripted_\d+$/);
    const second = await post({
      stream: true,
      tools: CODEX_TOOLS,
      input: [
        context,
        user('bash ls -la /w'),
        { type: 'function_call', name: 'exec_command', arguments: call!.arguments, call_id: call!.call_id },
        { type: 'function_call_output', call_id: call!.call_id, output: 'Process exited with code 0\nOutput:\na\nb' },
      ],
    });
    const answer = assemble(parseSse(second.text));
    assert.equal(answer.deltas.join(''), 'The command printed:\n\nProcess exited with code 0\nOutput:\na\nb');
    assert.equal(server.commandOutput('bash ls -la /w'), 'Process exited with code 0\nOutput:\na\nb');
  });

  it('takes the shell tool and its command parameter from whatever is offered (an argv array too)', () => {
    assert.deepEqual(chooseShell(CODEX_TOOLS), { name: 'exec_command', key: 'cmd', argv: false });
    const shell: ResponsesTool = {
      type: 'function',
      name: 'shell',
      parameters: { properties: { command: { type: 'array' }, timeout_ms: { type: 'number' } }, required: ['command'] },
    };
    assert.deepEqual(chooseShell([shell]), { name: 'shell', key: 'command', argv: true });
    const needsMore: ResponsesTool = {
      type: 'function',
      name: 'run_command',
      parameters: { properties: { command: { type: 'string' }, cwd: { type: 'string' } }, required: ['command', 'cwd'] },
    };
    assert.equal(chooseShell([needsMore]), undefined, 'a tool with a required parameter the script cannot fill is not used');
  });

  it('finds the last prompt past the agent’s context messages, and lists earlier ones for "history"', async () => {
    const turn = lastPrompt([
      developer,
      context,
      user('one'),
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      context,
      user('# AGENTS.md instructions for /w\n\nbe nice'),
      user('history'),
    ]);
    assert.deepEqual(turn, { prompt: 'history', results: [], earlierPrompts: ['one'] });
    const { deltas } = assemble(parseSse((await post({ stream: true, tools: CODEX_TOOLS, input: [context, user('one'), user('history')] })).text));
    assert.equal(deltas.join(''), 'Earlier prompts: "one".');
  });

  it('answers side requests (no tools): a title in JSON, anything else briefly; they are not the conversation', async () => {
    const title = assemble(
      parseSse((await post({ stream: true, input: [context, user('Generate a very short title. Return exactly one JSON object: {"title": "…"}')] })).text),
    );
    assert.equal(title.deltas.join(''), '{"title": "Scripted session"}');
    assert.equal(server.requests.at(-1)?.scenario, 'side:title');
    assert.equal(server.conversation('side:title').length, 0);
  });

  it('answers what it cannot script with a readable OpenAI-style error, and lists it as a problem', async () => {
    const before = server.problems.length;
    const noShell = await post({ stream: true, tools: [CODEX_TOOLS[0]!], input: [user('bash ls')] });
    assert.equal(noShell.status, 400);
    assert.deepEqual(JSON.parse(noShell.text), {
      error: {
        message: 'scripted model server: "bash ls" needs a shell tool, but none of the offered tools fits: write_stdin',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    assert.equal((await post({ stream: false, tools: CODEX_TOOLS, input: [user('hi')] })).status, 400);
    assert.equal((await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{}' })).status, 404);
    assert.equal((await fetch(`${server.url}/responses`, { method: 'POST', body: '{oops' })).status, 400);
    assert.deepEqual(
      server.problems.slice(before).map((p) => p.replace(/: .*/s, '')),
      ['POST /v1/responses → 400', 'POST /v1/responses → 400', 'POST /v1/chat/completions → 404', 'POST /v1/responses → 400'],
    );
  });
});
