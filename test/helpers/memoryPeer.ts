/**
 * An ACP connection over two in-memory streams, with a scriptable agent on the other end built from
 * vscode-jsonrpc and the same framing. The agent side can also write raw bytes (to test framing) and
 * records every message the client sent.
 */
import { PassThrough } from 'node:stream';
import { createMessageConnection, type MessageConnection, type Message } from 'vscode-jsonrpc/node';
import { AcpConnection, type AcpConnectionOptions } from '../../src/acp/connection';
import type { Logger } from '../../src/common/logger';
import { NdjsonMessageReader, NdjsonMessageWriter } from '../../src/acp/transport/ndjson';
import { stdioTransport } from '../../src/acp/transport/stdio';
import { conformance } from './conformance';

/** What an agent answers to `initialize` when a test does not say otherwise. */
export const FULL_AGENT_CAPABILITIES = {
  loadSession: true,
  promptCapabilities: { image: true, audio: true, embeddedContext: true },
  mcpCapabilities: { http: true, sse: true },
  sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {}, fork: {}, title: {} },
  auth: { logout: {} },
};

export class MemoryAgent {
  /** Bytes the agent writes (the client's input). */
  readonly stdout = new PassThrough();
  /** Bytes the client writes (the agent's input). */
  readonly stdin = new PassThrough();
  readonly rpc: MessageConnection;
  /** Every message the client sent, in order. */
  readonly received: Message[] = [];
  /** Every message this agent sent, in order. */
  readonly written: Message[] = [];

  constructor() {
    const reader = new NdjsonMessageReader(this.stdin, { peer: 'client', tap: (_d, m) => this.received.push(m) });
    const writer = new NdjsonMessageWriter(this.stdout, { peer: 'client', tap: (_d, m) => this.written.push(m) });
    this.rpc = createMessageConnection(reader, writer);
    this.rpc.listen();
  }

  /** Answers `initialize` with the given capabilities (defaults: everything). */
  acceptInitialize(result: Record<string, unknown> = {}): void {
    this.rpc.onRequest('initialize', () => ({
      protocolVersion: 1,
      agentCapabilities: FULL_AGENT_CAPABILITIES,
      agentInfo: { name: 'memory-agent', version: '1.0.0' },
      authMethods: [],
      ...result,
    }));
  }

  /** Writes raw text to the client, exactly as given. */
  writeRaw(text: string | Buffer): void {
    this.stdout.write(text);
  }

  /** Messages the client sent with this method. */
  sent(method: string): Array<Message & { params?: unknown; id?: unknown }> {
    return this.received.filter((m) => (m as { method?: string }).method === method);
  }

  dispose(): void {
    this.rpc.dispose();
    this.stdout.end();
    this.stdin.end();
  }
}

export interface RecordingLogger extends Logger {
  readonly lines: Array<{ level: string; message: string }>;
}

export function recordingLogger(): RecordingLogger {
  const lines: Array<{ level: string; message: string }> = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, trace: at('trace'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A client connection wired to a fresh {@link MemoryAgent}; every message the client sends is schema-checked. */
export function connectToMemoryAgent(options: Partial<AcpConnectionOptions> = {}): { client: AcpConnection; agent: MemoryAgent; logger: RecordingLogger } {
  const agent = new MemoryAgent();
  const logger = recordingLogger();
  const client = new AcpConnection({
    transport: stdioTransport(agent.stdout, agent.stdin, { peer: 'Memory Agent' }),
    logger,
    tap: conformance.newTap(),
    ...options,
  });
  return { client, agent, logger };
}

/** Resolves after pending I/O callbacks and immediates have run. */
export function flush(times = 3): Promise<void> {
  let chain = Promise.resolve();
  for (let i = 0; i < times; i++) chain = chain.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  return chain;
}
