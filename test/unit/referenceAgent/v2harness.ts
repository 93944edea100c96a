/**
 * The reference agent over stdio with the SDK's own experimental v2 client (`@agentclientprotocol/sdk/experimental/v2/unstable`),
 * capturing the raw lines both ways and checking every line the agent sends against the official v2 schema
 * (`schema/v2/schema.json`; methods it lacks, such as the unstable `session/fork`, against `schema.unstable.json`).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import {
  client,
  ndJsonStream,
  type ClientCapabilities,
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type ClientContext,
  type InitializeResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { killGroup, LineCapture, spawnAgentProcess } from './harness';

interface SchemaDef {
  'x-side'?: string;
  'x-method'?: string;
}

interface WireMessage {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** Validators of the official v2 schemas by side, method and kind. */
class V2Schema {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly schemas: Array<{ key: string; defs: Record<string, SchemaDef> }> = [];

  constructor() {
    for (const [key, file] of [
      ['stable', '@agentclientprotocol/sdk/schema/v2/schema.json'],
      ['unstable', '@agentclientprotocol/sdk/schema/v2/schema.unstable.json'],
    ] as const) {
      const schema = JSON.parse(fs.readFileSync(require.resolve(file), 'utf8')) as { $defs: Record<string, SchemaDef> };
      this.ajv.addSchema(schema, key);
      this.schemas.push({ key, defs: schema.$defs });
    }
  }

  /** The stable schema's validator for the method, or the unstable one's when only that has it. */
  validator(side: string, method: string, suffix: 'Request' | 'Response' | 'Notification'): { validate: ValidateFunction; schema: string } | undefined {
    for (const { key, defs } of this.schemas) {
      const name = Object.keys(defs).find((def) => def.endsWith(suffix) && defs[def]!['x-side'] === side && defs[def]!['x-method'] === method);
      const validate = name === undefined ? undefined : this.ajv.getSchema(`${key}#/$defs/${name}`);
      if (validate) return { validate, schema: key };
    }
    return undefined;
  }

  errorValidator(): ValidateFunction {
    const validate = this.ajv.getSchema('stable#/$defs/Error');
    assert.ok(validate);
    return validate;
  }
}

/** One variant of v2's `SessionUpdate` (without the unknown ones). */
export type UpdateOf<K extends string> = Extract<SessionUpdate, { sessionUpdate: K }>;

/** A type guard for one `sessionUpdate` variant, for `filter` and `find`. */
export function isUpdate<K extends string>(kind: K): (update: SessionUpdate) => update is UpdateOf<K> {
  return (update): update is UpdateOf<K> => update.sessionUpdate === kind;
}

let schema: V2Schema | undefined;

/** What the agent sent, checked line by line; `seen` names what was checked (`session/new response`, `state_update`…). */
export function checkAgainstV2Schema(sent: readonly string[], received: readonly string[]): { problems: string[]; seen: Set<string> } {
  schema ??= new V2Schema();
  const requests = new Map<string, string>();
  for (const line of sent) {
    const message = JSON.parse(line) as WireMessage;
    if (message.method !== undefined && message.id !== undefined) requests.set(String(message.id), message.method);
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const line of received) {
    const message = JSON.parse(line) as WireMessage;
    let found: { validate: ValidateFunction; schema: string } | undefined;
    let value: unknown;
    let what: string;
    if (message.method !== undefined) {
      const kind = message.id === undefined ? 'Notification' : 'Request';
      const side = message.method.startsWith('$/') ? 'protocol' : 'client';
      found = schema.validator(side, message.method, kind);
      value = message.params;
      what = `${message.method} ${kind.toLowerCase()}`;
      const update = (message.params as { update?: { sessionUpdate?: string } } | undefined)?.update;
      if (update?.sessionUpdate) seen.add(update.sessionUpdate);
    } else if (message.error !== undefined) {
      found = { validate: schema.errorValidator(), schema: 'stable' };
      value = message.error;
      what = 'error';
    } else {
      const method = requests.get(String(message.id));
      assert.ok(method, `response to unknown id ${String(message.id)}`);
      found = schema.validator('agent', method, 'Response');
      value = message.result;
      what = `${method} response`;
    }
    if (!found) {
      problems.push(`${what}: not in the v2 schema\n  ${line.slice(0, 300)}`);
      continue;
    }
    seen.add(what);
    if (!found.validate(value)) problems.push(`${what} (${found.schema}): ${JSON.stringify(found.validate.errors?.slice(0, 3))}\n  ${line.slice(0, 300)}`);
  }
  return { problems, seen };
}

/** How to start one agent for a v2 client. */
export interface V2StartOptions {
  readonly args?: readonly string[];
  /** Answers permission requests (the default picks the first `allow_once`); `signal` aborts on `$/cancel_request`. */
  readonly onPermission?: (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse> | RequestPermissionResponse;
  /** Answers `elicitation/create` (the default declines). */
  readonly onElicitation?: (request: CreateElicitationRequest) => CreateElicitationResponse;
  /** Sent in `initialize` (default none). */
  readonly capabilities?: ClientCapabilities;
  /** Skip `initialize`. */
  readonly skipInitialize?: boolean;
}

const running = new Set<V2Agent>();

/** One spawned agent with the SDK's v2 client connected to it. */
export class V2Agent {
  readonly updates: UpdateSessionNotification[] = [];
  readonly received: string[] = [];
  readonly sent: string[] = [];
  /** Every state_update of every session so far, as `<state>` or `idle:<stopReason>`, in arrival order. */
  readonly states: string[] = [];
  /** `elicitation/create` requests received, and the ids of `elicitation/complete` notifications. */
  readonly elicitations: CreateElicitationRequest[] = [];
  readonly completed: string[] = [];
  readonly connection: ClientConnection;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  initializeResponse: InitializeResponse | undefined;
  stderr = '';
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly child: ReturnType<typeof spawnAgentProcess>,
    options: V2StartOptions,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    const receivedLines = new LineCapture((line) => {
      this.received.push(line);
      this.notify();
    });
    const sentLines = new LineCapture((line) => this.sent.push(line));
    const { stdout, stdin } = child;
    if (!stdout || !stdin) throw new Error('agent spawned without pipes');
    const input = new ReadableStream<Uint8Array>({
      start(controller) {
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
    const app = client({ name: 'reference-agent-v2-tests' })
      .onNotification('session/update', ({ params }) => {
        this.updates.push(params);
        const update = params.update;
        if (update.sessionUpdate === 'state_update') {
          this.states.push(update.state === 'idle' && 'stopReason' in update && update.stopReason ? `idle:${String(update.stopReason)}` : String(update.state));
        }
        this.notify();
      })
      .onRequest('session/request_permission', async ({ params, signal }) => {
        if (options.onPermission) return options.onPermission(params, signal);
        const allow = params.options.find((o) => o.kind === 'allow_once');
        return { outcome: allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' } };
      })
      .onRequest('elicitation/create', ({ params }) => {
        this.elicitations.push(params);
        return options.onElicitation ? options.onElicitation(params) : { action: 'decline' };
      })
      .onNotification('elicitation/complete', ({ params }) => {
        this.completed.push(params.elicitationId);
        this.notify();
      });
    this.connection = app.connect(ndJsonStream(output, input));
  }

  get agent(): ClientContext {
    return this.connection.agent;
  }

  /** Updates of one session, in order. */
  updatesFor(sessionId: string): SessionUpdate[] {
    return this.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  }

  /** The text of a session's agent message chunks, concatenated. */
  agentText(sessionId: string): string {
    return this.updatesFor(sessionId)
      .filter(isUpdate('agent_message_chunk'))
      .map((u) => (u.content.type === 'text' && 'text' in u.content ? String(u.content.text) : ''))
      .join('');
  }

  /** Resolves once `predicate` holds (checked on every line received). */
  async waitFor(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    if (predicate()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; states ${this.states.join(' → ')}`));
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

  /** Waits for the session's next idle state after `mark` updates of it; returns its stop reason. */
  async idleAfter(sessionId: string, mark: number): Promise<string | undefined> {
    const idle = (): SessionUpdate | undefined =>
      this.updatesFor(sessionId)
        .slice(mark)
        .find((u) => u.sessionUpdate === 'state_update' && u.state === 'idle');
    await this.waitFor(() => idle() !== undefined, `idle in ${sessionId}`);
    const update = idle();
    return update && 'stopReason' in update && typeof update.stopReason === 'string' ? update.stopReason : undefined;
  }

  /** Sends a prompt and waits for the turn's idle state: the answer's messageId and the stop reason. */
  async prompt(sessionId: string, text: string): Promise<{ messageId: string; stopReason: string | undefined }> {
    const mark = this.updatesFor(sessionId).length;
    const { messageId } = await this.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    return { messageId, stopReason: await this.idleAfter(sessionId, mark) };
  }

  initialize(capabilities: ClientCapabilities = {}): Promise<InitializeResponse> {
    return this.agent
      .request('initialize', { protocolVersion: 2, info: { name: 'reference-agent-v2-tests', version: '0.0.0' }, capabilities })
      .then((response) => {
        this.initializeResponse = response;
        return response;
      });
  }

  /** Every line the agent sent validates against the v2 schema. */
  assertSchemaValid(): Set<string> {
    const { problems, seen } = checkAgainstV2Schema(this.sent, this.received);
    assert.deepEqual(problems, []);
    return seen;
  }

  closeStdin(): void {
    this.child.stdin?.end();
  }

  async kill(): Promise<void> {
    running.delete(this);
    this.connection.close();
    await killGroup(this.child);
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** Spawns the agent bundle and (unless told not to) initializes it with protocolVersion 2. */
export async function startV2Agent(options: V2StartOptions = {}): Promise<V2Agent> {
  const harness = new V2Agent(spawnAgentProcess(options.args), options);
  running.add(harness);
  if (!options.skipInitialize) await harness.initialize(options.capabilities);
  return harness;
}

/** Kills every v2 agent the tests started (the v1 harness's `cleanup` kills the rest and removes temp dirs). */
export async function cleanupV2(): Promise<void> {
  await Promise.all([...running].map((agent) => agent.kill()));
}

/** Writes one raw line to a fresh agent and resolves with the first line it answers. */
export async function rawExchange(args: readonly string[], line: string): Promise<WireMessage> {
  const child = spawnAgentProcess(args);
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        const nl = buffer.indexOf('\n');
        if (nl >= 0) resolve(buffer.slice(0, nl));
      });
      child.once('exit', (code) => reject(new Error(`agent exited (${String(code)}) before answering`)));
      child.stdin?.write(line + '\n');
    });
    return JSON.parse(answer) as WireMessage;
  } finally {
    await killGroup(child);
  }
}
