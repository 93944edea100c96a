import * as assert from 'node:assert/strict';
import { agentPresets, resolveAgentCommand, resolveAgentList, resolveAgentWritablePaths } from '../../../src/agents/agentConfig';

describe('agent configuration', () => {
  it('offers the built-in presets when nothing is configured, and no test agent among them', () => {
    const { agents, problems } = resolveAgentList(undefined);
    assert.deepEqual(problems, []);
    assert.deepEqual(agents.map((a) => a.name), ['Claude Code', 'Codex', 'Gemini CLI', 'opencode']);
    const claude = agents.find((a) => a.name === 'Claude Code')!;
    assert.deepEqual([claude.command, ...claude.args], ['npx', '-y', '@agentclientprotocol/claude-agent-acp']);
    const gemini = agents.find((a) => a.name === 'Gemini CLI')!;
    assert.deepEqual([gemini.command, ...gemini.args], ['npx', '-y', '@google/gemini-cli', '--acp']);
  });

  it('adds user agents after the presets and lets a user entry replace a preset of the same name', () => {
    const { agents, problems } = resolveAgentList([
      { name: 'My Agent', command: '/opt/agent/bin/agent', args: ['--acp'], env: { LOG: 'debug' } },
      { name: 'Claude Code', command: '/usr/local/bin/claude-agent-acp' },
    ]);
    assert.deepEqual(problems, []);
    assert.equal(agents.length, agentPresets().length + 1);
    const mine = agents.find((a) => a.name === 'My Agent')!;
    assert.equal(mine.source, 'settings');
    assert.deepEqual(mine.env, { LOG: 'debug' });
    const claude = agents.find((a) => a.name === 'Claude Code')!;
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
    const reference = resolveAgentList([{ name: 'Reference Agent (offline)', command: '${node}', args: ['${extensionPath}/dist/reference-agent.js', '--store', '${globalStorage}/reference-agent'] }]).agents.at(-1)!;
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
    const unsetting = resolveAgentCommand({ name: 'x', command: '${node}', args: [], env: { IS_SANDBOX: null, ELECTRON_RUN_AS_NODE: null, KEEP: 'yes' } }, variables, {});
    assert.deepEqual(unsetting.env, { KEEP: 'yes' });
    assert.deepEqual(unsetting.unsetEnv, ['IS_SANDBOX', 'ELECTRON_RUN_AS_NODE']);
    assert.deepEqual(resolveAgentList([{ name: 'y', command: 'z', env: { A: null } }]).problems, [], 'null is a valid env value');
  });

  it('knows where each preset keeps its state', () => {
    const state = Object.fromEntries(agentPresets().map((p) => [p.name, p.statePaths]));
    assert.deepEqual(state['Claude Code'], ['~/.claude', '~/.claude.json']);
    assert.deepEqual(state['Codex'], ['~/.codex']);
    assert.deepEqual(state['Gemini CLI'], ['~/.gemini']);
    assert.deepEqual(state['opencode'], ['~/.local/share/opencode', '~/.config/opencode', '~/.cache/opencode', '~/.local/state/opencode']);
  });

  it('reads writablePaths of an entry and refuses relative ones', () => {
    const ok = resolveAgentList([{ name: 'a', command: 'x', writablePaths: ['~/.a', '/var/a', '${env:A_HOME}/state'] }]);
    assert.deepEqual(ok.problems, []);
    assert.deepEqual(ok.agents.at(-1)?.writablePaths, ['~/.a', '/var/a', '${env:A_HOME}/state']);
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
