import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { displayLine, looksLikeShellLine, planCommand } from '../../../src/terminal/commandLine';
import { envValue, mergeEnv, withoutEnv } from '../../../src/process/environment';

describe('terminal command planning', () => {
  let dir: string;
  before(() => {
    dir = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-term-plan-')));
    fs.mkdirSync(path.join(dir, 'my tools'));
    fs.writeFileSync(path.join(dir, 'my tools', 'run.sh'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs a program with args directly, whatever the args contain', async () => {
    const plan = await planCommand('git', ['log', '--format=%H | x'], dir, {}, 'linux');
    assert.deepEqual([plan.file, plan.args, plan.shell], ['git', ['log', '--format=%H | x'], false]);
    assert.equal(plan.display, 'git log "--format=%H | x"');
  });

  it('runs a bare program name or path directly', async () => {
    for (const command of ['ls', '/usr/bin/env', 'npm.cmd', './build']) {
      const plan = await planCommand(command, [], dir, {}, 'linux');
      assert.equal(plan.shell, false, command);
      assert.equal(plan.file, command);
    }
  });

  it('runs a whole line without args through /bin/sh -c on POSIX', async () => {
    const plan = await planCommand('npm test && echo done', [], dir, {}, 'linux');
    assert.deepEqual([plan.file, plan.args, plan.shell, plan.display], ['/bin/sh', ['-c', 'npm test && echo done'], true, 'npm test && echo done']);
    for (const line of ['ls|head', 'echo $HOME', 'a;b', 'cat <x', 'ls *.ts', '~/bin/tool', 'echo "hi"']) {
      assert.equal((await planCommand(line, [], dir, {}, 'linux')).shell, true, line);
    }
  });

  it('runs a whole line through cmd.exe /d /s /c on Windows, ComSpec found case-insensitively', async () => {
    const plan = await planCommand('npm test && echo done', [], 'C:\\work', { COMSPEC: 'C:\\Windows\\system32\\cmd.exe' }, 'win32');
    assert.deepEqual(
      [plan.file, plan.args, plan.shell, plan.windowsVerbatimArguments],
      ['C:\\Windows\\system32\\cmd.exe', ['/d', '/s', '/c', '"npm test && echo done"'], true, true],
    );
    assert.equal((await planCommand('dir', [], 'C:\\work', {}, 'win32')).shell, false);
    // A backslash is a path separator on Windows, not shell syntax.
    assert.equal(looksLikeShellLine('C:\\tools\\x.exe', 'win32'), false);
    assert.equal(looksLikeShellLine('C:\\tools\\x.exe', 'linux'), true);
  });

  it('runs an existing file whose path has a space directly', async () => {
    const plan = await planCommand(path.join(dir, 'my tools', 'run.sh'), [], '/', {}, 'linux');
    assert.equal(plan.shell, false);
    const relative = await planCommand('my tools/run.sh', [], dir, {}, 'linux');
    assert.equal(relative.shell, false);
    assert.equal((await planCommand('my tools/missing.sh', [], dir, {}, 'linux')).shell, true);
  });

  it('displays arguments that need quoting quoted', () => {
    assert.equal(displayLine('node', ['-e', 'console.log(1)', '', 'a b']), 'node -e console.log(1) "" "a b"');
  });

  describe('environment', () => {
    it('merges entries over the base, later entries winning', () => {
      const env = mergeEnv(
        { A: '1', B: '2' },
        [
          { name: 'B', value: 'x' },
          { name: 'C', value: 'y' },
          { name: 'C', value: 'z' },
        ],
        'linux',
      );
      assert.deepEqual(env, { A: '1', B: 'x', C: 'z' });
    });

    it('is case-sensitive on POSIX and case-insensitive on Windows', () => {
      assert.deepEqual(mergeEnv({ Path: 'a' }, [{ name: 'PATH', value: 'b' }], 'linux'), { Path: 'a', PATH: 'b' });
      assert.deepEqual(mergeEnv({ Path: 'a' }, [{ name: 'PATH', value: 'b' }], 'win32'), { PATH: 'b' });
      assert.equal(envValue({ Path: 'a' }, 'PATH', 'win32'), 'a');
      assert.equal(envValue({ Path: 'a' }, 'PATH', 'linux'), undefined);
    });

    it('removes inherited variables by name: exactly on POSIX, any spelling on Windows', () => {
      assert.deepEqual(withoutEnv({ Path: 'a', PATH: 'b', X: '1' }, ['PATH'], 'linux'), { Path: 'a', X: '1' });
      assert.deepEqual(withoutEnv({ Path: 'a', X: '1' }, ['PATH'], 'win32'), { X: '1' });
      const base = { A: '1' };
      assert.equal(withoutEnv(base, [], 'linux'), base);
    });

    it('does not modify the base', () => {
      const base = { A: '1' };
      mergeEnv(base, [{ name: 'A', value: '2' }]);
      assert.deepEqual(base, { A: '1' });
    });
  });
});
