import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_AGENTS, parseAgent, parseRegistry, staysInsideArchive } from '../../../../src/agents/registry/schema';
import { claudeAcp, codexAcp, formatExample, gemini, goose, opencode, registryDocument } from './fixtures';

const URL = 'https://registry.example/registry.json';

function only(entry: unknown) {
  const parsed = parseAgent(entry);
  if (!parsed.agent) assert.fail(`expected an agent, got: ${parsed.error}`);
  return parsed.agent;
}

function skipped(entry: unknown): string {
  const parsed = parseAgent(entry);
  if (parsed.agent) assert.fail(`expected ${JSON.stringify(entry).slice(0, 80)} to be skipped`);
  return parsed.error;
}

describe('ACP Registry schema', () => {
  it("reads FORMAT.md's example with all three distributions", () => {
    const agent = only(formatExample);
    assert.deepEqual(agent, {
      id: 'entry-id',
      name: 'Entry Name',
      version: '1.0.0',
      description: 'Entry description',
      repository: 'https://github.com/example/entry',
      website: 'https://example.com/docs',
      authors: ['Author Name'],
      license: 'MIT',
      icon: 'https://cdn.agentclientprotocol.com/registry/v1/latest/entry-id.svg',
      distribution: {
        binary: { 'darwin-aarch64': { archive: 'https://example.com/entry-darwin-aarch64.tar.gz', cmd: './executable', args: ['serve'], env: {} } },
        npx: { package: '@scope/package', cmd: 'package-command', args: ['--acp'], env: {} },
        uvx: { package: 'package-name', cmd: 'package-command', args: ['serve'], env: {} },
      },
    });
  });

  it('reads real entries: license_url becomes licenseUrl, preview is ignored, args and env default to empty', () => {
    const claude = only(claudeAcp);
    assert.equal(claude.licenseUrl, 'https://github.com/agentclientprotocol/claude-agent-acp/blob/main/LICENSE');
    assert.equal('license_url' in claude, false);
    assert.equal('preview' in claude, false);
    assert.deepEqual(claude.distribution, { npx: { package: '@agentclientprotocol/claude-agent-acp@0.85.1', args: [], env: {} } });
    assert.equal('cmd' in claude.distribution.npx!, false);
    assert.deepEqual(only(codexAcp).authors, ['OpenAI', 'JetBrains s.r.o', 'Zed Industries']);
    assert.deepEqual(only(gemini).distribution.npx!.args, ['--acp']);
  });

  it("keeps an agent whose icon is the registry's source form (./icon.svg), without the icon", () => {
    const agent = only(opencode);
    assert.equal(agent.icon, undefined);
    assert.equal(agent.name, 'OpenCode');
  });

  it('reads a binary-only agent: platforms, sha256 in lower case, Windows paths with backslashes', () => {
    const agent = only(goose);
    assert.deepEqual(Object.keys(agent.distribution.binary!), ['darwin-aarch64', 'linux-x86_64', 'windows-x86_64']);
    assert.equal(agent.distribution.binary!['linux-x86_64']!.sha256, 'a5e25bc6d2f950837b579605162e8c84364fce38f74facb5adcb3ff963994d41');
    assert.equal(agent.distribution.binary!['windows-x86_64']!.cmd, './goose-package\\goose.exe');
    assert.deepEqual(agent.distribution.binary!['darwin-aarch64']!.env, {});
    assert.equal(agent.distribution.npx, undefined);
  });

  describe('skips a bad entry with the reason', () => {
    const cases: [string, (entry: Record<string, unknown>) => unknown, RegExp][] = [
      ['not an object', () => 'claude', /expected object/],
      ['no id', ({ id: _id, ...rest }) => rest, /^id: /],
      ['an id with capitals', (e) => ({ ...e, id: 'Gemini' }), /^id: must be lower-case letters/],
      ['an id starting with a digit', (e) => ({ ...e, id: '9lives' }), /^id: must be lower-case/],
      ['an empty name', (e) => ({ ...e, name: '  ' }), /^name: must not be empty/],
      ['a name over 200 characters', (e) => ({ ...e, name: 'n'.repeat(201) }), /^name: longer than 200 characters/],
      ['a description over 2,000 characters', (e) => ({ ...e, description: 'd'.repeat(2001) }), /^description: longer than 2000 characters/],
      ['a version that is not semver', (e) => ({ ...e, version: 'latest' }), /^version: must be a version/],
      ['a relative repository URL', (e) => ({ ...e, repository: 'github.com/x/y' }), /^repository: must be an absolute http\(s\) URL/],
      ['a file: website', (e) => ({ ...e, website: 'file:///etc/passwd' }), /^website: must be an absolute http\(s\) URL/],
      ['a URL over 2,048 characters', (e) => ({ ...e, license_url: `https://x.example/${'a'.repeat(2048)}` }), /^license_url: longer than 2048/],
      ['authors not a list', (e) => ({ ...e, authors: 'Google' }), /^authors: /],
      ['no distribution', ({ distribution: _d, ...rest }) => rest, /^distribution: /],
      ['an empty distribution', (e) => ({ ...e, distribution: {} }), /no binary, npx or uvx distribution/],
      ['an npx package that is empty', (e) => ({ ...e, distribution: { npx: { package: ' ' } } }), /^distribution\.npx\.package: must not be empty/],
      ['an npx without package', (e) => ({ ...e, distribution: { npx: { args: ['--acp'] } } }), /^distribution\.npx\.package: /],
      ['a uvx cmd that is empty', (e) => ({ ...e, distribution: { uvx: { package: 'x==1.0.0', cmd: '' } } }), /^distribution\.uvx\.cmd: must not be empty/],
      ['65 args', (e) => ({ ...e, distribution: { npx: { package: 'x@1.0.0', args: Array(65).fill('a') } } }), /^distribution\.npx\.args: more than 64 arguments/],
      ['env values that are not strings', (e) => ({ ...e, distribution: { npx: { package: 'x@1.0.0', env: { A: 1 } } } }), /^distribution\.npx\.env\.A: /],
      ['an npx env setting NODE_OPTIONS', (e) => ({ ...e, distribution: { npx: { package: 'x@1.0.0', env: { NODE_OPTIONS: '--require /tmp/x.js' } } } }), /^distribution\.npx\.env: sets NODE_OPTIONS, which decides what code a program loads/],
      ['a uvx env setting PYTHONPATH', (e) => ({ ...e, distribution: { uvx: { package: 'x==1.0.0', env: { PYTHONPATH: '/tmp' } } } }), /^distribution\.uvx\.env: sets PYTHONPATH/],
      [
        'a binary whose only platform sets LD_PRELOAD and PATH',
        (e) => ({ ...e, distribution: { binary: { 'linux-x86_64': { archive: 'https://x.example/a.tar.gz', cmd: './x', env: { LD_PRELOAD: '/tmp/x.so', Path: '/tmp', DROID_DISABLE_AUTO_UPDATE: '1' } } } } }),
        /^distribution\.binary\.linux-x86_64\.env: sets LD_PRELOAD, Path, which/,
      ],
      [
        'a binary whose only platform has no archive',
        (e) => ({ ...e, distribution: { binary: { 'linux-x86_64': { cmd: './x' } } } }),
        /^distribution\.binary\.linux-x86_64\.archive: /,
      ],
    ];
    for (const [what, make, reason] of cases) {
      it(what, () => assert.match(skipped(make({ ...gemini })), reason));
    }
  });

  it('refuses a binary cmd outside the archive, leaving out only that platform', () => {
    for (const cmd of ['/usr/bin/agent', '../agent', './bin/../../agent', '..\\agent.exe', 'bin\\..\\..\\agent.exe', 'C:\\agent.exe', '\\\\server\\share\\a.exe', '']) {
      const parsed = parseAgent({
        ...goose,
        distribution: { binary: { ...goose.distribution.binary, 'linux-aarch64': { archive: 'https://example.com/a.tar.gz', cmd } } },
      });
      assert.ok(parsed.agent, cmd);
      assert.equal(parsed.agent.distribution.binary!['linux-aarch64'], undefined, cmd);
      assert.deepEqual(Object.keys(parsed.agent.distribution.binary!), ['darwin-aarch64', 'linux-x86_64', 'windows-x86_64']);
      assert.equal(parsed.notes.length, 1);
      assert.match(parsed.notes[0]!, /^left out distribution\.binary\.linux-aarch64\.cmd: /);
    }
    for (const cmd of ['./goose', 'goose', './bin/devin', './bin\\devin.exe', './a..b/c', '...']) assert.equal(staysInsideArchive(cmd), true, cmd);
  });

  it('reports a bad sha256 and a bad archive URL per platform, and keeps the npx distribution when every platform is bad', () => {
    const parsed = parseAgent({
      ...gemini,
      distribution: {
        npx: gemini.distribution.npx,
        binary: {
          'linux-x86_64': { archive: 'https://example.com/a.tar.gz', cmd: './a', sha256: 'abc' },
          'darwin-aarch64': { archive: 'ftp://example.com/a.tar.gz', cmd: './a' },
        },
      },
    });
    assert.ok(parsed.agent);
    assert.equal(parsed.agent.distribution.binary, undefined);
    assert.ok(parsed.agent.distribution.npx);
    assert.deepEqual(
      parsed.notes.map((n) => n.replace(/:.*/, '')),
      ['left out distribution.binary.linux-x86_64.sha256', 'left out distribution.binary.darwin-aarch64.archive'],
    );
  });

  it('ignores platforms it does not know and fields it does not use', () => {
    const agent = only({
      ...goose,
      future: { anything: true },
      distribution: { ...goose.distribution, docker: { image: 'x' }, binary: { ...goose.distribution.binary, 'linux-riscv64': { archive: 'https://x.example/a', cmd: './a' } } },
    });
    assert.deepEqual(Object.keys(agent.distribution.binary!), ['darwin-aarch64', 'linux-x86_64', 'windows-x86_64']);
    assert.equal('future' in agent, false);
    assert.equal('docker' in agent.distribution, false);
  });

  describe('the whole document', () => {
    it('reads every entry, skipping bad ones with one line naming the entry, the field and why', () => {
      const broken = { ...gemini, id: 'broken', distribution: { binary: { 'linux-x86_64': { archive: 'https://x.example/a.tgz', cmd: '/abs' } } } };
      const { agents, problems } = parseRegistry(registryDocument([claudeAcp, 'nonsense', broken, codexAcp, { ...gemini, id: 'Bad' }]), URL);
      assert.deepEqual(
        agents.map((a) => a.id),
        ['claude-acp', 'codex-acp'],
      );
      assert.equal(problems.length, 3);
      assert.match(problems[0]!, /^agents\[1\] was skipped: Invalid input: expected object/);
      assert.match(problems[1]!, /^agents\[2\] \("broken"\) was skipped: distribution\.binary\.linux-x86_64\.cmd: must be a relative path inside the archive/);
      assert.match(problems[2]!, /^agents\[4\] \("Bad"\) was skipped: id: /);
    });

    it('keeps the first of two entries with the same id and reports the second', () => {
      const { agents, problems } = parseRegistry(registryDocument([gemini, codexAcp, { ...gemini, name: 'Gemini again' }]), URL);
      assert.deepEqual(
        agents.map((a) => a.name),
        ['Gemini CLI', 'Codex'],
      );
      assert.deepEqual(problems, ['agents[2] ("gemini") was skipped: the id "gemini" is already used by agents[0].']);
    });

    it('reports platforms left out of an agent that is kept', () => {
      const partly = { ...goose, distribution: { binary: { ...goose.distribution.binary, 'linux-aarch64': { archive: 'https://x.example/a.tgz', cmd: '../escape' } } } };
      const { agents, problems } = parseRegistry(registryDocument([partly]), URL);
      assert.equal(agents.length, 1);
      assert.equal(problems.length, 1);
      assert.match(problems[0]!, /^agents\[0\] \("goose"\): left out distribution\.binary\.linux-aarch64\.cmd: /);
    });

    it('refuses what is not a registry document, in words', () => {
      assert.throws(() => parseRegistry([], URL), /registry\.json is not an ACP registry: the document is not a JSON object/);
      assert.throws(() => parseRegistry(null, URL), /not a JSON object/);
      assert.throws(() => parseRegistry({ version: '1.0.0' }, URL), /it has no "agents" list/);
      assert.throws(() => parseRegistry({ agents: {} }, URL), /it has no "agents" list/);
    });

    it(`reads at most ${MAX_AGENTS} agents and says how many were not read`, () => {
      const many = Array.from({ length: MAX_AGENTS + 3 }, (_, i) => ({ ...codexAcp, id: `agent-${i}` }));
      const { agents, problems } = parseRegistry(registryDocument(many), URL);
      assert.equal(agents.length, MAX_AGENTS);
      assert.deepEqual(problems, [`Only the first ${MAX_AGENTS} of ${MAX_AGENTS + 3} agents were read.`]);
    });

    it('reads the shipped snapshot whole: every agent, no problem, the agents the issue names among them', () => {
      const snapshot: unknown = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../../resources/registry-snapshot.json'), 'utf8'));
      const { agents, problems } = parseRegistry(snapshot, URL);
      assert.deepEqual(problems, []);
      assert.equal(agents.length, (snapshot as { agents: unknown[] }).agents.length);
      assert.ok(agents.length >= 28);
      const ids = new Set(agents.map((a) => a.id));
      for (const id of ['claude-acp', 'codex-acp', 'gemini', 'github-copilot-cli', 'cursor', 'goose', 'junie', 'opencode', 'qwen-code', 'cline', 'factory-droid'])
        assert.ok(ids.has(id), id);
      for (const agent of agents) assert.match(agent.icon ?? '', /^https:\/\/cdn\.agentclientprotocol\.com\/registry\/v1\/latest\/[a-z0-9-]+\.svg$/);
    });
  });
});
