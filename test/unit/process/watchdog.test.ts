import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { groupRunning } from '../../../src/process/processTree';
import { executableProblem, spawnGroup } from '../../../src/process/spawnGroup';
import { REFERENCE_AGENT_BUNDLE, tempDir, waitFor } from '../../helpers/referenceAgent';

/** out/src, where the compiled modules a fake extension host loads are. */
const OUT_SRC = path.resolve(__dirname, '..', '..', '..', 'src');

/**
 * A stand-in for the extension host, in its own process: it starts the reference agent (which ignores stdin
 * closing and SIGTERM, like codex-acp and claude-code-acp) through AgentProcess, and a long command through the
 * agent terminals, prints their pids, and waits to be killed.
 */
const FAKE_HOST = `
const { AgentProcess } = require(${JSON.stringify(path.join(OUT_SRC, 'process', 'agentProcess.js'))});
const { Terminals } = require(${JSON.stringify(path.join(OUT_SRC, 'terminal', 'terminals.js'))});
const { RootGuard } = require(${JSON.stringify(path.join(OUT_SRC, 'roots', 'rootGuard.js'))});
const [dir] = process.argv.slice(1);
(async () => {
  const agent = new AgentProcess({
    command: { name: 'Stubborn', command: process.execPath, args: [${JSON.stringify(REFERENCE_AGENT_BUNDLE)}, '--fault', 'ignore-stdin-close,ignore-sigterm'], env: {} },
    cwd: dir,
    clientInfo: { name: 'fake-host', version: '0' },
    restartPolicy: false,
  });
  await agent.start();
  const terminals = new Terminals();
  const { terminalId } = await terminals.create({ sessionId: 's', command: 'sleep', args: ['600'] }, new RootGuard([dir]), dir);
  process.stdout.write(JSON.stringify({ agent: agent.pid, terminal: terminals.get(terminalId).pid }) + '\\n');
  setInterval(() => undefined, 60_000);
})().catch((error) => { console.error(error); process.exit(1); });
`;

describe('agents and their terminals end with the extension host, however it dies', function () {
  this.timeout(60_000);
  let host: ChildProcess | undefined;
  const pids: number[] = [];
  let scratch: { dir: string; cleanup: () => void };
  beforeEach(() => (scratch = tempDir()));
  afterEach(() => {
    host?.kill('SIGKILL');
    for (const pid of pids.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    scratch.cleanup();
  });

  it('ends a stubborn agent’s process group and a running terminal command when the host is killed with SIGKILL', async () => {
    const fakeHost = spawn(process.execPath, ['-e', FAKE_HOST, scratch.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    host = fakeHost;
    const started = await new Promise<{ agent: number; terminal: number }>((resolve, reject) => {
      let out = '';
      fakeHost.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(JSON.parse(out) as { agent: number; terminal: number });
      });
      fakeHost.once('exit', (code) => reject(new Error(`the fake host exited (${code}) before starting its agent`)));
    });
    pids.push(started.agent, started.terminal);
    assert.ok(groupRunning(started.agent) && groupRunning(started.terminal), 'both run while the host lives');
    fakeHost.kill('SIGKILL');
    await waitFor(() => !groupRunning(started.agent) && !groupRunning(started.terminal), 30_000, 'the agent and the terminal command to end with their host');
  });
});

describe('spawnGroup: the watchdog', function () {
  this.timeout(30_000);

  it('leaves with the program: once it exited and its output closed, nothing of its group runs and every pipe is closed', async () => {
    const child = spawnGroup(process.execPath, ['-e', 'process.stdout.write("done")'], { cwd: undefined, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // 'close' waits for every stdio stream, the watchdog's pipe included.
    await new Promise<void>((resolve) => child.once('close', () => resolve()));
    assert.equal(output, 'done');
    await waitFor(() => !groupRunning(child.pid!), 10_000, 'the watchdog to leave');
  });

  it('stays while a process the program started still holds its output, and ends it when the host goes', async () => {
    // The program exits at once, leaving a background sleep that keeps stdout open.
    const child = spawnGroup('/bin/sh', ['-c', 'sleep 600 & echo started'], { cwd: undefined, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    assert.ok(groupRunning(child.pid!), 'the background sleep and the watchdog still run');
    // The host going away is its end of the watchdog's pipe closing.
    (child.stdio[3] as NodeJS.WritableStream & { destroy(): void }).destroy();
    await waitFor(() => !groupRunning(child.pid!), 20_000, 'the watchdog to end the group');
  });

  it('says in words why a program cannot start', () => {
    const scratch = tempDir();
    try {
      const notExecutable = path.join(scratch.dir, 'script.sh');
      fs.writeFileSync(notExecutable, 'echo hi\n', { mode: 0o644 });
      assert.equal(executableProblem(notExecutable, {}, undefined)?.code, 'EACCES');
      assert.equal(executableProblem('script.sh', { PATH: scratch.dir }, undefined)?.code, 'EACCES');
    } finally {
      scratch.cleanup();
    }
    assert.equal(executableProblem('no-such-program-acp', { PATH: '/usr/bin:/bin' }, undefined)?.code, 'ENOENT');
    assert.equal(executableProblem('sh', { PATH: '/nonexistent:/bin' }, undefined), undefined);
  });
});
