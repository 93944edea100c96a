/**
 * The checkpoint store runs git on folders an agent may write: nothing in them, in the shared temp folder,
 * in the user's git configuration or in the environment may make it run a program. Every place a program
 * could be named gets one that leaves a marker; checkpoints are taken, diffed, read, merged, restored and
 * collected; the marker must never appear. Real git, real files.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitCheckpointStore } from '../../../src/review/checkpointStore';
import { hash16 } from '../../../src/review/shadowRepo';
import { GuardedReviewFs } from '../../../src/review/reviewFs';
import { SessionReview } from '../../../src/review/sessionReview';
import { keyOf } from '../../../src/review/fileStates';
import { RootGuard } from '../../../src/roots/rootGuard';

/** Every hook git knows of (githooks(5)), and the fsmonitor one. */
const HOOKS = [
  'applypatch-msg',
  'pre-applypatch',
  'post-applypatch',
  'pre-commit',
  'pre-merge-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-rebase',
  'post-checkout',
  'post-merge',
  'pre-push',
  'pre-receive',
  'update',
  'proc-receive',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'pre-auto-gc',
  'post-rewrite',
  'sendemail-validate',
  'fsmonitor-watchman',
  'p4-changelist',
  'p4-prepare-changelist',
  'p4-post-changelist',
  'p4-pre-submit',
  'post-index-change',
];

describe('the checkpoint store runs no program named by a folder, the temp folder, the user or the environment (real git)', function () {
  this.timeout(60_000);
  let base: string;
  let marker: string;
  let program: string;
  const saved: Record<string, string | undefined> = {};

  /** An executable that appends its name and arguments to the marker file. */
  function plantProgram(file: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `#!/bin/sh\necho "ran: $0 $*" >> '${marker}'\ncat >/dev/null 2>&1\nexit 0\n`, { mode: 0o755 });
  }
  function plantHooks(dir: string): void {
    for (const hook of HOOKS) plantProgram(path.join(dir, hook));
  }
  function setEnv(name: string, value: string | undefined): void {
    if (!(name in saved)) saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  /** Git configuration that names `program` everywhere a program can be named. */
  function hostileConfig(hooks: string): string {
    return [
      '[core]',
      `\tfsmonitor = ${program}`,
      `\thooksPath = ${hooks}`,
      `\tpager = ${program}`,
      `\teditor = ${program}`,
      `\tsshCommand = ${program}`,
      `\taskPass = ${program}`,
      '[filter "evil"]',
      `\tclean = ${program} clean`,
      `\tsmudge = ${program} smudge`,
      `\tprocess = ${program} process`,
      '\trequired = true',
      '[diff "evil"]',
      `\ttextconv = ${program} textconv`,
      `\tcommand = ${program} diff`,
      '[merge "evil"]',
      `\tdriver = ${program} merge %O %A %B`,
      '[gc]',
      '\tauto = 1',
      '\tautoDetach = false',
      '[credential]',
      `\thelper = !${program}`,
      '',
    ].join('\n');
  }

  beforeEach(() => {
    base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-hooks-')));
    marker = path.join(base, 'marker.txt');
    program = path.join(base, 'bin', 'evil');
    plantProgram(program);
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
      delete saved[name];
    }
    fs.rmSync(base, { recursive: true, force: true });
  });

  /** Takes, diffs, reads, keeps, merges, rejects, undoes and redoes in `app`, then evicts and collects garbage. */
  async function exercise(app: string, storageDir: string, beforeSecondTake?: () => void): Promise<void> {
    const roots = [{ name: 'app', path: app }];
    const store = await GitCheckpointStore.open({ storageDir, sessionKey: GitCheckpointStore.sessionKey('agent', 'hooks'), roots });
    const review = await SessionReview.open({ store, fs: new GuardedReviewFs(new RootGuard([app])), file: path.join(storageDir, 'review.json') });
    try {
      await store.take('Session opened');
      beforeSecondTake?.();
      const start = await review.beginTurn();
      fs.writeFileSync(path.join(app, 'a.txt'), 'one\nTWO\nthree\n');
      fs.writeFileSync(path.join(app, 'new.evil'), 'created by the agent\n');
      fs.rmSync(path.join(app, 'gone.txt'));
      const turn = await review.endTurn(start);
      assert.deepEqual(
        turn.files.map((f) => [f.path, f.status]),
        [
          ['a.txt', 'modified'],
          ['gone.txt', 'deleted'],
          ['new.evil', 'added'],
        ],
      );
      const pending = await review.pending();
      assert.equal(pending.length, 3);
      assert.equal((await review.accept(keyOf(app, 'a.txt'), 0)).ok, true);
      assert.equal((await review.reject(keyOf(app, 'gone.txt'))).ok, true);
      await store.merge(Buffer.from('a\nb\n'), Buffer.from('a\nB\n'), Buffer.from('A\nb\n'));
      const undo = await review.planUndo(1);
      assert.equal(undo.blocked, undefined, undo.blocked);
      assert.equal((await review.undo(undo)).ok, true);
      assert.equal(fs.existsSync(path.join(app, 'new.evil')), false);
      const redo = await review.planRedo(1);
      assert.equal((await review.redo(redo)).ok, true);
      await store.flush();
    } finally {
      review.dispose();
      store.dispose();
    }
    // Another session over the store's size limit: the first session's checkpoints are evicted and git collects the garbage.
    const other = await GitCheckpointStore.open({
      storageDir,
      sessionKey: GitCheckpointStore.sessionKey('agent', 'other'),
      roots,
      maxStoreBytes: 1,
      measureEveryTakes: 1,
    });
    try {
      await other.take('one');
      await other.flush();
    } finally {
      other.dispose();
    }
  }

  function folder(): string {
    const app = path.join(base, 'app');
    fs.mkdirSync(app, { recursive: true });
    fs.writeFileSync(path.join(app, 'a.txt'), 'one\ntwo\nthree\n');
    fs.writeFileSync(path.join(app, 'gone.txt'), 'bye\n');
    return app;
  }

  it('runs no hook planted in the old shared "no hooks" folder of the temp folder, nor in its own repositories', async () => {
    const tmp = path.join(base, 'tmp');
    fs.mkdirSync(tmp);
    setEnv('TMPDIR', tmp);
    assert.equal(os.tmpdir(), tmp);
    // Whoever creates it first owns it: the old fixed path every checkpoint's git looked in for hooks.
    plantHooks(path.join(tmp, 'acp-workspace-no-hooks', 'none'));
    const app = folder();
    const storageDir = path.join(base, 'storage');
    await exercise(app, storageDir, () => {
      // The shadow repository exists after the first capture (the chat's "Session opened" one): its own hooks folder too.
      plantHooks(path.join(storageDir, 'repos', hash16(app), 'hooks'));
      plantHooks(path.join(storageDir, 'repos', 'kept', 'hooks'));
    });
    assert.equal(fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '', '');
  });

  it("runs nothing the user's git configuration or the environment names (global, XDG, GIT_CONFIG_*)", async () => {
    const home = path.join(base, 'home');
    const hooks = path.join(base, 'user-hooks');
    plantHooks(hooks);
    fs.mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
    fs.writeFileSync(path.join(home, '.gitconfig'), hostileConfig(hooks));
    fs.writeFileSync(path.join(home, '.config', 'git', 'config'), hostileConfig(hooks));
    fs.writeFileSync(path.join(home, '.config', 'git', 'attributes'), '* filter=evil diff=evil merge=evil\n');
    setEnv('HOME', home);
    setEnv('XDG_CONFIG_HOME', path.join(home, '.config'));
    setEnv('GIT_CONFIG_COUNT', '2');
    setEnv('GIT_CONFIG_KEY_0', 'core.hooksPath');
    setEnv('GIT_CONFIG_VALUE_0', hooks);
    setEnv('GIT_CONFIG_KEY_1', 'core.fsmonitor');
    setEnv('GIT_CONFIG_VALUE_1', program);
    setEnv('GIT_CONFIG_PARAMETERS', `'core.hooksPath'='${hooks}'`);
    setEnv('GIT_EXTERNAL_DIFF', program);
    setEnv('GIT_ASKPASS', program);
    await exercise(folder(), path.join(base, 'storage'));
    assert.equal(fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '', '');
  });

  it("runs nothing the captured folder's own repository names: .git/config (fsmonitor, filters, hooksPath, drivers), .git/hooks, .gitattributes, nested repositories alike", async () => {
    const app = folder();
    const hooks = path.join(base, 'folder-hooks');
    plantHooks(hooks);
    const nested = path.join(app, 'vendor', 'lib');
    fs.mkdirSync(nested, { recursive: true });
    fs.writeFileSync(path.join(nested, 'lib.evil'), 'nested\n');
    for (const repo of [app, nested]) {
      execFileSync('git', ['init', '-q', repo], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: os.devNull } });
      fs.appendFileSync(path.join(repo, '.git', 'config'), hostileConfig(hooks));
      plantHooks(path.join(repo, '.git', 'hooks'));
      fs.writeFileSync(path.join(repo, '.git', 'info', 'attributes'), '* filter=evil diff=evil merge=evil\n');
      fs.writeFileSync(path.join(repo, '.gitattributes'), '* filter=evil diff=evil merge=evil\n*.evil filter=evil diff=evil merge=evil\n');
    }
    await exercise(app, path.join(base, 'storage'));
    assert.equal(fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '', '');
    // The control: the same folder runs the planted program for a plain `git status` (what VS Code's git extension runs).
    execFileSync('git', ['-C', app, 'status', '--porcelain'], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: os.devNull } });
    assert.match(fs.readFileSync(marker, 'utf8'), /ran: /, 'the planted program is live');
  });
});
