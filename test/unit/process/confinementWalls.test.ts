/**
 * The walls of a confinement, attacked the way a hostile agent would (real bwrap, as whatever user runs the tests;
 * this machine runs them as root, which is the case that matters most):
 * - its own folders' configuration, which other programs obey without asking: a repository's `.git/config`
 *   (`core.fsmonitor`, run by the next `git status` outside, which VS Code's git extension runs by itself), its
 *   hooks, `info`, `commondir`, a `.git` where there is none, `.vscode` and `.idea`, nested repositories and
 *   linked worktrees; then the unconfined git outside is run and must run nothing the agent planted;
 * - a daemon that leaves the process group (`setsid`) and would outlive the agent, its terminal, and a stop;
 * - root's capabilities and the host's processes: writing through `/proc/<host pid>/root`, `nsenter` into the host's
 *   mount namespace, `mount -o remount,rw /`, signalling a host process.
 * Each attack must fail with nothing changed outside, and what the agent legitimately does (commit in its
 * repository, write its files) must keep working.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as acp from '../../../src/acp/schema';
import { AgentProcess } from '../../../src/process/agentProcess';
import { Bubblewrap } from '../../../src/process/confinement/bubblewrap';
import { findConfiner } from '../../../src/process/confinement/find';
import type { ConfinedCommand, ConfinementPolicy } from '../../../src/process/confinement/types';
import { killTree } from '../../../src/process/processTree';
import { spawnGroup } from '../../../src/process/spawnGroup';
import { GitCheckpointStore } from '../../../src/review/checkpointStore';
import { RootGuard } from '../../../src/roots/rootGuard';
import { Terminals } from '../../../src/terminal/terminals';
import { recordingLogger } from '../../helpers/memoryPeer';
import { REFERENCE_AGENT_BUNDLE, referenceAgentCommand, waitFor } from '../../helpers/referenceAgent';
import { v1 } from '../../helpers/v1Connection';

const linux = process.platform === 'linux';
const NODE = process.execPath;
/** git outside the sandbox as a user's would run, without this machine's own configuration getting in the way. */
const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

function scratch(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

function git(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', timeout: 15_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A repository with one commit. */
function repository(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  assert.equal(git(dir, 'init', '-q', '-b', 'main').status, 0);
  fs.writeFileSync(path.join(dir, 'README.md'), 'hello\n');
  assert.equal(git(dir, 'add', '-A').status, 0);
  assert.equal(git(dir, 'commit', '-q', '-m', 'first').status, 0);
  return dir;
}

/** Everything under `dir`, relative, sorted (to compare before and after). */
function listing(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: false }) as string[]).sort();
}

/** Processes whose command line holds `marker` (Linux /proc). */
function withMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) continue;
      if (/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue;
      found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * `setsid sh -c '<loop appending to log>' <marker>` with the marker spelled so that only the daemon's own command
 * line holds it whole (not the shell or bwrap that start it), and its output away from the command's pipes.
 */
function daemon(log: string, marker: string): string {
  const cut = marker.indexOf('-', 4);
  return `m=${marker.slice(0, cut)}; setsid sh -c 'while :; do date >> ${log}; sleep 0.05; done' "$m${marker.slice(cut)}" >/dev/null 2>&1 &`;
}

function killMarked(marker: string): void {
  for (const pid of withMarker(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

describe('confinement walls (real bwrap, attacked as a hostile agent would)', function () {
  this.timeout(60_000);
  const bwrap = new Bubblewrap();
  const cleanup: string[] = [];
  const commands: ConfinedCommand[] = [];
  let outside: string;

  before(function () {
    if (!linux) this.skip(); // bubblewrap is Linux's; CI installs it (scripts/vscode-web/install.mjs)
  });
  beforeEach(() => {
    outside = scratch('acp-walls-out-');
    cleanup.push(outside);
  });
  afterEach(() => {
    for (const command of commands.splice(0)) command.dispose();
    for (const dir of cleanup.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  function folders(mode: ConfinementPolicy['mode'], dirs: string[], extra: Partial<ConfinementPolicy> = {}): ConfinementPolicy {
    return { mode, writable: dirs, readable: [], folders: dirs, ...extra };
  }

  function wrap(script: string, policy: ConfinementPolicy, cwd: string): ConfinedCommand {
    const command = bwrap.wrap('/bin/sh', ['-c', script], process.env, cwd, policy);
    commands.push(command);
    return command;
  }

  /** Runs a confined script to its end; its private folders and placeholders are gone afterwards. */
  function run(script: string, policy: ConfinementPolicy, cwd: string): { status: number | null; stdout: string; stderr: string } {
    const command = wrap(script, policy, cwd);
    const result = spawnSync(command.file, [...command.args], { cwd, env: command.env, encoding: 'utf8', timeout: 30_000 });
    command.dispose();
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  function said(stdout: string, words: readonly string[]): void {
    const lines = stdout.split('\n');
    for (const word of words) assert.ok(lines.includes(word), `"${word}" in:\n${stdout}`);
  }

  for (const mode of ['writes', 'strict'] as const) {
    it(`${mode}: a repository's .git/config, hooks, info and commondir stay read-only and .git stays in place; the agent still commits; git outside then runs nothing it planted`, () => {
      const root = scratch('acp-walls-repo-');
      cleanup.push(root);
      repository(root);
      const config = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
      const result = run(
        [
          `git config core.fsmonitor "touch '${outside}/fsmonitor-ran'" 2>/dev/null && echo config-written || echo config-refused`,
          `printf '[core]\\n\\tfsmonitor = touch ${outside}/fsmonitor2-ran\\n' >> .git/config 2>/dev/null && echo config-appended || echo config-append-refused`,
          `printf '#!/bin/sh\\ntouch ${outside}/hook-ran\\n' > .git/hooks/pre-commit 2>/dev/null && chmod +x .git/hooks/pre-commit && echo hook-written || echo hook-refused`,
          `echo '* diff=x' > .git/info/attributes 2>/dev/null && echo info-written || echo info-refused`,
          // A gitdir of its own (a new repository further down is beyond what mounts can refuse) whose config git
          // would read instead of the real one, through commondir.
          `git init -q evil && git -C evil config core.fsmonitor "touch '${outside}/commondir-ran'" && echo "$PWD/evil/.git" > .git/commondir 2>/dev/null && echo commondir-written || echo commondir-refused`,
          // Moved away, a .git could be replaced by one of its own (put back if it could, to show the rest).
          `mv .git .git-moved 2>/dev/null && mv .git-moved .git && echo git-moved || echo move-refused`,
          'echo inside > inside.txt && git add inside.txt && git -c user.name=a -c user.email=a@example.com commit -qm inside && echo commit-ok',
        ].join('\n'),
        folders(mode, [root]),
        root,
      );
      // What the unconfined git of the user (and VS Code's git extension) runs next.
      git(root, 'status');
      git(root, 'commit', '-q', '--allow-empty', '-m', 'outside');
      assert.deepEqual(fs.readdirSync(outside), [], 'nothing the agent planted ran outside');
      said(result.stdout, ['config-refused', 'config-append-refused', 'hook-refused', 'info-refused', 'commondir-refused', 'move-refused', 'commit-ok']);
      assert.equal(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8'), config, '.git/config unchanged');
      assert.ok(!fs.existsSync(path.join(root, '.git', 'commondir')), 'no commondir left behind');
      assert.ok(!fs.existsSync(path.join(root, '.git-moved')));
      assert.deepEqual(git(root, 'log', '--format=%s').stdout.trim().split('\n'), ['outside', 'inside', 'first'], 'the agent committed in its repository');
    });

    it(`${mode}: a folder that is not a repository: git init, a .git made by hand, .vscode/tasks.json and .idea are refused, existing settings too, and nothing is left behind`, () => {
      const plain = scratch('acp-walls-plain-');
      const configured = scratch('acp-walls-configured-');
      cleanup.push(plain, configured);
      fs.mkdirSync(path.join(configured, '.vscode'));
      fs.writeFileSync(path.join(configured, '.vscode', 'settings.json'), '{}\n');
      const before = listing(configured);
      const task = `{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch ${outside}/task-ran","runOptions":{"runOn":"folderOpen"}}]}`;
      const result = run(
        [
          `git init -q . 2>/dev/null && git config core.fsmonitor "touch '${outside}/init-ran'" 2>/dev/null && echo init-ok || echo init-refused`,
          'mkdir .git 2>/dev/null && echo mkdir-git || echo mkdir-git-refused',
          `mkdir -p .vscode 2>/dev/null; printf '%s' '${task}' > .vscode/tasks.json 2>/dev/null && echo tasks-written || echo tasks-refused`,
          'mkdir -p .idea 2>/dev/null; echo x > .idea/workspace.xml 2>/dev/null && echo idea-written || echo idea-refused',
          `printf '{"terminal.integrated.shell.linux":"x"}' > '${configured}/.vscode/settings.json' 2>/dev/null && echo settings-written || echo settings-refused`,
          `rm -rf '${configured}/.vscode' 2>/dev/null; [ -d '${configured}/.vscode' ] && echo vscode-kept || echo vscode-removed`,
          'echo ok > note.txt && echo note-ok',
        ].join('\n'),
        folders(mode, [plain, configured]),
        plain,
      );
      said(result.stdout, ['init-refused', 'mkdir-git-refused', 'tasks-refused', 'idea-refused', 'settings-refused', 'vscode-kept', 'note-ok']);
      assert.deepEqual(listing(plain), ['note.txt'], 'no .git, .vscode or .idea left behind');
      assert.deepEqual(listing(configured), before);
      assert.equal(fs.readFileSync(path.join(configured, '.vscode', 'settings.json'), 'utf8'), '{}\n');
      assert.notEqual(git(plain, 'status').status, 0, 'still not a repository');
      assert.deepEqual(fs.readdirSync(outside), []);
    });
  }

  it('writes: nested repositories and a linked worktree: their config, hooks and the .git pointer stay read-only; committing in the worktree works', () => {
    const base = scratch('acp-walls-nested-');
    cleanup.push(base);
    const root = repository(path.join(base, 'root'));
    const sub = repository(path.join(root, 'packages', 'sub'));
    const main = repository(path.join(base, 'main'));
    const worktree = path.join(base, 'worktree');
    assert.equal(git(main, 'worktree', 'add', '-q', worktree).status, 0);
    const gitdir = path.join(main, '.git', 'worktrees', 'worktree');
    const mainConfig = fs.readFileSync(path.join(main, '.git', 'config'), 'utf8');
    const result = run(
      [
        `echo '[core] fsmonitor = touch ${outside}/nested-ran' >> '${sub}/.git/config' 2>/dev/null && echo nested-config-written || echo nested-config-refused`,
        `echo x > '${sub}/.git/hooks/post-checkout' 2>/dev/null && echo nested-hook-written || echo nested-hook-refused`,
        `mv '${sub}/.git' '${sub}/.git-moved' 2>/dev/null && echo nested-moved || echo nested-move-refused`,
        `echo 'gitdir: ${outside}' > '${worktree}/.git' 2>/dev/null && echo pointer-written || echo pointer-refused`,
        `echo /elsewhere > '${gitdir}/commondir' 2>/dev/null && echo wt-commondir-written || echo wt-commondir-refused`,
        `echo '[core] fsmonitor = touch ${outside}/main-ran' >> '${main}/.git/config' 2>/dev/null && echo main-config-written || echo main-config-refused`,
        `cd '${worktree}' && echo w > w.txt && git add w.txt && git -c user.name=a -c user.email=a@example.com commit -qm in-worktree && echo worktree-commit-ok`,
      ].join('\n'),
      folders('writes', [root, main, worktree]),
      root,
    );
    for (const dir of [root, sub, main, worktree]) git(dir, 'status');
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing the agent planted ran outside');
    said(result.stdout, [
      'nested-config-refused',
      'nested-hook-refused',
      'nested-move-refused',
      'pointer-refused',
      'wt-commondir-refused',
      'main-config-refused',
      'worktree-commit-ok',
    ]);
    assert.equal(fs.readFileSync(path.join(main, '.git', 'config'), 'utf8'), mainConfig);
    assert.equal(fs.readFileSync(path.join(worktree, '.git'), 'utf8').trim(), `gitdir: ${gitdir}`);
    assert.equal(git(worktree, 'log', '-1', '--format=%s').stdout.trim(), 'in-worktree');
  });

  it('writes: an agent whose entry opted in may write .vscode and .idea; git stays protected', () => {
    const root = scratch('acp-walls-editor-');
    cleanup.push(root);
    const result = run(
      [
        'mkdir -p .vscode && echo {} > .vscode/settings.json && echo settings-written',
        'mkdir -p .idea && echo x > .idea/misc.xml && echo idea-written',
        'git init -q . 2>/dev/null && echo init-ok || echo init-refused',
      ].join('\n'),
      folders('writes', [root], { editorSettings: true }),
      root,
    );
    said(result.stdout, ['settings-written', 'idea-written', 'init-refused']);
    assert.deepEqual(listing(root), ['.idea', '.idea/misc.xml', '.vscode', '.vscode/settings.json']);
  });

  it('a placeholder stays while another confined command still needs it, whichever made it, and goes with the last one', async () => {
    const root = scratch('acp-walls-shared-');
    cleanup.push(root);
    const policy = folders('writes', [root]);
    /** A confined command that waits for a line, then tries to create what the placeholder holds. */
    function waiting(name: string) {
      const command = wrap(`read line; mkdir -p .vscode && echo x > .vscode/${name}.json && echo ${name}-wrote || echo ${name}-refused`, policy, root);
      const child = spawn(command.file, [...command.args], { cwd: root, env: command.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      return {
        finish: async () => {
          child.stdin.end('go\n');
          await closed;
          command.dispose();
          return out.trim();
        },
      };
    }
    // A makes the placeholder, B finds it there; A ends first, then B; then C alone.
    const first = waiting('A');
    assert.ok(fs.existsSync(path.join(root, '.vscode')), 'held while A runs');
    const second = waiting('B');
    assert.equal(await first.finish(), 'A-refused');
    assert.ok(fs.existsSync(path.join(root, '.vscode')), 'A is done, B still needs it');
    assert.equal(await second.finish(), 'B-refused', 'still protected inside B');
    assert.deepEqual(listing(root), [], 'gone with the last command that needed it');
    const third = run('echo C-ran', policy, root);
    assert.equal(third.stdout.trim(), 'C-ran');
    assert.deepEqual(listing(root), []);
  });

  it('a repository’s commondir placeholder another command made stays for the next command built before that one ended (an agent restarting), which protects the repository as the first did', () => {
    const root = repository(path.join(scratch('acp-walls-restart-'), 'app'));
    cleanup.push(path.dirname(root));
    const policy = folders('writes', [root]);
    const commondir = path.join(root, '.git', 'commondir');
    const before = listing(root);
    const old = wrap('true', policy, root);
    assert.ok(fs.existsSync(commondir), 'held while the old agent runs');
    // The new agent's command line is built before the old agent's ends, and started after.
    const restarted = wrap('for f in commondir config hooks/x; do (echo x > .git/$f) 2>/dev/null && echo wrote-$f || echo refused-$f; done', policy, root);
    old.dispose();
    assert.ok(fs.existsSync(commondir), 'the old agent is done, the new one still needs it');
    const result = spawnSync(restarted.file, [...restarted.args], { cwd: root, env: restarted.env, encoding: 'utf8', timeout: 30_000 });
    assert.deepEqual(result.stdout.trim().split('\n'), ['refused-commondir', 'refused-config', 'refused-hooks/x'], result.stderr);
    restarted.dispose();
    assert.deepEqual(listing(root), before, 'gone with the last command that needed it');
    assert.equal(git(root, 'status').status, 0);
  });

  it('a daemon started with setsid inside a confined command ends with it: when the command exits, and when it is killed', async () => {
    const root = scratch('acp-walls-daemon-');
    cleanup.push(root);
    const policy = folders('writes', [root]);
    for (const how of ['exit', 'kill'] as const) {
      const marker = `acp-walls-daemon-${process.pid}-${how}`;
      const log = path.join(root, `${how}.log`);
      // The command goes on once the daemon has written (then exits, or waits to be killed).
      const command = wrap(
        `${daemon(log, marker)} while [ ! -s ${log} ]; do sleep 0.02; done; echo started; ${how === 'kill' ? 'sleep 600' : 'exit 0'}`,
        policy,
        root,
      );
      const child = spawnGroup(command.file, command.args, { cwd: root, env: command.env, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        await new Promise<void>((resolve) => child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('started') && resolve()));
        if (how === 'kill') {
          await waitFor(() => withMarker(marker).length > 0, 5000, 'the daemon to run');
          killTree(child, 'SIGTERM');
        }
        await waitFor(() => child.exitCode !== null || child.signalCode !== null, 10_000, 'the command to end');
        await waitFor(() => withMarker(marker).length === 0, 10_000, `the daemon (${how}) to end with its command`);
      } finally {
        killMarked(marker);
        killTree(child, 'SIGKILL');
      }
    }
  });

  it('a daemon a confined agent starts with its own shell ends when the agent is stopped; the agent still got its SIGTERM and grace', async () => {
    const root = scratch('acp-walls-agent-');
    cleanup.push(root);
    const confiner = await findConfiner();
    const policy: ConfinementPolicy = { ...folders('writes', [root]), readable: [path.dirname(NODE), path.dirname(REFERENCE_AGENT_BUNDLE)] };
    const logger = recordingLogger();
    const base = referenceAgentCommand();
    const agent = new AgentProcess({
      command: { ...base, args: [...base.args, '--fault', 'ignore-stdin-close,ignore-sigterm'] },
      cwd: root,
      logger,
      clientInfo: { name: 'acp-workspace-tests', version: '0.0.0' },
      stopGraceMs: 1000,
      restartPolicy: false,
      confinement: () => Promise.resolve({ confiner, policy }),
    });
    const marker = `acp-walls-agent-daemon-${process.pid}`;
    try {
      const connection = v1(await agent.start());
      const updates: acp.SessionUpdate[] = [];
      connection.onNotification(acp.SessionUpdateNotification, (n) => updates.push(n.update));
      const { sessionId } = await connection.newSession({ cwd: root, mcpServers: [] });
      await connection.prompt({ sessionId, prompt: [{ type: 'text', text: `shell-direct ${daemon(path.join(root, 'agent.log'), marker)}` }] });
      await waitFor(
        () => withMarker(marker).length > 0 && fs.existsSync(path.join(root, 'agent.log')),
        10_000,
        `the agent's daemon to run (${JSON.stringify(updates)})`,
      );
      await agent.stop();
      assert.ok(
        logger.lines.some(({ message }) => message.includes('SIGTERM ignored (fault ignore-sigterm)')),
        `the agent got its SIGTERM: ${logger.lines.map((l) => l.message).join('\n')}`,
      );
      await waitFor(() => withMarker(marker).length === 0, 10_000, 'the daemon to end with the agent');
    } finally {
      killMarked(marker);
      await agent.dispose();
    }
  });

  it('a daemon a confined terminal command starts ends when the terminal is killed', async () => {
    const root = scratch('acp-walls-terminal-');
    cleanup.push(root);
    const confiner = await findConfiner();
    const policy = folders('writes', [root]);
    const terminals = new Terminals({ killGraceMs: 500, confine: (file, args, env, cwd) => confiner.wrap(file, args, env, cwd, policy) });
    const marker = `acp-walls-terminal-daemon-${process.pid}`;
    try {
      const { terminalId } = await terminals.create(
        {
          sessionId: 's1',
          command: `${daemon(path.join(root, 'terminal.log'), marker)} echo started; sleep 600`,
          args: [],
          env: [],
          cwd: undefined,
          outputByteLimit: undefined,
        },
        new RootGuard([root]),
        root,
      );
      await waitFor(() => withMarker(marker).length > 0 && fs.existsSync(path.join(root, 'terminal.log')), 10_000, 'the daemon to run');
      await terminals.kill({ sessionId: 's1', terminalId });
      await waitFor(() => withMarker(marker).length === 0, 10_000, 'the daemon to end with its terminal');
    } finally {
      killMarked(marker);
      await terminals.dispose();
    }
  });

  for (const mode of ['writes', 'strict'] as const) {
    it(`${mode}, as ${os.userInfo().uid === 0 ? 'root' : 'this user'}: no capabilities, no host processes to reach: /proc/<pid>/root, nsenter, remount and signals fail, nothing changes outside`, async () => {
      const root = scratch('acp-walls-root-');
      cleanup.push(root);
      // A process of the host (as the extension host is): the agent must neither reach its files nor signal it.
      const victim: ChildProcess = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
      try {
        const pid = victim.pid!;
        const result = run(
          [
            'grep CapEff /proc/self/status',
            `[ -e /proc/${pid} ] && echo host-process-visible || echo host-process-hidden`,
            `echo x > /proc/${pid}/root${outside}/via-proc 2>/dev/null && echo proc-root-written || echo proc-root-refused`,
            `nsenter -t ${pid} -m sh -c "echo x > ${outside}/via-nsenter" 2>/dev/null && echo nsenter-ok || echo nsenter-refused`,
            `mount -o remount,rw / 2>/dev/null && echo remounted || echo remount-refused`,
            `echo x > ${outside}/via-remount 2>/dev/null && echo outside-written || echo outside-refused`,
            `kill -STOP ${pid} 2>/dev/null && echo signalled || echo signal-refused`,
          ].join('\n'),
          folders(mode, [root]),
          root,
        );
        said(result.stdout, [
          'CapEff:\t0000000000000000',
          'host-process-hidden',
          'proc-root-refused',
          'nsenter-refused',
          'remount-refused',
          'outside-refused',
          'signal-refused',
        ]);
        assert.deepEqual(fs.readdirSync(outside), [], 'nothing changed outside');
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        assert.notEqual(stat[stat.lastIndexOf(')') + 2], 'T', 'the host process was not stopped');
      } finally {
        victim.kill('SIGKILL');
      }
    });
  }
});

describe('the extension’s own git runs nothing a folder’s repository configures (checkpoints)', function () {
  this.timeout(30_000);
  let base: string;

  beforeEach(() => (base = scratch('acp-walls-checkpoints-')));
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('fsmonitor, hooks, a filter and a diff driver in a folder’s repository and in a nested one: a checkpoint, a change and another checkpoint (with what changed and a file read back) run none of them', async () => {
    const marker = path.join(base, 'markers');
    fs.mkdirSync(marker);
    const root = repository(path.join(base, 'app'));
    const nested = repository(path.join(root, 'vendor', 'lib'));
    for (const repo of [root, nested]) {
      const name = path.basename(repo);
      fs.appendFileSync(
        path.join(repo, '.git', 'config'),
        `[core]\n\tfsmonitor = touch ${marker}/${name}-fsmonitor\n[filter "evil"]\n\tclean = touch ${marker}/${name}-clean; cat\n\tsmudge = touch ${marker}/${name}-smudge; cat\n[diff "evil"]\n\ttextconv = touch ${marker}/${name}-textconv; cat\n`,
      );
      fs.writeFileSync(path.join(repo, '.gitattributes'), '* filter=evil diff=evil\n');
      for (const hook of ['post-index-change', 'pre-commit', 'post-commit', 'post-checkout', 'reference-transaction', 'pre-auto-gc']) {
        fs.writeFileSync(path.join(repo, '.git', 'hooks', hook), `#!/bin/sh\ntouch ${marker}/${name}-${hook}\n`, { mode: 0o755 });
      }
    }
    const store = await GitCheckpointStore.open({
      storageDir: path.join(base, 'storage'),
      sessionKey: GitCheckpointStore.sessionKey('agent', 's1'),
      roots: [{ name: 'app', path: root }],
      logger: { trace: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    try {
      const before = await store.take('Before turn 1');
      fs.writeFileSync(path.join(root, 'README.md'), 'changed\n');
      fs.writeFileSync(path.join(nested, 'README.md'), 'changed too\n');
      const after = await store.take('Before turn 2');
      assert.ok((await store.changes(before, after)).length >= 2, 'the changes were seen');
      assert.ok(await store.read(before, root, 'README.md'));
      await store.flush();
    } finally {
      store.dispose();
    }
    assert.deepEqual(fs.readdirSync(marker), [], 'nothing the repositories configure ran');
  });
});
