/**
 * The confinement policy (src/sessions/agents/confinementPolicy.ts) for what the issue found: an agent launched as
 * `node <package>/dist/index.js` under `strict` (the package, its dependencies and the entry's `readablePaths` must
 * be readable), and the folders whose own configuration the mechanism protects (with the entry's opt-in for
 * editor settings). The last test runs such an agent's shape under the real bwrap.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findConfiner } from '../../../../src/process/confinement/find';
import { describeConfinement } from '../../../../src/sessions/agents/agentConfinement';
import { buildPolicy, homeAbbreviated, packageOf } from '../../../../src/sessions/agents/confinementPolicy';

const NODE = process.execPath;

describe('confinement policy: an agent’s package, readablePaths and protected folders', () => {
  let tmp: string;
  let home: string;
  let app: string;
  let bin: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-policy-pkg-')));
    home = path.join(tmp, 'home');
    app = path.join(tmp, 'w', 'app');
    bin = path.join(tmp, 'opt', 'node', 'bin');
    for (const dir of [home, app, bin]) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\n');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A package at `dir` with `dist/index.js`, and one dependency in its own `node_modules`. */
  function makePackage(dir: string, dependency = path.join(dir, 'node_modules', 'dep')): string {
    fs.mkdirSync(path.join(dir, 'dist'), { recursive: true });
    fs.mkdirSync(dependency, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'agent', version: '1.0.0', type: 'commonjs' }));
    fs.writeFileSync(path.join(dependency, 'package.json'), JSON.stringify({ name: 'dep', version: '1.0.0', main: 'index.js' }));
    fs.writeFileSync(path.join(dependency, 'index.js'), "module.exports = 'dep ok';\n");
    const script = path.join(dir, 'dist', 'index.js');
    fs.writeFileSync(script, "console.log(require('dep'));\n");
    return script;
  }

  const command = (script: string) => ({ name: 'agent', command: path.join(bin, 'node'), args: [script], env: {} });

  it('strict, `node <package>/dist/index.js`: the package (nearest package.json up) is readable, not only dist/', () => {
    const script = makePackage(path.join(tmp, 'opt', 'agent'));
    const policy = buildPolicy({ mode: 'strict', folders: [app], statePaths: [], command: command(script), home, env: { PATH: bin } });
    assert.deepEqual(policy.readable, [path.join(tmp, 'opt', 'node'), path.join(tmp, 'opt', 'agent')]);
  });

  it('strict, a package inside a node_modules tree (npx, a project’s dependency): the whole tree, where its hoisted dependencies are', () => {
    const tree = path.join(tmp, 'proj', 'node_modules');
    const script = makePackage(path.join(tree, '@scope', 'agent'), path.join(tree, 'dep'));
    const policy = buildPolicy({ mode: 'strict', folders: [app], statePaths: [], command: command(script), home, env: { PATH: bin } });
    assert.deepEqual(policy.readable, [path.join(tmp, 'opt', 'node'), tree]);
  });

  it('a package.json at or above the home folder does not open it: the script’s folder only', () => {
    fs.writeFileSync(path.join(home, 'package.json'), '{}');
    const tools = path.join(home, 'tools');
    fs.mkdirSync(tools);
    fs.writeFileSync(path.join(tools, 'agent.js'), '');
    assert.deepEqual(packageOf(path.join(tools, 'agent.js'), home), []);
    const policy = buildPolicy({ mode: 'strict', folders: [app], statePaths: [], command: command(path.join(tools, 'agent.js')), home, env: { PATH: bin } });
    assert.deepEqual(policy.readable, [path.join(tmp, 'opt', 'node'), tools]);
  });

  it('the entry’s readablePaths are readable in strict mode (real paths, nothing twice); writes lists none', () => {
    const sdk = path.join(tmp, 'sdk');
    fs.mkdirSync(path.join(sdk, 'share'), { recursive: true });
    const input = {
      folders: [app],
      statePaths: [],
      command: { name: 'x', command: '/usr/bin/x', args: [], env: {} },
      home,
      env: {},
      readablePaths: [sdk, path.join(sdk, 'share'), path.join(tmp, 'later')],
    };
    assert.deepEqual(buildPolicy({ ...input, mode: 'strict' }).readable, ['/usr', sdk, path.join(tmp, 'later')]);
    assert.deepEqual(buildPolicy({ ...input, mode: 'writes' }).readable, []);
  });

  it('lists the folders (real paths) whose own configuration the mechanism protects, and the entry’s opt-in for editor settings', () => {
    const link = path.join(tmp, 'link-to-app');
    fs.symlinkSync(app, link);
    const base = { statePaths: [path.join(home, '.a')], command: { name: 'x', command: '/usr/bin/x', args: [], env: {} }, home, env: {} };
    const policy = buildPolicy({ ...base, mode: 'writes', folders: [link, app] });
    assert.deepEqual([policy.folders, policy.editorSettings], [[app], false]);
    const opted = buildPolicy({ ...base, mode: 'strict', folders: [app], editorSettings: true });
    assert.deepEqual([opted.folders, opted.editorSettings], [[app], true]);
  });

  it('shows paths under the home folder as ~/…, also when the home folder is given through a link (policies hold real paths)', () => {
    const linkHome = path.join(tmp, 'home-link');
    fs.symlinkSync(home, linkHome);
    const state = path.join(home, '.local', 'share', 'opencode');
    assert.equal(homeAbbreviated(state, linkHome), '~/.local/share/opencode');
    assert.equal(homeAbbreviated(state, home), '~/.local/share/opencode');
    assert.equal(homeAbbreviated(home, linkHome), '~');
    assert.equal(homeAbbreviated(`${home}2/x`, home), `${home}2/x`, 'a sibling with the same prefix is not home');
    const view = describeConfinement(
      { confined: true, description: 'bubblewrap 0.8.0', policy: { mode: 'writes', writable: [app, state], readable: [] } },
      linkHome,
    );
    assert.match(view.detail, /\n {2}~\/\.local\/share\/opencode\n/);
    assert.match(view.summary, /in app, ~\/\.local\/share\/opencode$/);
    assert.ok(!view.detail.includes('read-only'), 'a policy without folders protects nothing');
    const guarded = describeConfinement({ confined: true, description: 'b', policy: { mode: 'writes', writable: [app], readable: [], folders: [app] } }, home);
    assert.match(guarded.detail, /In its folders git's configuration and hooks, \.vscode and \.idea stay read-only\.$/);
    const opted = describeConfinement(
      { confined: true, description: 'b', policy: { mode: 'writes', writable: [app], readable: [], folders: [app], editorSettings: true } },
      home,
    );
    assert.match(opted.detail, /In its folders git's configuration and hooks stay read-only\.$/);
  });

  it('strict under the real bwrap: `node <package>/dist/index.js` starts and loads its dependency', async function () {
    if (process.platform !== 'linux') this.skip(); // bubblewrap is Linux's; CI installs it
    this.timeout(30_000);
    const packageDir = path.join(tmp, 'opt', 'agent');
    const script = makePackage(packageDir);
    const agentCommand = { name: 'agent', command: NODE, args: [script], env: {} };
    const policy = buildPolicy({ mode: 'strict', folders: [app], statePaths: [], command: agentCommand, home, env: process.env });
    const wrapped = (await findConfiner()).wrap(NODE, [script], process.env, app, policy);
    try {
      const result = spawnSync(wrapped.file, [...wrapped.args], { cwd: app, env: wrapped.env, encoding: 'utf8', timeout: 20_000 });
      assert.equal(result.stdout.trim(), 'dep ok', result.stderr);
    } finally {
      wrapped.dispose();
    }
  });
});
