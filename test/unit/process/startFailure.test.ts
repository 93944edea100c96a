import * as assert from 'node:assert/strict';
import { AgentRequestError, AuthRequiredError, ConnectionClosedError, ErrorCodes } from '../../../src/acp/errors';
import { AgentStartError, describeStartFailure, startFailureText, SHOWN_LINES } from '../../../src/process/startFailure';
import { AgentProcess } from '../../../src/process/agentProcess';
import { ConfinementUnavailableError } from '../../../src/process/confinement/types';
import { describeSpawnError } from '../../../src/process/exitReasons';
import { redactSecrets } from '../../../src/common/redact';
import { StderrTail, TAIL_CHARS, TAIL_LINES } from '../../../src/process/stderrTail';

const AGENT = 'Claude Code';

/** What claude-agent-acp 0.49.0 answers when the Claude Code program it starts exits at once (captured). */
function claudeExited(): AgentRequestError {
  return new AgentRequestError(AGENT, 'session/new', ErrorCodes.InternalError, 'Internal error', { details: 'Claude Code process exited with code 1' });
}

describe('describeStartFailure', () => {
  it('claude-agent-acp’s own words: “Claude Code process exited with code 1”, no stderr (it discards its child’s): the usual causes, Sign In first', () => {
    const error = claudeExited();
    assert.equal(error.message, 'Claude Code rejected session/new: Internal error: Claude Code process exited with code 1 (error -32603)');
    const failure = describeStartFailure({ agent: AGENT, error, stderr: [], command: 'npx' });
    assert.equal(failure.cause, 'unknown');
    assert.equal(failure.summary, error.message);
    assert.deepEqual(failure.agentWords, [], 'the details are already in the summary');
    assert.match(failure.advice ?? '', /exited at once, without saying why.*not signed in.*claude \/login.*network.*Node\.js/);
    assert.match(failure.advice ?? '', /wrote nothing to stderr/);
    assert.deepEqual(failure.actions, ['signIn', 'showLog', 'restart', 'openSettings']);
  });

  it('Claude Code run as root: leads with the cause and the fix; no guess at signing in, no Sign In, no debug lines', () => {
    // Claude Code's own words as root when asked to skip its permission checks (captured from the claude binary of
    // claude-agent-acp 0.49.0 with IS_SANDBOX=yes, its debug log), as newer claude-agent-acp versions pass them on.
    const rootLine = '2026-11-29T03:53:46.701Z --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';
    const stderr = [
      "2026-11-29T03:53:46.700Z [DEBUG] Failed to stat directory /etc/claude-code/.claude/commands: ENOENT: no such file or directory, statx '/etc/claude-code/.claude/commands'",
      '2026-11-29T03:53:46.700Z [DEBUG] Loaded 0 unique skills (0 unconditional, 0 conditional, managed: 0, user: 0, project: 0, additional: 0, legacy commands: 0)',
      rootLine,
      '2026-11-29T03:53:46.728Z Claude Code process exited with code 1',
    ];
    const inData = new AgentRequestError(AGENT, 'session/new', ErrorCodes.InternalError, 'Internal error', {
      details: 'Claude Code process exited with code 1\n--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons',
    });
    for (const [how, error, lines] of [
      ['on stderr', claudeExited(), stderr],
      ['in the error’s details', inData, []],
    ] as const) {
      const failure = describeStartFailure({ agent: AGENT, error, stderr: lines, command: 'npx' });
      assert.equal(failure.cause, 'root', how);
      assert.match(
        failure.advice ?? '',
        /^Claude Code refuses to run as root with its permission checks skipped \(`--dangerously-skip-permissions`\)\. Run VS Code as a regular user/,
        how,
      );
      assert.match(failure.advice ?? '', /IS_SANDBOX=1/, how);
      assert.doesNotMatch(
        failure.advice ?? '',
        /without saying why|sign(ed)? in|log ?in|network|Node\.js|wrote nothing/i,
        `${how}: no diagnosis contradicting the cause: ${failure.advice}`,
      );
      assert.deepEqual(failure.actions, ['openSettings', 'showLog'], `${how}: no Sign In`);
      const text = startFailureText(failure);
      assert.doesNotMatch(text, /\[DEBUG\]|Loaded 0 unique skills|Failed to stat/, `${how}: no debug noise: ${text}`);
      assert.match(text, /cannot be used with root/, how);
    }
    const failure = describeStartFailure({ agent: AGENT, error: claudeExited(), stderr });
    assert.deepEqual(failure.agentWords, [rootLine, '2026-11-29T03:53:46.728Z Claude Code process exited with code 1'], 'its words without the debug lines');
  });

  it('leaves debug lines out of what the agent said and out of the diagnosis (an ENOENT in a debug line is no missing command)', () => {
    const stderr = ['[DEBUG] Failed to stat directory /etc/x: ENOENT: no such file or directory', 'DEBUG: spawn helper', 'line that matters'];
    const failure = describeStartFailure({ agent: AGENT, error: new ConnectionClosedError(AGENT, 'session/new', 'Claude Code exited (exit code 2).'), stderr });
    assert.equal(failure.cause, 'unknown');
    assert.deepEqual(failure.agentWords, ['line that matters']);
  });

  it('auth: ACP -32000 (claude-agent-acp’s “Authentication required” at session/prompt without a key)', () => {
    const error = new AuthRequiredError(AGENT, 'session/prompt', 'Authentication required', undefined, []);
    const failure = describeStartFailure({ agent: AGENT, error, stderr: [] });
    assert.equal(failure.cause, 'auth');
    assert.match(failure.advice ?? '', /needs you to sign in/);
    assert.deepEqual(failure.actions, ['signIn', 'showLog']);
  });

  it('auth: stderr that mentions a login, an API key or a 401', () => {
    for (const line of [
      'Invalid API key · Please run /login',
      'Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      'You are not logged in. Run `gemini` and choose a sign-in method.',
      'OPENAI_API_KEY is not set',
    ]) {
      const failure = describeStartFailure({ agent: AGENT, error: claudeExited(), stderr: [line] });
      assert.equal(failure.cause, 'auth', line);
      assert.deepEqual(failure.agentWords, [line]);
      assert.equal(failure.actions[0], 'signIn');
    }
  });

  it('network: ECONNREFUSED, ENOTFOUND, ETIMEDOUT, fetch failed, proxy', () => {
    for (const line of [
      'Error: connect ECONNREFUSED 127.0.0.1:9',
      'getaddrinfo ENOTFOUND api.anthropic.com',
      'Error: connect ETIMEDOUT 160.79.104.10:443',
      'TypeError: fetch failed',
      'Error: tunneling socket could not be established, cause=socket hang up (proxy)',
    ]) {
      const failure = describeStartFailure({ agent: AGENT, error: claudeExited(), stderr: [line] });
      assert.equal(failure.cause, 'network', line);
      assert.match(failure.advice ?? '', /network connection, or the proxy/);
      assert.deepEqual(failure.actions, ['restart', 'showLog', 'openSettings']);
    }
  });

  it('node too old: a SyntaxError, “requires Node”, an unsupported engine: says which Node and where to choose another', () => {
    for (const line of [
      "SyntaxError: Unexpected token '?'",
      'claude-agent-acp requires Node.js 18 or newer',
      'npm WARN EBADENGINE Unsupported engine { required: { node: ">=20" }, current: { node: "v16.20.2" } }',
    ]) {
      const failure = describeStartFailure({
        agent: AGENT,
        error: new AgentStartError(AGENT, `${AGENT} exited while starting (exit code 1).`, [line]),
        stderr: [line],
        command: 'npx',
      });
      assert.equal(failure.cause, 'node', line);
      assert.match(failure.advice ?? '', /newer Node\.js.*`node` found on the PATH of `npx`.*extension host runs Node \d+.*acpWorkspace\.agents/);
      assert.equal(failure.actions[0], 'openSettings');
    }
  });

  it('command not found (ENOENT): install it or set its path', () => {
    const message = describeSpawnError({ name: AGENT, command: 'npx', args: [], env: {} }, Object.assign(new Error('spawn npx ENOENT'), { code: 'ENOENT' }));
    const failure = describeStartFailure({ agent: AGENT, error: new AgentStartError(AGENT, message), stderr: [], command: 'npx' });
    assert.equal(failure.cause, 'notFound');
    assert.match(failure.advice ?? '', /`npx` was not found\. Install/);
    assert.deepEqual(failure.actions, ['openSettings', 'showLog']);
  });

  it('an agent refused before it started (bubblewrap missing): the refusal and its fix, never “wrote nothing to stderr”', async () => {
    const agent = new AgentProcess({
      command: { name: 'Confined Agent', command: process.execPath, args: ['-e', ''], env: {} },
      cwd: process.cwd(),
      clientInfo: { name: 'test', version: '0' },
      restartPolicy: false,
      confinement: () =>
        Promise.reject(
          new ConfinementUnavailableError('bwrap (bubblewrap) was not found on the PATH.', 'Install bubblewrap, or set acpWorkspace.sandbox to "off".'),
        ),
    });
    const error = await agent.start().then(
      () => assert.fail('it started'),
      (e: unknown) => e,
    );
    assert.equal(agent.pid, undefined, 'nothing spawned');
    const failure = describeStartFailure({ agent: 'Confined Agent', error, stderr: [] });
    assert.match(failure.summary, /was not started: .*bwrap .*Install bubblewrap/);
    const text = startFailureText(failure);
    assert.doesNotMatch(text, /wrote nothing to stderr/, text);
    // The same for a program that could not be run at all.
    const missing = new AgentProcess({
      command: { name: 'Missing Agent', command: '/nonexistent/agent-program', args: [], env: {} },
      cwd: process.cwd(),
      clientInfo: { name: 'test', version: '0' },
      restartPolicy: false,
    });
    const notFound = await missing.start().then(
      () => assert.fail('it started'),
      (e: unknown) => e,
    );
    assert.doesNotMatch(startFailureText(describeStartFailure({ agent: 'Missing Agent', error: notFound, stderr: [] })), /wrote nothing to stderr/);
    await agent.dispose();
    await missing.dispose();
  });

  it('a write refused at start by a read-only file system (a confined opencode with XDG_DATA_HOME elsewhere): which path, and the setting that opens it', () => {
    // What opencode 1.x (Bun) prints, and what a shell and Node print.
    for (const [line, where] of [
      ["EROFS: read-only file system, mkdir '/data/u/share/opencode'", '/data/u/share/opencode'],
      ["Error: EROFS: read-only file system, open '/home/u/.gemini/settings.json'", '/home/u/.gemini/settings.json'],
      ["mkdir: cannot create directory '/home/u/.cache/x': Read-only file system", '/home/u/.cache/x'],
      ['touch: /srv/state/lock: Read-only file system', '/srv/state/lock'],
    ] as const) {
      const failure = describeStartFailure({ agent: 'opencode', error: new Error('opencode exited while starting (exit code 1).'), stderr: [line] });
      assert.equal(failure.cause, 'readOnly', line);
      assert.ok(failure.advice?.includes(`could not write ${where}:`), `${line} → ${failure.advice}`);
      assert.match(failure.advice ?? '', /acpWorkspace\.sandbox confines.*writablePaths of its entry in acpWorkspace\.agents.*restart opencode/);
      assert.deepEqual(failure.actions, ['openSettings', 'showLog', 'restart']);
    }
    const unnamed = describeStartFailure({ agent: 'opencode', error: new Error('EROFS'), stderr: [] });
    assert.equal(unnamed.cause, 'readOnly');
    assert.match(unnamed.advice ?? '', /could not write a file it needs.*writablePaths/);
  });

  it('otherwise: the stderr tail (the last few lines) and Show Log', () => {
    const stderr = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    const failure = describeStartFailure({ agent: AGENT, error: new ConnectionClosedError(AGENT, 'session/new', 'Claude Code exited (exit code 2).'), stderr });
    assert.equal(failure.cause, 'unknown');
    assert.deepEqual(failure.agentWords, stderr.slice(-SHOWN_LINES));
    assert.equal(failure.advice, undefined);
    assert.equal(failure.actions[0], 'showLog');
    assert.match(
      startFailureText(failure),
      /^session\/new to Claude Code failed: Claude Code exited \(exit code 2\)\. Claude Code said: line 5 ⏎ .* ⏎ line 10$/,
    );
  });

  it('shows the error’s data as bounded text, secrets redacted, when the message does not carry it', () => {
    const data = { reason: 'upstream said no', token: 'tok_abcdefghijklmnop', blob: 'x'.repeat(5000) };
    const error = new AgentRequestError(AGENT, 'session/new', -32603, 'Internal error', data);
    const failure = describeStartFailure({ agent: AGENT, error, stderr: [] });
    const shown = failure.agentWords.at(-1) ?? '';
    assert.match(shown, /upstream said no/);
    assert.doesNotMatch(shown, /tok_abcdefghijklmnop/);
    assert.ok(shown.length <= 601, `bounded: ${shown.length}`);
  });
});

describe('describeStartFailure for an agent that runs elsewhere (a remote entry)', () => {
  const REMOTE = 'Served Agent';
  const refused =
    'Served Agent refused the credentials for the WebSocket connection to ws://127.0.0.1:9000 (HTTP 401: Unauthorized). Set the token with "ACP: Set Remote Agent Token…".';

  it('a token its server refused (a WebSocket 401): Set Token…, not Sign In', () => {
    const error = new AgentStartError(REMOTE, `${refused} Once the token is set, start ${REMOTE} again.`, [], { credentialsRefused: true });
    const failure = describeStartFailure({ agent: REMOTE, error, stderr: [] });
    assert.equal(failure.cause, 'auth');
    assert.deepEqual(failure.actions, ['setToken', 'showLog']);
    assert.match(failure.advice ?? '', /refused the token: set it with Set Token…/);
    assert.doesNotMatch(failure.advice ?? '', /sign in|stderr/i);
    // Told by the caller (the agent's entry is remote) rather than by the error.
    assert.deepEqual(describeStartFailure({ agent: REMOTE, error: new Error(refused), stderr: [], remote: true }).actions, ['setToken', 'showLog']);
  });

  it("the agent's own error answer (an HTTP 502 of its server, say): no hint about stderr or this machine's programs", () => {
    const error = new AgentRequestError(
      REMOTE,
      'session/prompt',
      -32603,
      'Served Agent answered HTTP 502 for session/prompt at http://127.0.0.1:2468: Stream Error: stream error: failed writing to agent stdin: Broken pipe (os error 32)',
    );
    const failure = describeStartFailure({ agent: REMOTE, error, stderr: [], remote: true });
    assert.equal(failure.advice, undefined);
    assert.ok(!failure.actions.includes('signIn') && !failure.actions.includes('setToken'), failure.actions.join());
    const unreachable = new AgentStartError(
      REMOTE,
      'Served Agent could not be reached at ws://127.0.0.1:9000: ECONNREFUSED — the connection was refused (is the server running?).',
      [],
      { credentialsRefused: false },
    );
    const network = describeStartFailure({ agent: REMOTE, error: unreachable, stderr: [] });
    assert.equal(network.cause, 'network');
    assert.match(network.advice ?? '', /its server runs and that the address in its entry/);
    assert.doesNotMatch(network.advice ?? '', /HTTPS_PROXY|stderr/);
  });

  it('the agent asking to authenticate itself (ACP auth_required) is still its own sign-in', () => {
    const error = new AuthRequiredError(REMOTE, 'session/new', 'Authentication required', undefined, []);
    assert.deepEqual(describeStartFailure({ agent: REMOTE, error, stderr: [], remote: true }).actions, ['signIn', 'showLog']);
  });
});

describe('StderrTail', () => {
  it('keeps the last lines, bounded by count and by characters; blank lines are not kept', () => {
    const tail = new StderrTail();
    for (let i = 0; i < 100; i++) tail.push(`line ${i}`);
    tail.push('   ');
    assert.equal(tail.lines().length, TAIL_LINES);
    assert.equal(tail.lines().at(-1), 'line 99');
    for (let i = 0; i < 30; i++) tail.push('y'.repeat(10_000));
    assert.ok(tail.lines().join('').length <= TAIL_CHARS, 'characters bounded');
    assert.ok(tail.lines().every((line) => line.length <= 501));
    tail.clear();
    assert.deepEqual(tail.lines(), []);
  });

  it('never keeps what looks like a key, token or password', () => {
    const tail = new StderrTail();
    const secrets = [
      'using ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx',
      'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345',
      'proxy https://alice:hunter2secret@proxy.example.com:8080',
      '{"api_key": "AbC123456789xyz"}',
      'github token ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'password=correcthorsebattery',
      'AWS AKIAABCDEFGHIJKLMNOP',
    ];
    for (const line of secrets) tail.push(line);
    const kept = tail.lines().join('\n');
    for (const secret of [
      'sk-ant-api03',
      'abcdefghijklmnopqrstuvwxyz012345',
      'hunter2secret',
      'AbC123456789xyz',
      'ghp_abc',
      'correcthorsebattery',
      'AKIAABCDEFGHIJKLMNOP',
    ]) {
      assert.ok(!kept.includes(secret), `${secret} redacted in:\n${kept}`);
    }
    assert.match(kept, /ANTHROPIC_API_KEY=\[redacted\]/);
    assert.match(kept, /proxy\.example\.com:8080/, 'the rest of the line stays');
  });

  it('leaves ordinary lines alone', () => {
    for (const line of ['Error: connect ECONNREFUSED 127.0.0.1:9', 'Invalid API key · Please run /login', 'SyntaxError: Unexpected token']) {
      assert.equal(redactSecrets(line), line);
    }
  });
});
