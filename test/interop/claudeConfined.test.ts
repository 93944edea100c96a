/**
 * claude-agent-acp (Claude Code over ACP) confined by bubblewrap the way the extension starts a confined agent
 * (`AgentProcessOptions.confinement` with the policy `buildPolicy` makes), run offline against the scripted model
 * server as `node <package>/dist/index.js`:
 * - `writes`: it may write only in the session's folders and its own state directory (its HOME here); its Write
 *   tool and its shell outside them fail and nothing appears there, the same inside works, and its own session
 *   storage keeps working (list, load and resume after a restart under confinement). The walls hold against its
 *   own tools: its Write tool cannot change a repository's `.git/config` nor make `.vscode/tasks.json`, its shell
 *   cannot `git init` a folder that is not a repository nor reach a host process (`/proc/<pid>/root`, `nsenter`,
 *   remounting `/`, SIGSTOP) — git outside then runs nothing it planted; a daemon its shell starts with `setsid`
 *   ends when it is stopped; nothing is left in the folders once it is gone.
 * - `strict`: it starts at all (its package's `package.json` and `node_modules` are readable) and works inside.
 * Linux only (bubblewrap); the test setup installs it.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../src/acp/connection';
import { findConfiner } from '../../src/process/confinement/find';
import type { ConfinementPolicy } from '../../src/process/confinement/types';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import type { AgentSession } from '../../src/sessions/routing/agentSession';
import { buildPolicy } from '../../src/sessions/agents/confinementPolicy';
import type { SessionController } from '../../src/sessions/turns/sessionController';
import { reopenSession, startSession } from '../../src/sessions/routing/sessionLifecycle';
import type { ViewEntry } from '../../src/shared/chatModel';
import { waitFor } from '../helpers/referenceAgent';
import { claudeAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { InteropClient, within } from './harness';
import { ModelServer } from './modelServer';
import { git, withMarker } from '../helpers/gitProcesses';

const TURN_MS = 60_000;
/** git outside the sandbox as the user's (or VS Code's git extension) runs it. */
/** The policy the extension builds for this agent and these folders (its HOME is its state folder here). */
function policyFor(mode: ConfinementPolicy['mode'], scratch: Scratch, agent: InteropAgent): ConfinementPolicy {
  return buildPolicy({
    mode,
    folders: [scratch.app, scratch.lib, scratch.docs],
    statePaths: [scratch.home],
    command: agent.command,
    home: scratch.home,
    env: agent.env,
  });
}

/** A chat's turns against the scripted model server, and what the model was told a tool did. */
function turns(server: ModelServer, chat: () => SessionController) {
  return {
    async turn(text: string): Promise<ViewEntry[]> {
      const before = chat().thread.length;
      await within(TURN_MS, `the turn "${text}"`, chat().prompt([{ type: 'text', text }], [{ type: 'text', text }]));
      const entries = chat().thread.snapshot().entries.slice(before);
      assert.equal(entries.at(-1)?.kind, 'turnEnd', `the turn "${text}" ended`);
      return entries;
    },
    toolResult(prompt: string): string {
      const request = server.requests.filter((r) => r.prompt === prompt && /:result$/.test(r.scenario ?? '')).at(-1);
      assert.ok(request, `the model got a tool result for "${prompt}"`);
      const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
      const last = messages.filter((m) => m.role === 'user').at(-1);
      const results = Array.isArray(last?.content) ? (last.content as Array<{ type: string }>).filter((b) => b.type === 'tool_result') : [];
      return JSON.stringify(results);
    },
  };
}

describe('interop: claude-agent-acp confined by bubblewrap (writes)', function () {
  this.timeout(90_000);
  let scratch: Scratch;
  let server: ModelServer;
  let agent: InteropAgent;
  let client: InteropClient;
  let connection: AcpConnection;
  let session: AgentSession;
  let chat: SessionController;
  let victim: ChildProcess;
  let script: ReturnType<typeof turns>;

  before(async () => {
    scratch = makeScratch('acp-interop-confined-');
    // app is a repository; lib and docs are not.
    assert.equal(git(scratch.app, 'init', '-q', '-b', 'main'), 0);
    assert.equal(git(scratch.app, 'add', '-A'), 0);
    assert.equal(git(scratch.app, 'commit', '-q', '-m', 'first'), 0);
    server = await ModelServer.start();
    script = turns(server, () => chat);
    agent = claudeAgentAcp(scratch.home, server.url);
    const policy = policyFor('writes', scratch, agent);
    client = new InteropClient({ agent, cwd: scratch.app, confinement: async () => ({ confiner: await findConfiner(), policy }) });
    client.permissionKind = () => 'allow_once';
    // A process of the host, as the extension host is: the agent must neither reach its files nor signal it.
    victim = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
  });
  after(async () => {
    victim?.kill('SIGKILL');
    await client?.dispose();
    await server?.close();
    scratch?.cleanup();
  });
  afterEach(function () {
    const problems = server.problems;
    if (problems.length > 0 && this.currentTest?.state === 'failed') console.log(`      model server problems:\n        ${problems.join('\n        ')}`);
  });

  it('starts confined, and a session with app, lib and docs works', async () => {
    connection = await within(60_000, 'initialize', client.start());
    assert.deepEqual(client.process.confinement?.confined && client.process.confinement.mechanism, 'bubblewrap');
    session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [scratch.lib, scratch.docs])));
    chat = client.open(session);
  });

  it('its Write tool writes inside the folders', async () => {
    const file = path.join(scratch.lib, 'inside.txt');
    await script.turn(`write ${file} written inside`);
    assert.equal(fs.readFileSync(file, 'utf8'), 'written inside\n');
  });

  it('its Write tool outside the folders fails even when allowed: nothing appears there', async () => {
    const file = path.join(scratch.outside, 'escaped.txt');
    const prompt = `write ${file} must not exist`;
    await script.turn(prompt);
    assert.equal(fs.existsSync(file), false, 'nothing was written outside');
    assert.match(script.toolResult(prompt), /EROFS|read-only file system/i, 'the model was told why');
  });

  it('its shell outside the folders fails: nothing appears there', async () => {
    const file = path.join(scratch.outside, 'shell-escaped.txt');
    const prompt = `bash touch ${file}`;
    await script.turn(prompt);
    assert.equal(fs.existsSync(file), false, 'nothing was created outside');
    assert.match(script.toolResult(prompt), /Read-only file system/i);
  });

  it('its Write tool cannot set core.fsmonitor in .git/config nor make .vscode/tasks.json; git outside then runs nothing', async () => {
    const config = fs.readFileSync(path.join(scratch.app, '.git', 'config'), 'utf8');
    // Claude Code writes over a file only once it has read it.
    await script.turn(`read ${path.join(scratch.app, '.git', 'config')}`);
    const configPrompt = `write ${path.join(scratch.app, '.git', 'config')} [core] fsmonitor = touch ${scratch.outside}/fsmonitor-ran`;
    await script.turn(configPrompt);
    // Claude Code writes a temporary file and renames it over the original: the rename fails (a mount point).
    assert.match(script.toolResult(configPrompt), /EROFS|read-only file system|EBUSY/i);
    const tasksPrompt = `write ${path.join(scratch.lib, '.vscode', 'tasks.json')} {"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch ${scratch.outside}/task-ran","runOptions":{"runOn":"folderOpen"}}]}`;
    await script.turn(tasksPrompt);
    assert.match(script.toolResult(tasksPrompt), /EROFS|read-only file system/i);
    git(scratch.app, 'status');
    assert.equal(fs.readFileSync(path.join(scratch.app, '.git', 'config'), 'utf8'), config);
    assert.ok(!fs.existsSync(path.join(scratch.lib, '.vscode', 'tasks.json')));
    assert.deepEqual(
      fs.readdirSync(scratch.outside).filter((name) => name.endsWith('-ran')),
      [],
      'nothing the agent planted ran outside',
    );
  });

  it('its shell cannot git init a folder that is not a repository, nor reach a host process: /proc/<pid>/root, nsenter, remount, SIGSTOP', async () => {
    const initPrompt = `bash cd ${scratch.docs} && git init && git config core.fsmonitor "touch ${scratch.outside}/init-ran"`;
    await script.turn(initPrompt);
    assert.match(script.toolResult(initPrompt), /Read-only file system|Permission denied/i);
    const pid = victim.pid!;
    const attackPrompt = `bash grep CapEff /proc/self/status; echo x > /proc/${pid}/root${scratch.outside}/via-proc; nsenter -t ${pid} -m touch ${scratch.outside}/via-nsenter; mount -o remount,rw / ; touch ${scratch.outside}/via-remount; kill -STOP ${pid}; echo attacks-done`;
    await script.turn(attackPrompt);
    // The tool results as JSON: the tab after "CapEff:" is written \t.
    const said = script.toolResult(attackPrompt);
    assert.match(said, /CapEff:\\t0000000000000000/, said);
    assert.match(said, /attacks-done/);
    git(scratch.docs, 'status');
    assert.deepEqual(
      fs.readdirSync(scratch.outside).filter((name) => /-ran$|^via-/.test(name)),
      [],
      'nothing changed outside',
    );
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    assert.notEqual(stat[stat.lastIndexOf(')') + 2], 'T', 'the host process was not stopped');
  });

  it('a daemon its shell starts with setsid (still writing into a folder) ends when the agent is stopped', async () => {
    const log = path.join(scratch.docs, 'daemon.log');
    const marker = `acp-interop-daemon-${process.pid}`;
    // Spelled so that only the daemon's own command line holds the marker whole.
    await script.turn(`bash m=acp-interop; setsid sh -c 'while :; do date >> ${log}; sleep 0.1; done' "$m-daemon-${process.pid}" >/dev/null 2>&1 &`);
    await waitFor(() => withMarker(marker).length > 0 && fs.existsSync(log), 20_000, 'the daemon to run');
    await within(30_000, 'stop', client.process.stop());
    await waitFor(() => withMarker(marker).length === 0, 10_000, 'the daemon to end with the agent');
  });

  it('its own session storage keeps working under confinement: list, load and resume after a restart', async () => {
    const id = session.sessionId;
    connection = await within(60_000, 'restart', client.restart());
    assert.equal(client.process.confinement?.confined, true, 'still confined after the restart');
    for (let i = 0; ; i++) {
      const listed = await within(30_000, 'session/list', connection.listSessions({ cwd: scratch.app }));
      if (listed.sessions.some((s) => s.sessionId === id)) break;
      assert.ok(i < 100, 'the session is listed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    chat = client.open(await within(60_000, 'session/load', reopenSession(connection, id, session.rootSet, { mode: 'load' })));
    connection = await within(60_000, 'restart', client.restart());
    session = await within(60_000, 'session/resume', reopenSession(connection, id, session.rootSet, { mode: 'resume' }));
    chat = client.open(session);
    const entries = await script.turn('history');
    const answer = entries.filter((e) => e.kind === 'agent').at(-1);
    assert.match(
      answer?.kind === 'agent' ? answer.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '',
      /written inside/,
      'the resumed conversation remembers the earlier turns',
    );
  });

  it('once it is stopped nothing is left in the folders: no placeholder .git, .vscode, .idea or .git/commondir', async () => {
    await within(30_000, 'stop', client.process.stop());
    // Let go of once its output has closed.
    await waitFor(() => !fs.existsSync(path.join(scratch.app, '.git', 'commondir')), 10_000, 'the placeholders to go');
    for (const folder of [scratch.app, scratch.lib, scratch.docs]) {
      for (const name of ['.vscode', '.idea']) assert.ok(!fs.existsSync(path.join(folder, name)), `${name} in ${folder}`);
    }
    for (const folder of [scratch.lib, scratch.docs]) assert.ok(!fs.existsSync(path.join(folder, '.git')), `.git in ${folder}`);
  });
});

describe('interop: claude-agent-acp confined by bubblewrap (strict, started as node <package>/dist/index.js)', function () {
  this.timeout(90_000);
  let scratch: Scratch;
  let server: ModelServer;
  let client: InteropClient;
  let chat: SessionController;
  let script: ReturnType<typeof turns>;

  before(async () => {
    scratch = makeScratch('acp-interop-strict-');
    server = await ModelServer.start();
    script = turns(server, () => chat);
    const agent = claudeAgentAcp(scratch.home, server.url);
    const policy = policyFor('strict', scratch, agent);
    client = new InteropClient({ agent, cwd: scratch.app, confinement: async () => ({ confiner: await findConfiner(), policy }) });
    client.permissionKind = () => 'allow_once';
  });
  after(async () => {
    await client?.dispose();
    await server?.close();
    scratch?.cleanup();
  });

  it('starts (its package and node_modules are readable), its Write tool works inside and fails outside', async () => {
    const connection = await within(60_000, 'initialize', client.start());
    const session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [scratch.lib])));
    chat = client.open(session);
    const file = path.join(scratch.app, 'strict.txt');
    await script.turn(`write ${file} written in strict`);
    assert.equal(fs.readFileSync(file, 'utf8'), 'written in strict\n');
    const outside = path.join(scratch.outside, 'strict-escaped.txt');
    await script.turn(`write ${outside} must not exist`);
    assert.equal(fs.existsSync(outside), false);
  });
});
