import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { MALFORMED_LINE, OVERSIZED_TEXT_BYTES, UNKNOWN_UPDATE_VARIANT } from '../../fixtures/referenceAgent/faults';
import { cleanup, LineCapture, spawnAgentProcess, startAgent, tempDir } from './harness';

interface RawMessage {
  id?: number;
  method?: string;
  result?: { sessionId?: string; stopReason?: string };
  params?: { update?: { sessionUpdate?: string; [key: string]: unknown } };
}

/** Speaks raw JSON lines to the agent: the SDK client would (rightly) give up on a 33 MiB line. */
class RawClient {
  readonly lines: string[] = [];
  private nextId = 0;

  constructor(private readonly child: ChildProcess) {
    const capture = new LineCapture((line) => this.lines.push(line));
    child.stdout?.on('data', (chunk: Buffer) => capture.push(chunk));
  }

  /** Sends a request and resolves with its response and every line that arrived before it. */
  async request(method: string, params: unknown): Promise<{ response: RawMessage; before: string[] }> {
    const id = this.nextId++;
    const start = this.lines.length;
    this.child.stdin?.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    const deadline = Date.now() + 10_000;
    for (;;) {
      const index = this.lines.findIndex(
        (line, i) => i >= start && line.startsWith('{') && (JSON.parse(line) as RawMessage).id === id && !('method' in JSON.parse(line)),
      );
      if (index >= 0) {
        return { response: JSON.parse(this.lines[index]) as RawMessage, before: this.lines.slice(start, index) };
      }
      if (Date.now() > deadline) {
        throw new Error(`no answer to ${method}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

describe('reference agent: faults inside a turn', () => {
  afterEach(cleanup);

  it('malformed, unknown-update and oversized lines, then the turn goes on normally', async function () {
    this.timeout(30_000);
    const raw = new RawClient(spawnAgentProcess());
    await raw.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const cwd = tempDir();
    const { response: created } = await raw.request('session/new', { cwd, mcpServers: [] });
    const sessionId = created.result?.sessionId;
    assert.ok(sessionId);
    const { response, before } = await raw.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'oversized unknown-update malformed' }],
    });
    assert.equal(response.result?.stopReason, 'end_turn');
    const malformedAt = before.indexOf(MALFORMED_LINE);
    assert.ok(malformedAt >= 0, 'the malformed line is there, verbatim');
    const unknownAt = before.findIndex((line) => line.includes(UNKNOWN_UPDATE_VARIANT));
    const unknown = JSON.parse(before[unknownAt]) as RawMessage;
    assert.equal(unknown.method, 'session/update');
    assert.deepEqual(unknown.params?.update?.futureField, { answer: 42 });
    const oversizedAt = before.findIndex((line) => /^<line of \d+ bytes>$/.test(line));
    const size = Number(/\d+/.exec(before[oversizedAt])?.[0]);
    assert.ok(size > OVERSIZED_TEXT_BYTES, `oversized line has ${size} bytes`);
    assert.ok(malformedAt < unknownAt && unknownAt < oversizedAt, 'faults run in the documented order');
    const echoAt = before.findIndex((line) => line.includes('"agent_message_chunk"') && line.includes('Echo:'));
    assert.ok(echoAt > oversizedAt, 'the turn continues after the faults');

    // None of the fault lines is stored: the replay is clean.
    const { before: replay } = await raw.request('session/load', { sessionId, cwd, mcpServers: [] });
    assert.ok(replay.length > 0);
    for (const line of replay) {
      const message = JSON.parse(line) as RawMessage;
      assert.equal(message.method, 'session/update');
      assert.notEqual(message.params?.update?.sessionUpdate, UNKNOWN_UPDATE_VARIANT);
    }
  });

  it('oversized-unattributed: an oversized line whose session id comes after the text', async function () {
    this.timeout(30_000);
    const raw = new RawClient(spawnAgentProcess());
    await raw.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { response: created } = await raw.request('session/new', { cwd: tempDir(), mcpServers: [] });
    const { response, before } = await raw.request('session/prompt', {
      sessionId: created.result?.sessionId,
      prompt: [{ type: 'text', text: 'oversized-unattributed' }],
    });
    assert.equal(response.result?.stopReason, 'end_turn');
    const sizes = before.flatMap((line) => /^<line of (\d+) bytes>$/.exec(line)?.[1] ?? []).map(Number);
    assert.equal(sizes.length, 1);
    assert.ok(sizes[0]! > OVERSIZED_TEXT_BYTES);
  });

  it('the SDK client survives malformed and unknown-update lines and gets the rest of the turn', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    assert.equal(await agent.prompt(sessionId, 'malformed unknown-update'), 'end_turn');
    assert.equal(agent.agentText(sessionId), 'Echo: malformed unknown-update');
    assert.ok(agent.received.includes(MALFORMED_LINE));
  });
});
