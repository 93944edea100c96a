/**
 * Installs, updates and removes agents from the ACP Registry in the extension's global storage:
 *
 * - `binary`: the platform's archive downloaded to `agents/.staging/<random>/` (checksum verified when the
 *   registry gives one), unpacked there by the safe extractor, its `cmd` checked to be a file inside, then the
 *   folder renamed to `agents/<id>/<version>/`; the command is that file's absolute path.
 * - `npx`: `npx --yes <pkg@ver> …` (or `--package <pkg@ver> <cmd> …`); installing runs a warm-up that puts the
 *   pinned package in npm's cache without starting the agent.
 * - `uvx`: `uvx <pkg> …` (or `--from <pkg> <cmd> …`); installing checks that uv is there and records the agent
 *   (uv fetches the package at the first start).
 *
 * `agents/installed.json` records what is installed. On a failure or a cancel nothing is left in staging and
 * the previous installation stays as it was. An update leaves the old version's folder in place (a running
 * agent may still use it); {@link RegistryInstaller.cleanUp} removes folders no record uses.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { Emitter, type Event } from '../../../common/events';
import { silentLogger, type Logger } from '../../../common/logger';
import type {
  AgentInstaller,
  Availability,
  BinaryTarget,
  DistributionKind,
  InstalledAgent,
  InstallOptions,
  PackageDistribution,
  PlatformKey,
  RegistryAgent,
} from '../types';
import { DownloadCancelledError, download, type DownloadOptions } from './download';
import { entrySegments } from './entryPaths';
import { archiveKind, extractArchive, type ArchiveKind } from './extract';
import type { ExtractLimits } from './extractedTree';
import { installedRecordProblem, readInstalled, writeInstalled } from './installedStore';
import { availabilityOf, currentPlatform, nodePlatformOf, preferredKind, type ToolsFound } from '../platform';
import { findPackageTools, type PackageTools } from './tools';
import { runCommand, type CommandRunner } from './warmUp';

export interface RegistryInstallerOptions {
  /** The extension's global storage folder; everything lives under `<storageDir>/agents/`. */
  readonly storageDir: string;
  /** The registry URL recorded with each installation. */
  readonly registryUrl: () => string;
  /** This machine's platform key (tests pretend to be another). */
  readonly platform?: PlatformKey;
  /** Finds npx, node and uvx (default: on {@link env}'s PATH). */
  readonly tools?: () => Promise<PackageTools>;
  /** Runs the npx warm-up (default: a real process). */
  readonly runner?: CommandRunner;
  readonly logger?: Logger;
  /** The environment agents and the warm-up run with (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Download limits and timeouts (tests make them small). */
  readonly download?: Pick<DownloadOptions, 'maxBytes' | 'idleTimeoutMs'>;
  readonly extractLimits?: Partial<ExtractLimits>;
  readonly warmUpTimeoutMs?: number;
}

/** A version becomes a folder name: nothing that could climb or hide. */
const SAFE_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;
const SAFE_ID = /^[a-z][a-z0-9-]{0,127}$/;

export class RegistryInstaller implements AgentInstaller {
  private list: readonly InstalledAgent[];
  /** The installed list could not be read when last read: kept aside before it is overwritten. */
  private unreadable: boolean;
  private readonly logger: Logger;
  private readonly changed = new Emitter<void>();
  /** Operations on installed.json run one at a time (an install and an uninstall may overlap). */
  private queue: Promise<unknown> = Promise.resolve();

  readonly onDidChange: Event<void> = this.changed.event;

  constructor(private readonly options: RegistryInstallerOptions) {
    this.logger = options.logger ?? silentLogger;
    const read = readInstalled(this.listFile);
    this.list = read.agents;
    this.unreadable = read.problem !== undefined;
    if (read.problem)
      this.logger.warn(
        l10n.t(
          'Installed registry agents: {0} Starting with none; the file is kept as {1}.unreadable when the list is next written.',
          read.problem,
          this.listFile,
        ),
      );
    for (const refused of read.refused ?? []) this.logger.warn(refused);
  }

  private get agentsDir(): string {
    return path.join(this.options.storageDir, 'agents');
  }

  private get listFile(): string {
    return path.join(this.agentsDir, 'installed.json');
  }

  private get stagingDir(): string {
    return path.join(this.agentsDir, '.staging');
  }

  installed(): readonly InstalledAgent[] {
    return this.list;
  }

  find(id: string): InstalledAgent | undefined {
    return this.list.find((agent) => agent.id === id);
  }

  async availability(agent: RegistryAgent): Promise<readonly Availability[]> {
    const { npx, uvx, binary } = agent.distribution;
    const tools = npx || uvx ? await this.tools() : {};
    const found: ToolsFound = { npx: !!(tools.npx && tools.node), uvx: !!tools.uvx };
    const platform = this.platform;
    return availabilityOf(agent, platform, found).map((entry) => {
      // A download for this platform that this extension cannot unpack (e.g. .tar.bz2) does not work here either.
      const target = entry.kind === 'binary' && entry.available && platform ? binary?.[platform] : undefined;
      const kindOf = target ? archiveKind(target.archive) : undefined;
      return kindOf !== undefined && typeof kindOf !== 'string' ? { kind: 'binary', available: false, reason: kindOf.unsupported } : entry;
    });
  }

  async install(agent: RegistryAgent, options: InstallOptions = {}): Promise<InstalledAgent> {
    if (!SAFE_ID.test(agent.id)) throw new Error(l10n.t('"{0}" is not a valid agent id.', agent.id));
    const all = await this.availability(agent);
    const kind = options.kind ?? preferredKind(all);
    if (kind === undefined) {
      const reasons = all.map((entry) => `${entry.kind}: ${entry.reason ?? ''}`).join('; ');
      throw new Error(
        all.length === 0 ? l10n.t('{0} lists no way to install it.', agent.name) : l10n.t('{0} cannot be installed here ({1}).', agent.name, reasons),
      );
    }
    const chosen = all.find((entry) => entry.kind === kind);
    const reason = chosen ? chosen.reason : l10n.t('the registry lists no {0} distribution for it', kind);
    if (!chosen?.available) throw new Error(l10n.t('{0} cannot be installed with {1}: {2}', agent.name, kind, reason ?? ''));
    const record = await this.prepare(agent, kind, options);
    await this.serial(async () => {
      const fresh = this.reread();
      await this.save([...fresh.filter((other) => other.id !== agent.id), record]);
    });
    this.logger.info(`Installed ${agent.id} ${agent.version} (${kind})${record.dir ? ` in ${record.dir}` : ''}.`);
    this.changed.fire();
    return record;
  }

  async uninstall(id: string): Promise<void> {
    const removed = await this.serial(async () => {
      const fresh = this.reread();
      const record = fresh.find((agent) => agent.id === id);
      if (!record) return undefined;
      await this.save(fresh.filter((agent) => agent.id !== id));
      return record;
    });
    if (!removed) return;
    this.changed.fire();
    if (removed.distribution === 'binary' && SAFE_ID.test(id)) await this.removeFolder(path.join(this.agentsDir, id));
    this.logger.info(`Uninstalled ${id} ${removed.version}.`);
  }

  /**
   * Removes what no record uses: versions left by updates and uninstalls that could not remove a busy folder,
   * and staging folders of installs that were interrupted (older than a day, so another window's install in
   * progress is left alone). Never the folder of a recorded installation. Failures are logged.
   */
  async cleanUp(): Promise<void> {
    const keep = new Set(this.reread().flatMap((agent) => (agent.dir ? [path.resolve(agent.dir)] : [])));
    let ids: fs.Dirent[];
    try {
      ids = await fs.promises.readdir(this.agentsDir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of ids) {
      if (!entry.isDirectory()) continue;
      if (entry.name === '.staging') {
        await this.cleanStaging();
        continue;
      }
      if (!SAFE_ID.test(entry.name)) continue;
      const idDir = path.join(this.agentsDir, entry.name);
      const versions = await fs.promises.readdir(idDir, { withFileTypes: true }).catch(() => []);
      for (const version of versions) {
        const dir = path.join(idDir, version.name);
        if (!keep.has(path.resolve(dir))) await this.removeFolder(dir);
      }
      if ((await fs.promises.readdir(idDir).catch(() => ['?'])).length === 0) await fs.promises.rmdir(idDir).catch(() => undefined);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }

  /** Does the work of an install that changes files; returns the record to save. */
  private async prepare(agent: RegistryAgent, kind: DistributionKind, options: InstallOptions): Promise<InstalledAgent> {
    const base = {
      id: agent.id,
      name: agent.name,
      version: agent.version,
      description: agent.description,
      distribution: kind,
      registryUrl: this.options.registryUrl(),
    };
    // The catalog refused such entries already; an agent handed over some other way is held to the same rules
    // before anything runs (the npx warm-up would run the package).
    const planned =
      kind === 'binary'
        ? { ...base, command: '', args: [], env: { ...agent.distribution.binary?.[this.platform!]?.env }, installedAt: 0 }
        : {
            ...base,
            command: kind,
            args: kind === 'npx' ? npxArgs(agent.distribution.npx!) : uvxArgs(agent.distribution.uvx!),
            env: { ...agent.distribution[kind]!.env },
            installedAt: 0,
          };
    const refused = installedRecordProblem(planned);
    if (refused !== undefined) throw new Error(l10n.t('{0} cannot be installed: {1}', agent.name, refused));
    switch (kind) {
      case 'binary': {
        const platform = this.platform!;
        const target = agent.distribution.binary![platform]!;
        const { command, dir } = await this.installBinary(agent, target, platform, options);
        return { ...base, command, args: [...target.args], env: { ...target.env }, dir, installedAt: Date.now() };
      }
      case 'npx': {
        const npx = agent.distribution.npx!;
        options.onProgress?.({ message: l10n.t('Downloading {0} {1} with npm…', agent.name, agent.version) });
        await (this.options.runner ?? runCommand)('npx', ['--yes', '--package', npx.package, '--', 'node', '--version'], {
          cwd: await this.ensureDir(this.agentsDir),
          env: { ...this.env, ...npx.env },
          ...(options.signal ? { signal: options.signal } : {}),
          ...(this.options.warmUpTimeoutMs !== undefined ? { timeoutMs: this.options.warmUpTimeoutMs } : {}),
        });
        return { ...base, command: 'npx', args: npxArgs(npx), env: { ...npx.env }, installedAt: Date.now() };
      }
      case 'uvx': {
        const uvx = agent.distribution.uvx!;
        // uvx has no "fetch without running" step: it resolves and caches the package at the first start.
        return { ...base, command: 'uvx', args: uvxArgs(uvx), env: { ...uvx.env }, installedAt: Date.now() };
      }
    }
  }

  private async installBinary(
    agent: RegistryAgent,
    target: BinaryTarget,
    platform: PlatformKey,
    options: InstallOptions,
  ): Promise<{ command: string; dir: string }> {
    if (!SAFE_VERSION.test(agent.version)) throw new Error(l10n.t('"{0}" is not a version this extension can install.', agent.version));
    const kind = archiveKind(target.archive) as ArchiveKind;
    const nodePlatform = nodePlatformOf(platform);
    const cmd = entrySegments(target.cmd, nodePlatform);
    if (typeof cmd === 'string' || cmd.length === 0)
      throw new Error(l10n.t('The registry entry of {0} names a command outside its archive: {1}', agent.name, target.cmd));
    const staging = await fs.promises.mkdtemp(path.join(await this.ensureDir(this.stagingDir), `${agent.id}-`));
    try {
      const archive = path.join(staging, 'download');
      options.onProgress?.({ message: l10n.t('Downloading {0} {1}…', agent.name, agent.version), fraction: 0 });
      await download(target.archive, archive, {
        ...this.options.download,
        ...(target.sha256 ? { sha256: target.sha256 } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        onProgress: progressReporter(agent, options),
      });
      options.onProgress?.({ message: l10n.t('Unpacking {0} {1}…', agent.name, agent.version) });
      const unpacked = path.join(staging, 'x');
      await extractArchive(archive, kind, unpacked, {
        rawName: cmd.join('/'),
        platform: nodePlatform,
        ...(this.options.extractLimits ? { limits: this.options.extractLimits } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      await checkCommand(unpacked, cmd, agent, target.cmd);
      if (options.signal?.aborted) throw new DownloadCancelledError();
      const finalDir = path.join(this.agentsDir, agent.id, agent.version);
      await this.ensureDir(path.dirname(finalDir));
      await this.moveIntoPlace(unpacked, finalDir, staging);
      return { command: path.join(finalDir, ...cmd), dir: finalDir };
    } finally {
      await fs.promises
        .rm(staging, { recursive: true, force: true, maxRetries: 3 })
        .catch((error: unknown) => this.logger.warn(`Could not remove ${staging}: ${String(error)}`));
    }
  }

  /**
   * Renames the unpacked folder to its final place. The same version installed again replaces the old folder,
   * which is first moved into staging (and put back if the rename fails).
   */
  private async moveIntoPlace(unpacked: string, finalDir: string, staging: string): Promise<void> {
    const previous = path.join(staging, 'previous');
    let moved = false;
    try {
      await fs.promises.rename(finalDir, previous);
      moved = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    try {
      await fs.promises.rename(unpacked, finalDir);
    } catch (error) {
      if (moved) await fs.promises.rename(previous, finalDir).catch(() => undefined);
      throw error;
    }
  }

  private get platform(): PlatformKey | undefined {
    return this.options.platform ?? currentPlatform();
  }

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  private tools(): Promise<PackageTools> {
    return this.options.tools ? this.options.tools() : Promise.resolve(findPackageTools(this.env));
  }

  /** The list as on disk now (another window may have changed it), remembered. */
  private reread(): readonly InstalledAgent[] {
    const read = readInstalled(this.listFile);
    if (read.problem) {
      this.unreadable = true;
      this.logger.warn(read.problem);
    }
    this.list = read.agents;
    return this.list;
  }

  private async save(agents: readonly InstalledAgent[]): Promise<void> {
    await writeInstalled(this.listFile, agents, this.unreadable);
    this.unreadable = false;
    this.list = agents;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async ensureDir(dir: string): Promise<string> {
    await fs.promises.mkdir(dir, { recursive: true });
    return dir;
  }

  private async removeFolder(dir: string): Promise<void> {
    try {
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      // Windows keeps a running program's folder busy; cleanUp() tries again at the next start.
      this.logger.warn(`Could not remove ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}); it is removed at the next start.`);
    }
  }

  private async cleanStaging(): Promise<void> {
    const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
    const entries = await fs.promises.readdir(this.stagingDir).catch(() => []);
    for (const name of entries) {
      const dir = path.join(this.stagingDir, name);
      const stats = await fs.promises.lstat(dir).catch(() => undefined);
      if (stats && stats.mtimeMs < dayAgo) await this.removeFolder(dir);
    }
  }
}

/** `npx` arguments: `--yes <pkg> …args`, or `--yes --package <pkg> <cmd> …args` when the entry names a command. */
export function npxArgs(npx: PackageDistribution): string[] {
  return npx.cmd ? ['--yes', '--package', npx.package, npx.cmd, ...npx.args] : ['--yes', npx.package, ...npx.args];
}

/** `uvx` arguments: `<pkg> …args`, or `--from <pkg> <cmd> …args` when the entry names a command. */
export function uvxArgs(uvx: PackageDistribution): string[] {
  return uvx.cmd ? ['--from', uvx.package, uvx.cmd, ...uvx.args] : [uvx.package, ...uvx.args];
}

/** The command must be a regular file inside the unpacked folder (through links that stay inside); made executable. */
async function checkCommand(unpacked: string, cmd: readonly string[], agent: RegistryAgent, shown: string): Promise<void> {
  const file = path.join(unpacked, ...cmd);
  const missing = () => new Error(l10n.t('The archive of {0} has no program at {1}.', agent.name, shown));
  let real: string;
  try {
    real = await fs.promises.realpath(file);
  } catch {
    throw missing();
  }
  const relative = path.relative(await fs.promises.realpath(unpacked), real);
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw missing();
  const stats = await fs.promises.stat(real);
  if (!stats.isFile()) throw missing();
  if (process.platform !== 'win32' && (stats.mode & 0o111) === 0) await fs.promises.chmod(real, 0o755);
}

/** Download progress in words, at most once per whole percent (or per MB when the size is unknown). */
function progressReporter(agent: RegistryAgent, options: InstallOptions): (received: number, total: number | undefined) => void {
  let last = -1;
  return (received, total) => {
    if (!options.onProgress) return;
    const step = total ? Math.floor((received / total) * 100) : Math.floor(received / (1024 * 1024));
    if (step === last) return;
    last = step;
    const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);
    options.onProgress(
      total
        ? {
            message: l10n.t('Downloading {0} {1} ({2} of {3} MB)', agent.name, agent.version, mb(received), mb(total)),
            fraction: Math.min(1, received / total),
          }
        : { message: l10n.t('Downloading {0} {1} ({2} MB)', agent.name, agent.version, mb(received)) },
    );
  };
}
