import * as assert from 'node:assert/strict';
import { createParser } from 'eventsource-parser';
import { EventSplitter, readSseEvents, type SseItem } from '../../../../src/acp/transport/sse';

function feed(chunks: string[], limit = 1024): SseItem[] {
  const splitter = new EventSplitter(limit);
  return [...chunks.flatMap((c) => splitter.push(Buffer.from(c, 'utf8'))), ...splitter.end()];
}

describe('readSseEvents (bounded SSE)', () => {
  it('cuts events at blank lines with LF, CRLF or CR line ends, split anywhere across chunks', () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: keepalive\n\ndata: {"c":\ndata: 3}\r\revent: note\ndata: é\n\n';
    const whole = feed([text]);
    const expected = [
      { kind: 'event', data: '{"a":1}' },
      { kind: 'event', data: '{"b":2}' },
      { kind: 'event', data: '{"c":\n3}' },
      { kind: 'event', data: 'é', event: 'note' },
    ];
    assert.deepEqual(whole, expected);
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const splitter = new EventSplitter(1024);
      const items = [...splitter.push(bytes.subarray(0, cut)), ...splitter.push(bytes.subarray(cut)), ...splitter.end()];
      assert.deepEqual(items, expected, `cut at ${cut}`);
    }
  });

  it('yields an event whose blank line is a CR last in a chunk with that chunk, and once at the end of the stream', () => {
    for (const limit of [1024, 12]) {
      const splitter = new EventSplitter(limit);
      assert.deepEqual(splitter.push(Buffer.from('data: a\r\r')), [{ kind: 'event', data: 'a' }], `limit ${limit}: not held until more bytes come`);
      assert.deepEqual(splitter.push(Buffer.from('\ndata: b\r')), [], `limit ${limit}: the LF ends the CR's line, no event of its own`);
      assert.deepEqual(splitter.push(Buffer.from('\r')), [{ kind: 'event', data: 'b' }], `limit ${limit}`);
      assert.deepEqual(splitter.end(), [], `limit ${limit}: nothing twice`);
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
    assert.deepEqual(items, [
      { kind: 'event', data: 'one' },
      { kind: 'event', data: 'two' },
    ]);
  });
});

describe('EventSplitter against eventsource-parser on the whole stream', () => {
  it('yields the same events however the stream is cut (LF, CRLF, CR, multi-byte), skipping only events over the limit', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const limit = 600;
    for (let round = 0; round < 1500; round++) {
      const eol = () => ['\n', '\r\n', '\r'][random() < 0.7 ? 0 : Math.floor(random() * 3)]!;
      let text = '';
      for (let i = 1 + Math.floor(random() * 8); i > 0; i--) {
        if (random() < 0.2) text += `: heartbeat${eol()}`;
        text += `data: ${'é✓x'.repeat(random() < 0.2 ? 200 + Math.floor(random() * 400) : Math.floor(random() * 40))}${eol()}`;
        if (random() < 0.3) text += `data: more${eol()}`;
        text += eol();
      }
      const expected: string[] = [];
      createParser({ onEvent: (event) => expected.push(event.data) }).feed(`${text}\n\n`);
      const bytes = Buffer.from(text, 'utf8');
      const splitter = new EventSplitter(limit);
      const items: SseItem[] = [];
      for (let at = 0, size = 0; at < bytes.length; at += size) {
        size = 1 + Math.floor(random() * (random() < 0.5 ? 5 : 900));
        items.push(...splitter.push(bytes.subarray(at, at + size)));
      }
      items.push(...splitter.end());
      assert.equal(items.length, expected.length, `round ${round}`);
      items.forEach((item, i) => {
        const data = expected[i]!;
        // An event is skipped only when its lines outgrow the limit, and then only one whose data nearly fills it.
        if (item.kind === 'oversize') assert.ok(Buffer.byteLength(data) > limit - 40, `round ${round}, event ${i} skipped`);
        else assert.ok(item.data === data && Buffer.byteLength(data) <= limit, `round ${round}, event ${i}`);
      });
    }
  });
});
