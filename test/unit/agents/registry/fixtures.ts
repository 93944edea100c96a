/**
 * Registry entries as the registry publishes them: FORMAT.md's example and real `agent.json` files from
 * agentclientprotocol/registry (claude-acp, codex-acp, gemini, opencode; goose, binary-only), as
 * `registry.json` carries them (the build sets `icon` to the CDN's URL). goose's linux-x86_64 `sha256` is upper-cased
 * here, to see it normalized.
 */
const CDN = 'https://cdn.agentclientprotocol.com/registry/v1/latest';

/** FORMAT.md's example entry, with URLs filled in where it elides them ("https://..."). */
export const formatExample = {
  id: 'entry-id',
  name: 'Entry Name',
  version: '1.0.0',
  description: 'Entry description',
  repository: 'https://github.com/example/entry',
  website: 'https://example.com/docs',
  authors: ['Author Name'],
  license: 'MIT',
  icon: `${CDN}/entry-id.svg`,
  distribution: {
    binary: {
      'darwin-aarch64': { archive: 'https://example.com/entry-darwin-aarch64.tar.gz', cmd: './executable', args: ['serve'], env: {} },
    },
    npx: { package: '@scope/package', cmd: 'package-command', args: ['--acp'] },
    uvx: { package: 'package-name', cmd: 'package-command', args: ['serve'] },
  },
};

/**
 * FORMAT.md's example with exact versions: its own packages name none, so the catalog leaves its npx and uvx
 * distributions out (an entry must pin what npx or uvx runs).
 */
export const formatExamplePinned = {
  ...formatExample,
  distribution: {
    ...formatExample.distribution,
    npx: { ...formatExample.distribution.npx, package: '@scope/package@1.0.0' },
    uvx: { ...formatExample.distribution.uvx, package: 'package-name==1.0.0' },
  },
};

export const claudeAcp = {
  id: 'claude-acp',
  name: 'Claude Agent',
  version: '0.85.1',
  description: "ACP wrapper for Anthropic's Claude",
  repository: 'https://github.com/agentclientprotocol/claude-agent-acp',
  authors: ['Anthropic', 'Zed Industries', 'JetBrains'],
  license: 'proprietary',
  license_url: 'https://github.com/agentclientprotocol/claude-agent-acp/blob/main/LICENSE',
  distribution: { npx: { package: '@agentclientprotocol/claude-agent-acp@0.85.1' } },
  preview: { version: '0.85.2-preview.22', distribution: { npx: { package: '@agentclientprotocol/claude-agent-acp@0.85.2-preview.22' } } },
  icon: `${CDN}/claude-acp.svg`,
};

export const codexAcp = {
  id: 'codex-acp',
  name: 'Codex',
  version: '1.4.0',
  description: "ACP adapter for OpenAI's coding assistant",
  repository: 'https://github.com/agentclientprotocol/codex-acp',
  authors: ['OpenAI', 'JetBrains s.r.o', 'Zed Industries'],
  license: 'Apache-2.0',
  distribution: { npx: { package: '@agentclientprotocol/codex-acp@1.4.0' } },
  icon: `${CDN}/codex-acp.svg`,
};

export const gemini = {
  id: 'gemini',
  name: 'Gemini CLI',
  version: '0.37.0',
  description: "Google's official CLI for Gemini",
  repository: 'https://github.com/google-gemini/gemini-cli',
  website: 'https://geminicli.com',
  authors: ['Google'],
  license: 'Apache-2.0',
  distribution: { npx: { package: '@google/gemini-cli@0.37.1', args: ['--acp'] } },
  icon: `${CDN}/gemini.svg`,
};

export const opencode = {
  id: 'opencode',
  name: 'OpenCode',
  version: '2.0.23',
  description: 'The open source coding agent',
  repository: 'https://github.com/anomalyco/opencode',
  website: 'https://opencode.ai',
  authors: ['Anomaly'],
  license: 'MIT',
  license_url: 'https://github.com/anomalyco/opencode/blob/dev/LICENSE',
  icon: './icon.svg',
  distribution: { npx: { package: '@opencode/cli@2.0.23', args: ['acp'] } },
};

export const goose = {
  id: 'goose',
  name: 'goose',
  version: '1.50.1',
  description: 'A local, extensible, open source AI agent that automates engineering tasks',
  repository: 'https://github.com/block/goose',
  website: 'https://block.github.io/goose/',
  authors: ['Block'],
  license: 'Apache-2.0',
  license_url: 'https://github.com/block/goose/blob/main/LICENSE',
  distribution: {
    binary: {
      'darwin-aarch64': {
        archive: 'https://github.com/block/goose/releases/download/v1.50.1/goose-aarch64-apple-darwin.tar.bz2',
        cmd: './goose',
        args: ['acp'],
        sha256: '951055fac48e50a2087178307a75a1285f25f6a81675b84974ffc4fe6abe0d62',
      },
      'linux-x86_64': {
        archive: 'https://github.com/block/goose/releases/download/v1.50.1/goose-x86_64-unknown-linux-gnu.tar.bz2',
        cmd: './goose',
        args: ['acp'],
        sha256: 'A5E25BC6D2F950837B579605162E8C84364FCE38F74FACB5ADCB3FF963994D41',
      },
      'windows-x86_64': {
        archive: 'https://github.com/block/goose/releases/download/v1.50.1/goose-x86_64-pc-windows-msvc.zip',
        cmd: './goose-package\\goose.exe',
        args: ['acp'],
        sha256: 'defdbf4f905fb913152a1cf5938674a0862f23c7d453251bc27de59814c1c609',
      },
    },
  },
  icon: `${CDN}/goose.svg`,
};

/** A registry document as the CDN serves it. */
export function registryDocument(agents: readonly unknown[]): unknown {
  return { version: '1.0.0', agents, extensions: [] };
}
