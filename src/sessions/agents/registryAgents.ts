/**
 * The ACP Registry's agents as the product uses them: what the "Add Agent" gallery shows (the catalog, what
 * works here, what is installed, updates, actions in progress) and its verbs, over a {@link RegistrySource} and
 * an {@link AgentInstaller}. One action per agent at a time; an install or update can be cancelled; a failure is
 * kept on its agent in words; installing and updating are refused in Restricted Mode (uninstalling deletes only
 * the extension's own files and is allowed).
 */
import * as l10n from '@vscode/l10n';
import type {
  Availability,
  DistributionKind,
  InstalledAgent,
  InstallProgress,
  RegistryAgent,
  RegistrySource,
  AgentInstaller,
} from '../../agents/registry/types';
import { Disposable } from '../../common/lifecycle';
import { Emitter, type Event } from '../../common/events';
import { silentLogger, type Logger } from '../../common/logger';
import type { RegistryAgentsInput } from '../../agents/agentConfig';
import type { AgentGallerySource, GalleryAgent, GalleryState } from './agentGallery';
import { errorMessage } from '../../common/errors';

/** Why nothing is installed or updated in Restricted Mode. */
export function restrictedInstallMessage(): string {
  return l10n.t(
    'Agents are not installed in Restricted Mode: installing downloads and runs programs from the ACP Registry. Trust the workspace to install or update agents.',
  );
}

export interface RegistryAgentsOptions {
  readonly source: RegistrySource;
  /** The registry URL now (`acpWorkspace.registry.url`); empty means no registry: no catalog is shown or asked. */
  readonly registryUrl: () => string;
  readonly installer: AgentInstaller;
  /** An agent's icon as a data: URI (`IconCache`). */
  readonly icons: { dataUri(url: string): Promise<string | undefined> };
  /** Workspace Trust: installing and updating are refused without it. */
  readonly isTrusted: () => boolean;
  /** Registry id → the name of the built-in agent (preset) it backs, e.g. `claude-acp` → "Claude Code". */
  readonly builtIns: ReadonlyMap<string, string>;
  /** Whether the registry's `candidate` version is newer than the `installed` one. */
  readonly isNewer: (candidate: string, installed: string) => boolean;
  readonly logger?: Logger;
  /** The shortest time between two change events fired for progress alone. Default 100 ms (at most 10 a second). */
  readonly progressIntervalMs?: number;
  /** How old the catalog may get before {@link RegistryAgents.refreshIfDue} asks again. Default a day. */
  readonly maxAgeMs?: number;
  readonly now?: () => number;
}

/** An installed agent whose registry lists a newer version. */
export interface AgentUpdate {
  readonly id: string;
  readonly name: string;
  readonly installed: string;
  readonly available: string;
}

/** How one action ended. */
export type ActionOutcome =
  | { readonly kind: 'done' }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'failed'; readonly message: string }
  /** Another action on the same agent was running: nothing was done. */
  | { readonly kind: 'busy' };

type Action = NonNullable<GalleryAgent['busy']>['action'];

interface Running {
  readonly action: Action;
  progress: InstallProgress;
  readonly abort: AbortController;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export class RegistryAgents extends Disposable implements AgentGallerySource {
  private readonly changeEmitter = this._register(new Emitter<void>());
  readonly onDidChange: Event<void> = this.changeEmitter.event;
  private readonly agentsEmitter = this._register(new Emitter<void>());
  /** What {@link listInput} gives changed: the catalog, the installed agents or the registry setting (not progress). */
  readonly onDidChangeAgents: Event<void> = this.agentsEmitter.event;

  private readonly running = new Map<string, Running>();
  private readonly errors = new Map<string, string>();
  /** Per catalog entry (a new catalog brings new objects), what works here; computed once. */
  private availability = new WeakMap<RegistryAgent, readonly Availability[]>();
  private readonly asked = new WeakSet<RegistryAgent>();
  private refreshing: Promise<void> | undefined;
  private progressTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: RegistryAgentsOptions) {
    super();
    this.logger = options.logger ?? silentLogger;
    this._register(options.source.onDidChange(() => this.agentsChanged()));
    this._register(options.installer.onDidChange(() => this.agentsChanged()));
    this._register({ dispose: () => this.progressTimer !== undefined && clearTimeout(this.progressTimer) });
    this._register({ dispose: () => this.running.forEach((run) => run.abort.abort()) });
  }

  /** The catalog's agents, none when the registry setting is empty. */
  listed(): readonly RegistryAgent[] {
    return this.options.registryUrl() === '' ? [] : this.options.source.current().agents;
  }

  /** What the agent list takes from the registry (agentConfig's `resolveAgentList`). */
  listInput(): RegistryAgentsInput {
    return { installed: this.options.installer.installed(), catalog: this.listed() };
  }

  state(): GalleryState {
    const catalog = this.catalogSummary();
    const listed = new Set<string>();
    const agents: GalleryAgent[] = [];
    for (const agent of this.listed()) {
      listed.add(agent.id);
      agents.push(this.galleryAgent(agent, this.availabilityOf(agent)));
    }
    // Installed agents the catalog no longer lists (or from another registry) stay, so they can be removed.
    for (const installed of this.options.installer.installed()) {
      if (!listed.has(installed.id)) agents.push(this.galleryAgent(asRegistryAgent(installed), []));
    }
    return {
      catalog,
      agents,
      trusted: this.options.isTrusted(),
      refreshing: this.refreshing !== undefined,
    };
  }

  /** Installed agents whose registry lists a newer version, in the catalog's order. */
  updates(): AgentUpdate[] {
    const updates: AgentUpdate[] = [];
    for (const agent of this.listed()) {
      const installed = this.options.installer.find(agent.id);
      if (installed && this.options.isNewer(agent.version, installed.version))
        updates.push({ id: agent.id, name: agent.name, installed: installed.version, available: agent.version });
    }
    return updates;
  }

  /** The newer version the registry lists for an installed agent, if any. */
  updateFor(id: string): string | undefined {
    const installed = this.options.installer.find(id);
    const listed = this.listed().find((agent) => agent.id === id);
    return installed && listed && this.options.isNewer(listed.version, installed.version) ? listed.version : undefined;
  }

  /** Workspace Trust changed: the gallery enables or disables its buttons. */
  trustChanged(): void {
    this.changed();
  }

  /** What is running on an agent now, if anything. */
  busy(id: string): GalleryAgent['busy'] {
    const run = this.running.get(id);
    return run && { action: run.action, progress: run.progress };
  }

  refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (this.options.registryUrl() === '') {
      this.agentsChanged();
      return Promise.resolve();
    }
    const refreshing = this.options.source
      .refresh()
      .then(
        (catalog) => {
          if (catalog.error) this.logger.warn(`ACP Registry: ${catalog.error}`);
        },
        (error: unknown) => this.logger.error(`ACP Registry: the refresh failed: ${errorMessage(error)}`),
      )
      .finally(() => {
        this.refreshing = undefined;
        // Tools may have been installed since (uv, Node): what works here is asked again.
        this.availability = new WeakMap();
        this.changed();
      });
    this.refreshing = refreshing;
    this.changed();
    return refreshing;
  }

  /** Refreshes when the catalog was never fetched or is older than `maxAgeMs` (a day); resolves at once otherwise. */
  refreshIfDue(): Promise<void> {
    const { fetchedAt, url } = this.options.source.current();
    if (url !== this.options.registryUrl()) return this.refresh();
    const now = (this.options.now ?? Date.now)();
    if (fetchedAt !== undefined && now - fetchedAt < (this.options.maxAgeMs ?? DAY_MS)) return Promise.resolve();
    return this.refresh();
  }

  install(id: string, kind?: DistributionKind): Promise<void> {
    return this.perform(id, 'install', kind).then(() => undefined);
  }

  uninstall(id: string): Promise<void> {
    return this.perform(id, 'uninstall').then(() => undefined);
  }

  cancel(id: string): void {
    const run = this.running.get(id);
    if (run && run.action !== 'uninstall') run.abort.abort();
  }

  async icon(id: string): Promise<string | undefined> {
    const url = this.listed().find((agent) => agent.id === id)?.icon;
    if (!url) return undefined;
    try {
      return await this.options.icons.dataUri(url);
    } catch (error) {
      this.logger.warn(`ACP Registry: the icon of ${id} could not be read: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /**
   * Installs (an installed agent with a newer listed version: updates) or uninstalls, and says how it ended.
   * `progress` and `signal` let a caller show its own progress and cancel (the Agents view's commands).
   */
  async perform(id: string, verb: 'install' | 'uninstall', kind?: DistributionKind, signal?: AbortSignal): Promise<ActionOutcome> {
    if (this.running.has(id)) return { kind: 'busy' };
    const installed = this.options.installer.find(id);
    const listed = this.listed().find((agent) => agent.id === id);
    let action: Action = verb;
    if (verb === 'install') {
      if (!this.options.isTrusted()) return this.fail(id, restrictedInstallMessage());
      if (!listed) return this.fail(id, l10n.t('The ACP Registry does not list an agent with the id "{0}".', id));
      if (installed && this.options.isNewer(listed.version, installed.version)) action = 'update';
    } else if (!installed) {
      return this.fail(id, l10n.t('{0} is not installed.', listed?.name ?? id));
    }
    const name = listed?.name ?? installed?.name ?? id;
    const run: Running = { action, progress: { message: startMessage(action, name) }, abort: new AbortController() };
    const onAbort = () => run.abort.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) run.abort.abort();
    this.running.set(id, run);
    this.errors.delete(id);
    this.changed();
    try {
      if (verb === 'install' && listed) {
        // An update keeps the distribution it was installed with while the registry still offers it.
        const chosen = kind ?? (installed && listed.distribution[installed.distribution] ? installed.distribution : undefined);
        await this.options.installer.install(listed, {
          ...(chosen !== undefined ? { kind: chosen } : {}),
          signal: run.abort.signal,
          onProgress: (progress) => {
            run.progress = progress;
            this.progressChanged();
          },
        });
        this.logger.info(`ACP Registry: ${action === 'update' ? 'updated' : 'installed'} ${id} ${listed.version}.`);
      } else {
        await this.options.installer.uninstall(id);
        this.logger.info(`ACP Registry: uninstalled ${id}.`);
      }
      return { kind: 'done' };
    } catch (error) {
      if (run.abort.signal.aborted) {
        this.logger.info(`ACP Registry: ${action} of ${id} cancelled.`);
        return { kind: 'cancelled' };
      }
      const message = errorMessage(error);
      this.logger.warn(`ACP Registry: ${action} of ${id} failed: ${message}`);
      this.errors.set(id, message);
      return { kind: 'failed', message };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.running.delete(id);
      this.changed();
    }
  }

  /** The catalog's status as the gallery shows it; with an empty registry setting, that there is none. */
  private catalogSummary(): GalleryState['catalog'] {
    const url = this.options.registryUrl();
    if (url === '') return { url, source: 'snapshot', problems: [] };
    const { source, fetchedAt, error, problems } = this.options.source.current();
    return {
      url: this.options.source.current().url,
      source,
      problems,
      ...(fetchedAt !== undefined ? { fetchedAt } : {}),
      ...(error !== undefined ? { error } : {}),
    };
  }

  private agentsChanged(): void {
    if (this.isDisposed) return;
    this.agentsEmitter.fire();
    this.changed();
  }

  private fail(id: string, message: string): ActionOutcome {
    this.errors.set(id, message);
    this.changed();
    return { kind: 'failed', message };
  }

  private galleryAgent(agent: RegistryAgent, availability: readonly Availability[]): GalleryAgent {
    const installed = this.options.installer.find(agent.id);
    const update = installed && this.options.isNewer(agent.version, installed.version) ? agent.version : undefined;
    const busy = this.busy(agent.id);
    const error = this.errors.get(agent.id);
    const builtIn = this.options.builtIns.get(agent.id);
    return {
      agent,
      availability,
      ...(installed ? { installed } : {}),
      ...(update !== undefined ? { update } : {}),
      ...(busy ? { busy } : {}),
      ...(error !== undefined ? { error } : {}),
      ...(builtIn !== undefined ? { builtIn } : {}),
    };
  }

  /** What is known of where `agent` works; asks the installer once per catalog entry and announces the answer. */
  private availabilityOf(agent: RegistryAgent): readonly Availability[] {
    const known = this.availability.get(agent);
    if (known) return known;
    if (!this.asked.has(agent)) {
      this.asked.add(agent);
      const cache = this.availability;
      this.options.installer.availability(agent).then(
        (answer) => {
          cache.set(agent, answer);
          this.asked.delete(agent);
          if (!this.isDisposed) this.progressChanged();
        },
        (error: unknown) => {
          this.asked.delete(agent);
          this.logger.warn(`ACP Registry: what works of ${agent.id} here is unknown: ${errorMessage(error)}`);
        },
      );
    }
    return [];
  }

  /** A change of state: announced now (and any pending progress announcement with it). */
  private changed(): void {
    if (this.progressTimer !== undefined) {
      clearTimeout(this.progressTimer);
      this.progressTimer = undefined;
    }
    if (!this.isDisposed) this.changeEmitter.fire();
  }

  /** Progress: announced at most every `progressIntervalMs`, with the latest value. */
  private progressChanged(): void {
    if (this.progressTimer !== undefined || this.isDisposed) return;
    this.progressTimer = setTimeout(() => {
      this.progressTimer = undefined;
      if (!this.isDisposed) this.changeEmitter.fire();
    }, this.options.progressIntervalMs ?? 100);
  }
}

function startMessage(action: Action, name: string): string {
  switch (action) {
    case 'install':
      return l10n.t('Installing {0}…', name);
    case 'update':
      return l10n.t('Updating {0}…', name);
    case 'uninstall':
      return l10n.t('Uninstalling {0}…', name);
  }
}

/** An installed agent the catalog does not list, shown with what its record knows. */
function asRegistryAgent(installed: InstalledAgent): RegistryAgent {
  return { id: installed.id, name: installed.name, version: installed.version, description: installed.description, authors: [], distribution: {} };
}
