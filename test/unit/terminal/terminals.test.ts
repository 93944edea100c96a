import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { ClientRefusal } from '../../../src/acp/port/client';
import type { ResultOf, TerminalOutputMethod, TerminalWaitForExitMethod } from '../../../src/acp/schema';
import { RootGuard } from '../../../src/roots/rootGuard';
import { TerminalError } from '../../../src/terminal/terminalError';
import { type CreateTerminalParams, type TerminalChange, Terminals, type TerminalsOptions } from '../../../src/terminal/terminals';

const posix = process.platform !== 'win32';
const NODE = process.execPath;

/** A scratch tree: roots app/ and lib/, a folder outside them, and symlinks out of and across the roots. */
function makeTree(): { base: string; app: string; lib: string; outside: string; cleanup: () => void } {
  const base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-term-')));
  const app = path.join(base, 'app');
  const lib = path.join(base, 'lib');
  const outside = path.join(base, 'outside');
  for (const dir of [app, path.join(app, 'sub'), lib, outside]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(app, 'file.txt'), 'x');
  fs.symlinkSync('../outside', path.join(app, 'link-out'));
  fs.symlinkSync('../lib', path.join(app, 'link-lib'));
  return { base, app, lib, outside, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/** Gone: no such process, or a zombie nobody reaped (some containers' PID 1 never reaps orphans). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    return /^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function rejectsWithCode(action: Promise<unknown> | (() => unknown), code: number, messageIncludes: readonly string[] = []): Promise<TerminalError> {
  let caught: unknown;
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof TerminalError, `expected a TerminalError, got ${String(caught)}`);
  assert.ok(caught instanceof ClientRefusal, 'a TerminalError is the port’s refusal, which the adapter answers with its code');
  assert.equal(caught.code, code, caught.message);
  for (const part of messageIncludes) assert.ok(caught.message.includes(part), `"${caught.message}" should mention ${part}`);
  return caught;
}

describe('Terminals (real processes)', function () {
  this.timeout(10000);
  let tree: ReturnType<typeof makeTree>;
  let guard: RootGuard;
  let terminals: Terminals;

  const make = (options: TerminalsOptions = {}): Terminals => new Terminals({ killGraceMs: 300, ...options });

  function params(command: string, args: string[] = [], extra: Partial<CreateTerminalParams> = {}): CreateTerminalParams {
    return { sessionId: 's1', command, args, env: [], cwd: undefined, outputByteLimit: undefined, ...extra };
  }

  /** Runs a Node.js script. */
  async function node(script: string, extra: Partial<CreateTerminalParams> = {}, on = terminals): Promise<string> {
    return (await on.create(params(NODE, ['-e', script], extra), guard, tree.app)).terminalId;
  }

  const ref = (terminalId: string, sessionId = 's1') => ({ sessionId, terminalId });

  beforeEach(() => {
    tree = makeTree();
    guard = new RootGuard([tree.app, tree.lib]);
    terminals = make();
  });
  afterEach(async () => {
    await terminals.dispose();
    tree.cleanup();
  });

  it('runs a command, captures its output and reports exit code 0', async () => {
    const id = await node('console.log("hello"); console.log("wörld")');
    assert.match(id, /^term_[A-Za-z0-9_-]{16}$/);
    const exit = await terminals.waitForExit(ref(id));
    assert.deepEqual(exit, { exitCode: 0, signal: null });
    const out = terminals.output(ref(id));
    assert.deepEqual(out, { output: 'hello\nwörld\n', truncated: false, exitStatus: { exitCode: 0, signal: null } });
    // The shapes are what the ACP method definitions expect.
    const typedOut: ResultOf<typeof TerminalOutputMethod> = out;
    const typedExit: ResultOf<typeof TerminalWaitForExitMethod> = exit;
    assert.ok(typedOut && typedExit);
  });

  it('reports a non-zero exit code, and no exitStatus while running', async () => {
    // It exits when the test says so (a go-file), not after a delay a loaded machine could outlast.
    const go = path.join(tree.base, 'go-exit');
    const id = await node(`const t = setInterval(() => { if (require("fs").existsSync(${JSON.stringify(go)})) { clearInterval(t); process.exit(3); } }, 5)`);
    assert.deepEqual(terminals.output(ref(id)), { output: '', truncated: false });
    fs.writeFileSync(go, '');
    assert.deepEqual(await terminals.waitForExit(ref(id)), { exitCode: 3, signal: null });
    assert.deepEqual(terminals.output(ref(id)).exitStatus, { exitCode: 3, signal: null });
  });

  it('interleaves stdout and stderr as they arrive', async () => {
    // Each write waits until the previous one was read (two pipes read after a pause arrive together,
    // in no particular order): the script goes on when the test creates the next go-file.
    const go = [path.join(tree.base, 'go-err'), path.join(tree.base, 'go-out2')];
    const id = await node(
      `const fs = require("fs");
       const after = (file, then) => { const t = setInterval(() => { if (fs.existsSync(file)) { clearInterval(t); then(); } }, 5); };
       process.stdout.write("out1\\n");
       after(${JSON.stringify(go[0])}, () => { process.stderr.write("err\\n"); after(${JSON.stringify(go[1])}, () => process.stdout.write("out2\\n")); });`,
    );
    await waitFor(() => terminals.output(ref(id)).output === 'out1\n', 'out1');
    fs.writeFileSync(go[0]!, '');
    await waitFor(() => terminals.output(ref(id)).output === 'out1\nerr\n', 'err after out1');
    fs.writeFileSync(go[1]!, '');
    await terminals.waitForExit(ref(id));
    assert.equal(terminals.output(ref(id)).output, 'out1\nerr\nout2\n');
  });

  it('decodes a multi-byte character split across writes', async () => {
    const id = await node(
      'const b = Buffer.from("é😀"); process.stdout.write(b.subarray(0, 1)); setTimeout(() => process.stdout.write(b.subarray(1, 4)), 40); setTimeout(() => process.stdout.write(b.subarray(4)), 80)',
    );
    await terminals.waitForExit(ref(id));
    assert.equal(terminals.output(ref(id)).output, 'é😀');
  });

  it('kill: the exit is reported as a signal, exitCode null, and the output stays readable', async function () {
    if (!posix) this.skip();
    const id = await node('console.log("started"); setInterval(() => {}, 1000)');
    await waitFor(() => terminals.output(ref(id)).output.includes('started'), 'the script to start');
    await terminals.kill(ref(id));
    assert.deepEqual(await terminals.waitForExit(ref(id)), { exitCode: null, signal: 'SIGTERM' });
    assert.deepEqual(terminals.output(ref(id)), { output: 'started\n', truncated: false, exitStatus: { exitCode: null, signal: 'SIGTERM' } });
    await terminals.kill(ref(id)); // killing an exited terminal is fine
  });

  it('kill: SIGKILL after the grace period when SIGTERM is ignored', async function () {
    if (!posix) this.skip();
    const id = await node('process.on("SIGTERM", () => console.log("ignored")); console.log("ready"); setInterval(() => {}, 1000)');
    await waitFor(() => terminals.output(ref(id)).output.includes('ready'), 'the script to start');
    const started = Date.now();
    await terminals.kill(ref(id));
    assert.ok(Date.now() - started >= 250, 'waited for the grace period');
    assert.deepEqual(terminals.output(ref(id)).exitStatus, { exitCode: null, signal: 'SIGKILL' });
    assert.match(terminals.output(ref(id)).output, /ready\nignored\n/);
  });

  it('keeps only the most recent outputByteLimit bytes, cut at a character boundary', async () => {
    // 'ab😀cdé😀' is 14 bytes; the last 10 begin inside the first 😀, so 'cdé😀' (8 bytes) remains.
    const id = await node('process.stdout.write("ab😀"); setTimeout(() => process.stdout.write("cdé😀"), 40)', { outputByteLimit: 10 });
    await terminals.waitForExit(ref(id));
    const out = terminals.output(ref(id));
    assert.equal(out.output, 'cdé😀');
    assert.equal(out.truncated, true);
    assert.ok(Buffer.byteLength(out.output) <= 10);

    // 'é' straddling the limit: 'abcé' + 'xyz' with a 4-byte limit keeps 'xyz'.
    const id2 = await node('process.stdout.write("abcé"); setTimeout(() => process.stdout.write("xyz"), 40)', { outputByteLimit: 4 });
    await terminals.waitForExit(ref(id2));
    assert.deepEqual(terminals.output(ref(id2)), { output: 'xyz', truncated: true, exitStatus: { exitCode: 0, signal: null } });
  });

  it('truncates a large stream to the limit and caps output without a limit', async () => {
    const script = 'let s = ""; for (let i = 0; i < 20000; i++) s += "é😀 line " + i + "\\n"; process.stdout.write(s)';
    const id = await node(script, { outputByteLimit: 1000 });
    await terminals.waitForExit(ref(id));
    const out = terminals.output(ref(id));
    assert.equal(out.truncated, true);
    assert.ok(Buffer.byteLength(out.output) <= 1000 && Buffer.byteLength(out.output) >= 997);
    assert.ok(out.output.endsWith('é😀 line 19999\n'));
    assert.ok(!out.output.includes('\ufffd'));

    const capped = make({ maxOutputBytes: 2048 });
    try {
      const id2 = await node(script, {}, capped);
      await capped.waitForExit(ref(id2));
      const out2 = capped.output(ref(id2));
      assert.equal(out2.truncated, true);
      assert.ok(Buffer.byteLength(out2.output) <= 2048);
      assert.equal(capped.get(id2)?.outputByteLimit, 2048);
    } finally {
      await capped.dispose();
    }
  });

  it('outputByteLimit 0 keeps nothing and says so', async () => {
    const id = await node('console.log("x")', { outputByteLimit: 0 });
    await terminals.waitForExit(ref(id));
    assert.deepEqual(terminals.output(ref(id)), { output: '', truncated: true, exitStatus: { exitCode: 0, signal: null } });
  });

  it('runs a whole shell line sent as command without args', async function () {
    if (!posix) this.skip();
    const { terminalId } = await terminals.create(params('echo one && echo two | tr a-z A-Z; exit 4'), guard, tree.app);
    assert.deepEqual(await terminals.waitForExit(ref(terminalId)), { exitCode: 4, signal: null });
    assert.equal(terminals.output(ref(terminalId)).output, 'one\nTWO\n');
    const view = terminals.get(terminalId)!;
    assert.equal(view.shell, true);
    assert.equal(view.commandLine, 'echo one && echo two | tr a-z A-Z; exit 4');
  });

  it('does not use a shell when args are given', async () => {
    const id = await node('console.log(process.argv.slice(1).join("|"))', {
      args: ['-e', 'console.log(process.argv.slice(1).join("|"))', '$HOME', 'a && b'],
    });
    await terminals.waitForExit(ref(id));
    assert.equal(terminals.output(ref(id)).output, '$HOME|a && b\n');
    assert.equal(terminals.get(id)?.shell, false);
  });

  it('passes env entries over the inherited environment', async () => {
    const local = make({ parentEnv: { ...process.env, FROM_PARENT: 'parent', OVERRIDDEN: 'old' } });
    try {
      const id = await node(
        'console.log([process.env.FROM_PARENT, process.env.OVERRIDDEN, process.env.ACP_TERM_TEST].join(","))',
        {
          env: [
            { name: 'OVERRIDDEN', value: 'new' },
            { name: 'ACP_TERM_TEST', value: 'héllo wörld' },
          ],
        },
        local,
      );
      await local.waitForExit(ref(id));
      assert.equal(local.output(ref(id)).output, 'parent,new,héllo wörld\n');
    } finally {
      await local.dispose();
    }
    await rejectsWithCode(terminals.create(params(NODE, [], { env: [{ name: 'A=B', value: 'x' }] }), guard, tree.app), -32602, ['A=B']);
  });

  describe('cwd', () => {
    const printCwd = 'console.log(process.cwd())';

    it("defaults to the session's cwd", async () => {
      const id = await node(printCwd);
      await terminals.waitForExit(ref(id));
      assert.equal(terminals.output(ref(id)).output, `${tree.app}\n`);
      assert.equal(terminals.get(id)?.cwd, tree.app);
    });

    it('may be a folder inside another root, or inside the cwd', async () => {
      for (const [cwd, expected] of [
        [tree.lib, tree.lib],
        [path.join(tree.app, 'sub'), path.join(tree.app, 'sub')],
        [path.join(tree.app, 'link-lib'), tree.lib], // a link into another root: runs in its real path
      ] as const) {
        const id = await node(printCwd, { cwd });
        await terminals.waitForExit(ref(id));
        assert.equal(terminals.output(ref(id)).output, `${expected}\n`, cwd);
      }
    });

    it('is refused outside the roots, naming the cwd and the roots', async () => {
      const error = await rejectsWithCode(terminals.create(params(NODE, ['-e', printCwd], { cwd: tree.outside }), guard, tree.app), -32602, [
        tree.outside,
        tree.app,
        tree.lib,
      ]);
      assert.deepEqual(error.data?.roots, [tree.app, tree.lib]);
      assert.equal(error.data?.reason, 'outside-roots');
      await rejectsWithCode(terminals.create(params(NODE, [], { cwd: tree.base }), guard, tree.app), -32602, [tree.base]);
    });

    it('is refused through a symlink leading outside', async () => {
      const via = path.join(tree.app, 'link-out');
      await rejectsWithCode(terminals.create(params(NODE, ['-e', printCwd], { cwd: via }), guard, tree.app), -32602, [via, tree.outside, tree.app]);
      await rejectsWithCode(terminals.create(params(NODE, [], { cwd: `${tree.app}/sub/../link-out` }), guard, tree.app), -32602, ['link-out']);
    });

    it('is refused when relative, missing or a file', async () => {
      await rejectsWithCode(terminals.create(params(NODE, [], { cwd: 'sub' }), guard, tree.app), -32602, ['"sub"', 'not an absolute path', tree.app]);
      await rejectsWithCode(terminals.create(params(NODE, [], { cwd: path.join(tree.app, 'nope') }), guard, tree.app), -32602, ['does not exist']);
      await rejectsWithCode(terminals.create(params(NODE, [], { cwd: path.join(tree.app, 'file.txt') }), guard, tree.app), -32602, ['not a folder']);
      assert.deepEqual(terminals.list(), []);
    });
  });

  it('kill ends the whole process group, grandchildren included', async function () {
    if (!posix) this.skip();
    // The shell starts a grandchild (which even ignores SIGTERM) in the background, prints its pid and waits.
    const grandchild = `'${NODE}' -e 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'`;
    const { terminalId } = await terminals.create(params(`${grandchild} & echo $!; wait`), guard, tree.app);
    await waitFor(() => /^\d+\n/.test(terminals.output(ref(terminalId)).output), 'the grandchild pid');
    const pid = Number(terminals.output(ref(terminalId)).output.trim());
    const leader = terminals.get(terminalId)!.pid!;
    assert.equal(isGone(pid), false);
    await terminals.kill(ref(terminalId));
    await waitFor(() => isGone(pid), 'the grandchild to be gone', 2000);
    assert.ok(isGone(leader));
    assert.deepEqual(terminals.output(ref(terminalId)).exitStatus, { exitCode: null, signal: 'SIGTERM' });
    assert.ok(terminals.get(terminalId), 'still valid after kill');
  });

  it('release ends background processes left by a command that already exited', async function () {
    if (!posix) this.skip();
    const { terminalId } = await terminals.create(params(`'${NODE}' -e 'setInterval(() => {}, 1000)' & echo $!`), guard, tree.app);
    assert.deepEqual(await terminals.waitForExit(ref(terminalId)), { exitCode: 0, signal: null });
    const pid = Number(terminals.output(ref(terminalId)).output.trim());
    assert.equal(isGone(pid), false, 'the background process outlived the shell');
    await terminals.release(ref(terminalId));
    await waitFor(() => isGone(pid), 'the background process to be gone', 2000);
  });

  it('release frees the id; the view the UI holds stays readable', async () => {
    const id = await node('console.log("bye"); setInterval(() => {}, 1000)');
    await waitFor(() => terminals.output(ref(id)).output === 'bye\n', 'output');
    const view = terminals.get(id)!;
    const pid = view.pid!;
    await terminals.release(ref(id));
    assert.ok(isGone(pid));
    assert.equal(terminals.get(id), undefined);
    for (const call of [
      () => terminals.output(ref(id)),
      () => terminals.waitForExit(ref(id)),
      () => terminals.kill(ref(id)),
      () => terminals.release(ref(id)),
    ]) {
      await rejectsWithCode(call, -32002, [id]);
    }
    assert.equal(view.output, 'bye\n');
    assert.equal(view.released, true);
    assert.notEqual(view.exitStatus, undefined);
  });

  it('unknown ids and other sessions’ ids are answered with -32002 alike', async () => {
    await rejectsWithCode(() => terminals.output(ref('term_nope')), -32002, ['term_nope']);
    const unknown = await rejectsWithCode(() => terminals.output(ref('term_nope', 's2')), -32002, ['term_nope', 's2']);
    const id = await node('setInterval(() => {}, 1000)');
    for (const call of [
      () => terminals.output(ref(id, 's2')),
      () => terminals.waitForExit(ref(id, 's2')),
      () => terminals.kill(ref(id, 's2')),
      () => terminals.release(ref(id, 's2')),
    ]) {
      const error = await rejectsWithCode(call, -32002, [id, 's2']);
      // The answer is the unknown id's, word for word: nothing in it reveals the owner (the id is random, so the
      // owner's name is not looked for in it: "s1" may be part of the id).
      assert.equal(error.message, unknown.message.replace('term_nope', id), 'does not reveal the owner');
      assert.deepEqual(error.data, { terminalId: id, sessionId: 's2' });
    }
    assert.equal(terminals.get(id)?.exitStatus, undefined, 'still running for its own session');
    assert.deepEqual(terminals.output(ref(id)), { output: '', truncated: false });
  });

  it('waitForExit can be cancelled; the command keeps running', async () => {
    const id = await node('setInterval(() => {}, 1000)');
    const source = new CancellationTokenSource();
    const waiting = terminals.waitForExit(ref(id), source.token);
    setTimeout(() => source.cancel(), 50);
    await rejectsWithCode(waiting, -32800, [id]);
    assert.equal(terminals.get(id)?.exitStatus, undefined);
    await rejectsWithCode(terminals.waitForExit(ref(id), source.token), -32800); // already cancelled
    const uncancelled = new CancellationTokenSource();
    const second = terminals.waitForExit(ref(id), uncancelled.token);
    await terminals.kill(ref(id));
    assert.equal((await second).exitCode, null);
  });

  it('releaseSession releases only that session’s terminals', async () => {
    const a = await node('setInterval(() => {}, 1000)');
    const b = await node('setInterval(() => {}, 1000)', { sessionId: 's2' });
    await terminals.releaseSession('s1');
    assert.equal(terminals.get(a), undefined);
    assert.deepEqual(
      terminals.list().map((v) => v.terminalId),
      [b],
    );
    assert.deepEqual(
      terminals.list('s2').map((v) => v.sessionId),
      ['s2'],
    );
  });

  it('dispose kills and releases everything, and refuses new terminals', async () => {
    const ids = [await node('setInterval(() => {}, 1000)'), await node('setInterval(() => {}, 1000)', { sessionId: 's2' })];
    const pids = ids.map((id) => terminals.get(id)!.pid!);
    const waiting = terminals.waitForExit(ref(ids[0]!));
    await terminals.dispose();
    assert.ok(pids.every(isGone));
    assert.equal((await waiting).signal, 'SIGTERM');
    assert.deepEqual(terminals.list(), []);
    await rejectsWithCode(node('1'), -32603, ['closing']);
  });

  it('fires change events for creation, output, exit and release', async () => {
    const seen: string[] = [];
    const subscription = terminals.onDidChange((terminalId: string, change: TerminalChange) => {
      seen.push(change);
      assert.ok(terminals.get(terminalId) || change === 'released');
      if (change === 'output') throw new Error('a failing listener is contained');
    });
    const id = await node('console.log("x")');
    await terminals.waitForExit(ref(id));
    await terminals.release(ref(id));
    subscription.dispose();
    assert.deepEqual(seen, ['created', 'output', 'exited', 'released']);
  });

  it('a command that does not exist fails create with -32603, naming it', async () => {
    await rejectsWithCode(terminals.create(params('definitely-not-a-command-acp', ['x']), guard, tree.app), -32603, [
      'definitely-not-a-command-acp',
      'not found',
    ]);
    await rejectsWithCode(terminals.create(params('  '), guard, tree.app), -32602, ['empty']);
    assert.deepEqual(terminals.list(), []);
  });

  it('the view shows the command line, cwd and start time', async () => {
    const before = Date.now();
    const id = await node('console.log(1)');
    const view = terminals.get(id)!;
    assert.equal(view.commandLine, `${NODE} -e console.log(1)`);
    assert.deepEqual([view.command, view.args, view.sessionId, view.cwd], [NODE, ['-e', 'console.log(1)'], 's1', tree.app]);
    assert.ok(view.startedAt >= before && view.startedAt <= Date.now());
    await terminals.waitForExit(ref(id));
    assert.ok(view.exitedAt! >= view.startedAt);
    assert.equal(view.output, '1\n');
  });
});
