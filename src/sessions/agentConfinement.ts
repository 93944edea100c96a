/**
 * Confining agents (`acpWorkspace.sandbox`): what each launch is to use, what the running agent was started
 * with (for the Agents view and the chat header), restarting an agent whose confinement a new folder widens,
 * and the fail-closed path (the agent does not start; the user may start it unconfined this once).
 *
 * An agent process serves every session of the agent in this window, so its confinement covers all the
 * folders it may work in here: those granted to it ({@link FolderGrants}), the folders of its open sessions,
 * and the primary folders chosen for it (the primary folder needs no grant: choosing it is the consent).
 */
import * as l10n from '@vscode/l10n';
import type { AcpConnection } from '../acp/connection';
import { Emitter, type Event } from '../common/events';
import type { Logger } from '../common/logger';
import type { AgentCommand } from '../process/command';
import {
  ConfinementUnavailableError,
  type ConfinementPolicy,
  type Confiner,
  type LaunchConfinement,
  type SandboxMode,
} from '../process/confinement/types';
import type { FolderGrants } from '../roots/folderGrants';
import type { ActiveSessions } from './activeSessions';
import type { Chats } from './chats';
import { buildPolicy, homeAbbreviated, realPath, uncoveredFolders } from './confinementPolicy';
import type { AgentPool, ConfinementUi } from './ports';
import type { SessionController } from './sessionController';

/** What the UI shows about an agent's confinement. */
export interface ConfinementView {
  readonly confined: boolean;
  /** Short: "Confined (writes)", "Not confined". */
  readonly label: string;
  /** One line: "confined: writes in app, lib, ~/.claude" or "not confined (acpWorkspace.sandbox is off)". */
  readonly summary: string;
  /** Every path, one a line, for a tooltip. */
  readonly detail: string;
}

/** What a launch knows about the agent besides its folders (from the VS Code layer). */
export interface LaunchInput {
  readonly command: AgentCommand;
  /** State folders and `writablePaths`, expanded. */
  readonly statePaths: readonly string[];
  /** The entry's `readablePaths` (strict) and `writableEditorSettings`, expanded. */
  readonly readablePaths?: readonly string[];
  readonly editorSettings?: boolean;
  readonly extensionPath?: string;
}

export interface AgentConfinementOptions {
  /** `acpWorkspace.sandbox` now. */
  readonly mode: () => SandboxMode;
  readonly platform?: NodeJS.Platform;
  /**
   * The mechanism for this machine (`findConfiner`), looked up in the agent's environment (its entry may set
   * PATH); rejects with {@link ConfinementUnavailableError}.
   */
  readonly findConfiner: (env: NodeJS.ProcessEnv) => Promise<Confiner>;
  readonly grants: FolderGrants;
  readonly sessions: ActiveSessions;
  /** Whether the agent's process runs now. */
  readonly isRunning: (agentName: string) => boolean;
  /** Restarts the agent and reopens its chats (`Reopener.restartAgent`). */
  readonly restart: (agentName: string) => Promise<AcpConnection>;
  /** Says something in every open chat of the agent. */
  readonly tell: (agentName: string, line: string) => void;
  readonly ui: () => ConfinementUi;
  readonly home: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly logger: Logger;
}

/** How the last launch of an agent went. */
type Launched = { readonly confined: true; readonly description: string; readonly policy: ConfinementPolicy } | { readonly confined: false; readonly why: 'off' | 'unconfined-once' };

/** Made when thrown, so its text is in the language the bundle was configured with. */
export function windowsUnavailable(): ConfinementUnavailableError {
  return new ConfinementUnavailableError(
    l10n.t('Confinement (acpWorkspace.sandbox) is not available on Windows: ACP Workspace can confine agents only on Linux (bubblewrap) and macOS (Seatbelt).'),
    l10n.t('Set acpWorkspace.sandbox to "off" to run agents on Windows; they are then not confined.'),
  );
}

export class AgentConfinement {
  private readonly launched = new Map<string, Launched>();
  /** Folders chosen for the agent in this window (primary folders, a reopened session's folders). */
  private readonly needed = new Map<string, Set<string>>();
  private readonly unconfinedOnce = new Set<string>();
  /** Why the last launch could not be confined, until the start's caller handles it. */
  private readonly unavailable = new Map<string, ConfinementUnavailableError>();
  /** Restarts that widen an agent's confinement, by agent. */
  private readonly widening = new Map<string, Promise<unknown>>();
  private readonly changeEmitter = new Emitter<string>();
  private readonly subscription: { dispose(): void };

  /** What an agent's confinement is changed (a launch): the agent's name. */
  readonly onDidChange: Event<string> = this.changeEmitter.event;

  constructor(private readonly options: AgentConfinementOptions) {
    this.subscription = options.grants.onDidChange(({ agent }) => {
      void this.ensureCovers(agent, options.grants.granted(agent)).catch((error: unknown) =>
        options.logger.warn(`Widening the confinement of ${agent}: ${error instanceof Error ? error.message : String(error)}`),
      );
    });
  }

  /**
   * What the agent's next launch uses: `off` → unconfined; a pending "start unconfined once" → unconfined
   * (consumed); Windows → refused; else the mechanism and the policy for the folders it may work in now.
   * Rejects with {@link ConfinementUnavailableError} (remembered for {@link guardStart}).
   */
  async launch(agentName: string, input: LaunchInput): Promise<LaunchConfinement> {
    const mode = this.options.mode();
    this.unavailable.delete(agentName);
    if (mode === 'off' || this.unconfinedOnce.delete(agentName)) {
      const why = mode === 'off' ? 'off' : 'unconfined-once';
      this.record(agentName, { confined: false, why });
      return { unconfined: why };
    }
    const env = { ...(this.options.env ?? process.env), ...input.command.env };
    let confiner: Confiner;
    try {
      if ((this.options.platform ?? process.platform) === 'win32') throw windowsUnavailable();
      confiner = await this.options.findConfiner(env);
    } catch (error) {
      if (error instanceof ConfinementUnavailableError) this.unavailable.set(agentName, error);
      this.launched.delete(agentName);
      this.changeEmitter.fire(agentName);
      throw error;
    }
    const policy = buildPolicy({
      mode,
      folders: this.folders(agentName),
      statePaths: input.statePaths,
      command: input.command,
      home: this.options.home,
      env,
      extensionPath: input.extensionPath,
      readablePaths: input.readablePaths,
      editorSettings: input.editorSettings,
    });
    this.record(agentName, { confined: true, description: confiner.description, policy });
    this.options.logger.info(`${agentName} runs confined by ${confiner.description} (${mode}): writes in ${policy.writable.join(', ')}${policy.readable.length > 0 ? `; reads also ${policy.readable.join(', ')}` : ''}.`);
    return { confiner, policy };
  }

  /** The next launch of the agent runs unconfined (the user chose so, once). */
  allowUnconfinedOnce(agentName: string): void {
    this.unconfinedOnce.add(agentName);
  }

  /** The folders the agent may work in now (real paths). */
  folders(agentName: string): string[] {
    const folders = new Set<string>([...this.options.grants.granted(agentName), ...(this.needed.get(agentName) ?? [])]);
    for (const session of this.options.sessions.forAgent(agentName)) {
      const withdrawn = new Set(session.withdrawn);
      for (const root of [session.rootSet.cwd, ...session.rootSet.additionalDirectories]) if (!withdrawn.has(root.path)) folders.add(root.path);
    }
    return [...folders];
  }

  /**
   * The agent is about to work in these folders (a new session, a reopened one): they join its folders, and
   * when it runs confined to a policy that does not cover them, it is restarted first (its chats are told
   * why and reopened). Resolves once it may start the session; joins a restart under way.
   */
  async ensureCovers(agentName: string, folders: readonly string[]): Promise<void> {
    const set = this.needed.get(agentName) ?? new Set<string>();
    for (const folder of folders) set.add(folder);
    this.needed.set(agentName, set);
    for (;;) {
      const under = this.widening.get(agentName);
      if (!under) break;
      await under.catch(() => undefined);
    }
    const missing = this.widens(agentName, folders);
    if (missing.length === 0) return;
    const names = missing.map((folder) => folder.split(/[\\/]/).filter(Boolean).at(-1) ?? folder);
    this.options.tell(agentName, l10n.t('Restarting {0} so that its confinement includes {1}.', agentName, listInWords(names)));
    this.options.logger.info(`Restarting ${agentName}: its confinement does not include ${missing.join(', ')}.`);
    const restart = this.options.restart(agentName).finally(() => this.widening.delete(agentName));
    this.widening.set(agentName, restart);
    await restart;
  }

  /** The folders that would widen the running agent's confinement (none when it does not run confined). */
  widens(agentName: string, folders: readonly string[]): string[] {
    const launched = this.launched.get(agentName);
    if (!launched?.confined || !this.options.isRunning(agentName)) return [];
    return uncoveredFolders(launched.policy, folders.map((folder) => realPath(folder)));
  }

  /**
   * Starts (or restarts) the agent through `start`; when it was refused because confinement cannot be set up
   * here, asks the user (why, how to fix it, "Start Unconfined Once", "Open Settings") and, if they choose so,
   * starts it once more unconfined. Otherwise the error goes on to the caller (whose chat shows it).
   */
  async guardStart(agentName: string, start: () => Promise<AcpConnection>): Promise<AcpConnection> {
    try {
      return await start();
    } catch (error) {
      const why = this.unavailable.get(agentName) ?? (error instanceof ConfinementUnavailableError ? error : undefined);
      this.unavailable.delete(agentName);
      if (!why) throw error;
      const choice = await this.options.ui().confinementUnavailable(agentName, why.reason, why.fix);
      if (choice !== 'unconfined-once') throw error;
      this.options.logger.warn(`Starting ${agentName} unconfined this once (the user chose so): ${why.reason}`);
      this.allowUnconfinedOnce(agentName);
      return start();
    }
  }

  /** An {@link AgentPool} whose starts go through {@link guardStart}. */
  guardPool(pool: AgentPool): AgentPool {
    return {
      start: (name) => this.guardStart(name, () => pool.start(name)),
      restart: (name) => this.guardStart(name, () => pool.restart(name)),
      running: (name) => pool.running(name),
    };
  }

  /** What the agent's last launch was, for the UI; undefined before its first launch. */
  view(agentName: string): ConfinementView | undefined {
    const launched = this.launched.get(agentName);
    return launched && describeConfinement(launched, this.options.home);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
  }

  private record(agentName: string, launched: Launched): void {
    this.launched.set(agentName, launched);
    this.changeEmitter.fire(agentName);
  }
}

/** The words the Agents view and the chat header use. */
export function describeConfinement(launched: Launched, home: string): ConfinementView {
  if (!launched.confined) {
    const why = launched.why === 'off' ? l10n.t('acpWorkspace.sandbox is off') : l10n.t('started unconfined this once');
    return { confined: false, label: l10n.t('Not confined'), summary: l10n.t('not confined ({0})', why), detail: l10n.t('Not confined: {0}. Its own tools can read and write anything your account can.', why) };
  }
  const { policy } = launched;
  const short = (p: string) => homeAbbreviated(p, home);
  const label = (p: string) => (short(p).startsWith('~/') ? short(p) : (p.split(/[\\/]/).filter(Boolean).at(-1) ?? p));
  const lines = [
    l10n.t('Confined by {0} ({1}).', launched.description, policy.mode),
    l10n.t('Writes only in:'),
    ...policy.writable.map((p) => `  ${short(p)}`),
    `  ${l10n.t('a private temporary folder')}`,
    ...(policy.mode === 'strict' ? [l10n.t('Reads only those, the system, and:'), ...policy.readable.map((p) => `  ${short(p)}`)] : []),
    ...((policy.folders ?? []).length > 0
      ? [policy.editorSettings ? l10n.t("In its folders git's configuration and hooks stay read-only.") : l10n.t("In its folders git's configuration and hooks, .vscode and .idea stay read-only.")]
      : []),
  ];
  return {
    confined: true,
    label: l10n.t('Confined ({0})', policy.mode),
    summary: l10n.t('confined: {0} in {1}', policy.mode, policy.writable.map(label).join(', ')),
    detail: lines.join('\n'),
  };
}

function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return l10n.t('{0} and {1}', items.slice(0, -1).join(', '), items.at(-1)!);
}

/** Keeps every chat's header saying how its agent runs: when a chat opens and when its agent launches. */
export function showConfinementInChats(confinement: Pick<AgentConfinement, 'view' | 'onDidChange'>, chats: Pick<Chats, 'all' | 'onDidOpen'>): { dispose(): void } {
  const show = (chat: SessionController) => {
    const view = confinement.view(chat.session.agentName);
    chat.thread.setSession({ confinement: view && { confined: view.confined, label: view.label, detail: view.detail } });
  };
  const subscriptions = [
    confinement.onDidChange((agentName) => {
      for (const chat of chats.all()) if (chat.session.agentName === agentName) show(chat);
    }),
    chats.onDidOpen(({ chat }) => show(chat)),
  ];
  return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
}
