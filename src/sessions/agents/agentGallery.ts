/**
 * What the "Add Agent" gallery shows and can do: the registry's agents with what works here, what is installed,
 * updates, installs in progress. Implemented by {@link RegistryAgents} (sessions/registryAgents.ts); the gallery
 * panel (vscode/agentGallery.ts) renders it and calls its verbs.
 */
import type { Event } from '../../common/events';
import type { Availability, DistributionKind, InstalledAgent, InstallProgress, RegistryAgent, RegistryCatalog } from '../../agents/registry/types';

export interface GalleryAgent {
  readonly agent: RegistryAgent;
  /** Which of its distributions work on this machine, and why not. */
  readonly availability: readonly Availability[];
  readonly installed?: InstalledAgent;
  /** A newer version the registry lists than the installed one. */
  readonly update?: string;
  /** An install, update or uninstall running now. */
  readonly busy?: { readonly action: 'install' | 'update' | 'uninstall'; readonly progress: InstallProgress };
  /** The last failure of an action on it, in words (cleared by the next action). */
  readonly error?: string;
  /** The built-in agent (preset) it backs, e.g. "Claude Code": it shows in the Agents view under that name. */
  readonly builtIn?: string;
}

export interface GalleryState {
  readonly catalog: Pick<RegistryCatalog, 'url' | 'source' | 'fetchedAt' | 'error' | 'problems'>;
  readonly agents: readonly GalleryAgent[];
  /** Installing is refused in Restricted Mode: the gallery says so and disables its buttons. */
  readonly trusted: boolean;
  /** A refresh of the catalog is running. */
  readonly refreshing: boolean;
}

export interface AgentGallerySource {
  state(): GalleryState;
  /** Something in {@link state} changed (progress included: listeners coalesce). */
  readonly onDidChange: Event<void>;
  /** Asks the registry again. Never rejects (a failure is `catalog.error`). */
  refresh(): Promise<void>;
  /** Install (or, when installed, update to the listed version). Never rejects: a failure is the agent's `error`. */
  install(id: string, kind?: DistributionKind): Promise<void>;
  uninstall(id: string): Promise<void>;
  /** Cancels a running install or update of `id` (nothing is left behind). */
  cancel(id: string): void;
  /** The agent's icon as a data: URI for an <img>, or undefined (offline, not an image). */
  icon(id: string): Promise<string | undefined>;
}
