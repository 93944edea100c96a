import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeOwnSandboxOff, ownSandboxOff, realProgram, recogniseSelfSandboxing } from '../../../src/agents/selfSandboxing';

const noProgram = { programPath: () => undefined };
const command = (cmd: string, args: string[] = [], env: Record<string, string> = {}) => ({ name: 'Codex', command: cmd, args, env });

describe('agents that sandbox themselves: recognising them', () => {
  it('recognises codex-acp run by npx, as a node script from its package, or from the ACP Registry', () => {
    for (const line of [
      command('npx', ['-y', '@agentclientprotocol/codex-acp']),
      command('npx', ['--yes', '@agentclientprotocol/codex-acp@2.6.0']),
      command('npm', ['exec', '--package=@agentclientprotocol/codex-acp@latest', '--', 'codex-acp']),
      command('/usr/bin/node', ['/home/u/.npm/_npx/1f2e/node_modules/@agentclientprotocol/codex-acp/dist/index.js']),
      command('C:\\nodejs\\node.exe', ['C:\\Users\\u\\AppData\\npm\\node_modules\\@agentclientprotocol\\codex-acp\\dist\\index.js']),
    ]) {
      assert.equal(recogniseSelfSandboxing(line, noProgram)?.name, 'Codex', JSON.stringify(line));
    }
    const installed = command('/ext/storage/agents/codex-acp/2.6.0/codex-acp', []);
    assert.equal(recogniseSelfSandboxing(installed, noProgram), undefined, 'a binary with no package on its line is not recognised by its name');
    assert.equal(recogniseSelfSandboxing(installed, { ...noProgram, registryId: 'codex-acp' })?.name, 'Codex', 'but by the registry id its line came from');
  });

  it('recognises a program that links into the package (a global npm install), through its real path', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-selfsandbox-')));
    try {
      const dist = path.join(root, 'lib', 'node_modules', '@agentclientprotocol', 'codex-acp', 'dist');
      fs.mkdirSync(dist, { recursive: true });
      fs.writeFileSync(path.join(dist, 'index.js'), '#!/usr/bin/env node\n');
      fs.mkdirSync(path.join(root, 'bin'));
      fs.symlinkSync(path.join(dist, 'index.js'), path.join(root, 'bin', 'codex-acp'));
      const env = { PATH: path.join(root, 'bin') };
      assert.equal(realProgram('codex-acp', env), path.join(dist, 'index.js'));
      assert.equal(recogniseSelfSandboxing(command('codex-acp'), { programPath: (program) => realProgram(program, env) })?.name, 'Codex');
      assert.equal(realProgram('not-there', env), undefined);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('does not recognise other agents, look-alike names, or the unverified Zed adapter', () => {
    for (const line of [
      command('npx', ['-y', '@agentclientprotocol/claude-agent-acp']),
      command('npx', ['-y', '@zed-industries/codex-acp']),
      command('npx', ['-y', '@agentclientprotocol/codex-acp-extra']),
      command('npx', ['-y', '@agentclientprotocol/codex-acp@1.0.0/../evil']),
      command('codex-acp'),
      command('/opt/codex-acp/bin/codex-acp', ['--acp']),
    ]) {
      assert.equal(recogniseSelfSandboxing(line, noProgram), undefined, JSON.stringify(line));
    }
    assert.equal(recogniseSelfSandboxing(command('npx', ['-y', '@zed-industries/codex-acp']), { ...noProgram, registryId: 'claude-acp' }), undefined);
  });
});

describe('agents that sandbox themselves: turning their own sandbox off for a confined launch', () => {
  const codex = ['-y', '@agentclientprotocol/codex-acp@2.6.0'];

  it('codex-acp starts in its full-access mode (INITIAL_AGENT_MODE), over what it inherits', () => {
    const off = ownSandboxOff(command('npx', codex), noProgram);
    assert.equal(off?.agent.name, 'Codex');
    assert.deepEqual(off?.env, { INITIAL_AGENT_MODE: 'agent-full-access' });
  });

  it('an entry that sets the mode itself is left alone; one that sets the same value is still said', () => {
    assert.equal(ownSandboxOff(command('npx', codex, { INITIAL_AGENT_MODE: 'read-only' }), noProgram), undefined);
    assert.equal(ownSandboxOff({ ...command('npx', codex), unsetEnv: ['INITIAL_AGENT_MODE'] }, noProgram), undefined);
    assert.deepEqual(ownSandboxOff(command('npx', codex, { INITIAL_AGENT_MODE: 'agent-full-access' }), noProgram)?.env, {});
  });

  it('any other agent gets nothing', () => {
    assert.equal(ownSandboxOff(command('npx', ['-y', '@agentclientprotocol/claude-agent-acp']), noProgram), undefined);
  });

  it('is said in words: added to the one-line summary, lines for tooltips', () => {
    assert.deepEqual(describeOwnSandboxOff('Codex', 'writes', 'confined: writes in app'), {
      summary: "confined: writes in app; Codex's own sandbox off",
      detail: [
        "Codex's own sandbox is off: ACP Workspace confines it (writes).",
        'It starts in its full-access mode: it runs commands without asking; they can write only where listed above, and may use the network.',
      ],
    });
  });
});
