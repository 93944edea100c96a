/**
 * A confined launch of an agent that sandboxes itself (Codex): AgentConfinement turns its own sandbox off for
 * that launch (the variables go with the launch, AgentProcess hands them to the agent) and says so in the
 * Agents view and the chat header; unconfined, nothing changes. The real codex-acp runs in
 * test/interop/codexConfined.test.ts.
 */
import * as assert from 'node:assert/strict';
import { silentLogger } from '../../../../src/common/logger';
import { AgentProcess } from '../../../../src/process/agentProcess';
import type { Confiner, SandboxMode } from '../../../../src/process/confinement/types';
import { FolderGrants } from '../../../../src/roots/folderGrants';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import { AgentConfinement, type LaunchInput } from '../../../../src/sessions/agents/agentConfinement';
import { recordingLogger } from '../../../helpers/memoryPeer';
import { referenceAgentCommand } from '../../../helpers/referenceAgent';

/** Wraps nothing: runs the command as it is, and records the environment it was given. */
function passThrough(seen: NodeJS.ProcessEnv[]): Confiner {
  return {
    mechanism: 'bubblewrap',
    description: 'bubblewrap 0.8.0',
    wrap: (file, args, env) => {
      seen.push(env);
      return { file, args, env, dispose: () => undefined };
    },
  };
}

function confinement(mode: SandboxMode, confiner: Confiner, logger = silentLogger): AgentConfinement {
  const data = new Map<string, unknown>();
  return new AgentConfinement({
    mode: () => mode,
    platform: 'linux',
    findConfiner: () => Promise.resolve(confiner),
    grants: new FolderGrants({ get: <T>(key: string) => data.get(key) as T | undefined, update: async (key, value) => void data.set(key, value) }),
    sessions: new ActiveSessions(),
    ui: () => ({ confinementUnavailable: () => Promise.resolve(undefined) }),
    home: '/home/u',
    env: { PATH: '' },
    logger,
  });
}

const codex: LaunchInput = {
  command: { name: 'Codex', command: 'npx', args: ['-y', '@agentclientprotocol/codex-acp@2.6.0'], env: {} },
  statePaths: ['/home/u/.codex'],
};

describe('a confined launch of an agent that sandboxes itself', () => {
  it('writes: the launch turns Codex’s own sandbox off, logs it, and the UI says ours confines it', async () => {
    const logger = recordingLogger();
    const agents = confinement('writes', passThrough([]), logger);
    agents.declare('Codex', ['/w/app']);
    const launch = await agents.launch('Codex', codex);
    assert.ok('confiner' in launch);
    assert.deepEqual(launch.env, { INITIAL_AGENT_MODE: 'agent-full-access' });
    const view = agents.view('Codex');
    assert.equal(view?.label, 'Confined (writes)');
    assert.equal(view?.summary, "confined: writes in app, ~/.codex, ~/.npm; Codex's own sandbox off");
    assert.deepEqual(view?.detail.split('\n').slice(-2), [
      "Codex's own sandbox is off: ACP Workspace confines it (writes).",
      'It starts in its full-access mode: it runs commands without asking; they can write only where listed above, and may use the network.',
    ]);
    assert.ok(
      logger.lines.some(
        ({ message }) => message === "Codex: Codex's own sandbox is turned off (INITIAL_AGENT_MODE=agent-full-access); ACP Workspace confines it.",
      ),
    );
    agents.dispose();
  });

  it('a command line from the ACP Registry is recognised by its id', async () => {
    const agents = confinement('strict', passThrough([]));
    const launch = await agents.launch('Codex', {
      command: { name: 'Codex', command: '/ext/agents/codex-acp/codex-acp', args: [], env: {} },
      statePaths: [],
      registryId: 'codex-acp',
    });
    assert.ok('confiner' in launch);
    assert.deepEqual(launch.env, { INITIAL_AGENT_MODE: 'agent-full-access' });
    assert.match(agents.view('Codex')?.detail ?? '', /Codex's own sandbox is off: ACP Workspace confines it \(strict\)\./);
    agents.dispose();
  });

  it('off: the agent’s own sandbox is left alone, and nothing is said about it', async () => {
    const agents = confinement('off', passThrough([]));
    assert.deepEqual(await agents.launch('Codex', codex), { unconfined: 'off' });
    assert.doesNotMatch(JSON.stringify(agents.view('Codex')), /own sandbox/);
    agents.dispose();
  });

  it('an agent that does not sandbox itself, or whose entry sets the mode, gets nothing', async () => {
    const agents = confinement('writes', passThrough([]));
    const claude = await agents.launch('Claude', {
      command: { name: 'Claude', command: 'npx', args: ['-y', '@agentclientprotocol/claude-agent-acp'], env: {} },
      statePaths: [],
    });
    assert.ok('confiner' in claude);
    assert.equal(claude.env, undefined);
    const chosen = await agents.launch('Codex', { ...codex, command: { ...codex.command, env: { INITIAL_AGENT_MODE: 'read-only' } } });
    assert.ok('confiner' in chosen);
    assert.equal(chosen.env, undefined);
    assert.doesNotMatch(agents.view('Codex')?.detail ?? '', /own sandbox/);
    agents.dispose();
  });

  it('AgentProcess starts the confined agent with the launch’s variables over its own and the inherited ones', async () => {
    const seen: NodeJS.ProcessEnv[] = [];
    const agent = new AgentProcess({
      command: referenceAgentCommand([], { MINE: 'kept' }),
      cwd: process.cwd(),
      parentEnv: { PATH: process.env['PATH'] ?? '', INITIAL_AGENT_MODE: 'from-the-parent' },
      logger: silentLogger,
      clientInfo: { name: 'acp-workspace-tests', version: '0.0.0' },
      restartPolicy: false,
      stopGraceMs: 1000,
      confinement: () =>
        Promise.resolve({
          confiner: passThrough(seen),
          policy: { mode: 'writes', writable: [], readable: [] },
          env: { INITIAL_AGENT_MODE: 'agent-full-access' },
        }),
    });
    try {
      await agent.start();
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!['INITIAL_AGENT_MODE'], 'agent-full-access');
      assert.equal(seen[0]!['MINE'], 'kept');
    } finally {
      await agent.dispose();
    }
  });
});
