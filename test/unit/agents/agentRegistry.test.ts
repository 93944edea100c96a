import * as assert from 'node:assert/strict';
import { isRemoteAgent, type LocalAgentDefinition } from '../../../src/agents/agentConfig';
import { AgentRegistry, restrictedModeMessage } from '../../../src/agents/agentRegistry';
import { AgentProcess } from '../../../src/process/agentProcess';
import { conformance } from '../../helpers/conformance';
import { recordingLogger } from '../../helpers/memoryPeer';
import { isAlive, REFERENCE_AGENT_BUNDLE, tempDir } from '../../helpers/referenceAgent';

/** A definition that runs the bundled reference agent. */
function definition(name: string, args: string[] = []): LocalAgentDefinition {
  return { name, command: process.execPath, args: [REFERENCE_AGENT_BUNDLE, ...args], env: {}, writablePaths: [], source: 'settings', description: name };
}

describe('AgentRegistry (the configured agents and their processes)', function () {
  this.timeout(30_000);
  let trusted: boolean;
  let registry: AgentRegistry;
  let created: AgentProcess[];
  let workspace: { dir: string; cleanup: () => void };

  beforeEach(() => {
    trusted = true;
    created = [];
    workspace = tempDir();
    registry = new AgentRegistry({
      isTrusted: () => trusted,
      createProcess: (def) => {
        const agentProcess = new AgentProcess({
          command: { name: def.name, command: isRemoteAgent(def) ? '' : def.command, args: isRemoteAgent(def) ? [] : def.args, env: {} },
          cwd: workspace.dir,
          logger: recordingLogger(),
          clientInfo: { name: 'acp-workspace-tests', version: '0' },
          tap: conformance.newTap(),
          stopGraceMs: 1000,
        });
        created.push(agentProcess);
        return agentProcess;
      },
    });
  });
  afterEach(async () => {
    await registry.stopAll();
    registry.dispose();
    workspace.cleanup();
  });

  it('starts an agent on demand, once, and refuses in Restricted Mode or for an unknown name', async () => {
    registry.setDefinitions([definition('A'), definition('B')]);
    assert.deepEqual(
      registry.list().map((s) => [s.definition.name, s.state]),
      [
        ['A', 'stopped'],
        ['B', 'stopped'],
      ],
    );
    const [first, second] = await Promise.all([registry.start('A'), registry.start('A')]);
    assert.equal(first, second);
    assert.equal(registry.running('A'), first);
    assert.equal(registry.find('A')?.state, 'running');
    assert.equal(created.length, 1);
    await assert.rejects(registry.start('Nobody'), /There is no agent named "Nobody"/);
    trusted = false;
    await assert.rejects(registry.start('B'), (error: Error) => error.message === restrictedModeMessage());
    assert.equal(created.length, 1, 'nothing was spawned for B');
  });

  it('shows a running agent whose definition changed as stale, and starts the new definition next time', async () => {
    registry.setDefinitions([definition('A')]);
    await registry.start('A');
    let changes = 0;
    registry.onDidChange(() => changes++);
    registry.setDefinitions([definition('A')]);
    assert.equal(registry.find('A')?.stale, false, 'the same definition again is not a change');
    registry.setDefinitions([definition('A', ['--page-size', '7'])]);
    assert.equal(registry.find('A')?.stale, true);
    assert.ok(changes >= 2);
    await registry.stop('A');
    await registry.start('A');
    assert.equal(created.length, 2, 'a new process with the new definition');
    assert.equal(registry.find('A')?.stale, false);
  });

  it('takes a new description or registry label of a running agent without showing it stale', async () => {
    registry.setDefinitions([definition('A')]);
    await registry.start('A');
    registry.setDefinitions([
      { ...definition('A'), description: 'A 1.2.3 from the ACP Registry (npx)', registry: { id: 'a', version: '1.2.3', distribution: 'npx', installed: true } },
    ]);
    assert.equal(registry.find('A')?.stale, false);
    assert.equal(registry.find('A')?.definition.registry?.version, '1.2.3', 'the view shows the new definition');
    await registry.stop('A');
    await registry.start('A');
    assert.equal(created.length, 1, 'the same command line reuses its process');
  });

  it('stops an agent that is no longer defined, and restarts one with a new process (saying it restarts)', async () => {
    registry.setDefinitions([definition('A'), definition('B')]);
    await registry.start('B');
    const pidB = created[0]!.pid!;
    const before = registry.running('B');
    const closed = new Promise<string>((resolve) => before!.onDidClose(resolve));
    const after = await registry.restart('B');
    assert.notEqual(after, before);
    assert.equal(before?.isClosed, true);
    assert.equal(await closed, 'B is restarting.', 'what its sessions are told: a restart, not a shutdown');
    const pidB2 = created[1]!.pid!;
    registry.setDefinitions([definition('A')]);
    assert.equal(registry.find('B'), undefined);
    await created[1]!.dispose();
    assert.equal(isAlive(pidB), false);
    assert.equal(isAlive(pidB2), false);
  });
});
