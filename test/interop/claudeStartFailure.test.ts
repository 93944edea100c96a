/**
 * claude-agent-acp as a user without sign-in and without network has it: no API key, an empty HOME and
 * config folder, the model service on a closed loopback port. What it says, and what the extension makes of
 * it (process/startFailure): its own words, the likely cause, the next step.
 *
 * Found while reproducing issue 15's defect 6: claude-agent-acp 0.49.0 starts Claude Code with its stderr
 * ignored (the SDK pipes it only with DEBUG_CLAUDE_AGENT_SDK), so when Claude Code exits at once the only
 * words are the error's `data.details`, "Claude Code process exited with code 1", and nothing on stderr.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { AgentRequestError, AuthRequiredError, ErrorCodes } from '../../src/acp/errors';
import { describeStartFailure } from '../../src/process/startFailure';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import { startSession } from '../../src/sessions/routing/sessionLifecycle';
import { claudeAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { InteropClient, within } from './harness';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The agent as a user without a key has it (no ANTHROPIC_API_KEY), plus `extra`. */
function withoutCredentials(agent: InteropAgent, extra: NodeJS.ProcessEnv = {}): InteropAgent {
  const env: NodeJS.ProcessEnv = { ...agent.env, ...extra };
  delete env['ANTHROPIC_API_KEY'];
  return { ...agent, env };
}

describe('interop: claude-agent-acp without sign-in or network says why', function () {
  this.timeout(90_000);
  let scratch: Scratch;
  let client: InteropClient | undefined;

  beforeEach(() => {
    scratch = makeScratch('acp-interop-claude-nokey-');
  });
  afterEach(async () => {
    await client?.dispose();
    client = undefined;
    scratch.cleanup();
  });

  it('without a key: the session starts, the first prompt is refused with -32000, and the chat offers Sign In', async () => {
    const agent = withoutCredentials(claudeAgentAcp(scratch.home, `http://127.0.0.1:${await closedPort()}`));
    client = new InteropClient({ agent, cwd: scratch.app });
    const connection = await within(60_000, 'initialize', client.start());
    const session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [])));
    const controller = client.open(session);
    await within(60_000, 'the prompt', controller.prompt([{ type: 'text', text: 'hello' }], [{ type: 'text', text: 'hello' }]));
    const error = controller.thread.snapshot().entries.at(-1);
    assert.ok(error?.kind === 'error', `the turn ended with an error entry: ${JSON.stringify(error)}`);
    assert.match(error.message, /claude-agent-acp needs you to sign in before session\/prompt: Authentication required/);
    assert.match(error.advice ?? '', /needs you to sign in/);
    assert.equal(error.actions[0], 'signIn');
    const terminal = connection.caps.authMethods.find((m) => m.type === 'terminal');
    assert.ok(terminal, `it offers a sign-in in a terminal (the extension runs it): ${JSON.stringify(connection.caps.authMethods)}`);
  });

  it('when Claude Code cannot start: session/new fails with only “Claude Code process exited with code 1”; the diagnosis says what to check', async () => {
    // A Claude Code that cannot start (a broken install, an unsupported system): it writes why and exits 1.
    // It reads the SDK's first message first: exiting before that makes claude-agent-acp itself die of
    // EPIPE on the write (an exit of the agent, a different failure, taken by whichever comes first).
    const broken = path.join(scratch.dir, 'claude');
    fs.writeFileSync(broken, '#!/bin/sh\nread -r _first\necho "claude: cannot start: invalid API key · Please run /login" >&2\nexit 1\n', { mode: 0o755 });
    const agent = withoutCredentials(claudeAgentAcp(scratch.home, `http://127.0.0.1:${await closedPort()}`), { CLAUDE_CODE_EXECUTABLE: broken });
    client = new InteropClient({ agent, cwd: scratch.app });
    const connection = await within(60_000, 'initialize', client.start());
    const error = await within(
      60_000,
      'session/new',
      startSession(connection, rootSetFromPaths(scratch.app, [])).then(
        () => assert.fail('session/new failed'),
        (e: unknown) => e,
      ),
    );
    assert.ok(error instanceof AgentRequestError && !(error instanceof AuthRequiredError), `session/new failed with an agent error: ${String(error)}`);
    assert.equal(error.code, ErrorCodes.InternalError);
    assert.deepEqual(error.data, { details: 'Claude Code process exited with code 1' });
    assert.equal(error.message, 'claude-agent-acp rejected session/new: Internal error: Claude Code process exited with code 1 (error -32603)');
    // Its child's words never reach us: claude-agent-acp does not pass on Claude Code's stderr.
    assert.ok(!client.process.recentStderr.some((line) => line.includes('invalid API key')), client.process.recentStderr.join('\n'));

    const failure = describeStartFailure({ agent: 'claude-agent-acp', error, stderr: client.process.recentStderr, command: process.execPath });
    assert.match(failure.advice ?? '', /exited at once, without saying why.*not signed in.*network.*Node\.js/);
    assert.deepEqual(failure.actions, ['signIn', 'showLog', 'restart', 'openSettings']);
  });
});
