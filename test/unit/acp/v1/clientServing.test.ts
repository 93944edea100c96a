import * as assert from 'node:assert/strict';
import type { ResponseError } from 'vscode-jsonrpc/node';
import type { AcpConnection } from '../../../../src/acp/connection';
import { ErrorCodes } from '../../../../src/acp/errors';
import {
  ClientRefusal,
  RefusalCodes,
  type CancellationSignal,
  type CreateTerminalRequest,
  type FileSystemHost,
  type TerminalExitStatus,
  type TerminalHost,
  type TerminalRef,
} from '../../../../src/acp/port/client';
import { connectToMemoryAgent, type MemoryAgent } from '../../../helpers/memoryPeer';

const clientInfo = { name: 'acp-workspace', version: '0' };

/** A file system host that refuses every path outside /w/app the way the fs handlers do. */
const fileSystem: FileSystemHost = {
  readTextFile: async (request) => {
    if (!request.path.startsWith('/w/app/')) {
      throw new ClientRefusal(RefusalCodes.InvalidParams, `"${request.path}" is outside this session’s folder (/w/app)`, {
        path: request.path,
        roots: ['/w/app'],
        reason: 'outside-roots',
      });
    }
    return `text of ${request.path} from line ${request.line ?? 1}`;
  },
  writeTextFile: async () => {
    throw new Error('disk on fire');
  },
};

/** A scripted terminal host: one command, its output, its exit when killed; every call recorded. */
class ScriptedTerminals implements TerminalHost {
  readonly calls: Array<{ readonly method: string; readonly request: CreateTerminalRequest | TerminalRef }> = [];
  private exited: TerminalExitStatus | undefined;
  private readonly waiting: Array<(status: TerminalExitStatus) => void> = [];

  async create(request: CreateTerminalRequest, _token: CancellationSignal): Promise<{ readonly terminalId: string }> {
    this.calls.push({ method: 'create', request });
    return { terminalId: 'term-1' };
  }
  output(ref: TerminalRef) {
    this.calls.push({ method: 'output', request: ref });
    if (ref.terminalId !== 'term-1') throw new ClientRefusal(RefusalCodes.ResourceNotFound, `No terminal ${ref.terminalId} in this session.`, ref);
    return this.exited ? { output: 'hello\n', truncated: false, exitStatus: this.exited } : { output: 'hello\n', truncated: false };
  }
  waitForExit(ref: TerminalRef): Promise<TerminalExitStatus> {
    this.calls.push({ method: 'waitForExit', request: ref });
    return this.exited ? Promise.resolve(this.exited) : new Promise((resolve) => this.waiting.push(resolve));
  }
  async kill(ref: TerminalRef): Promise<void> {
    this.calls.push({ method: 'kill', request: ref });
    this.exited = { exitCode: null, signal: 'SIGTERM' };
    for (const resolve of this.waiting.splice(0)) resolve(this.exited);
  }
  async release(ref: TerminalRef): Promise<void> {
    this.calls.push({ method: 'release', request: ref });
  }
}

describe('ACP v1: the client-served capabilities of the port (fs/*, terminal/*)', () => {
  let client: AcpConnection;
  let agent: MemoryAgent;

  beforeEach(() => {
    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize();
  });
  afterEach(() => {
    client.dispose();
    agent.dispose();
  });

  const advertised = () => (agent.sent('initialize')[0]!.params as { clientCapabilities: { fs: unknown; terminal: unknown } }).clientCapabilities;

  it('advertises only what is served: nothing, the file system, terminals, or terminals that only refuse', async () => {
    await client.initialize({ clientInfo });
    assert.deepEqual(advertised().fs, { readTextFile: false, writeTextFile: false });
    assert.equal(advertised().terminal, false);
    client.dispose();
    agent.dispose();

    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize();
    client.serveFileSystem(fileSystem);
    await client.initialize({ clientInfo });
    assert.deepEqual(advertised().fs, { readTextFile: true, writeTextFile: true });
    assert.equal(advertised().terminal, false, 'no terminal without serveTerminals');
    client.dispose();
    agent.dispose();

    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize();
    client.serveTerminals(new ScriptedTerminals());
    await client.initialize({ clientInfo });
    assert.deepEqual(advertised().fs, { readTextFile: false, writeTextFile: false }, 'no file system without serveFileSystem');
    assert.equal(advertised().terminal, true);
    client.dispose();
    agent.dispose();

    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize();
    const refusing = new ScriptedTerminals();
    client.serveTerminals(refusing, { advertise: false });
    await client.initialize({ clientInfo });
    assert.equal(advertised().terminal, false, 'not advertised');
    const created = (await agent.rpc.sendRequest('terminal/create', { sessionId: 's1', command: 'ls' })) as { terminalId: string };
    assert.equal(created.terminalId, 'term-1', 'still answered (in words, by the host) when asked anyway');
  });

  it('refuses with the ACP error codes (the port keeps its own copy of the numbers)', () => {
    for (const [name, code] of Object.entries(RefusalCodes)) assert.equal(code, ErrorCodes[name as keyof typeof RefusalCodes], name);
  });

  it('answers a refusal as the JSON-RPC error with its code, message and data; any other failure as -32603', async () => {
    client.serveFileSystem(fileSystem);
    await client.initialize({ clientInfo });
    const read = (await agent.rpc.sendRequest('fs/read_text_file', { sessionId: 's1', path: '/w/app/a.txt', line: 3 })) as { content: string };
    assert.deepEqual(read, { content: 'text of /w/app/a.txt from line 3' });
    await assert.rejects(agent.rpc.sendRequest('fs/read_text_file', { sessionId: 's1', path: '/etc/passwd' }), (error: ResponseError<unknown>) => {
      assert.equal(error.code, -32602);
      assert.equal(error.message, '"/etc/passwd" is outside this session’s folder (/w/app)');
      assert.deepEqual(error.data, { path: '/etc/passwd', roots: ['/w/app'], reason: 'outside-roots' });
      return true;
    });
    await assert.rejects(
      agent.rpc.sendRequest('fs/write_text_file', { sessionId: 's1', path: '/w/app/a.txt', content: 'x' }),
      (error: ResponseError<unknown>) => error.code === -32603 && error.message === 'disk on fire',
    );
  });

  it('runs a terminal through serveTerminals: create, output, wait for exit, kill, release, in the port’s plain requests', async () => {
    const host = new ScriptedTerminals();
    client.serveTerminals(host);
    await client.initialize({ clientInfo });
    const created = await agent.rpc.sendRequest('terminal/create', {
      sessionId: 's1',
      command: 'echo',
      args: ['hello'],
      env: [{ name: 'GREETING', value: 'hi', _meta: { from: 'agent' } }],
      cwd: '/w/app',
      outputByteLimit: 1024,
      _meta: { ignored: true },
    });
    assert.deepEqual(created, { terminalId: 'term-1' });
    assert.deepEqual(host.calls[0], {
      method: 'create',
      request: { sessionId: 's1', command: 'echo', args: ['hello'], env: [{ name: 'GREETING', value: 'hi' }], cwd: '/w/app', outputByteLimit: 1024 },
    });

    const ref = { sessionId: 's1', terminalId: 'term-1' };
    assert.deepEqual(await agent.rpc.sendRequest('terminal/output', ref), { output: 'hello\n', truncated: false });
    const exit = agent.rpc.sendRequest('terminal/wait_for_exit', ref);
    assert.deepEqual(await agent.rpc.sendRequest('terminal/kill', ref), {});
    assert.deepEqual(await exit, { exitCode: null, signal: 'SIGTERM' });
    assert.deepEqual(await agent.rpc.sendRequest('terminal/output', ref), {
      output: 'hello\n',
      truncated: false,
      exitStatus: { exitCode: null, signal: 'SIGTERM' },
    });
    assert.deepEqual(await agent.rpc.sendRequest('terminal/release', ref), {});
    await assert.rejects(
      agent.rpc.sendRequest('terminal/output', { sessionId: 's1', terminalId: 'other' }),
      (error: ResponseError<unknown>) =>
        error.code === -32002 &&
        error.message === 'No terminal other in this session.' &&
        JSON.stringify(error.data) === '{"sessionId":"s1","terminalId":"other"}',
    );
    assert.deepEqual(
      host.calls.map((call) => call.method),
      ['create', 'output', 'waitForExit', 'kill', 'output', 'release', 'output'],
    );
    for (const call of host.calls.slice(1)) assert.deepEqual(Object.keys(call.request).sort(), ['sessionId', 'terminalId'], 'refs without _meta');
  });
});
