/**
 * Which of an agent's distributions can run on this machine: the `binary` download for this platform, `npx`
 * when Node.js is installed, `uvx` when uv is; and why not, in words, with where to get what is missing.
 */
import * as l10n from '@vscode/l10n';
import type { Availability, DistributionKind, PlatformKey, RegistryAgent } from './types';

/** Where users get Node.js (and so npx). */
export const NODE_DOWNLOAD_URL = 'https://nodejs.org';
/** Where users get uv (and so uvx). */
export const UV_INSTALL_URL = 'https://docs.astral.sh/uv/getting-started/installation/';

/** The registry's key for this OS and CPU (`process.platform`, `process.arch` by default); undefined when it has none. */
export function currentPlatform(platform: string = process.platform, arch: string = process.arch): PlatformKey | undefined {
  const os = platform === 'darwin' ? 'darwin' : platform === 'linux' ? 'linux' : platform === 'win32' ? 'windows' : undefined;
  const cpu = arch === 'arm64' ? 'aarch64' : arch === 'x64' ? 'x86_64' : undefined;
  return os && cpu ? (`${os}-${cpu}` as PlatformKey) : undefined;
}

/** Which tools were found on this machine (the installer looks; this module only judges). */
export interface ToolsFound {
  readonly npx: boolean;
  readonly uvx: boolean;
}

/**
 * One {@link Availability} per distribution the entry has, in the order binary, npx, uvx. `platform` undefined
 * means this machine has no registry platform key (say FreeBSD, or a 32-bit CPU): no download can fit it.
 */
export function availabilityOf(agent: RegistryAgent, platform: PlatformKey | undefined, tools: ToolsFound): Availability[] {
  const result: Availability[] = [];
  const { binary, npx, uvx } = agent.distribution;
  if (binary) {
    if (platform && binary[platform]) result.push({ kind: 'binary', available: true });
    else
      result.push({
        kind: 'binary',
        available: false,
        reason: platform
          ? l10n.t('{0} has no download for {1} (it has: {2}).', agent.name, platform, Object.keys(binary).join(', '))
          : l10n.t('{0} has no download for this operating system and processor ({1}, {2}).', agent.name, process.platform, process.arch),
      });
  }
  if (npx) {
    result.push(
      tools.npx
        ? { kind: 'npx', available: true }
        : { kind: 'npx', available: false, reason: l10n.t('Node.js (npx) was not found: install Node.js from {0}, then restart VS Code.', NODE_DOWNLOAD_URL) },
    );
  }
  if (uvx) {
    result.push(
      tools.uvx
        ? { kind: 'uvx', available: true }
        : { kind: 'uvx', available: false, reason: l10n.t('uv (uvx) was not found: install uv as {0} explains, then restart VS Code.', UV_INSTALL_URL) },
    );
  }
  return result;
}

/** The first available distribution in the order binary, npx, uvx (the order `availabilityOf` lists them in). */
export function preferredKind(availabilities: readonly Availability[]): DistributionKind | undefined {
  const order: readonly DistributionKind[] = ['binary', 'npx', 'uvx'];
  return order.find((kind) => availabilities.some((a) => a.kind === kind && a.available));
}

/** The Node platform a key runs on (for the path rules of its archives). */
export function nodePlatformOf(key: PlatformKey): NodeJS.Platform {
  return key.startsWith('windows') ? 'win32' : key.startsWith('darwin') ? 'darwin' : 'linux';
}
