import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AcpConnection } from '../../../../src/acp/connection';
import { silentLogger } from '../../../../src/common/logger';
import { ConfinementUnavailableError, type Confiner, type SandboxMode } from '../../../../src/process/confinement/types';
import { FolderGrants, type KeyValueStore } from '../../../../src/roots/folderGrants';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import { AgentConfinement } from '../../../../src/sessions/agents/agentConfinement';
import type { Chats } from '../../../../src/sessions/chats/chats';
import { AgentLifecycle } from '../../../../src/sessions/opening/agentLifecycle';
import type { SessionRouter } from '../../../../src/sessions/routing/sessionRouter';
import { buildPolicy, coversFolders, realPath, uncoveredFolders } from '../../../../src/sessions/agents/confinementPolicy';
import type { ConfinementChoice } from '../../../../src/sessions/ports';

function memento(): KeyValueStore {
  const data = new Map<string, unknown>();
  return { get: <T>(key: string) => data.get(key) as T | undefined, update: async (key, value) => void data.set(key, value) };
}

const fakeConfiner: Confiner = {
  mechanism: 'bubblewrap',
  description: 'bubblewrap 0.8.0',
  wrap: () => {
    throw new Error('not in this test');
  },
};

describe('confinement policy (what a confined agent may touch)', () => {
  let tmp: string;
  let home: string;
  let app: string;
  let lib: string;
  let bin: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-policy-')));
    home = path.join(tmp, 'home');
    app = path.join(tmp, 'w', 'app');
    lib = path.join(tmp, 'w', 'lib');
    bin = path.join(tmp, 'opt', 'node', 'bin');
    for (const dir of [home, app, lib, bin]) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(bin, 'npx'), '#!/bin/sh\n');
    fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\n');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const npxCommand = { name: 'Claude Code', command: 'npx', args: ['-y', '@agentclientprotocol/claude-agent-acp'], env: {} };

  it('writes: the folders, the state folders and ~/.npm for an npx agent; reads nothing listed', () => {
    const policy = buildPolicy({
      mode: 'writes',
      folders: [app, lib],
      statePaths: [path.join(home, '.claude'), path.join(home, '.claude.json')],
      command: npxCommand,
      home,
      env: { PATH: bin },
    });
    assert.deepEqual(policy, {
      mode: 'writes',
      writable: [app, lib, path.join(home, '.claude'), path.join(home, '.claude.json'), path.join(home, '.npm')],
      readable: [],
      folders: [app, lib],
      editorSettings: false,
    });
  });

  it('strict: reads the installation too (the program’s bin folder’s parent, Node)', () => {
    const policy = buildPolicy({ mode: 'strict', folders: [app], statePaths: [], command: npxCommand, home, env: { PATH: bin } });
    assert.deepEqual(policy.readable, [path.join(tmp, 'opt', 'node')]);
  });

  it('strict, a ${node} agent run from the extension: the extension folder and Node’s installation', () => {
    const ext = path.join(tmp, 'ext');
    fs.mkdirSync(path.join(ext, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(ext, 'dist', 'reference-agent.js'), '');
    const command = { name: 'ref', command: path.join(bin, 'node'), args: [path.join(ext, 'dist', 'reference-agent.js')], env: { ELECTRON_RUN_AS_NODE: '1' } };
    const policy = buildPolicy({ mode: 'strict', folders: [app], statePaths: [], command, home, env: { PATH: '' }, extensionPath: ext });
    assert.deepEqual(policy.readable, [path.join(tmp, 'opt', 'node'), ext]);
    assert.deepEqual(policy.writable, [app], 'a program not started through npx needs no ~/.npm');
  });

  it('uses real paths, also below a path that does not exist yet, and lists nothing twice or nested', () => {
    const link = path.join(tmp, 'link-to-app');
    fs.symlinkSync(app, link);
    const policy = buildPolicy({
      mode: 'writes',
      folders: [link, app, path.join(app, 'sub')],
      statePaths: [path.join(link, 'not-yet', 'state')],
      command: { name: 'x', command: '/usr/bin/x', args: [], env: {} },
      home,
      env: {},
    });
    assert.deepEqual(policy.writable, [app]);
    assert.equal(realPath(path.join(link, 'not-yet', 'state')), path.join(app, 'not-yet', 'state'));
  });

  it('says whether a policy covers folders (inside a writable path counts; a sibling with the same prefix does not)', () => {
    const policy = { writable: ['/w/app', '/home/u/.claude'] };
    assert.ok(coversFolders(policy, ['/w/app', '/w/app/sub']));
    assert.equal(coversFolders(policy, ['/w/app', '/w/lib']), false);
    assert.deepEqual(uncoveredFolders(policy, ['/w/app2', '/w/app/x']), ['/w/app2']);
  });
});

describe('AgentConfinement (launch, widening and narrowing through the agent lifecycle, fail closed)', () => {
  let mode: SandboxMode;
  let running: boolean;
  let restarts: string[];
  let told: string[];
  let uiAnswer: ConfinementChoice | undefined;
  let asked: string[];
  let grants: FolderGrants;
  let find: () => Promise<Confiner>;
  let confinement: AgentConfinement;
  let lifecycle: AgentLifecycle;
  const input = { command: { name: 'A', command: '/usr/bin/a', args: [], env: {} }, statePaths: ['/home/u/.a'] };

  beforeEach(() => {
    mode = 'writes';
    running = false;
    restarts = [];
    told = [];
    asked = [];
    uiAnswer = undefined;
    grants = new FolderGrants(memento());
    find = () => Promise.resolve(fakeConfiner);
    confinement = new AgentConfinement({
      mode: () => mode,
      platform: 'linux',
      findConfiner: () => find(),
      grants,
      sessions: new ActiveSessions(),
      ui: () => ({
        confinementUnavailable: (agent, reason, fix) => {
          asked.push(`${agent}: ${reason} ${fix}`);
          return Promise.resolve(uiAnswer);
        },
      }),
      home: '/home/u',
      env: {},
      logger: silentLogger,
    });
    // Restarts for the confinement's decisions: a relaunch; the one chat of A says what it is told.
    const chat = { session: { agentName: 'A' }, thread: { addInfo: (line: string) => told.push(line) }, expectRestart: () => undefined };
    lifecycle = new AgentLifecycle({
      agents: {
        start: () => Promise.reject(new Error('not in this test')),
        restart: async (name) => {
          restarts.push(name);
          await confinement.launch(name, input);
          return {} as AcpConnection;
        },
        running: () => undefined,
        isRunning: () => running,
      },
      chats: { all: () => [chat], has: () => false } as unknown as Chats,
      router: {} as SessionRouter,
      sessions: new ActiveSessions(),
      mcp: { forAgent: () => ({ servers: [], notPassed: [] }) },
      logger: silentLogger,
      confinement,
      grantsChanged: grants.onDidChange,
    });
  });
  afterEach(() => {
    lifecycle.dispose();
    confinement.dispose();
  });

  it('off: unconfined, said so in the UI', async () => {
    mode = 'off';
    assert.deepEqual(await confinement.launch('A', input), { unconfined: 'off' });
    assert.deepEqual(confinement.view('A'), {
      confined: false,
      label: 'Not confined',
      summary: 'not confined (acpWorkspace.sandbox is off)',
      detail: 'Not confined: acpWorkspace.sandbox is off. Its own tools can read and write anything your account can.',
    });
  });

  it('writes: the mechanism and the policy of the granted folders and the chosen primary folders', async () => {
    await grants.grant('A', ['/w/lib']);
    await lifecycle.ensureCovers('A', ['/w/app']);
    const launch = await confinement.launch('A', input);
    assert.ok('confiner' in launch);
    assert.deepEqual(launch.policy.writable, ['/w/lib', '/w/app', '/home/u/.a']);
    assert.equal(confinement.view('A')?.summary, 'confined: writes in lib, app, ~/.a');
    assert.equal(confinement.view('A')?.label, 'Confined (writes)');
  });

  it('a grant not covered by the running agent restarts it, after saying why; a covered one does not', async () => {
    await lifecycle.ensureCovers('A', ['/w/app']);
    await confinement.launch('A', input);
    running = true;
    await lifecycle.ensureCovers('A', ['/w/app/sub']);
    assert.deepEqual(restarts, []);
    await grants.grant('A', ['/w/lib']);
    // A new session with the new folder waits for the restart the grant started.
    await lifecycle.ensureCovers('A', ['/w/app', '/w/lib']);
    assert.deepEqual(restarts, ['A']);
    assert.deepEqual(told, ['Restarting A so that its confinement includes lib.']);
    assert.deepEqual(confinement.widens('A', ['/w/lib']), []);
  });

  it('never restarts an agent that runs unconfined or is not running', async () => {
    await grants.grant('A', ['/w/lib']);
    await lifecycle.ensureCovers('A', ['/w/other']);
    mode = 'off';
    await confinement.launch('A', input);
    running = true;
    await lifecycle.ensureCovers('A', ['/w/third']);
    assert.deepEqual(restarts, []);
  });

  it('narrows: a folder taken back that the running agent may write restarts it without the folder, after saying why', async () => {
    await grants.grant('A', ['/w/lib']);
    await lifecycle.ensureCovers('A', ['/w/app', '/w/lib']);
    await confinement.launch('A', input);
    running = true;
    await grants.revoke('A', ['/w/lib']);
    assert.equal(await lifecycle.narrow('A', ['/w/lib']), true);
    assert.deepEqual(restarts, ['A']);
    assert.deepEqual(told, ['Restarting A so that it can no longer write in lib: it is no longer shared with A. A running turn is stopped.']);
    assert.equal(confinement.view('A')?.summary, 'confined: writes in app, ~/.a');
    // Chosen again for a session (with consent where one is needed): it comes back.
    await lifecycle.ensureCovers('A', ['/w/lib']);
    assert.deepEqual(restarts, ['A', 'A']);
    assert.equal(confinement.view('A')?.summary, 'confined: writes in app, lib, ~/.a');
  });

  it('narrows only what it can and must: not an agent that is not running or runs unconfined, not a folder still in use or inside another shared one', async () => {
    await lifecycle.ensureCovers('A', ['/w', '/w/lib']);
    await confinement.launch('A', input);
    assert.equal(await lifecycle.narrow('A', ['/w/lib']), false, 'not running: the next launch leaves it out');
    running = true;
    assert.equal(await lifecycle.narrow('A', ['/w/lib']), false, '/w is still shared, and lib is inside it');
    assert.equal(await lifecycle.narrow('A', ['/x/other']), false, 'never covered');
    mode = 'off';
    await confinement.launch('A', input);
    assert.equal(await lifecycle.narrow('A', ['/w']), false, 'unconfined');
    assert.deepEqual(restarts, []);
  });

  it('says "restart to apply" when acpWorkspace.sandbox changed since the running agent started, and tells the views', async () => {
    await confinement.launch('A', input);
    let changes = 0;
    confinement.onDidChange(() => changes++);
    assert.equal(confinement.view('A')?.pending, undefined);
    mode = 'strict';
    confinement.settingChanged();
    assert.equal(changes, 1, 'the Agents view and the chat headers are told');
    assert.equal(confinement.view('A')?.pending, 'restart to apply acpWorkspace.sandbox: strict');
    mode = 'off';
    assert.equal(confinement.view('A')?.pending, 'restart to apply acpWorkspace.sandbox: off');
    mode = 'writes';
    assert.equal(confinement.view('A')?.pending, undefined, 'back to what it runs with');
    // An agent started unconfined because the setting was off.
    mode = 'off';
    await confinement.launch('A', input);
    mode = 'writes';
    assert.equal(confinement.view('A')?.pending, 'restart to apply acpWorkspace.sandbox: writes');
    assert.equal(confinement.view('A', false)?.pending, undefined, 'not running: its next start applies the setting');
  });

  it('fails closed: the start is refused, the user is told why and how to fix it, and may start it unconfined once', async () => {
    find = () => Promise.reject(new ConfinementUnavailableError('bwrap is not installed.', 'Install bubblewrap (apt install bubblewrap).'));
    let spawned = 0;
    const start = async () => {
      const launch = await confinement.launch('A', input); // as AgentProcess does: a rejection spawns nothing
      spawned++;
      assert.deepEqual(launch, { unconfined: 'unconfined-once' });
      return {} as AcpConnection;
    };
    await assert.rejects(confinement.guardStart('A', start), /bwrap is not installed/);
    assert.deepEqual(asked, ['A: bwrap is not installed. Install bubblewrap (apt install bubblewrap).']);
    assert.equal(spawned, 0);
    uiAnswer = 'unconfined-once';
    await confinement.guardStart('A', start);
    assert.equal(spawned, 1);
    assert.equal(confinement.view('A')?.summary, 'not confined (started unconfined this once)');
    // Once only: the next launch is confined again (and refused again).
    await assert.rejects(confinement.launch('A', input), /bwrap is not installed/);
  });

  it('recognises the refusal even when the process wraps the error in its own words', async () => {
    find = () => Promise.reject(new ConfinementUnavailableError('No user namespaces.', 'Enable them.'));
    const start = async () => {
      try {
        await confinement.launch('A', input);
      } catch (error) {
        throw new Error(`A was not started: ${(error as Error).message}`);
      }
      return {} as AcpConnection;
    };
    await assert.rejects(confinement.guardStart('A', start), /A was not started/);
    assert.deepEqual(asked, ['A: No user namespaces. Enable them.']);
  });

  it('refuses on Windows, saying plainly it is not available there', async () => {
    const windows = new AgentConfinement({
      ...(confinement as unknown as { options: ConstructorParameters<typeof AgentConfinement>[0] }).options,
      platform: 'win32',
    });
    await assert.rejects(
      windows.launch('A', input),
      (error: unknown) => error instanceof ConfinementUnavailableError && /not available on Windows/.test(error.reason),
    );
    windows.dispose();
  });
});
