import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand } from '../../../../../src/agents/registry/install/warmUp';
import { processRunning } from '../../../../../src/process/processTree';

describe('registry install: the warm-up process', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-warmup-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const node = process.execPath;
  const env = () => ({ PATH: process.env['PATH'] ?? '' });

  it('runs in the folder it is given and resolves on exit code 0', async () => {
    await runCommand(node, ['-e', 'require("fs").writeFileSync("ran", process.cwd())'], { cwd: dir, env: env() });
    assert.equal(fs.readFileSync(path.join(dir, 'ran'), 'utf8'), dir);
  });

  it('fails with the exit code and the last stderr lines', async () => {
    await assert.rejects(
      runCommand(node, ['-e', 'console.error("npm error 404 Not Found - @scope/nothing"); process.exit(3)'], { cwd: dir, env: env() }),
      (error: Error) => {
        assert.match(error.message, /exit code 3/);
        assert.match(error.message, /404 Not Found - @scope\/nothing/);
        return true;
      },
    );
  });

  it('says when the program is not there', async () => {
    await assert.rejects(runCommand('npx-that-does-not-exist', [], { cwd: dir, env: env() }), /could not be started \(ENOENT\)/);
  });

  it('is cancelled with its whole process group', async () => {
    const controller = new AbortController();
    const pidFile = path.join(dir, 'child.pid');
    // A parent that starts a child (as npm does) and both wait forever.
    const script = `const c = require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" }); require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); setInterval(() => {}, 1000);`;
    const done = runCommand(node, ['-e', script], { cwd: dir, env: env(), signal: controller.signal });
    await new Promise<void>((resolve) => {
      const watcher = fs.watch(dir, () => {
        if (fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8') !== '') {
          watcher.close();
          resolve();
        }
      });
    });
    controller.abort();
    await assert.rejects(done, /Cancelled/);
    assert.equal(processRunning(Number(fs.readFileSync(pidFile, 'utf8'))), false, 'the child is gone too');
  });

  it('stops a command that does not finish in time', async () => {
    await assert.rejects(runCommand(node, ['-e', 'setInterval(() => {}, 1000)'], { cwd: dir, env: env(), timeoutMs: 300 }), /did not finish within/);
  });
});
