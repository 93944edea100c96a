import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfinementUnavailableError, type Confiner, type SandboxMode } from '../../../../src/process/confinement/types';
import { LocalCommandConfinement } from '../../../../src/sessions/agents/remoteCommands';

const confiner: Confiner = {
  mechanism: 'bubblewrap',
  description: 'bubblewrap (test)',
  wrap: (file, args, env) => ({ file, args, env, dispose: () => undefined }),
};

describe("LocalCommandConfinement: how a remote agent's command is confined on this machine (issue 24, item 10)", () => {
  let scratch: string;
  let app: string;
  let home: string;
  beforeEach(() => {
    scratch = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-remote-commands-')));
    app = path.join(scratch, 'app');
    home = path.join(scratch, 'home');
    for (const folder of [app, home]) fs.mkdirSync(folder);
  });
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

  const subject = (mode: SandboxMode, options: { platform?: NodeJS.Platform; find?: () => Promise<Confiner> } = {}) =>
    new LocalCommandConfinement({
      mode: () => mode,
      findConfiner: options.find ?? (() => Promise.resolve(confiner)),
      home,
      env: { PATH: '/usr/bin:/bin' },
      ...(options.platform ? { platform: options.platform } : {}),
    });

  it("confines writes to the session's folders whatever acpWorkspace.sandbox says; strict confines reads too", async () => {
    for (const [mode, expected] of [
      ['off', 'writes'],
      ['writes', 'writes'],
      ['strict', 'strict'],
    ] as const) {
      const { confiner: used, policy } = await subject(mode).forCommand([app], 'ls', ['-la']);
      assert.equal(used, confiner);
      assert.equal(policy.mode, expected, mode);
      assert.deepEqual(policy.writable, [app]);
    }
  });

  it("opens nothing but the session's folders, not npm's cache for an npx command", async () => {
    const { policy } = await subject('writes').forCommand([app], 'npx', ['--yes', 'x@1.0.0']);
    assert.deepEqual(policy.writable, [app]);
  });

  it('fails closed: no mechanism here, or Windows, is a refusal with the reason', async () => {
    const missing = () => Promise.reject(new ConfinementUnavailableError('bwrap is not installed.', 'Install bubblewrap.'));
    await assert.rejects(
      subject('off', { find: missing }).forCommand([app], 'ls', []),
      (error: Error) => error instanceof ConfinementUnavailableError && /bwrap is not installed/.test(error.message),
    );
    await assert.rejects(
      subject('off', { platform: 'win32' }).forCommand([app], 'dir', []),
      (error: Error) => error instanceof ConfinementUnavailableError && /not available on Windows/.test(error.message),
    );
  });
});
