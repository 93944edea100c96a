import * as assert from 'node:assert/strict';
import {
  agentPresets,
  isPinned,
  isRemoteAgent,
  remoteAgentConfig,
  remoteKindOf,
  type AgentDefinition,
  type LocalAgentDefinition,
  packageCommandLine,
  presetsByRegistryId,
  registryUrlFromSetting,
  resolveAgentCommand,
  resolveAgentList,
  resolveAgentWritablePaths,
} from '../../../src/agents/agentConfig';
import type { InstalledAgent, RegistryAgent } from '../../../src/agents/registry/types';

/** The agent, which must be one run here. */
function local(agent: AgentDefinition | undefined): LocalAgentDefinition {
  assert.ok(agent && !isRemoteAgent(agent), 'a local agent');
  return agent;
}

function localNamed(agents: readonly AgentDefinition[], name: string): LocalAgentDefinition {
  return local(agents.find((a) => a.name === name));
}

describe('agent configuration', () => {
  it('offers the built-in presets when nothing is configured, and no test agent among them', () => {
    const { agents, problems } = resolveAgentList(undefined);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      agents.map((a) => a.name),
      ['Claude Code', 'Codex', 'Gemini CLI', 'opencode'],
    );
    const claude = localNamed(agents, 'Claude Code');
    assert.deepEqual([claude.command, ...claude.args], ['npx', '-y', '@agentclientprotocol/claude-agent-acp']);
    const gemini = localNamed(agents, 'Gemini CLI');
    assert.deepEqual([gemini.command, ...gemini.args], ['npx', '-y', '@google/gemini-cli', '--acp']);
  });

  it('adds user agents after the presets and lets a user entry replace a preset of the same name', () => {
    const { agents, problems } = resolveAgentList([
      { name: 'My Agent', command: '/opt/agent/bin/agent', args: ['--acp'], env: { LOG: 'debug' } },
      { name: 'Claude Code', command: '/usr/local/bin/claude-agent-acp' },
    ]);
    assert.deepEqual(problems, []);
    assert.equal(agents.length, agentPresets().length + 1);
    const mine = localNamed(agents, 'My Agent');
    assert.equal(mine.source, 'settings');
    assert.deepEqual(mine.env, { LOG: 'debug' });
    const claude = localNamed(agents, 'Claude Code');
    assert.equal(claude.source, 'settings');
    assert.equal(claude.command, '/usr/local/bin/claude-agent-acp');
    assert.deepEqual(claude.args, []);
  });

  it('skips bad entries with a readable reason instead of failing', () => {
    const { agents, problems } = resolveAgentList([
      { name: '', command: 'x' },
      { name: 'No command' },
      { name: 'Bad args', command: 'x', args: 'not a list' },
      'just a string',
      { name: 'Twice', command: 'a' },
      { name: 'Twice', command: 'b' },
    ]);
    assert.equal(agents.filter((a) => a.source === 'settings').length, 1);
    assert.equal(problems.length, 5);
    assert.match(problems[0]!, /acpWorkspace\.agents\[0\] was skipped: name: name must not be empty/);
    assert.match(problems[1]!, /\[1\] was skipped: command/);
    assert.match(problems[2]!, /\[2\] was skipped: args/);
    assert.match(problems[4]!, /another agent is already named "Twice"/);
    assert.deepEqual(resolveAgentList({ not: 'a list' }).problems, ['acpWorkspace.agents must be a list of agents; it was ignored.']);
  });

  it('expands ${node}, ${extensionPath}, ${globalStorage} and ${env:NAME}, and adds the Node runtime env for ${node}', () => {
    // The entry the tests and the demo configure for the bundled reference agent (scripts/vscode-web/codeServer.mjs).
    const reference = resolveAgentList([
      {
        name: 'Reference Agent (offline)',
        command: '${node}',
        args: ['${extensionPath}/dist/reference-agent.js', '--store', '${globalStorage}/reference-agent'],
      },
    ]).agents.at(-1)!;
    assert.ok(!isRemoteAgent(reference));
    const variables = { node: '/usr/bin/node', extensionPath: '/ext', globalStorage: '/store', nodeEnv: { ELECTRON_RUN_AS_NODE: '1' } };
    const command = resolveAgentCommand(reference, variables, {});
    assert.equal(command.command, '/usr/bin/node');
    assert.deepEqual(command.args, ['/ext/dist/reference-agent.js', '--store', '/store/reference-agent']);
    assert.deepEqual(command.env, { ELECTRON_RUN_AS_NODE: '1' });
    const custom = resolveAgentCommand(
      { name: 'x', command: 'agent', args: ['--home', '${env:HOME}', '${env:MISSING}'], env: { KEY: '${env:SECRET}' } },
      variables,
      { HOME: '/home/me', SECRET: 's3' },
    );
    assert.deepEqual(custom.args, ['--home', '/home/me', '']);
    assert.deepEqual(custom.env, { KEY: 's3' }, 'the Node runtime env is only for ${node} commands');
    assert.equal(custom.unsetEnv, undefined);
    const unsetting = resolveAgentCommand(
      { name: 'x', command: '${node}', args: [], env: { IS_SANDBOX: null, ELECTRON_RUN_AS_NODE: null, KEEP: 'yes' } },
      variables,
      {},
    );
    assert.deepEqual(unsetting.env, { KEEP: 'yes' });
    assert.deepEqual(unsetting.unsetEnv, ['IS_SANDBOX', 'ELECTRON_RUN_AS_NODE']);
    assert.deepEqual(resolveAgentList([{ name: 'y', command: 'z', env: { A: null } }]).problems, [], 'null is a valid env value');
  });

  it('knows where each preset keeps its state', () => {
    const state = Object.fromEntries(agentPresets().map((p) => [p.name, p.statePaths]));
    assert.deepEqual(state['Claude Code'], ['~/.claude', '~/.claude.json']);
    assert.deepEqual(state['Codex'], ['~/.codex']);
    assert.deepEqual(state['Gemini CLI'], ['~/.gemini']);
    assert.deepEqual(state['opencode'], ['${xdgDataHome}/opencode', '${xdgConfigHome}/opencode', '${xdgCacheHome}/opencode', '${xdgStateHome}/opencode']);
  });

  it('opencode’s state paths follow the XDG variables and HOME the agent runs with (its entry’s env over the inherited one), expanded', () => {
    const variables = { node: '/n/node', extensionPath: '/ext', globalStorage: '/gs' };
    const opencode = agentPresets().find((p) => p.name === 'opencode')!;
    const resolve = (env: NodeJS.ProcessEnv, entryEnv: Record<string, string | null> = {}) =>
      resolveAgentWritablePaths({ ...opencode, env: entryEnv }, variables, env, '/home/u').paths;
    assert.deepEqual(resolve({}), ['/home/u/.local/share/opencode', '/home/u/.config/opencode', '/home/u/.cache/opencode', '/home/u/.local/state/opencode']);
    assert.deepEqual(resolve({ XDG_DATA_HOME: '/data/u/', XDG_CONFIG_HOME: '/cfg', XDG_CACHE_HOME: 'relative/ignored', XDG_STATE_HOME: '/st' }), [
      '/data/u/opencode',
      '/cfg/opencode',
      '/home/u/.cache/opencode',
      '/st/opencode',
    ]);
    assert.deepEqual(resolve({ XDG_DATA_HOME: '/data/u' }, { XDG_DATA_HOME: null, HOME: '/agent-home', XDG_STATE_HOME: '${env:STATE}' }).slice(0, 1), [
      '/agent-home/.local/share/opencode',
    ]);
    assert.deepEqual(resolve({ STATE: '/var/st' }, { XDG_STATE_HOME: '${env:STATE}' }).at(-1), '/var/st/opencode');
  });

  it('reads readablePaths and writableEditorSettings of an entry (expanded like writablePaths) and refuses relative paths', () => {
    const ok = resolveAgentList([{ name: 'a', command: 'x', readablePaths: ['~/lib', '${env:SDK}/share'], writableEditorSettings: true }]);
    assert.deepEqual(ok.problems, []);
    const entry = local(ok.agents.at(-1));
    assert.deepEqual([entry.readablePaths, entry.writableEditorSettings], [['~/lib', '${env:SDK}/share'], true]);
    const { readable, paths } = resolveAgentWritablePaths(entry, { node: '/n', extensionPath: '/e', globalStorage: '/g' }, { SDK: '/opt/sdk' }, '/home/u');
    assert.deepEqual([readable, paths], [['/home/u/lib', '/opt/sdk/share'], []]);
    assert.match(resolveAgentList([{ name: 'b', command: 'x', readablePaths: ['lib'] }]).problems[0] ?? '', /readablePaths.*absolute/s);
    assert.match(resolveAgentList([{ name: 'c', command: 'x', writableEditorSettings: 'yes' }]).problems[0] ?? '', /writableEditorSettings/);
  });

  it('reads writablePaths of an entry and refuses relative ones', () => {
    const ok = resolveAgentList([{ name: 'a', command: 'x', writablePaths: ['~/.a', '/var/a', '${env:A_HOME}/state'] }]);
    assert.deepEqual(ok.problems, []);
    assert.deepEqual(local(ok.agents.at(-1)).writablePaths, ['~/.a', '/var/a', '${env:A_HOME}/state']);
    const bad = resolveAgentList([{ name: 'b', command: 'x', writablePaths: ['state'] }]);
    assert.match(bad.problems[0] ?? '', /writablePaths.*absolute/s);
  });

  it('expands state paths and writablePaths (~, ${…}) and leaves out what is not absolute', () => {
    const variables = { node: '/n/node', extensionPath: '/ext', globalStorage: '/gs' };
    const { paths, ignored } = resolveAgentWritablePaths(
      { statePaths: ['~/.claude', '${globalStorage}/ref'], writablePaths: ['~', '${env:A_HOME}/s', '${env:MISSING}/x', '~/.claude'] },
      variables,
      { A_HOME: '/opt/a' },
      '/home/u',
    );
    assert.deepEqual(paths, ['/home/u/.claude', '/gs/ref', '/home/u', '/opt/a/s']);
    assert.deepEqual(ignored, ['${env:MISSING}/x']);
  });
});

describe('agents from the ACP Registry in the agent list', () => {
  const installed = (id: string, name: string, more: Partial<InstalledAgent> = {}): InstalledAgent => ({
    id,
    name,
    version: '1.2.3',
    description: `${name} from the registry`,
    distribution: 'binary',
    command: `/store/agents/${id}/1.2.3/${id}`,
    args: ['acp'],
    env: { MODE: 'acp' },
    dir: `/store/agents/${id}/1.2.3`,
    installedAt: 1,
    registryUrl: 'https://example.test/registry.json',
    ...more,
  });
  const listed = (id: string, distribution: RegistryAgent['distribution'], version = '0.85.1'): RegistryAgent => ({
    id,
    name: id,
    version,
    description: '',
    authors: [],
    distribution,
  });

  it('maps the presets to their registry ids', () => {
    assert.deepEqual(
      [...presetsByRegistryId()],
      [
        ['claude-acp', 'Claude Code'],
        ['codex-acp', 'Codex'],
        ['gemini', 'Gemini CLI'],
        ['opencode', 'opencode'],
      ],
    );
  });

  it('runs a preset from its installed registry agent, keeping its name and state paths', () => {
    const { agents } = resolveAgentList(undefined, {
      installed: [installed('opencode', 'OpenCode')],
      catalog: [listed('opencode', { npx: { package: '@opencode/cli@9.9.9', args: [], env: {} } })],
    });
    const opencode = agents.find((a) => a.registryId === 'opencode')!;
    assert.equal(opencode.name, 'opencode');
    assert.equal(opencode.source, 'preset');
    assert.deepEqual([opencode.command, ...opencode.args], ['/store/agents/opencode/1.2.3/opencode', 'acp']);
    assert.deepEqual(opencode.env, { MODE: 'acp' });
    assert.deepEqual(opencode.statePaths, agentPresets().find((p) => p.name === 'opencode')!.statePaths);
    assert.deepEqual(opencode.registry, { id: 'opencode', version: '1.2.3', distribution: 'binary', installed: true });
    assert.equal(agents.filter((a) => !isRemoteAgent(a) && a.command.includes('opencode')).length, 1, 'no second entry for the installed agent');
  });

  it('runs a preset from its catalog entry when that needs no download of ours (pinned npx, then uvx)', () => {
    const { agents } = resolveAgentList(undefined, {
      installed: [],
      catalog: [
        listed('claude-acp', { npx: { package: '@agentclientprotocol/claude-agent-acp@0.85.1', args: [], env: { A: 'b' } } }),
        listed('gemini', { npx: { package: '@google/gemini-cli@0.37.1', args: ['--acp'], env: {} } }, '0.37.0'),
        listed('codex-acp', { uvx: { package: 'codex-acp==1.4.0', cmd: 'codex-acp', args: ['--x'], env: {} } }, '1.4.0'),
      ],
    });
    const claude = localNamed(agents, 'Claude Code');
    assert.deepEqual([claude.command, ...claude.args], ['npx', '--yes', '@agentclientprotocol/claude-agent-acp@0.85.1']);
    assert.deepEqual(claude.env, { A: 'b' });
    assert.deepEqual(claude.registry, { id: 'claude-acp', version: '0.85.1', distribution: 'npx', installed: false });
    assert.deepEqual(claude.statePaths, ['~/.claude', '~/.claude.json']);
    const gemini = localNamed(agents, 'Gemini CLI');
    assert.deepEqual([gemini.command, ...gemini.args], ['npx', '--yes', '@google/gemini-cli@0.37.1', '--acp']);
    const codex = localNamed(agents, 'Codex');
    assert.deepEqual([codex.command, ...codex.args], ['uvx', '--from', 'codex-acp==1.4.0', 'codex-acp', '--x']);
  });

  it("keeps a preset's built-in command when the catalog entry needs a download or is not pinned", () => {
    const { agents } = resolveAgentList(undefined, {
      installed: [],
      catalog: [
        listed('opencode', { binary: { 'linux-x86_64': { archive: 'https://example.test/o.tar.gz', cmd: './opencode', args: ['acp'], env: {} } } }),
        listed('claude-acp', { npx: { package: '@agentclientprotocol/claude-agent-acp', args: [], env: {} } }),
      ],
    });
    const opencode = localNamed(agents, 'opencode');
    assert.deepEqual([opencode.command, ...opencode.args], ['opencode', 'acp']);
    assert.equal(opencode.registry, undefined);
    const claude = localNamed(agents, 'Claude Code');
    assert.deepEqual([claude.command, ...claude.args], ['npx', '-y', '@agentclientprotocol/claude-agent-acp']);
  });

  it('lists installed agents that back no preset under their registry name, after the presets and before the user agents', () => {
    const { agents, problems } = resolveAgentList([{ name: 'Mine', command: 'mine' }], {
      installed: [
        installed('goose', 'goose'),
        installed('other-gemini', 'Gemini CLI'),
        installed('cline', 'Cline', { distribution: 'npx', command: 'npx', args: ['--yes', 'cline@1.2.3', '--acp'], env: {} }),
      ],
      catalog: [],
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(
      agents.map((a) => a.name),
      ['Claude Code', 'Codex', 'Gemini CLI', 'opencode', 'Cline', 'Gemini CLI (other-gemini)', 'goose', 'Mine'],
    );
    const goose = localNamed(agents, 'goose');
    assert.equal(goose.source, 'registry');
    assert.equal(goose.description, 'goose from the registry');
    assert.deepEqual(goose.registry, { id: 'goose', version: '1.2.3', distribution: 'binary', installed: true });
    assert.deepEqual(goose.writablePaths, []);
  });

  it("lets the user's entry of the same name win over a registry-backed preset and an installed agent", () => {
    const { agents } = resolveAgentList(
      [
        { name: 'opencode', command: '/usr/local/bin/opencode', args: ['acp'] },
        { name: 'goose', command: '/opt/goose' },
      ],
      { installed: [installed('opencode', 'OpenCode'), installed('goose', 'goose')], catalog: [] },
    );
    const opencode = localNamed(agents, 'opencode');
    assert.equal(opencode.source, 'settings');
    assert.equal(opencode.command, '/usr/local/bin/opencode');
    assert.equal(opencode.registry, undefined);
    const goose = agents.filter((a) => a.name === 'goose');
    assert.equal(goose.length, 1);
    assert.equal(local(goose[0]).command, '/opt/goose');
  });

  it('tells pinned packages from unpinned ones', () => {
    assert.equal(isPinned('npx', '@scope/name@1.2.3'), true);
    assert.equal(isPinned('npx', 'name@1.2.3-beta.1'), true);
    assert.equal(isPinned('npx', '@scope/name'), false);
    assert.equal(isPinned('npx', 'name'), false);
    assert.equal(isPinned('uvx', 'name==1.2.3'), true);
    assert.equal(isPinned('uvx', 'name@1.2.3'), true);
    assert.equal(isPinned('uvx', 'name'), false);
    assert.deepEqual(packageCommandLine('npx', { package: 'p@1', cmd: 'tool', args: ['a'], env: {} }), {
      command: 'npx',
      args: ['--yes', '--package', 'p@1', 'tool', 'a'],
    });
    assert.deepEqual(packageCommandLine('uvx', { package: 'p==1', args: ['a'], env: {} }), { command: 'uvx', args: ['p==1', 'a'] });
  });
});

describe('the acpWorkspace.registry.url setting', () => {
  it('is the official index unless set; empty means no registry', () => {
    assert.equal(registryUrlFromSetting(undefined), 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json');
    assert.equal(registryUrlFromSetting(42), 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json');
    assert.equal(registryUrlFromSetting('  http://127.0.0.1:8080/registry.json '), 'http://127.0.0.1:8080/registry.json');
    assert.equal(registryUrlFromSetting(''), '');
    assert.equal(registryUrlFromSetting('   '), '');
  });
});

describe('remote agent entries', () => {
  it('reads a WebSocket, an HTTP and a Sandbox Agent entry, inferring the transport, and describes each without the URL query', () => {
    const { agents, problems } = resolveAgentList([
      { name: 'Box', remote: { url: 'wss://box.example:8443/acp?tenant=7' } },
      { name: 'Web', remote: { url: 'https://agents.example/acp', pathMappings: [{ local: '~/app', remote: '/workspace/app' }] } },
      { name: 'Sandbox opencode', remote: { url: 'http://127.0.0.1:2468', sandboxAgent: 'opencode' } },
    ]);
    assert.deepEqual(problems, []);
    const [box, web, sandbox] = agents.slice(-3);
    assert.ok(box && isRemoteAgent(box) && web && isRemoteAgent(web) && sandbox && isRemoteAgent(sandbox));
    assert.equal(remoteKindOf(box.remote), 'websocket');
    assert.equal(remoteKindOf(web.remote), 'http');
    assert.equal(remoteKindOf(sandbox.remote), 'sandbox-agent');
    assert.equal(box.description.includes('tenant'), false, 'the query (which may carry a secret) is not shown');
    assert.match(sandbox.description, /opencode.*127\.0\.0\.1:2468/);
    const config = remoteAgentConfig(web.remote, '/home/me');
    assert.deepEqual(config.pathMappings, [{ local: '/home/me/app', remote: '/workspace/app' }]);
    assert.deepEqual(config.endpoint, { url: 'https://agents.example/acp', kind: 'http', allowInsecure: false });
  });

  it('skips a remote entry with a command, a relative mapping, a bad agent id or a token in it, saying why', () => {
    const { agents, problems } = resolveAgentList([
      { name: 'Both', command: 'x', remote: { url: 'wss://a' } },
      { name: 'Relative', remote: { url: 'wss://a', pathMappings: [{ local: 'app', remote: '/w' }] } },
      { name: 'Remote relative', remote: { url: 'wss://a', pathMappings: [{ local: '/app', remote: 'w' }] } },
      { name: 'Bad id', remote: { url: 'http://127.0.0.1:1', sandboxAgent: 'a b' } },
      { name: 'Token', remote: { url: 'wss://a', token: 'secret' } },
    ]);
    assert.equal(problems.length, 5, problems.join('\n'));
    assert.equal(agents.length, agentPresets().length);
    assert.ok(
      problems.every((p) => !p.includes('secret')),
      'a value is never echoed',
    );
  });

  it('a remote entry replaces a preset of the same name', () => {
    const { agents } = resolveAgentList([{ name: 'opencode', remote: { url: 'ws://127.0.0.1:9000' } }]);
    const opencode = agents.find((a) => a.name === 'opencode')!;
    assert.ok(isRemoteAgent(opencode));
    assert.equal(opencode.statePaths, undefined);
  });
});

describe('remote agent path mappings in the settings', () => {
  it('skips an entry whose mappings cannot be used (a folder mapped twice), saying why', () => {
    const { agents, problems } = resolveAgentList([
      {
        name: 'Twice',
        remote: {
          url: 'wss://a',
          pathMappings: [
            { local: '/w/app', remote: '/a' },
            { local: '/w/app', remote: '/b' },
          ],
        },
      },
    ]);
    assert.equal(agents.length, agentPresets().length);
    assert.match(problems.join('\n'), /mapped twice/);
  });
});
