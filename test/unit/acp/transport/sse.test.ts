import * as assert from 'node:assert/strict';
import { EventSplitter, readSseEvents, type SseItem } from '../../../../src/acp/transport/sse';

function feed(chunks: string[], limit = 1024): SseItem[] {
  const splitter = new EventSplitter(limit);
  return [...chunks.flatMap((c) => splitter.push(Buffer.from(c, 'utf8'))), ...splitter.end()];
}

describe('readSseEvents (bounded SSE)', () => {
  it('cuts events at blank lines with LF, CRLF or CR line ends, split anywhere across chunks', () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: keepalive\n\ndata: {"c":\ndata: 3}\r\revent: note\ndata: é\n\n';
    const whole = feed([text]);
    const expected = [{ kind: 'event', data: '{"a":1}' }, { kind: 'event', data: '{"b":2}' }, { kind: 'event', data: '{"c":\n3}' }, { kind: 'event', data: 'é', event: 'note' }];
    assert.deepEqual(whole, expected);
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const splitter = new EventSplitter(1024);
      const items = [...splitter.push(bytes.subarray(0, cut)), ...splitter.push(bytes.subarray(cut)), ...splitter.end()];
      assert.deepEqual(items, expected, `cut at ${cut}`);
    }
  });

  it('skips an event over the limit as it streams in, keeping its start, and goes on with the next', () => {
    const big = `data: {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","text":"${'x'.repeat(5000)}"}}\n\n`;
    const items = feed([big.slice(0, 700), big.slice(700, 3000), big.slice(3000), 'data: {"ok":true}\n\n'], 1024);
    assert.equal(items.length, 2);
    const [skipped, next] = items as [Extract<SseItem, { kind: 'oversize' }>, SseItem];
    assert.equal(skipped.kind, 'oversize');
    assert.equal(skipped.bytes, big.length - 1, 'its size (its line ends counted once)');
    assert.ok(skipped.head.startsWith('{"jsonrpc":"2.0","method":"session/update"'));
    assert.deepEqual(next, { kind: 'event', data: '{"ok":true}' });
  });

  it('an event the stream ends inside still counts; a body is read to its end', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from('data: one\n\ndata: tw'));
        controller.enqueue(Buffer.from('o'));
        controller.close();
      },
    });
    const items: SseItem[] = [];
    for await (const batch of readSseEvents(body, 1024)) items.push(...batch);
    assert.deepEqual(items, [{ kind: 'event', data: 'one' }, { kind: 'event', data: 'two' }]);
  });
});
