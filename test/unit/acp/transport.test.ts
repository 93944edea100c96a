import * as assert from 'node:assert/strict';
import { AbstractMessageReader, AbstractMessageWriter, Disposable, type DataCallback, type Message } from 'vscode-jsonrpc/node';
import { AcpConnection } from '../../../src/acp/connection';
import * as acp from '../../../src/acp/schema';
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
      transport.receive({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: String(i) } } } } as Message);
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
