import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { probeAddress } from '../../../src/remote/reachability';
import { ServerUnreachableError } from '../../../src/remote/sandboxAgentServer';

describe('probeAddress: whether anything answers at a WebSocket address', () => {
  it('resolves when a server listens there, sending nothing', async () => {
    const received: Buffer[] = [];
    const server = net.createServer((socket) => socket.on('data', (chunk: Buffer) => received.push(chunk)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const closed = new Promise<void>((resolve) => server.once('connection', (socket) => socket.once('close', () => resolve())));
    try {
      await probeAddress(`ws://127.0.0.1:${port}/acp?token=secret`, new AbortController().signal);
      await closed;
      assert.deepEqual(received, [], 'nothing was sent (no token, no header)');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('rejects in words, without the query, when nothing listens', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await assert.rejects(probeAddress(`ws://127.0.0.1:${port}/acp?token=secret`, new AbortController().signal), (error: Error) => {
      assert.ok(error instanceof ServerUnreachableError);
      assert.equal(error.message, `Cannot reach ws://127.0.0.1:${port}/acp: ECONNREFUSED — the connection was refused (is the server running?)`);
      return true;
    });
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(probeAddress('wss://agents.example/acp', controller.signal), (error: Error) => error.name === 'AbortError');
  });
});
