import * as assert from 'node:assert/strict';
import { AgentSetting, RemoteAgentSetting, type LocalAgentDefinition, type RemoteAgentDefinition } from '../../../../src/agents/agentConfig';
import { silentLogger } from '../../../../src/common/logger';
import { AgentProcess } from '../../../../src/process/agentProcess';
import type { AgentRuntime } from '../../../../src/process/agentRuntime';
import { AgentRuntimes, type AgentRuntimesOptions, type SharedRuntimeOptions } from '../../../../src/sessions/agents/agentRuntimes';

const local: LocalAgentDefinition = {
  ...AgentSetting.parse({ name: 'Local', command: '${node}', args: ['${extensionPath}/agent.js', '${globalStorage}/state'], env: { KEEP: 'yes' } }),
  source: 'settings',
  description: 'Local',
};
const remote: RemoteAgentDefinition = {
  ...RemoteAgentSetting.parse({ name: 'Far', remote: { url: 'wss://agents.example/acp' } }),
  source: 'settings',
  description: 'Far',
};

describe("AgentRuntimes: each agent definition's runtime, with the settings of the moment", () => {
  let made: Array<{ definition: RemoteAgentDefinition; shared: SharedRuntimeOptions }>;
  let maxBytes: number;
  const connect: AgentRuntimesOptions['connect'] = () => undefined;

  function runtimes(extra: Partial<AgentRuntimesOptions> = {}): AgentRuntimes {
    made = [];
    return new AgentRuntimes({
      logger: silentLogger,
      features: { notices: true },
      connect,
      remoteAgent: (definition, shared) => {
        made.push({ definition, shared });
        return {} as AgentRuntime;
      },
      version: () => '1.2.3',
      extensionPath: '/ext',
      globalStorage: '/storage',
      maxMessageBytes: () => maxBytes,
      trace: () => 'off',
      cwd: () => undefined,
      ...extra,
    });
  }

  beforeEach(() => {
    maxBytes = 1024;
  });

  it("a local agent's command has its variables expanded and runs as plain Node", () => {
    const command = runtimes().command(local);
    assert.equal(command.command, process.execPath);
    assert.deepEqual(command.args, ['/ext/agent.js', '/storage/state']);
    assert.deepEqual(command.env, { ELECTRON_RUN_AS_NODE: '1', KEEP: 'yes' });
  });

  it('a remote entry gets the shared options read at its launch: client info, features, size limit, handlers', () => {
    const r = runtimes();
    r.create(remote);
    maxBytes = 2048;
    r.create(remote);
    assert.equal(made.length, 2);
    assert.equal(made[0]!.definition, remote);
    assert.deepEqual(made[0]!.shared.clientInfo, { name: 'acp-workspace', title: 'ACP Workspace', version: '1.2.3' });
    assert.deepEqual(made[0]!.shared.features, { notices: true });
    assert.equal(made[0]!.shared.registerHandlers, connect);
    assert.deepEqual(
      made.map((m) => m.shared.maxMessageBytes),
      [1024, 2048],
      'the size limit of the moment',
    );
  });

  it('a local agent is a process, not a remote runtime', () => {
    const runtime = runtimes({ cwd: () => '/w/app' }).create(local);
    assert.ok(runtime instanceof AgentProcess);
    assert.equal(made.length, 0);
  });
});
