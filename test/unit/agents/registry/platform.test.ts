import * as assert from 'node:assert/strict';
import { availabilityOf, currentPlatform, preferredKind } from '../../../../src/agents/registry/platform';
import { parseAgent } from '../../../../src/agents/registry/schema';
import { PLATFORM_KEYS, type RegistryAgent } from '../../../../src/agents/registry/types';
import { formatExamplePinned, gemini, goose } from './fixtures';

function agent(entry: unknown): RegistryAgent {
  const parsed = parseAgent(entry);
  if (!parsed.agent) assert.fail(parsed.error);
  return parsed.agent;
}

describe('ACP Registry platforms', () => {
  it('maps every OS and CPU Node reports to the registry key, or to none', () => {
    const table: [string, string, string | undefined][] = [
      ['darwin', 'arm64', 'darwin-aarch64'],
      ['darwin', 'x64', 'darwin-x86_64'],
      ['linux', 'arm64', 'linux-aarch64'],
      ['linux', 'x64', 'linux-x86_64'],
      ['win32', 'arm64', 'windows-aarch64'],
      ['win32', 'x64', 'windows-x86_64'],
      ['linux', 'ia32', undefined],
      ['linux', 'arm', undefined],
      ['linux', 'riscv64', undefined],
      ['linux', 's390x', undefined],
      ['win32', 'ia32', undefined],
      ['freebsd', 'x64', undefined],
      ['openbsd', 'arm64', undefined],
      ['sunos', 'x64', undefined],
      ['aix', 'ppc64', undefined],
      ['android', 'arm64', undefined],
    ];
    for (const [platform, arch, key] of table) assert.equal(currentPlatform(platform, arch), key, `${platform} ${arch}`);
    assert.deepEqual(new Set(table.map(([p, a]) => currentPlatform(p, a)).filter(Boolean)), new Set(PLATFORM_KEYS));
    assert.equal(currentPlatform(), currentPlatform(process.platform, process.arch));
  });

  it('lists one availability per distribution, in the order binary, npx, uvx', () => {
    const all = agent(formatExamplePinned);
    assert.deepEqual(availabilityOf(all, 'darwin-aarch64', { npx: true, uvx: true }), [
      { kind: 'binary', available: true },
      { kind: 'npx', available: true },
      { kind: 'uvx', available: true },
    ]);
    assert.equal(preferredKind(availabilityOf(all, 'darwin-aarch64', { npx: true, uvx: true })), 'binary');
  });

  it('says which platforms a binary agent has when this one is not among them', () => {
    const [binary] = availabilityOf(agent(goose), 'linux-aarch64', { npx: true, uvx: true });
    assert.equal(binary!.available, false);
    assert.equal(binary!.reason, 'goose has no download for linux-aarch64 (it has: darwin-aarch64, linux-x86_64, windows-x86_64).');
    assert.match(availabilityOf(agent(goose), undefined, { npx: true, uvx: true })[0]!.reason!, /no download for this operating system and processor/);
    assert.equal(preferredKind(availabilityOf(agent(goose), 'linux-aarch64', { npx: true, uvx: true })), undefined);
  });

  it('says how to get Node.js or uv when they are missing, and falls back to what is there', () => {
    const all = agent(formatExamplePinned);
    const none = availabilityOf(all, 'linux-x86_64', { npx: false, uvx: false });
    assert.deepEqual(
      none.map((a) => [a.kind, a.available]),
      [
        ['binary', false],
        ['npx', false],
        ['uvx', false],
      ],
    );
    assert.match(none[1]!.reason!, /Node\.js \(npx\) was not found: install Node\.js from https:\/\/nodejs\.org/);
    assert.match(none[2]!.reason!, /uv \(uvx\) was not found: install uv as https:\/\/docs\.astral\.sh\/uv\/getting-started\/installation\/ explains/);
    assert.equal(preferredKind(none), undefined);
    assert.equal(preferredKind(availabilityOf(all, 'linux-x86_64', { npx: false, uvx: true })), 'uvx');
    assert.equal(preferredKind(availabilityOf(all, 'linux-x86_64', { npx: true, uvx: true })), 'npx');
    assert.deepEqual(availabilityOf(agent(gemini), 'linux-x86_64', { npx: true, uvx: false }), [{ kind: 'npx', available: true }]);
  });
});
