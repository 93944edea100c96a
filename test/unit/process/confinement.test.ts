import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentProcess, type AgentProcessOptions } from '../../../src/process/agentProcess';
import { Bubblewrap, bubblewrapArgs, NAMESPACE_ARGS, SUPERVISOR } from '../../../src/process/confinement/bubblewrap';
import { findConfiner } from '../../../src/process/confinement/find';
import { nodePreloads } from '../../../src/process/confinement/paths';
import { EDITOR_NAME_RULES, GIT_NAME_RULES, SEATBELT_SYSTEM_PATHS, Seatbelt, sbplString, seatbeltProfile } from '../../../src/process/confinement/seatbelt';
import {
  ConfinementUnavailableError,
  type ConfinedCommand,
  type Confinement,
  type ConfinementPolicy,
  type LaunchConfinement,
} from '../../../src/process/confinement/types';
import { groupRunning } from '../../../src/process/processTree';
import { RootGuard } from '../../../src/roots/rootGuard';
import { Terminals } from '../../../src/terminal/terminals';
import * as acp from '../../../src/acp/schema';
import { recordingLogger } from '../../helpers/memoryPeer';
import { REFERENCE_AGENT_BUNDLE, referenceAgentCommand, waitFor } from '../../helpers/referenceAgent';
import { v1 } from '../../helpers/v1Connection';

const NODE = process.execPath;
/** The environment for exact argument lists: without NODE_OPTIONS, whose preloads strict mode would add. */
const PLAIN_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS'));
const linux = process.platform === 'linux';
const clientInfo = { name: 'acp-workspace-tests', version: '0.0.0' };

/** Real temporary folders (os.tmpdir() may be a symlink). */
function scratch(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Runs a confined command to its end: exit code and output. */
function run(command: ConfinedCommand, cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command.file, [...command.args], { cwd, env: command.env, encoding: 'utf8', timeout: 15_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writes(writable: string[], extra: Partial<ConfinementPolicy> = {}): ConfinementPolicy {
  return { mode: 'writes', writable, readable: [], ...extra };
}

function strict(writable: string[], readable: string[], extra: Partial<ConfinementPolicy> = {}): ConfinementPolicy {
  return { mode: 'strict', writable, readable, ...extra };
}

describe('confinement: bubblewrap (real bwrap)', function () {
  this.timeout(30_000);
  const bwrap = new Bubblewrap();
  const cleanup: string[] = [];
  const commands: ConfinedCommand[] = [];
  let inside: string;
  let outside: string;

  before(function () {
    if (!linux) this.skip(); // bubblewrap is Linux's; CI installs it (scripts/vscode-web/install.mjs)
  });
  beforeEach(() => {
    inside = scratch('acp-confine-in-');
    outside = scratch('acp-confine-out-');
    cleanup.push(inside, outside);
  });
  afterEach(() => {
    for (const command of commands.splice(0)) command.dispose();
    for (const dir of cleanup.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  function wrap(script: string, policy: ConfinementPolicy, cwd = inside): ConfinedCommand {
    const command = bwrap.wrap('/bin/sh', ['-c', script], process.env, cwd, policy);
    commands.push(command);
    return command;
  }

  it('writes: writing inside a writable folder works; outside, in $HOME and in the host /tmp fails with EROFS; $TMPDIR is private and writable', () => {
    const home = path.join(os.homedir(), `.acp-confine-probe-${process.pid}`);
    const hostTmp = path.join('/tmp', `acp-confine-probe-${process.pid}`);
    const command = wrap(
      [
        'echo in > inside.txt && echo inside-ok',
        `echo out > '${outside}/outside.txt' || echo outside-refused`,
        `echo home > '${home}' || echo home-refused`,
        `echo tmp > '${hostTmp}' || echo tmp-refused`,
        'echo private > "$TMPDIR/t.txt" && echo tmpdir-ok',
        'echo "TMPDIR=$TMPDIR"',
      ].join('; '),
      writes([inside]),
    );
    const result = run(command);
    assert.equal(result.status, 0, result.stderr);
    for (const said of ['inside-ok', 'outside-refused', 'home-refused', 'tmp-refused', 'tmpdir-ok'])
      assert.ok(result.stdout.includes(said), `${said} in ${result.stdout}`);
    assert.equal((result.stderr.match(/Read-only file system/g) ?? []).length, 3, result.stderr);
    assert.equal(fs.readFileSync(path.join(inside, 'inside.txt'), 'utf8'), 'in\n');
    assert.ok(!fs.existsSync(path.join(outside, 'outside.txt')) && !fs.existsSync(home) && !fs.existsSync(hostTmp), 'nothing appeared outside');
    const tmpdir = command.env.TMPDIR!;
    assert.ok(result.stdout.includes(`TMPDIR=${tmpdir}`));
    assert.equal(fs.readFileSync(path.join(tmpdir, 't.txt'), 'utf8'), 'private\n');
    assert.notEqual(path.dirname(tmpdir), inside);
  });

  it('writes: reading outside works (writes are what is limited)', () => {
    fs.writeFileSync(path.join(outside, 'readme.txt'), 'readable');
    const result = run(wrap(`cat '${outside}/readme.txt'`, writes([inside])));
    assert.equal(result.stdout, 'readable');
  });

  it('writes: a folder and a file re-protected inside a writable root stay read-only', () => {
    fs.mkdirSync(path.join(inside, '.git', 'hooks'), { recursive: true });
    const result = run(
      wrap(
        'echo x > .git/hooks/pre-commit || echo hook-refused; echo ok > .git/HEAD && echo head-ok',
        writes([inside], { readOnly: [path.join(inside, '.git', 'hooks'), path.join(inside, 'missing')] }),
      ),
    );
    assert.ok(result.stdout.includes('hook-refused') && result.stdout.includes('head-ok'), result.stdout + result.stderr);
    assert.ok(!fs.existsSync(path.join(inside, '.git', 'hooks', 'pre-commit')));
  });

  it('paths with spaces and quotes, a missing writable folder created first, and the private TMPDIR removed on dispose', () => {
    const spaced = path.join(inside, `my "app" folder's`);
    fs.mkdirSync(spaced);
    const state = path.join(inside, 'state', '.agent-home');
    const command = wrap(`echo ok > "./a file.txt" && echo s > '${state.replace(/'/g, `'\\''`)}/s.txt' && pwd`, writes([spaced, state]), spaced);
    const result = run(command);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), spaced);
    assert.ok(fs.existsSync(path.join(spaced, 'a file.txt')) && fs.existsSync(path.join(state, 's.txt')));
    const tmpdir = command.env.TMPDIR!;
    assert.ok(fs.existsSync(tmpdir));
    command.dispose();
    assert.ok(!fs.existsSync(tmpdir), 'the private temporary folder is gone');
    command.dispose(); // idempotent
  });

  it('a missing state file (a name with an extension, like ~/.claude.json) is not made a folder; it stays closed', () => {
    const file = path.join(inside, 'home', '.agent.json');
    const command = wrap(`echo '{}' > '${file}' 2>/dev/null || echo refused`, writes([file]), inside);
    const result = run(command);
    command.dispose();
    assert.equal(fs.existsSync(file), false, 'neither a folder nor a file appeared');
    assert.match(result.stdout, /refused/);
  });

  it('strict: a Node program still loads what NODE_OPTIONS preloads from outside the policy (the user chose it for every Node process)', () => {
    const elsewhere = scratch('acp-confine-preload-');
    cleanup.push(elsewhere);
    const preload = path.join(elsewhere, 'preload.cjs');
    fs.writeFileSync(preload, 'globalThis.preloaded = true;\n');
    const env = { ...process.env, NODE_OPTIONS: `--require ${preload}` };
    const command = bwrap.wrap(NODE, ['-e', 'console.log(globalThis.preloaded === true ? "preloaded" : "not preloaded")'], env, inside, strict([inside], []));
    const result = spawnSync(command.file, command.args, { env: command.env, encoding: 'utf8' });
    command.dispose();
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'preloaded');
    assert.deepEqual(nodePreloads({ NODE_OPTIONS: `--max-old-space-size=4096 -r /a/b.cjs --require=/c.cjs --import file:///d.mjs --require relative.js` }), [
      '/a/b.cjs',
      '/c.cjs',
      '/d.mjs',
    ]);
  });

  it('strict: reading outside the policy fails, the system and the readable paths are there, node runs', () => {
    const secret = path.join(outside, 'secret.txt');
    fs.writeFileSync(secret, 'secret');
    const shared = scratch('acp-confine-ro-');
    cleanup.push(shared);
    fs.writeFileSync(path.join(shared, 'shared.txt'), 'shared');
    const policy = strict([inside], [shared, path.dirname(NODE)]);
    const result = run(
      wrap(
        [
          `cat '${secret}' || echo secret-hidden`,
          `ls '${os.homedir()}' >/dev/null 2>&1 || echo home-hidden`,
          `cat '${shared}/shared.txt'; echo`,
          `echo x > '${shared}/w.txt' || echo readable-not-writable`,
          'echo in > inside.txt && echo inside-ok',
          'touch /new 2>/dev/null || echo root-read-only',
          `'${NODE}' -e 'console.log("node " + (1 + 1))'`,
        ].join('; '),
        policy,
      ),
    );
    assert.equal(result.status, 0, result.stderr);
    for (const said of ['secret-hidden', 'home-hidden', 'shared', 'readable-not-writable', 'inside-ok', 'root-read-only', 'node 2']) {
      assert.ok(result.stdout.includes(said), `${said} in ${result.stdout}`);
    }
    assert.ok(!result.stdout.split('\n').includes('secret'), 'the secret was not read');
  });

  it('strict: the program and the cwd are reachable even when the policy does not name them', () => {
    const tools = scratch('acp-confine-tools-');
    cleanup.push(tools);
    const script = path.join(tools, 'tool with space');
    fs.writeFileSync(script, '#!/bin/sh\necho "tool ran in $(pwd)"\n', { mode: 0o755 });
    const command = bwrap.wrap(script, [], process.env, outside, strict([inside], []));
    commands.push(command);
    const result = run(command);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), `tool ran in ${outside}`);
  });

  it('the argument list: writes and strict (namespaces, no capabilities, the supervisor as PID 1)', () => {
    const policy = writes([inside]);
    const supervisor = ['--', '/bin/sh', '-c', SUPERVISOR, 'acp-workspace-sandbox', '/usr/bin/setsid'];
    assert.deepEqual(bubblewrapArgs('/bin/sh', ['-c', 'x'], PLAIN_ENV, inside, policy, '/tmp/private'), [
      '--unshare-user',
      '--unshare-pid',
      '--as-pid-1',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--bind',
      inside,
      inside,
      '--bind',
      '/tmp/private',
      '/tmp/private',
      '--chdir',
      inside,
      ...supervisor,
      '/bin/sh',
      '-c',
      'x',
    ]);
    const strictArgs = bubblewrapArgs('/bin/sh', [], PLAIN_ENV, inside, strict([inside], [outside]), '/tmp/private');
    assert.deepEqual(strictArgs.slice(0, NAMESPACE_ARGS.length), NAMESPACE_ARGS);
    assert.ok(strictArgs.join(' ').includes(`--ro-bind /usr /usr`));
    assert.ok(!strictArgs.includes('--die-with-parent') && !strictArgs.includes('--new-session'));
    assert.deepEqual(strictArgs.slice(-17), [
      '--ro-bind',
      outside,
      outside,
      '--bind',
      '/tmp/private',
      '/tmp/private',
      '--remount-ro',
      '/',
      '--chdir',
      inside,
      ...supervisor,
      '/bin/sh',
    ]);
  });
});

describe('confinement: findConfiner', function () {
  this.timeout(30_000);

  it('Linux: finds bubblewrap on the PATH and probes it', async function () {
    if (!linux) this.skip();
    const confiner = await findConfiner('linux', process.env);
    assert.equal(confiner.mechanism, 'bubblewrap');
    assert.match(confiner.description, /^bubblewrap \d/);
    assert.equal(await findConfiner('linux', process.env), confiner, 'remembered per PATH');
  });

  it('Linux without bwrap on the PATH: ConfinementUnavailableError with how to install it', async () => {
    const empty = scratch('acp-confine-path-');
    try {
      await assert.rejects(findConfiner('linux', { PATH: empty }), (error: Error) => {
        assert.ok(error instanceof ConfinementUnavailableError);
        assert.match(error.reason, /bwrap.*not found/);
        assert.match(error.fix, /apt install bubblewrap/);
        assert.match(error.fix, /acpWorkspace\.sandbox/);
        return true;
      });
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('Linux with a bwrap that cannot create a namespace: the probe reports bwrap’s words and how to enable user namespaces', async function () {
    if (!linux) this.skip();
    const fake = scratch('acp-confine-fake-');
    try {
      fs.writeFileSync(path.join(fake, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
      await assert.rejects(findConfiner('linux', { PATH: fake }), (error: Error) => {
        assert.ok(error instanceof ConfinementUnavailableError);
        assert.match(error.reason, /setting up uid map: Permission denied/);
        assert.match(error.fix, /user namespaces/);
        return true;
      });
    } finally {
      fs.rmSync(fake, { recursive: true, force: true });
    }
  });

  it('Windows and other platforms: unavailable, with the setting to turn it off', async () => {
    await assert.rejects(
      findConfiner('win32', {}),
      (error: Error) => error instanceof ConfinementUnavailableError && /Windows/.test(error.reason) && /"off"/.test(error.fix),
    );
    await assert.rejects(findConfiner('freebsd', {}), ConfinementUnavailableError);
  });
});

describe('confinement: Seatbelt profile (text only: sandbox-exec is macOS’s)', () => {
  const dir = fs.realpathSync(os.tmpdir());

  it('writes: allow default, deny writes, allow the writable paths as parameters, re-protect', () => {
    const root = fs.mkdtempSync(path.join(dir, 'acp-sb "quoted" \\ (x)\n'));
    try {
      fs.mkdirSync(path.join(root, '.git'));
      const { profile, parameters } = seatbeltProfile('/bin/sh', PLAIN_ENV, root, writes([root], { readOnly: [path.join(root, '.git')] }), '/tmp/private');
      assert.equal(
        profile,
        [
          '(version 1)',
          '(allow default)',
          '(deny file-write*)',
          '(allow file-write* (subpath (param "WRITABLE_0")) (subpath (param "WRITABLE_1")) (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$") (subpath "/dev/fd"))',
          '(deny file-write* (subpath (param "READ_ONLY_0")))',
          '(deny signal)',
          '(allow signal (target same-sandbox))',
          '',
        ].join('\n'),
      );
      assert.deepEqual(parameters, { WRITABLE_0: root, WRITABLE_1: '/tmp/private', READ_ONLY_0: path.join(root, '.git') });
      assert.ok(!profile.includes(root), 'paths never appear in the profile text');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('strict: deny reads, allow metadata, the system, the readable and writable paths', () => {
    const root = fs.mkdtempSync(path.join(dir, 'acp-sb-'));
    try {
      const { profile, parameters } = seatbeltProfile('/bin/sh', PLAIN_ENV, root, strict([root], ['/usr/lib']), '/tmp/private');
      assert.ok(profile.includes('(deny file-read*)\n(allow file-read-metadata)\n'));
      assert.ok(profile.includes(`(allow file-read* (literal "/") ${SEATBELT_SYSTEM_PATHS.map((p) => `(subpath "${p}")`).join(' ')})`));
      assert.ok(profile.includes('(allow file-read* (subpath (param "READABLE_0")))'));
      assert.ok(profile.includes('(allow file-read* (subpath (param "WRITABLE_0")) (subpath (param "WRITABLE_1")))'));
      assert.equal(parameters.READABLE_0, '/usr/lib');
      assert.equal(parameters.WRITABLE_0, root);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('the command line: sandbox-exec -p profile -D NAME=path… file args, TMPDIR private', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(dir, 'acp-sb-')));
    const command = new Seatbelt().wrap('/bin/echo', ['a b'], { PATH: '/usr/bin' }, root, writes([root]));
    try {
      assert.equal(command.file, '/usr/bin/sandbox-exec');
      assert.equal(command.args[0], '-p');
      assert.deepEqual(command.args.slice(2), ['-D', `WRITABLE_0=${root}`, '-D', `WRITABLE_1=${command.env.TMPDIR}`, '/bin/echo', 'a b']);
      assert.ok(fs.existsSync(command.env.TMPDIR!));
    } finally {
      command.dispose();
      fs.rmSync(root, { recursive: true, force: true });
    }
    assert.ok(!fs.existsSync(command.env.TMPDIR!));
  });

  it('protects the folders’ own configuration by path (existing or not: no placeholder is made) and by name anywhere in them; editor settings only without the opt-in; signals stay inside', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(dir, 'acp-sb-')));
    try {
      fs.mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
      fs.writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
      fs.writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
      const { profile, parameters } = seatbeltProfile('/bin/sh', PLAIN_ENV, root, writes([root], { folders: [root] }), '/tmp/private');
      const readOnly = Object.entries(parameters)
        .filter(([key]) => key.startsWith('READ_ONLY_'))
        .map(([, value]) => value);
      for (const name of ['.git/config', '.git/hooks', '.git/info', '.git/commondir', '.vscode', '.idea'])
        assert.ok(readOnly.includes(path.join(root, name)), `${name} in ${readOnly.join(', ')}`);
      assert.equal(parameters.FOLDER_0, root);
      const names = [...GIT_NAME_RULES, ...EDITOR_NAME_RULES].map((rule) => `(regex #"${rule}")`).join(' ');
      assert.ok(profile.includes(`(deny file-write* (require-all (require-any (subpath (param "FOLDER_0"))) (require-any ${names})))`), profile);
      assert.ok(profile.includes('(regex #"/\\.git$")'), 'a .git entry itself: no repository made or swapped anywhere in the folder');
      assert.ok(profile.endsWith('(deny signal)\n(allow signal (target same-sandbox))\n'));
      assert.deepEqual(fs.readdirSync(root), ['.git'], 'no placeholder made for Seatbelt');
      const opted = seatbeltProfile('/bin/sh', PLAIN_ENV, root, writes([root], { folders: [root], editorSettings: true }), '/tmp/private');
      assert.ok(!opted.profile.includes('vscode') && !Object.values(opted.parameters).includes(path.join(root, '.vscode')));
      assert.ok(opted.profile.includes(GIT_NAME_RULES[0]!));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('SBPL string literals escape backslash and double quote', () => {
    assert.equal(sbplString('/a "b" \\c'), '"/a \\"b\\" \\\\c"');
  });
});

describe('confinement: a confined agent and its terminals (reference agent, real bwrap)', function () {
  this.timeout(60_000);
  let inside: string;
  let outside: string;
  const started: AgentProcess[] = [];
  const terminalSets: Terminals[] = [];

  before(function () {
    if (!linux) this.skip();
  });
  beforeEach(() => {
    inside = scratch('acp-confine-agent-in-');
    outside = scratch('acp-confine-agent-out-');
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((agent) => agent.dispose()));
    await Promise.all(terminalSets.splice(0).map((terminals) => terminals.dispose()));
    fs.rmSync(inside, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  function agent(
    confinement: () => Promise<LaunchConfinement>,
    logger = recordingLogger(),
    registerHandlers?: AgentProcessOptions['registerHandlers'],
  ): AgentProcess {
    const process = new AgentProcess({
      command: referenceAgentCommand(),
      cwd: inside,
      logger,
      clientInfo,
      stopGraceMs: 1000,
      restartPolicy: false,
      confinement,
      registerHandlers,
    });
    started.push(process);
    return process;
  }

  async function answer(process: AgentProcess, text: string): Promise<string> {
    const connection = v1(await process.start());
    const updates: acp.SessionUpdate[] = [];
    connection.onNotification(acp.SessionUpdateNotification, (n) => updates.push(n.update));
    const { sessionId } = await connection.newSession({ cwd: inside, mcpServers: [] });
    await connection.prompt({ sessionId, prompt: [{ type: 'text', text }] });
    return JSON.stringify(updates);
  }

  for (const mode of ['writes', 'strict'] as const) {
    it(`${mode}: initialize works; the agent’s own write inside works and outside fails with EROFS`, async () => {
      const confiner = await findConfiner();
      const policy: ConfinementPolicy = { mode, writable: [inside], readable: [path.dirname(NODE), path.dirname(REFERENCE_AGENT_BUNDLE)] };
      const logger = recordingLogger();
      const handed: (Confinement | undefined)[] = [];
      const process = agent(
        () => Promise.resolve({ confiner, policy }),
        logger,
        (_connection, confinement) => handed.push(confinement),
      );
      const said = await answer(process, `write-direct ${path.join(inside, 'in.txt')} inside\nwrite-direct ${path.join(outside, 'out.txt')} outside`);
      assert.equal(fs.readFileSync(path.join(inside, 'in.txt'), 'utf8').trim(), 'inside');
      assert.ok(!fs.existsSync(path.join(outside, 'out.txt')), 'nothing written outside');
      assert.match(said, mode === 'writes' ? /EROFS/ : /EROFS|ENOENT/, said);
      const confinement = process.confinement;
      assert.ok(confinement?.confined);
      assert.equal(confinement.mechanism, 'bubblewrap');
      assert.equal(confinement.policy, policy);
      assert.deepEqual(handed, [confinement], 'registerHandlers got how the agent was started');
      assert.ok(
        logger.lines.some(({ message }) => message.includes(`Starting Reference Agent confined by bubblewrap (${mode}): writable ${inside}`)),
        logger.lines.map((l) => l.message).join('\n'),
      );
    });
  }

  it('a confinement that cannot be set up fails the launch with why and how, and spawns nothing', async () => {
    const logger = recordingLogger();
    let asked = 0;
    const failing = agent(() => {
      asked++;
      return findConfiner('linux', { PATH: '/nonexistent' }).then((confiner) => ({ confiner, policy: writes([inside]) }));
    }, logger);
    const states: string[] = [];
    failing.onDidChangeState((change) => states.push(change.state));
    await assert.rejects(failing.start(), (error: Error) =>
      /was not started: it is to run confined .*bubblewrap \(bwrap\).*not found.*apt install bubblewrap/s.test(error.message),
    );
    assert.equal(asked, 1);
    assert.equal(failing.pid, undefined, 'nothing spawned');
    assert.equal(failing.state, 'failed');
    assert.deepEqual(states, ['starting', 'failed']);
    assert.ok(!logger.lines.some(({ message }) => message.startsWith('Starting')), 'no start logged');
  });

  it('unconfined by choice: confinement says why', async () => {
    const process = agent(() => Promise.resolve({ unconfined: 'unconfined-once' }));
    await process.start();
    assert.deepEqual(process.confinement, { confined: false, why: 'unconfined-once' });
  });

  it('a confined terminal command cannot write outside, and kill ends its whole group', async () => {
    const confiner = await findConfiner();
    const policy: ConfinementPolicy = { mode: 'writes', writable: [inside], readable: [] };
    const terminals = new Terminals({ killGraceMs: 300, confine: (file, args, env, cwd) => confiner.wrap(file, args, env, cwd, policy) });
    terminalSets.push(terminals);
    const guard = new RootGuard([inside]);
    const ref = (terminalId: string) => ({ sessionId: 's1', terminalId });
    const create = (command: string) =>
      terminals.create({ sessionId: 's1', command, args: [], env: [], cwd: undefined, outputByteLimit: undefined }, guard, inside);

    const { terminalId } = await create(`echo ok > inside.txt && echo inside-ok; echo x > '${outside}/x.txt' || echo outside-refused; echo "$TMPDIR"`);
    const exit = await terminals.waitForExit(ref(terminalId));
    assert.deepEqual(exit, { exitCode: 0, signal: null });
    const output = terminals.output(ref(terminalId)).output;
    for (const said of ['inside-ok', 'Read-only file system', 'outside-refused']) assert.ok(output.includes(said), `${said} in ${output}`);
    assert.ok(fs.existsSync(path.join(inside, 'inside.txt')) && !fs.existsSync(path.join(outside, 'x.txt')));
    const tmpdir = output.trim().split('\n').pop()!;
    await waitFor(() => !fs.existsSync(tmpdir), 5000, 'the terminal’s private TMPDIR to be removed');

    // Its pid inside the sandbox means nothing outside (a PID namespace of its own): found by its command line.
    const marker = `acp-confine-grandchild-${process.pid}`;
    const grandchild = `'${NODE}' -e 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("ready")' ${marker}`;
    const running = await create(`${grandchild} & wait`);
    await waitFor(() => terminals.output(ref(running.terminalId)).output.includes('ready'), 5000, 'the grandchild to run');
    const leader = terminals.get(running.terminalId)!.pid!;
    assert.ok(groupRunning(leader) && withMarker(marker).length > 0);
    await terminals.kill(ref(running.terminalId));
    await waitFor(() => !groupRunning(leader) && withMarker(marker).length === 0, 5000, 'the confined group to be gone');
  });

  it('a confined agent (stubborn) and a confined terminal command end with the host when it is killed', async () => {
    const out = path.resolve(__dirname, '..', '..', '..', 'src');
    const fakeHost = `
const { AgentProcess } = require(${JSON.stringify(path.join(out, 'process', 'agentProcess.js'))});
const { findConfiner } = require(${JSON.stringify(path.join(out, 'process', 'confinement', 'find.js'))});
const { Terminals } = require(${JSON.stringify(path.join(out, 'terminal', 'terminals.js'))});
const { RootGuard } = require(${JSON.stringify(path.join(out, 'roots', 'rootGuard.js'))});
const dir = process.argv[1];
(async () => {
  const confiner = await findConfiner();
  const policy = { mode: 'writes', writable: [dir], readable: [], folders: [dir] };
  const agent = new AgentProcess({
    command: { name: 'Stubborn', command: process.execPath, args: [${JSON.stringify(REFERENCE_AGENT_BUNDLE)}, '--fault', 'ignore-stdin-close,ignore-sigterm'], env: {} },
    cwd: dir, clientInfo: { name: 'fake-host', version: '0' }, restartPolicy: false,
    confinement: async () => ({ confiner, policy }),
  });
  await agent.start();
  const terminals = new Terminals({ confine: (file, args, env, cwd) => confiner.wrap(file, args, env, cwd, policy) });
  const { terminalId } = await terminals.create({ sessionId: 's', command: 'sleep', args: ['600'] }, new RootGuard([dir]), dir);
  process.stdout.write(JSON.stringify({ agent: agent.pid, terminal: terminals.get(terminalId).pid }) + '\\n');
  setInterval(() => undefined, 60_000);
})().catch((error) => { console.error(error); process.exit(1); });
`;
    const host: ChildProcess = spawn(NODE, ['-e', fakeHost, inside], { stdio: ['ignore', 'pipe', 'inherit'] });
    let pids: { agent: number; terminal: number } | undefined;
    try {
      pids = await new Promise<{ agent: number; terminal: number }>((resolve, reject) => {
        let text = '';
        host.stdout!.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\n')) resolve(JSON.parse(text) as { agent: number; terminal: number });
        });
        host.once('exit', (code) => reject(new Error(`the fake host exited (${code}) before starting its agent`)));
      });
      assert.ok(groupRunning(pids.agent) && groupRunning(pids.terminal));
      const hostPid = host.pid!;
      const leftovers = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`acp-workspace-sandbox-${hostPid}-`));
      assert.equal(leftovers().length, 2, 'a private TMPDIR each');
      assert.deepEqual(fs.readdirSync(inside).sort(), ['.git', '.idea', '.vscode'], 'placeholders hold what the folder must not get');
      host.kill('SIGKILL');
      const { agent: a, terminal: t } = pids;
      await waitFor(() => !groupRunning(a) && !groupRunning(t), 30_000, 'the confined agent and terminal to end with their host');
      // A killed host cannot remove them; the next process that confines something does.
      if (host.exitCode === null && host.signalCode === null) await new Promise((resolve) => host.once('exit', resolve));
      const sweeper = spawnSync(NODE, [
        '-e',
        `require(${JSON.stringify(path.resolve(__dirname, '..', '..', '..', 'src', 'process', 'confinement', 'paths.js'))}).removePrivateTemp(require(${JSON.stringify(path.resolve(__dirname, '..', '..', '..', 'src', 'process', 'confinement', 'paths.js'))}).makePrivateTemp())`,
      ]);
      assert.equal(sweeper.status, 0, String(sweeper.stderr));
      assert.deepEqual(leftovers(), [], 'the dead host’s folders were swept');
      assert.deepEqual(fs.readdirSync(inside), [], 'and the placeholders it made');
    } finally {
      host.kill('SIGKILL');
      for (const pid of pids ? [pids.agent, pids.terminal] : []) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });
});

/** Processes (not zombies) whose command line holds `marker`. */
function withMarker(marker: string): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) return [];
      return /^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${entry}/stat`, 'utf8')) ? [] : [Number(entry)];
    } catch {
      return [];
    }
  });
}
