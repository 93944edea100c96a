import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentProcess, type AgentProcessOptions, type AgentStateChange } from '../../../src/process/agentProcess';
import { describeExit } from '../../../src/process/exitReasons';
import { groupRunning } from '../../../src/process/processTree';
import type { AcpConnection } from '../../../src/acp/connection';
import { AgentRequestError, ConnectionClosedError } from '../../../src/acp/errors';
import { AgentStartError } from '../../../src/process/startFailure';
import { FAIL_NEW_SESSION_DETAILS, FAIL_NEW_SESSION_STDERR } from '../../fixtures/referenceAgent/faults';
import * as acp from '../../../src/acp/schema';
import { conformance } from '../../helpers/conformance';
import { recordingLogger, type RecordingLogger } from '../../helpers/memoryPeer';
import { isAlive, referenceAgentCommand, tempDir, waitFor } from '../../helpers/referenceAgent';
import { v1 } from '../../helpers/v1Connection';

const clientInfo = { name: 'acp-workspace-tests', version: '0.0.0' };

describe('AgentProcess (against the reference agent)', function () {
  this.timeout(30000);
  const started: AgentProcess[] = [];
  let logger: RecordingLogger;
  let workspace: { dir: string; cleanup: () => void };

  beforeEach(() => {
    logger = recordingLogger();
    workspace = tempDir();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((agent) => agent.dispose()));
    workspace.cleanup();
  });

  function agent(args: string[] = [], overrides: Partial<AgentProcessOptions> = {}): AgentProcess {
    const process = new AgentProcess({
      command: referenceAgentCommand(args),
      cwd: workspace.dir,
      logger,
      clientInfo,
      tap: conformance.newTap(),
      stopGraceMs: 1000,
      ...overrides,
    });
    started.push(process);
    return process;
  }

  function collectUpdates(connection: AcpConnection): acp.SessionUpdate[] {
    const updates: acp.SessionUpdate[] = [];
    connection.onNotification(acp.SessionUpdateNotification, (n) => updates.push(n.update));
    return updates;
  }

  it('spawns, initializes and runs a session; stop ends the process', async () => {
    const process = agent();
    const states: string[] = [];
    process.onDidChangeState((change) => states.push(change.state));
    const connection = v1(await process.start());
    assert.equal(process.state, 'running');
    assert.equal(connection.caps.agentInfo?.name, 'reference-agent');
    assert.equal(connection.caps.sessions.additionalDirectories, true);
    const updates = collectUpdates(connection);
    const { sessionId } = await connection.newSession({ cwd: workspace.dir, mcpServers: [] });
    const result = await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello there' }] });
    assert.equal(result.stopReason, 'end_turn');
    const text = updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
    assert.equal(text, 'Echo: hello there');
    const pid = process.pid!;
    await process.stop();
    assert.equal(process.state, 'stopped');
    assert.equal(isAlive(pid), false);
    assert.deepEqual(states, ['starting', 'running', 'stopping', 'stopped']);
  });

  it('merges the agent env over the parent environment', async () => {
    const process = agent([], {
      command: referenceAgentCommand([], { ACP_REF_NAME: 'renamed-by-env' }),
      parentEnv: { ...globalThis.process.env, ACP_REF_NAME: 'parent' },
    });
    const connection = v1(await process.start());
    assert.equal(connection.caps.agentInfo?.name, 'renamed-by-env');
  });

  it('removes the inherited variables the settings set to null', async () => {
    const command = { ...referenceAgentCommand([]), unsetEnv: ['ACP_REF_NAME'] };
    const process = agent([], { command, parentEnv: { ...globalThis.process.env, ACP_REF_NAME: 'inherited' } });
    const connection = v1(await process.start());
    assert.notEqual(connection.caps.agentInfo?.name, 'inherited');
  });

  it('kills the whole process group, including helpers, even when the agent ignores stdin closing', async () => {
    const process = agent(['--fault', 'spawn-child,ignore-stdin-close']);
    await process.start();
    await waitFor(() => logger.lines.some((l) => /child-pid \d+/.test(l.message)), 5000, 'child pid on stderr');
    const childPid = Number(/child-pid (\d+)/.exec(logger.lines.find((l) => /child-pid/.test(l.message))!.message)![1]);
    const agentPid = process.pid!;
    assert.ok(isAlive(childPid) && isAlive(agentPid));
    await process.stop();
    await waitFor(() => !isAlive(childPid), 3000, 'the grandchild to be gone');
    assert.equal(isAlive(agentPid), false);
  });

  /**
   * A minimal agent (answers initialize) that starts one helper in its group. On SIGTERM the helper
   * either takes 300 ms and then writes `flushed` to a file (like Claude Code writing a session's last
   * messages on its way out) or ignores the signal.
   */
  function agentWithHelper(onSigterm: 'flush' | 'ignore'): { command: AgentProcessOptions['command']; flushed: string; ready: string } {
    const flushed = path.join(workspace.dir, 'flushed.txt');
    const ready = path.join(workspace.dir, 'ready.txt');
    const helper = `const fs = require('fs');
      process.on('SIGTERM', () => { ${onSigterm === 'flush' ? `setTimeout(() => { fs.writeFileSync(${JSON.stringify(flushed)}, 'flushed'); process.exit(0); }, 300);` : ''} });
      fs.writeFileSync(${JSON.stringify(ready)}, String(process.pid));
      setInterval(() => {}, 1 << 30);`;
    const script = path.join(workspace.dir, 'agent-with-helper.js');
    fs.writeFileSync(
      script,
      `const { spawn } = require('child_process');
      spawn(process.execPath, ['-e', ${JSON.stringify(helper)}], { stdio: 'ignore' });
      let buffer = '';
      process.stdin.on('data', (chunk) => {
        buffer += chunk;
        for (let at = buffer.indexOf('\\n'); at >= 0; at = buffer.indexOf('\\n')) {
          const message = JSON.parse(buffer.slice(0, at));
          buffer = buffer.slice(at + 1);
          if (message.method === 'initialize') {
            process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }) + '\\n');
          }
        }
      });`,
    );
    return { command: { name: 'Helper Agent', command: globalThis.process.execPath, args: [script], env: {} }, flushed, ready };
  }

  it('lets the processes an agent started finish on their way out before killing its group', async () => {
    const { command, flushed, ready } = agentWithHelper('flush');
    const process = agent([], { command, stopGraceMs: 3000 });
    await process.start();
    await waitFor(() => fs.existsSync(ready) && fs.readFileSync(ready, 'utf8') !== '', 5000, 'the helper');
    const group = process.pid!;
    await process.stop();
    assert.equal(fs.readFileSync(flushed, 'utf8'), 'flushed', 'the helper was not killed while it wrote');
    assert.equal(groupRunning(group), false, 'nothing of the group runs any more');
  });

  it('kills helpers that ignore SIGTERM once the grace period is over', async () => {
    const { command, ready } = agentWithHelper('ignore');
    const process = agent([], { command, stopGraceMs: 400 });
    await process.start();
    await waitFor(() => fs.existsSync(ready) && fs.readFileSync(ready, 'utf8') !== '', 5000, 'the helper');
    const group = process.pid!;
    const before = Date.now();
    await process.stop();
    assert.equal(groupRunning(group), false, 'the helper was killed');
    assert.ok(Date.now() - before >= 350, 'the helper had the grace period');
    assert.ok(logger.lines.some((l) => l.message === 'Processes started by Helper Agent were still running 400 ms after SIGTERM; killing them.'));
  });

  it('escalates to SIGKILL when the agent ignores SIGTERM', async () => {
    const process = agent(['--fault', 'ignore-sigterm,ignore-stdin-close'], { stopGraceMs: 300 });
    await process.start();
    const pid = process.pid!;
    const before = Date.now();
    await process.stop();
    assert.equal(isAlive(pid), false);
    assert.ok(Date.now() - before >= 250, 'waited the grace period first');
    assert.ok(logger.lines.some((l) => l.message.includes('did not exit within 300 ms of SIGTERM')));
  });

  it('fails outstanding requests with a clear error when stopped', async () => {
    const process = agent();
    const connection = v1(await process.start());
    const { sessionId } = await connection.newSession({ cwd: workspace.dir, mcpServers: [] });
    const pending = connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hang' }] });
    const failed = assert.rejects(pending, (error: Error) => {
      assert.ok(error instanceof ConnectionClosedError);
      assert.equal(error.message, 'session/prompt to Reference Agent failed: Reference Agent was stopped.');
      return true;
    });
    await new Promise((r) => setTimeout(r, 100));
    await process.stop();
    await failed;
  });

  it('reports a crash mid-turn with its exit code, keeps what was streamed, and restarts', async () => {
    const process = agent();
    const connection = v1(await process.start());
    const updates = collectUpdates(connection);
    const restarted = new Promise<AcpConnection>((resolve) => process.onDidRestart((c) => resolve(v1(c))));
    const { sessionId } = await connection.newSession({ cwd: workspace.dir, mcpServers: [] });
    await assert.rejects(connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'crash' }] }), (error: Error) => {
      assert.ok(error instanceof ConnectionClosedError);
      assert.match(error.message, /Reference Agent exited \(exit code 42\)\. Its last output: .*fault crash/);
      return true;
    });
    const chunks = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk');
    assert.equal(chunks.length, 2, 'the two chunks written before the crash were delivered');
    const next = await restarted;
    assert.notEqual(next, connection);
    assert.equal(process.state, 'running');
    await next.newSession({ cwd: workspace.dir, mcpServers: [] });
  });

  it('stops restarting after the cap and says why', async () => {
    const process = agent([], { restartPolicy: { maxRestarts: 1, windowMs: 60_000 } });
    const failed = new Promise<AgentStateChange>((resolve) => process.onDidChangeState((c) => c.state === 'failed' && resolve(c)));
    let connection = v1(await process.start());
    const crash = async (c: AcpConnection) => {
      const { sessionId } = await c.newSession({ cwd: workspace.dir, mcpServers: [] });
      await c.prompt({ sessionId, prompt: [{ type: 'text', text: 'crash' }] }).catch(() => undefined);
    };
    const restarted = new Promise<AcpConnection>((resolve) => process.onDidRestart((c) => resolve(v1(c))));
    await crash(connection);
    connection = await restarted;
    await crash(connection);
    const change = await failed;
    assert.match(change.message ?? '', /exit code 42.*It stopped 2 times within 1 minute, so it is not restarted again automatically/);
    assert.equal(process.connection, undefined);
  });

  it('explains an agent that exits during initialize, with its last stderr output', async () => {
    const process = agent(['--fault', 'exit-on-initialize']);
    await assert.rejects(process.start(), /Reference Agent exited while starting \(exit code 3\)\. Its last output: .*exit-on-initialize/);
    assert.equal(process.state, 'failed');
  });

  it('keeps the stderr of a failed start on the error and the process: bounded, secrets redacted', async () => {
    const process = agent(['--fault', 'exit-on-initialize']);
    const error = await process.start().then(
      () => assert.fail('the start failed'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof AgentStartError);
    assert.equal(error.agent, 'Reference Agent');
    assert.match(error.stderr.join('\n'), /fault exit-on-initialize: exiting with code 3/);
    assert.deepEqual(process.recentStderr, error.stderr);
  });

  it('answers a failed session/new with its error data; the stderr the agent wrote before stays on the process', async () => {
    const process = agent(['--fault', 'fail-new-session']);
    const connection = v1(await process.start());
    const error = await connection.newSession({ cwd: workspace.dir, mcpServers: [] }).then(
      () => assert.fail('session/new failed'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof AgentRequestError);
    assert.deepEqual(error.data, { details: FAIL_NEW_SESSION_DETAILS });
    await waitFor(() => process.recentStderr.length >= FAIL_NEW_SESSION_STDERR.length);
    assert.deepEqual(process.recentStderr.slice(-2), FAIL_NEW_SESSION_STDERR);
  });

  it('keeps what it reads of stderr bounded: a 20 MB line is logged cut, and the exit still quotes the last lines', async () => {
    // Writes a 20 MB line without a newline in 64 KiB pieces, then two normal lines, then exits 3.
    const script = [
      "const piece = 'x'.repeat(64 * 1024);",
      'let left = 320;',
      'const next = () => {',
      "  if (left-- > 0) { if (process.stderr.write(piece)) setImmediate(next); else process.stderr.once('drain', next); return; }",
      "  process.stderr.write('\\nnot signed in\\nrun: agent login\\n', () => process.exit(3));",
      '};',
      'next();',
    ].join('\n');
    const process = agent([], { command: { name: 'Noisy', command: globalThis.process.execPath, args: ['-e', script], env: {} } });
    await assert.rejects(
      process.start(),
      (error: Error) =>
        /Noisy exited while starting \(exit code 3\)\. Its last output: .*not signed in \| run: agent login$/.test(error.message) &&
        error.message.length < 20_000,
    );
    const stderr = logger.lines.filter((l) => l.message.startsWith('[Noisy stderr]'));
    assert.equal(stderr.length, 3);
    assert.ok(
      stderr.every((l) => l.message.length < 10_000),
      `logged lines are cut: ${stderr.map((l) => l.message.length).join(', ')}`,
    );
    assert.match(stderr[0]!.message, /… \(20,971,520 characters in all\)$/);
  });

  it('explains a command that does not exist', async () => {
    const process = agent([], { command: { name: 'Ghost', command: 'acp-workspace-no-such-agent', args: [], env: {} } });
    await assert.rejects(
      process.start(),
      /Could not start Ghost: the command "acp-workspace-no-such-agent" was not found\. Install it, or set its full path in the acpWorkspace\.agents setting\./,
    );
    assert.equal(process.state, 'failed');
  });

  it('disconnects and stops an agent that speaks another protocol version', async () => {
    const process = agent(['--protocol-version', '2']);
    await assert.rejects(process.start(), /speaks ACP protocol version 2, but ACP Workspace speaks version 1/);
    assert.equal(process.state, 'failed');
    assert.equal(process.pid, undefined, 'the process is gone');
  });

  it('gives up on an agent that does not finish initialize in time', async () => {
    // It reads its input and never answers.
    const command = { name: 'Silent Agent', command: globalThis.process.execPath, args: ['-e', 'process.stdin.resume()'], env: {} };
    const process = agent([], { command, initializeTimeoutMs: 300 });
    await assert.rejects(process.start(), /^AgentStartError: Silent Agent did not finish starting within 300 ms\.$/);
    assert.equal(process.state, 'failed');
    assert.equal(process.pid, undefined);
  });

  it('survives a malformed line, an oversize message and an unknown update in a real stream', async () => {
    const process = agent([], { maxLineBytes: 1024 * 1024 });
    const connection = v1(await process.start());
    const errors: string[] = [];
    connection.onProtocolError((e) => errors.push(e.message));
    const updates = collectUpdates(connection);
    const { sessionId } = await connection.newSession({ cwd: workspace.dir, mcpServers: [] });
    const result = await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'malformed unknown-update oversized' }] });
    assert.equal(result.stopReason, 'end_turn');
    assert.ok(
      errors.some((e) => e.startsWith('Reference Agent wrote a line that is not JSON')),
      errors.join('\n'),
    );
    assert.ok(
      errors.some((e) => e.startsWith('Reference Agent sent a message longer than 1 MiB')),
      errors.join('\n'),
    );
    const unknown = updates.find((u) => u.sessionUpdate === '$unknown');
    assert.ok(unknown && unknown.sessionUpdate === '$unknown' && unknown.tag === 'future_variant_xyz');
    assert.ok(
      updates.some((u) => u.sessionUpdate === 'agent_message_chunk'),
      'the turn went on after the faults',
    );
  });

  it('lets the agent reach the client fs through registered handlers (capabilities follow the handlers)', async () => {
    const file = path.join(workspace.dir, 'notes.txt');
    fs.writeFileSync(file, 'first line\nsecond line\n');
    const process = agent([], {
      registerHandlers: (connection) => {
        v1(connection).onRequest(acp.ReadTextFileMethod, (params) => ({ content: fs.readFileSync(params.path, 'utf8') }));
      },
    });
    const connection = v1(await process.start());
    const updates = collectUpdates(connection);
    const { sessionId } = await connection.newSession({ cwd: workspace.dir, mcpServers: [] });
    await connection.prompt({ sessionId, prompt: [{ type: 'text', text: `read ${file}` }] });
    const text = updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
    assert.match(text, /first line/);
  });
});

describe('describeExit', () => {
  it('says when, how, and quotes the last stderr lines', () => {
    assert.equal(describeExit('Codex', 1, null, true, ['a', 'b', 'c', 'd']), 'Codex exited while starting (exit code 1). Its last output: b | c | d');
    assert.equal(describeExit('Codex', null, 'SIGSEGV', false, []), 'Codex exited (stopped by signal SIGSEGV).');
    assert.equal(describeExit('Codex', 127, null, false, []), 'Codex exited (exit code 127: a command it runs was not found).');
  });
});

describe('Windows .cmd/.bat shims', () => {
  it('are launched through cmd.exe with escaped arguments (cross-spawn, as on win32)', () => {
    // cross-spawn decides per platform when its modules load: load fresh copies as on Windows.
    const realPlatform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    const cached = Object.keys(require.cache).filter((k) => /[\\/](cross-spawn|which|isexe|path-key)[\\/]/.test(k));
    try {
      Object.defineProperty(process, 'platform', { value: 'win32' });
      for (const key of cached) delete require.cache[key];
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module instance is the point
      const crossSpawn = require('cross-spawn') as {
        _parse: (c: string, a: string[], o: object) => { command: string; args: string[]; options: { windowsVerbatimArguments?: boolean } };
      };
      const parsed = crossSpawn._parse('npx', ['-y', '@agentclientprotocol/claude-agent-acp', 'a b&c'], {
        env: { PATH: 'C:\\Program Files\\nodejs', PATHEXT: '.COM;.EXE;.BAT;.CMD' },
      });
      // Node refuses to spawn .cmd/.bat files directly (CVE-2024-27980): cmd.exe must run them.
      assert.match(parsed.command, /cmd\.exe$/i);
      assert.deepEqual(parsed.args.slice(0, 3), ['/d', '/s', '/c']);
      assert.match(parsed.args[3]!, /^"npx /);
      assert.match(parsed.args[3]!, /\^"a\^ b\^&c\^"/, 'metacharacters are escaped for cmd.exe');
      assert.equal(parsed.options.windowsVerbatimArguments, true);
    } finally {
      Object.defineProperty(process, 'platform', realPlatform);
      for (const key of Object.keys(require.cache).filter((k) => /[\\/](cross-spawn|which|isexe|path-key)[\\/]/.test(k))) delete require.cache[key];
    }
  });
});
