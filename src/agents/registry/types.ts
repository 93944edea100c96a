/**
 * The ACP Registry as this extension sees it: the catalog (what the registry lists, validated), and the agents
 * installed from it. The contract between the catalog (registrySource), the installer (install/) and the UI
 * (vscode/agentGallery, the Agents view); plain data, no behaviour.
 */
import type { Event } from '../../common/events';

/** The registry's platform keys for `binary` distributions (FORMAT.md, "Platform Targets"). */
export const PLATFORM_KEYS = ['darwin-aarch64', 'darwin-x86_64', 'linux-aarch64', 'linux-x86_64', 'windows-aarch64', 'windows-x86_64'] as const;
export type PlatformKey = (typeof PLATFORM_KEYS)[number];

/** The official index. */
export const OFFICIAL_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

/** One platform's download: an archive (.tar.gz/.tgz/.zip, or the raw executable), the command inside it. */
export interface BinaryTarget {
  readonly archive: string;
  /** Relative to the extracted archive, e.g. `./opencode`. */
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the archive, lower case, when the registry gives one. */
  readonly sha256?: string;
}

/** An npm (`npx`) or PyPI (`uvx`) package; `package` carries its pinned version (`name@1.2.3`, `name==1.2.3`). */
export interface PackageDistribution {
  readonly package: string;
  /** The command of the package to run when it is not the package's default (`npx --package P cmd`). */
  readonly cmd?: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export type DistributionKind = 'binary' | 'npx' | 'uvx';

export interface RegistryAgent {
  /** `^[a-z][a-z0-9-]*$`. */
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly repository?: string;
  readonly website?: string;
  readonly authors: readonly string[];
  readonly license?: string;
  readonly licenseUrl?: string;
  /** URL of an SVG icon. */
  readonly icon?: string;
  readonly distribution: {
    readonly binary?: Partial<Readonly<Record<PlatformKey, BinaryTarget>>>;
    readonly npx?: PackageDistribution;
    readonly uvx?: PackageDistribution;
  };
}

/** What the catalog knows now, and where it came from. */
export interface RegistryCatalog {
  /** The registry URL this is (or stands in) for. */
  readonly url: string;
  readonly agents: readonly RegistryAgent[];
  /** One readable line per entry that was skipped (bad entries never fail the whole catalog). */
  readonly problems: readonly string[];
  /** `network`: fetched (or revalidated, 304) now; `cache`: the last good copy on disk; `snapshot`: shipped with the extension. */
  readonly source: 'network' | 'cache' | 'snapshot';
  /** When the registry last answered (ms since the epoch), if ever. */
  readonly fetchedAt?: number;
  /** Why the registry could not be read this time, in words (the catalog then is the cache or the snapshot). */
  readonly error?: string;
}

/** The catalog, kept current: cached with HTTP validators, a bundled snapshot before the first fetch. */
export interface RegistrySource {
  /** What is known now, without waiting (the cache or the snapshot before any refresh). */
  current(): RegistryCatalog;
  /** Asks the registry (conditional request); never rejects: a failure is `error` on what it resolves with. */
  refresh(signal?: AbortSignal): Promise<RegistryCatalog>;
  readonly onDidChange: Event<RegistryCatalog>;
}

/** Whether a distribution can be used here, and if not, why and what to do. */
export interface Availability {
  readonly kind: DistributionKind;
  readonly available: boolean;
  /** Why not (e.g. "uv is not installed: …how to get it…", "no download for linux-aarch64"). */
  readonly reason?: string;
}

/** An agent installed from the registry, as recorded in the extension's global storage. */
export interface InstalledAgent {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly distribution: DistributionKind;
  /** The command line to run it (absolute path for `binary`; `npx`/`uvx` with the pinned package otherwise). */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** `binary`: the folder its archive was extracted into (under the extension's global storage). */
  readonly dir?: string;
  readonly installedAt: number;
  readonly registryUrl: string;
}

export interface InstallProgress {
  /** What happens now, in words ("Downloading opencode 1.2.3 (12.1 of 40.0 MB)", "Verifying", "Unpacking"). */
  readonly message: string;
  /** 0..1 when known. */
  readonly fraction?: number;
}

export interface InstallOptions {
  readonly onProgress?: (progress: InstallProgress) => void;
  readonly signal?: AbortSignal;
  /** Which distribution; the first available of binary, npx, uvx when not given. */
  readonly kind?: DistributionKind;
}

/** Installs, updates and removes registry agents. */
export interface AgentInstaller {
  installed(): readonly InstalledAgent[];
  find(id: string): InstalledAgent | undefined;
  /** Which distributions of `agent` work on this machine (platform, Node/npx, uv). */
  availability(agent: RegistryAgent): Promise<readonly Availability[]>;
  /**
   * Installs `agent` (or replaces an installed older/newer version: an update). On failure or cancel nothing
   * is left behind and the previous installation, if any, stays as it was. Rejects with an Error whose message
   * says what went wrong in words.
   */
  install(agent: RegistryAgent, options?: InstallOptions): Promise<InstalledAgent>;
  /** Removes the record and its files. */
  uninstall(id: string): Promise<void>;
  readonly onDidChange: Event<void>;
}
