/**
 * Test harness: spawns the bundled reference agent and talks to it with the SDK's own client, so the agent is
 * checked independently of the extension's client. Also captures the raw lines in both directions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  client,
  ndJsonStream,
  RequestError,
  type ClientCapabilities,
  type ClientConnection,
  type ClientContext,
  type InitializeResponse,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk/unstable';
import { TestTerminals } from './terminals';

/** The bundle under test (`node esbuild.mjs --no-check` builds it). */
export const AGENT_BUNDLE = path.resolve(__dirname, '../../../../dist/reference-agent.js');

/** Client capabilities advertising everything the SDK test client implements. */
export const FULL_CLIENT_CAPABILITIES: ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  session: { configOptions: { boolean: {} } },
  auth: { terminal: true },
};

/** How to start one agent. */
export interface StartOptions {
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Sent in `initialize`; defaults to {@link FULL_CLIENT_CAPABILITIES}. */
  readonly clientCapabilities?: ClientCapabilities;
  /** Skip `initialize` (for tests of initialize itself). */
  readonly skipInitialize?: boolean;
  /** Answers permission requests; defaults to the first `allow_once` option. */
  readonly onPermission?: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse> | RequestPermissionResponse;
  readonly onReadTextFile?: (request: ReadTextFileRequest) => Promise<ReadTextFileResponse> | ReadTextFileResponse;
  readonly onWriteTextFile?: (request: WriteTextFileRequest) => Promise<void> | void;
}

/** Lines longer than this are captured as a placeholder with their length. */
const MAX_CAPTURED_LINE = 1024 * 1024;

/** Splits a byte stream into lines and hands each (or a placeholder `<line of N bytes>` for huge ones) to `sink`. */
export class LineCapture {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly sink: (line: string) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      this.add(chunk.subarray(start, nl));
      this.flushLine();
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.add(chunk.subarray(start));
    }
  }

  private add(part: Buffer): void {
    this.pendingBytes += part.length;
    if (this.pendingBytes <= MAX_CAPTURED_LINE) {
      this.pending.push(Buffer.from(part));
    }
  }

  private flushLine(): void {
    this.sink(this.pendingBytes <= MAX_CAPTURED_LINE ? Buffer.concat(this.pending).toString('utf8') : `<line of ${this.pendingBytes} bytes>`);
    this.pending = [];
    this.pendingBytes = 0;
  }
}

const running = new Set<AgentHarness>();
const tempDirs: string[] = [];

/** A fresh temp directory, removed by {@link cleanup}. */
export function tempDir(prefix = 'ref-agent-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

const rawChildren = new Set<ChildProcess>();

/** Kills `child`'s process group (it must have been spawned with `detached: true`) and waits for its exit. */
export async function killGroup(child: ChildProcess): Promise<void> {
  rawChildren.delete(child);
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    return;
  }
  await exited;
}

/** Spawns the agent bundle in its own process group without any client attached; {@link cleanup} kills it. */
export function spawnAgentProcess(args: readonly string[] = [], env: Readonly<Record<string, string>> = {}): ChildProcess {
  if (!fs.existsSync(AGENT_BUNDLE)) {
    throw new Error(`${AGENT_BUNDLE} is missing: run "node esbuild.mjs --no-check" first`);
  }
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(base)) {
    if (key.startsWith('ACP_REF_')) {
      delete base[key];
    }
  }
  const child = spawn(process.execPath, [AGENT_BUNDLE, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: { ...base, ...env } });
  rawChildren.add(child);
  return child;
}

/** Kills every agent started by the tests (whole process groups) and removes temp dirs. Call in `afterEach`. */
export async function cleanup(): Promise<void> {
  await Promise.all([...running].map((harness) => harness.kill()));
  await Promise.all([...rawChildren].map((child) => killGroup(child)));
  for (const dir of tempDirs.splice(0)) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One spawned agent and the SDK client connected to it. */
export class AgentHarness {
  readonly updates: SessionNotification[] = [];
  /** Raw lines the agent wrote to stdout. */
  readonly received: string[] = [];
  /** Raw lines the client wrote to the agent's stdin. */
  readonly sent: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly connection: ClientConnection;
  readonly terminals = new TestTerminals();
  initializeResponse: InitializeResponse | undefined;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly child: ChildProcess,
    options: StartOptions,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
      this.notify();
    });
    const receivedLines = new LineCapture((line) => this.received.push(line));
    const sentLines = new LineCapture((line) => this.sent.push(line));
    const stdout = child.stdout;
    const stdin = child.stdin;
    if (!stdout || !stdin) {
      throw new Error('agent spawned without pipes');
    }
    const input = new ReadableStream<Uint8Array>({
      start(controller) {
        // After the SDK cancels the stream (connection closed) the controller refuses more calls.
        const safely = (action: () => void): void => {
          try {
            action();
          } catch {
            // Stream already closed or cancelled.
          }
        };
        stdout.on('data', (chunk: Buffer) => {
          receivedLines.push(chunk);
          safely(() => controller.enqueue(new Uint8Array(chunk)));
        });
        stdout.on('end', () => safely(() => controller.close()));
      },
    });
    const output = new WritableStream<Uint8Array>({
      write(chunk) {
        sentLines.push(Buffer.from(chunk));
        return new Promise<void>((resolve, reject) => stdin.write(chunk, (error) => (error ? reject(error) : resolve())));
      },
    });
    stdin.on('error', () => undefined);
    const app = client({ name: 'reference-agent-tests' })
      .onNotification('session/update', ({ params }) => {
        this.updates.push(params);
        this.notify();
      })
      .onRequest('session/request_permission', async ({ params }) => {
        if (options.onPermission) {
          return options.onPermission(params);
        }
        const allow = params.options.find((o) => o.kind === 'allow_once');
        return { outcome: allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' } };
      })
      .onRequest('fs/read_text_file', async ({ params }) => {
        if (options.onReadTextFile) {
          return options.onReadTextFile(params);
        }
        if (!fs.existsSync(params.path)) {
          throw RequestError.resourceNotFound(params.path);
        }
        return { content: fs.readFileSync(params.path, 'utf8') };
      })
      .onRequest('fs/write_text_file', async ({ params }) => {
        if (options.onWriteTextFile) {
          await options.onWriteTextFile(params);
        } else {
          fs.writeFileSync(params.path, params.content);
        }
        return {};
      })
      .onRequest('terminal/create', ({ params }) => this.terminals.create(params))
      .onRequest('terminal/output', ({ params }) => this.terminals.output(params.terminalId))
      .onRequest('terminal/wait_for_exit', ({ params }) => this.terminals.waitForExit(params.terminalId))
      .onRequest('terminal/kill', ({ params }) => this.terminals.kill(params.terminalId))
      .onRequest('terminal/release', ({ params }) => this.terminals.release(params.terminalId));
    this.connection = app.connect(ndJsonStream(output, input));
  }

  /** The SDK context for calling agent methods. */
  get agent(): ClientContext {
    return this.connection.agent;
  }

  /** Updates received for one session, in order. */
  updatesFor(sessionId: string): SessionUpdate[] {
    return this.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  }

  /** Resolves once `predicate` holds (checked on every update and stderr chunk). */
  async waitFor(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    if (predicate()) {
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      const check = (): void => {
        if (predicate()) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve();
        }
      };
      this.waiters.add(check);
    });
  }

  /** Sends `initialize` with the given client capabilities. */
  async initialize(clientCapabilities: ClientCapabilities = FULL_CLIENT_CAPABILITIES): Promise<InitializeResponse> {
    this.initializeResponse = await this.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities,
      clientInfo: { name: 'reference-agent-tests', version: '0.0.0' },
    });
    return this.initializeResponse;
  }

  /** Creates a session in `cwd` (with optional extra roots) and returns its id. */
  async newSession(cwd: string, additionalDirectories?: string[]): Promise<string> {
    const response = await this.agent.request('session/new', {
      cwd,
      mcpServers: [],
      ...(additionalDirectories ? { additionalDirectories } : {}),
    });
    return response.sessionId;
  }

  /** Sends a text prompt and returns the stop reason. */
  async prompt(sessionId: string, text: string): Promise<string> {
    const response = await this.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    return response.stopReason;
  }

  /** The text of all agent message chunks of a session, concatenated. */
  agentText(sessionId: string): string {
    return this.updatesFor(sessionId)
      .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
      .join('');
  }

  /** Closes stdin (the agent should exit 0). */
  closeStdin(): void {
    this.child.stdin?.end();
  }

  /** Kills the agent's whole process group and waits for it to exit. */
  async kill(): Promise<void> {
    running.delete(this);
    this.connection.close();
    this.terminals.releaseAll();
    await killGroup(this.child);
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) {
      waiter();
    }
  }
}

/** Spawns `node dist/reference-agent.js` in its own process group and (unless told not to) initializes it. */
export async function startAgent(options: StartOptions = {}): Promise<AgentHarness> {
  const child = spawnAgentProcess(options.args, options.env);
  const harness = new AgentHarness(child, options);
  running.add(harness);
  if (!options.skipInitialize) {
    await harness.initialize(options.clientCapabilities);
  }
  return harness;
}

/** The JSON-RPC error of a rejected promise (fails the test if it resolves). */
export async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown; data?: unknown };
    if (typeof e.code === 'number' && typeof e.message === 'string') {
      return { code: e.code, message: e.message, data: e.data };
    }
    throw error;
  }
  throw new Error('expected a JSON-RPC error, got a result');
}
