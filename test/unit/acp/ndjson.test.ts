import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { Message } from 'vscode-jsonrpc/node';
import { type FramingError, NdjsonMessageReader, NdjsonMessageWriter } from '../../../src/acp/transport/ndjson';
import { END_OF_STREAM_METHOD } from '../../../src/acp/transport/transport';
import { flush } from '../../helpers/memoryPeer';

function reader(maxLineBytes?: number) {
  const stream = new PassThrough();
  const messages: Message[] = [];
  const errors: FramingError[] = [];
  let closed = false;
  const r = new NdjsonMessageReader(stream, { peer: 'Test Agent', maxLineBytes });
  r.onError((e) => errors.push(e as FramingError));
  r.onClose(() => (closed = true));
  r.listen((m) => messages.push(m));
  return { stream, messages, errors, isClosed: () => closed };
}

const note = (n: number) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { n } });
const params = (m: Message) => (m as unknown as { params: { n: number; text?: string } }).params;

describe('NDJSON framing', () => {
  it('reassembles a message split across chunks, including inside a multi-byte character', async () => {
    const { stream, messages, errors } = reader();
    const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { n: 1, text: 'héllo ✓ 𝄞' } }) + '\n', 'utf8');
    const snowman = line.indexOf(Buffer.from('✓'));
    stream.write(line.subarray(0, 5));
    stream.write(line.subarray(5, snowman + 1)); // cuts the 3-byte character after its first byte
    stream.write(line.subarray(snowman + 1));
    await flush();
    assert.equal(errors.length, 0);
    assert.equal(messages.length, 1);
    assert.equal(params(messages[0]!).text, 'héllo ✓ 𝄞');
  });

  it('reads several messages from one chunk, in order', async () => {
    const { stream, messages } = reader();
    stream.write([note(1), note(2), note(3)].join('\n') + '\n');
    await flush();
    assert.deepEqual(
      messages.map((m) => params(m).n),
      [1, 2, 3],
    );
  });

  it('accepts CRLF line endings and skips blank and whitespace-only lines', async () => {
    const { stream, messages, errors } = reader();
    stream.write(`\r\n${note(1)}\r\n\r\n   \t \n${note(2)}\n\n`);
    await flush();
    assert.equal(errors.length, 0);
    assert.deepEqual(
      messages.map((m) => params(m).n),
      [1, 2],
    );
  });

  it('delivers a last line that has no trailing newline when the stream ends, then an end marker, then closes', async () => {
    const r = reader();
    r.stream.write(note(1) + '\n' + note(2));
    r.stream.end();
    await flush();
    assert.equal(r.messages.length, 3);
    assert.deepEqual(
      r.messages.slice(0, 2).map((m) => params(m).n),
      [1, 2],
    );
    assert.equal((r.messages[2] as unknown as { method: string }).method, END_OF_STREAM_METHOD);
    assert.ok(r.isClosed());
  });

  it('reports a line that is not JSON, naming the agent, and keeps reading', async () => {
    const { stream, messages, errors } = reader();
    stream.write(`${note(1)}\nthis is not json\n${note(2)}\n`);
    await flush();
    assert.deepEqual(
      messages.map((m) => params(m).n),
      [1, 2],
    );
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.reason, 'json');
    assert.match(errors[0]!.message, /^Test Agent wrote a line that is not JSON/);
    assert.match(errors[0]!.message, /this is not json/);
  });

  it('reports JSON that is not a JSON-RPC message (arrays, missing jsonrpc) and keeps reading', async () => {
    const { stream, messages, errors } = reader();
    stream.write(`[1,2]\n{"method":"x"}\n42\n${note(7)}\n`);
    await flush();
    assert.deepEqual(
      messages.map((m) => params(m).n),
      [7],
    );
    assert.deepEqual(
      errors.map((e) => e.reason),
      ['shape', 'shape', 'shape'],
    );
  });

  it('discards an oversize line arriving in many chunks without buffering it, then reads the next line', async () => {
    const { stream, messages, errors } = reader(1024);
    stream.write(note(1) + '\n');
    stream.write('{"jsonrpc":"2.0","method":"big","params":{"x":"');
    for (let i = 0; i < 50; i++) stream.write('x'.repeat(500));
    stream.write('"}}\n' + note(2) + '\n');
    await flush();
    assert.deepEqual(
      messages.map((m) => params(m).n),
      [1, 2],
    );
    assert.equal(errors.length, 1, 'one error per oversize line, not one per chunk');
    assert.equal(errors[0]!.reason, 'oversize');
    assert.match(errors[0]!.message, /Test Agent sent a message longer than 1024 bytes/);
  });

  it('discards an oversize line that arrives in a single chunk', async () => {
    const { stream, messages, errors } = reader(64);
    stream.write(JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { pad: 'y'.repeat(200) } }) + '\n' + note(3) + '\n');
    await flush();
    assert.deepEqual(
      messages.map((m) => params(m).n),
      [3],
    );
    assert.deepEqual(
      errors.map((e) => e.reason),
      ['oversize'],
    );
  });

  it('reports an oversize line once it ended: its size, and the method and session its start names', async () => {
    const { stream, messages, errors } = reader(1024);
    const line = JSON.stringify({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 'sess-7', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x'.repeat(5000) } } },
    });
    stream.write(line.slice(0, 300));
    stream.write(line.slice(300, 2000));
    await flush();
    assert.equal(errors.length, 0, 'not before the line ended: its size is not known yet');
    stream.write(line.slice(2000) + '\n' + note(4) + '\n');
    await flush();
    assert.deepEqual(
      messages.map((m) => params(m).n),
      [4],
    );
    assert.equal(errors.length, 1);
    assert.deepEqual(errors[0]!.oversize, { bytes: Buffer.byteLength(line), limitBytes: 1024, head: { method: 'session/update', sessionId: 'sess-7' } });
    assert.match(
      errors[0]!.message,
      new RegExp(
        `Test Agent sent a message longer than 1024 bytes \\(${Buffer.byteLength(line).toLocaleString('en-US')} bytes, session/update for session sess-7\\)`,
      ),
    );
  });

  it('cannot tell the session of an oversize line whose session id comes too late, and reports a line cut by the end of the stream', async () => {
    const { stream, errors } = reader(1024);
    stream.write(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { update: { text: 'y'.repeat(100_000) }, sessionId: 'late' } }) + '\n');
    const cut = `{"jsonrpc":"2.0","id":12,"method":"fs/write_text_file","params":{"sessionId":"s2","content":"${'z'.repeat(3000)}`;
    stream.write(cut);
    stream.end();
    await flush();
    assert.deepEqual(
      errors.map((e) => e.oversize?.head),
      [{ method: 'session/update' }, { method: 'fs/write_text_file', id: 12, sessionId: 's2' }],
    );
    assert.equal(errors[1]!.oversize?.bytes, cut.length);
  });

  it('accepts a line exactly at the limit', async () => {
    const line = note(123456);
    const { stream, messages, errors } = reader(Buffer.byteLength(line));
    stream.write(line.slice(0, 10));
    stream.write(line.slice(10) + '\r\n');
    await flush();
    assert.equal(errors.length, 0);
    assert.equal(messages.length, 1);
  });

  it('defaults to a 32 MiB line limit', async () => {
    const { stream, messages, errors } = reader();
    const big = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { n: 5, pad: 'z'.repeat(20 * 1024 * 1024) } });
    stream.write(big + '\n');
    stream.write(JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { pad: 'z'.repeat(33 * 1024 * 1024) } }) + '\n');
    stream.write(note(6) + '\n');
    await flush();
    assert.deepEqual(
      messages.map((m) => params(m).n),
      [5, 6],
    );
    assert.deepEqual(
      errors.map((e) => e.reason),
      ['oversize'],
    );
  });

  it('writes one line per message; newlines inside strings stay escaped', async () => {
    const stream = new PassThrough();
    const writer = new NdjsonMessageWriter(stream, { peer: 'Test Agent' });
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    await writer.write({ jsonrpc: '2.0', method: 'a', params: { text: 'line1\nline2\r\n' } } as Message);
    await writer.write({ jsonrpc: '2.0', method: 'b' } as Message);
    const lines = chunks.join('').split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[2], '');
    assert.deepEqual(JSON.parse(lines[0]!).params, { text: 'line1\nline2\r\n' });
  });

  it('rejects a write after the agent input is closed, with the agent name', async () => {
    const stream = new PassThrough();
    const writer = new NdjsonMessageWriter(stream, { peer: 'Test Agent' });
    stream.end();
    await assert.rejects(writer.write({ jsonrpc: '2.0', method: 'a' } as Message), /Cannot send to Test Agent: its input is closed/);
  });
});
