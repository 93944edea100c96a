import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { AbstractMessageReader, AbstractMessageWriter, Disposable, type DataCallback, type Message } from 'vscode-jsonrpc/node';
import { AcpConnection } from '../../../src/acp/connection';
import * as acp from '../../../src/acp/schema';
import { stdioTransport } from '../../../src/acp/transport/stdio';
import { END_OF_STREAM_METHOD, type AcpTransport, type TransportHooks } from '../../../src/acp/transport/transport';
import { FULL_AGENT_CAPABILITIES } from '../../helpers/memoryPeer';

/**
 * A transport that moves message objects, no bytes (as an HTTP or WebSocket transport hands over whole
 * messages): what the connection needs from any transport, and nothing of stdio.
 */
class ObjectTransport implements AcpTransport {
  readonly peer = 'Object Agent';
  hooks: TransportHooks | undefined;
  readonly sent: Message[] = [];
  private deliver: DataCallback | undefined;
  private ended = false;
  /** Answers the client's requests (the agent). */
  answer: (message: Message & { id?: number; method?: string }) => unknown = () => undefined;

  open(hooks: TransportHooks) {
    this.hooks = hooks;
    const listen = (callback: DataCallback | undefined) => (this.deliver = callback);
    const write = (message: Message) => {
      hooks.tap?.('send', message);
      this.sent.push(message);
      const request = message as Message & { id?: number; method?: string };
      if (request.id !== undefined && request.method !== undefined) {
        const result = this.answer(request);
        setImmediate(() => this.receive({ jsonrpc: '2.0', id: request.id, result } as Message));
      }
    };
    class Reader extends AbstractMessageReader {
      listen(callback: DataCallback): Disposable {
        listen(callback);
        return Disposable.create(() => listen(undefined));
      }
    }
    class Writer extends AbstractMessageWriter {
      write(message: Message): Promise<void> {
        write(message);
        return Promise.resolve();
      }
      end(): void {}
    }
    return { reader: new Reader(), writer: new Writer() };
  }

  /** A message from the agent: to the connection's fast path first, as the contract says. */
  receive(message: Message): void {
    if (this.ended) return;
    this.hooks?.tap?.('receive', message);
    if (this.hooks?.intercept(message)) return;
    this.deliver?.(message);
  }

  /** The agent's side ended: the end-of-stream marker follows everything it sent. */
  end(): void {
    this.receive({ jsonrpc: '2.0', method: END_OF_STREAM_METHOD } as Message);
    this.ended = true;
  }
}

describe('transports: the connection works over any reader/writer pair that keeps the contract', () => {
  it('initializes, streams notifications through the fast path in order, and closes after delivering everything', async () => {
    const transport = new ObjectTransport();
    transport.answer = (m) => (m.method === 'initialize' ? { protocolVersion: 1, agentCapabilities: FULL_AGENT_CAPABILITIES, authMethods: [] } : null);
    const connection = new AcpConnection({ transport, closeGraceMs: 10 });
    assert.equal(connection.agentName, 'Object Agent');
    const caps = await connection.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    assert.equal(caps.loadSession, true);
    const texts: string[] = [];
    const closed = new Promise<string>((resolve) => connection.onDidClose(resolve));
    connection.onNotification(acp.SessionUpdateNotification, (n) => {
      if (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text') texts.push(n.update.content.text);
    });
    for (let i = 0; i < 100; i++) {
      transport.receive({
        jsonrpc: '2.0',
        method: 'session/update',
        params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: String(i) } } },
      } as Message);
    }
    assert.equal(texts.length, 100, 'dispatched synchronously as they arrived (the fast path)');
    assert.deepEqual(texts.slice(0, 3), ['0', '1', '2']);
    transport.end();
    assert.equal(await closed, 'Object Agent closed the connection.');
    assert.equal(connection.isClosed, true);
    assert.deepEqual(
      transport.sent.map((m) => (m as { method?: string }).method),
      ['initialize'],
    );
  });
});

describe('messages over the size limit never leave a request waiting (stdio)', () => {
  /** Ended after each test, passed or failed, so nothing keeps the test run alive. */
  let opened: { client: AcpConnection; toClient: PassThrough } | undefined;
  afterEach(() => {
    opened?.toClient.end();
    opened?.client.dispose();
    opened = undefined;
  });

  /** A connection over two byte streams with a 1 KiB limit, and the agent's side of them. */
  function overStdio() {
    const toClient = new PassThrough();
    const fromClient = new PassThrough();
    const client = new AcpConnection({ transport: stdioTransport(toClient, fromClient, { peer: 'Big Agent', maxLineBytes: 1024 }) });
    opened = { client, toClient };
    const lines: Array<Record<string, unknown>> = [];
    let text = '';
    fromClient.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n')) {
        lines.push(JSON.parse(text.slice(0, at)) as Record<string, unknown>);
        text = text.slice(at + 1);
      }
    });
    const send = (message: unknown) => toClient.write(`${JSON.stringify(message)}\n`);
    /** The first line the client wrote that matches (waits for it; the test's timeout bounds the wait). */
    const next = async (match: (line: Record<string, unknown>) => boolean) => {
      for (;;) {
        const found = lines.find(match);
        if (found) return found;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    return { client, send, next };
  }

  it('fails the request whose answer was discarded, saying why, instead of waiting forever', async () => {
    const { client, send, next } = overStdio();
    const initializing = client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    const init = await next((line) => line['method'] === 'initialize');
    send({ jsonrpc: '2.0', id: init['id'], result: { protocolVersion: 1, agentCapabilities: FULL_AGENT_CAPABILITIES, padding: 'x'.repeat(4096) } });
    await assert.rejects(initializing, /Big Agent's answer was 4,\d{3} bytes, over the limit of 1024 bytes \(setting acpWorkspace\.maxMessageSizeMiB\)/);
  });

  it('answers a discarded request with an error, so the agent does not wait for an answer', async () => {
    const { client, send, next } = overStdio();
    client.onRequest(acp.ReadTextFileMethod, () => ({ content: 'never asked' }));
    send({ jsonrpc: '2.0', id: 77, method: 'fs/read_text_file', params: { sessionId: 's', path: `/${'a'.repeat(4096)}` } });
    const answer = await next((line) => line['id'] === 77);
    assert.equal((answer['error'] as { code: number }).code, -32600);
    assert.match(
      (answer['error'] as { message: string }).message,
      /fs\/read_text_file request was 4,\d{3} bytes, over this client's limit of 1,024 bytes; it was not read/,
    );
  });
});
