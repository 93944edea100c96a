/**
 * Confining agents (`acpWorkspace.sandbox`): what each launch is to use, what the running agent was started
 * with (for the Agents view and the chat header), whether new folders widen it or folders taken back narrow it,
 * and the fail-closed path (the agent does not start; the user may start it unconfined this once). It decides;
 * the agent's lifecycle (`sessions/opening/agentLifecycle.ts`) restarts the agent when a decision asks for it.
 *
 * An agent process serves every session of the agent in this window, so its confinement covers all the
 * folders it may work in here: those granted to it ({@link FolderGrants}), the folders of its open sessions
 * and of its open chats (also while their connection is closed: the launch will serve them), and the primary
 * folders chosen for it (the primary folder needs no grant: choosing it is the consent). So every launch,
 * whatever starts it (a session, a tab restored after a reload, a recovery after a crash, a restart, the
 * Agents view), covers the sessions it is about to serve. A folder the user takes back leaves it at once: the
 * agent is restarted without it (see {@link AgentConfinement.narrows}).
 */
import * as l10n from '@vscode/l10n';
import type { AgentConnection } from '../../acp/port/agentConnection';
import { describeOwnSandboxOff, ownSandboxOff, realProgram } from '../../agents/selfSandboxing';
import { Emitter, type Event } from '../../common/events';
import type { Logger } from '../../common/logger';
import type { AgentCommand } from '../../process/command';
import { ConfinementUnavailableError, type ConfinementPolicy, type Confiner, type LaunchConfinement, type SandboxMode } from '../../process/confinement/types';
import type { FolderGrants } from '../../roots/folderGrants';
import type { ActiveSessions } from '../routing/activeSessions';
import type { AgentSession } from '../routing/agentSession';
import type { Chats } from '../chats/chats';
import { buildPolicy, homeAbbreviated, realPath, uncoveredFolders } from './confinementPolicy';
import type { AgentPool, ConfinementUi } from '../ports';
import type { SessionController } from '../turns/sessionController';

/** What the UI shows about an agent's confinement. */
export interface ConfinementView {
  readonly confined: boolean;
  /** Short: "Confined (writes)", "Not confined". */
  readonly label: string;
  /** One line: "confined: writes in app, lib, ~/.claude" or "not confined (acpWorkspace.sandbox is off)". */
  readonly summary: string;
  /** Every path, one a line, for a tooltip. */
  readonly detail: string;
  /** `acpWorkspace.sandbox` changed since the agent started: "restart to apply …" (undefined when it did not). */
  readonly pending?: string;
}

/** A session the agent serves, as far as its folders go. */
export type ServedSession = Pick<AgentSession, 'rootSet' | 'withdrawn'>;

/** What a launch knows about the agent besides its folders (from the VS Code layer). */
export interface LaunchInput {
  readonly command: AgentCommand;
  /** State folders and `writablePaths`, expanded. */
  readonly statePaths: readonly string[];
  /** The entry's `readablePaths` (strict) and `writableEditorSettings`, expanded. */
  readonly readablePaths?: readonly string[];
  readonly editorSettings?: boolean;
  readonly extensionPath?: string;
  /** The ACP Registry id when the command line comes from the registry. */
  readonly registryId?: string;
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
  /**
   * The sessions of the agent's open chats, also while their connection is closed (after a crash, during a
   * restart): the next launch serves them, so it covers their folders.
   */
  readonly serving?: (agentName: string) => readonly ServedSession[];
  readonly ui: () => ConfinementUi;
  readonly home: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly logger: Logger;
}

/** What the UI says of a launch: confined (by what, to what, whose own sandbox was turned off) or not, and why. */
export type LaunchView =
  | {
      readonly confined: true;
      readonly description: string;
      readonly policy: ConfinementPolicy;
      /** Its own sandbox was turned off (whose). */
      readonly ownSandboxOff?: string;
    }
  | { readonly confined: false; readonly why: 'off' | 'unconfined-once' };

/** How the last launch of an agent went. */
type Launched =
  | (Extract<LaunchView, { confined: true }> & {
      /** The policy the same launch would have with other folders. */
      readonly policyFor: (folders: readonly string[]) => ConfinementPolicy;
    })
  | Extract<LaunchView, { confined: false }>;

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
  /**
   * Folders the user took back from the agent in this window (a revoked grant, a folder removed from the
   * workspace): its grants no longer count for them until a session is given them again.
   */
  private readonly takenBack = new Map<string, Set<string>>();
  private readonly unconfinedOnce = new Set<string>();
  /** Why the last launch could not be confined, until the start's caller handles it. */
  private readonly unavailable = new Map<string, ConfinementUnavailableError>();
  private readonly changeEmitter = new Emitter<string>();

  /** What an agent's confinement is changed (a launch): the agent's name. */
  readonly onDidChange: Event<string> = this.changeEmitter.event;

  constructor(private readonly options: AgentConfinementOptions) {}

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
    const policyFor = (folders: readonly string[]) =>
      buildPolicy({
        mode,
        folders,
        statePaths: input.statePaths,
        command: input.command,
        home: this.options.home,
        env,
        extensionPath: input.extensionPath,
        readablePaths: input.readablePaths,
        editorSettings: input.editorSettings,
      });
    const policy = policyFor(this.folders(agentName));
    const own = ownSandboxOff(input.command, {
      ...(input.registryId !== undefined ? { registryId: input.registryId } : {}),
      programPath: (program) => realProgram(program, env),
    });
    this.record(agentName, { confined: true, description: confiner.description, policy, policyFor, ...(own ? { ownSandboxOff: own.agent.name } : {}) });
    this.options.logger.info(
      `${agentName} runs confined by ${confiner.description} (${mode}): writes in ${policy.writable.join(', ')}${policy.readable.length > 0 ? `; reads also ${policy.readable.join(', ')}` : ''}.`,
    );
    if (own)
      this.options.logger.info(
        `${agentName}: ${own.agent.name}'s own sandbox is turned off (${
          Object.entries(own.env)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ') || 'as its entry sets it'
        }); ACP Workspace confines it.`,
      );
    return { confiner, policy, ...(own ? { env: own.env } : {}) };
  }

  /** The next launch of the agent runs unconfined (the user chose so, once). */
  allowUnconfinedOnce(agentName: string): void {
    this.unconfinedOnce.add(agentName);
  }

  /**
   * The folders the agent may work in now (real paths): its grants (less what was taken back), the folders
   * chosen for it, and those of the sessions it serves (its open sessions and chats) that were not withdrawn.
   */
  folders(agentName: string): string[] {
    const takenBack = this.takenBack.get(agentName);
    const folders = new Set<string>([
      ...this.options.grants.granted(agentName).filter((folder) => !takenBack?.has(folder)),
      ...(this.needed.get(agentName) ?? []),
    ]);
    for (const session of [...this.options.sessions.forAgent(agentName), ...(this.options.serving?.(agentName) ?? [])]) {
      const withdrawn = new Set(session.withdrawn);
      for (const root of [session.rootSet.cwd, ...session.rootSet.additionalDirectories]) if (!withdrawn.has(root.path)) folders.add(root.path);
    }
    return [...folders];
  }

  /**
   * The agent is about to work in these folders (a new session, a reopened one, a folder shared with it): they
   * join its folders (also those taken back before), and its next launch covers them.
   */
  declare(agentName: string, folders: readonly string[]): void {
    const set = this.needed.get(agentName) ?? new Set<string>();
    for (const folder of folders) {
      set.add(folder);
      this.takenBack.get(agentName)?.delete(folder);
    }
    this.needed.set(agentName, set);
  }

  /**
   * The user took these folders back from the agent (a revoked grant, a folder removed from the workspace; its
   * sessions have let them go already): they leave its folders, and its next launch leaves them out.
   */
  takeBack(agentName: string, folders: readonly string[]): void {
    const takenBack = this.takenBack.get(agentName) ?? new Set<string>();
    for (const folder of folders) {
      this.needed.get(agentName)?.delete(folder);
      takenBack.add(folder);
    }
    this.takenBack.set(agentName, takenBack);
  }

  /**
   * Of the folders taken back, those the agent's last launch may write in (when it ran confined) that its folders
   * now leave out (`gone`: the running agent must restart without them) and those a folder still shared or
   * another of its sessions keeps (`kept`).
   */
  narrows(agentName: string, folders: readonly string[]): { gone: string[]; kept: string[] } {
    const launched = this.launched.get(agentName);
    if (!launched?.confined) return { gone: [], kept: [] };
    const next = launched.policyFor(this.folders(agentName));
    const covered = folders.map((folder) => realPath(folder)).filter((folder) => uncoveredFolders(launched.policy, [folder]).length === 0);
    const gone = covered.filter((folder) => uncoveredFolders(next, [folder]).length > 0);
    return { gone, kept: covered.filter((folder) => !gone.includes(folder)) };
  }

  /**
   * `acpWorkspace.sandbox` changed: the agents that run with another mode say "restart to apply" (the Agents
   * view, the chat headers); they keep running as they are until restarted.
   */
  settingChanged(): void {
    for (const agentName of this.launched.keys()) this.changeEmitter.fire(agentName);
  }

  /** The agents launched in this window (confined or not). */
  agents(): string[] {
    return [...this.launched.keys()];
  }

  /** The folders that would widen the confinement of the agent's last launch (none when it was not confined). */
  widens(agentName: string, folders: readonly string[]): string[] {
    const launched = this.launched.get(agentName);
    if (!launched?.confined) return [];
    return uncoveredFolders(
      launched.policy,
      folders.map((folder) => realPath(folder)),
    );
  }

  /**
   * Starts (or restarts) the agent through `start`; when it was refused because confinement cannot be set up
   * here, asks the user (why, how to fix it, "Start Unconfined Once", "Open Settings") and, if they choose so,
   * starts it once more unconfined. Otherwise the error goes on to the caller (whose chat shows it).
   */
  async guardStart(agentName: string, start: () => Promise<AgentConnection>): Promise<AgentConnection> {
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
      isRunning: (name) => pool.isRunning(name),
    };
  }

  /**
   * What the agent's last launch was, for the UI; undefined before its first launch. `running` false: its process
   * does not run now (so no changed setting is pending).
   */
  view(agentName: string, running = true): ConfinementView | undefined {
    const launched = this.launched.get(agentName);
    if (!launched) return undefined;
    const view = describeConfinement(launched, this.options.home);
    const pending = running ? this.pendingMode(agentName) : undefined;
    return pending === undefined ? view : { ...view, pending: l10n.t('restart to apply acpWorkspace.sandbox: {0}', pending) };
  }

  /**
   * The mode a restart would apply to the running agent, when `acpWorkspace.sandbox` changed since it started
   * (not for an agent the user chose to start unconfined once: a restart would ask again).
   */
  private pendingMode(agentName: string): SandboxMode | undefined {
    const launched = this.launched.get(agentName);
    if (!launched || (!launched.confined && launched.why === 'unconfined-once')) return undefined;
    const now = this.options.mode();
    return now === (launched.confined ? launched.policy.mode : 'off') ? undefined : now;
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  private record(agentName: string, launched: Launched): void {
    this.launched.set(agentName, launched);
    this.changeEmitter.fire(agentName);
  }
}

/** The words the Agents view and the chat header use. */
export function describeConfinement(launched: LaunchView, home: string): ConfinementView {
  if (!launched.confined) {
    const why = launched.why === 'off' ? l10n.t('acpWorkspace.sandbox is off') : l10n.t('started unconfined this once');
    return {
      confined: false,
      label: l10n.t('Not confined'),
      summary: l10n.t('not confined ({0})', why),
      detail: l10n.t('Not confined: {0}. Its own tools can read and write anything your account can.', why),
    };
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
      ? [
          policy.editorSettings
            ? l10n.t("In its folders git's configuration and hooks stay read-only.")
            : l10n.t("In its folders git's configuration and hooks, .vscode and .idea stay read-only."),
        ]
      : []),
  ];
  const summary = l10n.t('confined: {0} in {1}', policy.mode, policy.writable.map(label).join(', '));
  const own = launched.ownSandboxOff === undefined ? undefined : describeOwnSandboxOff(launched.ownSandboxOff, policy.mode, summary);
  if (own) lines.push(...own.detail);
  return {
    confined: true,
    label: l10n.t('Confined ({0})', policy.mode),
    summary: own?.summary ?? summary,
    detail: lines.join('\n'),
  };
}

/** Keeps every chat's header saying how its agent runs: when a chat opens and when its agent launches. */
export function showConfinementInChats(
  confinement: Pick<AgentConfinement, 'view' | 'onDidChange'>,
  chats: Pick<Chats, 'all' | 'onDidOpen'>,
  isRunning: (agentName: string) => boolean,
): { dispose(): void } {
  const show = (chat: SessionController) => {
    const view = confinement.view(chat.session.agentName, isRunning(chat.session.agentName));
    chat.thread.setSession({
      confinement: view && { confined: view.confined, label: view.label, detail: view.detail, ...(view.pending ? { pending: view.pending } : {}) },
    });
  };
  const subscriptions = [
    confinement.onDidChange((agentName) => {
      for (const chat of chats.all()) if (chat.session.agentName === agentName) show(chat);
    }),
    chats.onDidOpen(({ chat }) => show(chat)),
  ];
  return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
}
