import * as assert from 'node:assert/strict';
import { chooseTool, chunk, lastUserTurn, type MessageParam, type ToolParam } from './modelScript';
import { ModelServer } from './modelServer';

/** Claude Code's own tool shapes (abridged), as it offers them. */
const CLAUDE_TOOLS: ToolParam[] = [
  {
    name: 'Bash',
    input_schema: { properties: { command: { type: 'string' }, timeout: { type: 'number' }, description: { type: 'string' } }, required: ['command'] },
  },
  {
    name: 'Edit',
    input_schema: {
      properties: { file_path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' } },
      required: ['file_path', 'old_string', 'new_string'],
    },
  },
  {
    name: 'NotebookEdit',
    input_schema: { properties: { notebook_path: { type: 'string' }, new_source: { type: 'string' } }, required: ['notebook_path', 'new_source'] },
  },
  {
    name: 'Read',
    input_schema: { properties: { file_path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } }, required: ['file_path'] },
  },
  { name: 'TaskOutput', input_schema: { properties: { task_id: { type: 'string' } }, required: ['task_id'] } },
  { name: 'Write', input_schema: { properties: { file_path: { type: 'string' }, content: { type: 'string' } }, required: ['file_path', 'content'] } },
];

const user = (text: string): MessageParam => ({
  role: 'user',
  content: [
    { type: 'text', text: '<system-reminder>\nToday is a day.\n</system-reminder>\n' },
    { type: 'text', text },
  ],
});

/** One parsed server-sent event. */
interface SseEvent {
  event: string;
  data: {
    type: string;
    index?: number;
    delta?: { type: string; text?: string; partial_json?: string; stop_reason?: string };
    content_block?: { type: string; id?: string; name?: string };
  } & Record<string, unknown>;
}

/** Parses an SSE body strictly: every event has one `event:` and one `data:` line and ends with a blank line. */
function parseSse(body: string): SseEvent[] {
  assert.ok(body.endsWith('\n\n'), 'the stream ends with a complete event');
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((record) => {
      const lines = record.split('\n');
      assert.equal(lines.length, 2, `an event is two lines: ${JSON.stringify(record)}`);
      assert.match(lines[0]!, /^event: [a-z_]+$/);
      assert.match(lines[1]!, /^data: \{/);
      const event = { event: lines[0]!.slice('event: '.length), data: JSON.parse(lines[1]!.slice('data: '.length)) as SseEvent['data'] };
      assert.equal(event.data.type, event.event, 'the data type is the event name');
      return event;
    });
}

/** Checks the Messages streaming grammar and rebuilds the content blocks from the deltas. */
function assemble(events: SseEvent[]): {
  blocks: Array<{ type: string; text?: string; name?: string; input?: unknown }>;
  stopReason: string;
  textDeltas: number;
} {
  const types = events.map((e) => e.event).filter((t) => t !== 'ping');
  assert.equal(types[0], 'message_start');
  assert.deepEqual(types.slice(-2), ['message_delta', 'message_stop']);
  const blocks: Array<{ type: string; text?: string; name?: string; json?: string; input?: unknown }> = [];
  let open: number | undefined;
  let textDeltas = 0;
  for (const { event, data } of events.slice(1, -2)) {
    if (event === 'ping') continue;
    if (event === 'content_block_start') {
      assert.equal(open, undefined, 'blocks do not overlap');
      assert.equal(data.index, blocks.length, 'block indexes count up from 0');
      open = data.index;
      blocks.push({ type: data.content_block!.type, text: '', name: data.content_block!.name, json: '' });
    } else if (event === 'content_block_delta') {
      assert.equal(data.index, open);
      const block = blocks[open!]!;
      if (data.delta!.type === 'text_delta') {
        assert.equal(block.type, 'text');
        block.text += data.delta!.text!;
        textDeltas++;
      } else {
        assert.equal(data.delta!.type, 'input_json_delta');
        assert.equal(block.type, 'tool_use');
        block.json += data.delta!.partial_json!;
      }
    } else {
      assert.equal(event, 'content_block_stop');
      assert.equal(data.index, open);
      open = undefined;
    }
  }
  assert.equal(open, undefined, 'every block is closed');
  const stop = events.at(-2)!.data.delta!.stop_reason!;
  return {
    blocks: blocks.map((b) => (b.type === 'tool_use' ? { type: b.type, name: b.name, input: JSON.parse(b.json!) } : { type: b.type, text: b.text })),
    stopReason: stop,
    textDeltas,
  };
}

describe('the scripted model server', () => {
  let server: ModelServer;
  before(async () => {
    server = await ModelServer.start();
  });
  after(async () => {
    await server.close();
  });

  async function post(path: string, body: unknown): Promise<{ status: number; type: string; text: string }> {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  }

  it('listens on 127.0.0.1 and answers the HEAD / probe', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${server.url}/`, { method: 'HEAD' });
    assert.equal(response.status, 200);
    assert.equal(server.requests.at(-1)?.kind, 'probe');
  });

  it('streams a plain answer as valid server-sent events, in several text deltas', async () => {
    const response = await post('/v1/messages?beta=true', {
      model: 'm',
      max_tokens: 100,
      stream: true,
      tools: CLAUDE_TOOLS,
      messages: [user('tell me something')],
    });
    assert.equal(response.status, 200);
    assert.match(response.type, /^text\/event-stream/);
    const { blocks, stopReason, textDeltas } = assemble(parseSse(response.text));
    assert.equal(stopReason, 'end_turn');
    assert.ok(textDeltas >= 5, `${textDeltas} deltas`);
    assert.match(blocks[0]!.text!, /^You said: "tell me something"\./);
    const start = parseSse(response.text)[0]!.data as unknown as { message: { usage: { input_tokens: number } } };
    assert.ok(start.message.usage.input_tokens > 0);
  });

  it('answers "read <path>" with a tool_use of the read tool the request offers, then quotes the result', async () => {
    const events = parseSse((await post('/v1/messages', { stream: true, tools: CLAUDE_TOOLS, messages: [user('read /w/lib/a.ts')] })).text);
    const first = assemble(events);
    assert.equal(first.stopReason, 'tool_use');
    const tool = first.blocks.find((b) => b.type === 'tool_use');
    assert.deepEqual(tool, { type: 'tool_use', name: 'Read', input: { file_path: '/w/lib/a.ts' } });
    const toolUseId = events.find((e) => e.data.content_block?.type === 'tool_use')!.data.content_block!.id!;
    assert.match(toolUseId, /^toolu_/);
    const second = await post('/v1/messages', {
      stream: true,
      tools: CLAUDE_TOOLS,
      messages: [
        user('read /w/lib/a.ts'),
        { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'Read', input: { file_path: '/w/lib/a.ts' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text: '1\texport const a = 1;' }] }] },
        { role: 'system', content: 'A trailing system message.' },
      ],
    });
    const answer = assemble(parseSse(second.text));
    assert.equal(answer.stopReason, 'end_turn');
    assert.equal(answer.blocks[0]!.text, 'I read /w/lib/a.ts. It says:\n\n1\texport const a = 1;');
    assert.equal(server.requests.at(-1)?.scenario, 'read:result');
  });

  it('picks tools and argument keys from whatever the request offers', () => {
    const tools: ToolParam[] = [
      { name: 'list_dir', input_schema: { properties: { path: { type: 'string' } }, required: ['path'] } },
      { name: 'fs_read_text', input_schema: { properties: { target_file: { type: 'string' }, line: { type: 'integer' } }, required: ['target_file'] } },
      { name: 'save_file', input_schema: { properties: { filename: { type: 'string' }, text: { type: 'string' } }, required: ['filename', 'text'] } },
      { name: 'run_in_terminal', input_schema: { properties: { cmd: { type: 'string' }, cwd: { type: 'string' } }, required: ['cmd'] } },
    ];
    assert.deepEqual(chooseTool(tools, 'read'), { name: 'fs_read_text', keys: { path: 'target_file' } });
    assert.deepEqual(chooseTool(tools, 'write'), { name: 'save_file', keys: { path: 'filename', content: 'text' } });
    assert.deepEqual(chooseTool(tools, 'shell'), { name: 'run_in_terminal', keys: { command: 'cmd', description: undefined } });
    assert.deepEqual(chooseTool(CLAUDE_TOOLS, 'write'), { name: 'Write', keys: { path: 'file_path', content: 'content' } });
    assert.deepEqual(chooseTool(CLAUDE_TOOLS, 'shell'), { name: 'Bash', keys: { command: 'command', description: 'description' } });
    const required = [
      { name: 'read_file', input_schema: { properties: { path: { type: 'string' }, encoding: { type: 'string' } }, required: ['path', 'encoding'] } },
    ];
    assert.equal(chooseTool(required, 'read'), undefined, 'a tool with a required property the script cannot fill is not used');
  });

  it('writes with the offered write tool and answers non-streamed requests with one JSON message', async () => {
    const response = await post('/v1/messages', { stream: false, tools: CLAUDE_TOOLS, messages: [user('write /w/app/new.txt two words')] });
    assert.equal(response.status, 200);
    assert.match(response.type, /^application\/json/);
    const message = JSON.parse(response.text) as {
      type: string;
      role: string;
      stop_reason: string;
      content: Array<{ type: string; name?: string; input?: unknown }>;
    };
    assert.equal(message.type, 'message');
    assert.equal(message.role, 'assistant');
    assert.equal(message.stop_reason, 'tool_use');
    assert.deepEqual(message.content.find((b) => b.type === 'tool_use')?.input, { file_path: '/w/app/new.txt', content: 'two words\n' });
  });

  it('finds the last user turn past trailing system messages, reminders and tool results', () => {
    const turn = lastUserTurn([
      user('first question'),
      { role: 'assistant', content: 'an answer' },
      { role: 'user', content: 'bash ls -la' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls -la' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'a\nb', is_error: true },
          { type: 'text', text: '<system-reminder>x</system-reminder>' },
        ],
      },
      { role: 'system', content: 'Available agent types: …' },
    ]);
    assert.deepEqual(turn, { prompt: 'bash ls -la', results: [{ toolUseId: 't1', text: 'a\nb', isError: true }], earlierPrompts: ['first question'] });
  });

  it('lists earlier prompts for "history" (so resumed and forked conversations can be checked)', async () => {
    const response = await post('/v1/messages', {
      stream: false,
      tools: CLAUDE_TOOLS,
      messages: [user('one'), { role: 'assistant', content: 'ok' }, user('history')],
    });
    const message = JSON.parse(response.text) as { content: Array<{ text: string }> };
    assert.equal(message.content[0]!.text, 'Earlier prompts: "one".');
  });

  it('answers side requests (no tools offered) briefly: titles, quota checks, anything else', async () => {
    const title = JSON.parse(
      (await post('/v1/messages', { max_tokens: 512, system: [{ type: 'text', text: 'Generate a session title. Answer in JSON.' }], messages: [user('hi')] }))
        .text,
    ) as { content: Array<{ text: string }> };
    assert.equal(title.content[0]!.text, '{"title": "Scripted session"}');
    const quota = JSON.parse((await post('/v1/messages', { max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] })).text) as { stop_reason: string };
    assert.equal(quota.stop_reason, 'max_tokens');
    assert.deepEqual(
      server.requests.slice(-2).map((r) => r.scenario),
      ['side:title', 'side:quota'],
    );
  });

  it('counts tokens', async () => {
    const response = await post('/v1/messages/count_tokens', { messages: [user('count me')] });
    assert.ok((JSON.parse(response.text) as { input_tokens: number }).input_tokens > 0);
  });

  it('answers what it cannot script with a readable API error, and lists it as a problem', async () => {
    const before = server.problems.length;
    const noTool = await post('/v1/messages', { stream: true, tools: [CLAUDE_TOOLS[0]!], messages: [user('read /x')] });
    assert.equal(noTool.status, 400);
    assert.deepEqual(JSON.parse(noTool.text), {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'scripted model server: "read /x" needs a read tool, but none of the offered tools fits: Bash' },
    });
    const unknown = await fetch(`${server.url}/v1/unknown`);
    assert.equal(unknown.status, 404);
    const notJson = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{oops' });
    assert.equal(notJson.status, 400);
    assert.deepEqual(
      server.problems.slice(before).map((p) => p.replace(/: .*/s, '')),
      ['POST /v1/messages → 400', 'GET /v1/unknown → 404', 'POST /v1/messages → 400'],
    );
  });

  it('splits text into chunks that join back to the text', () => {
    const text = '  Hello, streaming world: this is **markdown**\n\nwith a second paragraph.';
    const chunks = chunk(text);
    assert.ok(chunks.length >= 4);
    assert.equal(chunks.join(''), text);
  });
});
