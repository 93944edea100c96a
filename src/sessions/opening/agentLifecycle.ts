/**
 * An agent's lifecycle as the sessions see it, with one owner: restarting it (whoever asks: the Agents view,
 * the Command Palette, a chat's Restart button, a sign-in, a confinement that must widen or narrow) reopens every
 * chat open on it, and a session that is about to work in folders the agent's confinement does not include (a
 * new session, a reopened one, a folder shared with it) restarts it first. The behaviour recurses (reopening may
 * need a restart; a restart reopens), so both live here: the {@link Reopener} this owns reopens, and asks this
 * to cover its folders; `AgentConfinement` (`sessions/agents/`) only decides.
 */
import * as l10n from '@vscode/l10n';
import type { AgentConnection } from '../../acp/port/agentConnection';
import { errorMessage } from '../../common/errors';
import type { Event } from '../../common/events';
import type { GrantsChange } from '../../roots/folderGrants';
import { listInWords } from '../../roots/rootSet';
import { Reopener, type ReopenerOptions, type RestartOptions } from './reopener';

/** What the agents' confinement (`acpWorkspace.sandbox`, `AgentConfinement`) decides. */
export interface ConfinementDecisions {
  /** The agent is about to work in these folders: its next launch covers them. */
  declare(agentName: string, folders: readonly string[]): void;
  /** The user took these folders back: its next launch leaves them out. */
  takeBack(agentName: string, folders: readonly string[]): void;
  /** The folders its last launch's confinement does not include (none when it was not confined). */
  widens(agentName: string, folders: readonly string[]): string[];
  /** Of folders taken back, those its last launch may write in and must not any more, and those kept. */
  narrows(agentName: string, folders: readonly string[]): { gone: string[]; kept: string[] };
  /** The agents launched in this window. */
  agents(): readonly string[];
}

export interface AgentLifecycleOptions extends Omit<ReopenerOptions, 'confinement'> {
  /** Undefined: agents are never confined here (the tests of reopening alone). */
  readonly confinement?: ConfinementDecisions;
  /** Folders shared with an agent (granted) widen its confinement at once. */
  readonly grantsChanged?: Event<GrantsChange>;
}

export class AgentLifecycle {
  /** Reopens sessions; its folders are covered through {@link ensureCovers}. */
  readonly reopener: Reopener;
  /** Restarts in progress, by agent: asking again meanwhile joins the one under way. */
  private readonly restarts = new Map<string, Promise<AgentConnection>>();
  /** Agents whose restart under way reopens the chats with the current folders (see RestartOptions). */
  private readonly withCurrentFolders = new Set<string>();
  private readonly subscription: { dispose(): void } | undefined;

  constructor(private readonly options: AgentLifecycleOptions) {
    const { confinement, grantsChanged, ...reopening } = options;
    this.reopener = new Reopener({
      ...reopening,
      ...(confinement ? { confinement: { ensureCovers: (agent, folders) => this.ensureCovers(agent, folders) } } : {}),
    });
    this.subscription = grantsChanged?.(({ agent, granted }) => {
      if (granted.length === 0) return;
      void this.ensureCovers(agent, granted).catch((error: unknown) => options.logger.warn(`Widening the confinement of ${agent}: ${errorMessage(error)}`));
    });
  }

  /**
   * Restarts an agent and reopens every chat open on it as `Reopener.recover` does, each with its complete root
   * list (with `currentFolders`: the folders shared now). The chats say the agent restarts rather than showing
   * its connection's end as a failure. Resolves with the new connection once every chat is back or says why
   * not; rejects when the agent does not start again (the chats say so too).
   */
  restartAgent(agentName: string, options: RestartOptions = {}): Promise<AgentConnection> {
    // Asked while one is under way: that one reopens the chats with the current folders too.
    if (options.currentFolders) this.withCurrentFolders.add(agentName);
    const running = this.restarts.get(agentName);
    if (running) return running;
    const restart = this.restart(agentName).finally(() => {
      this.restarts.delete(agentName);
      this.withCurrentFolders.delete(agentName);
    });
    this.restarts.set(agentName, restart);
    return restart;
  }

  /**
   * The agent is about to work in these folders (a new session, a reopened one, a folder shared with it): they
   * join its folders, and when it runs confined to a policy that does not include them, it is restarted first
   * (its chats are told why and reopened). Resolves once it may start the session; a restart under way is
   * waited for first, and decides with the folders known then.
   */
  async ensureCovers(agentName: string, folders: readonly string[]): Promise<void> {
    const { confinement, agents, logger } = this.options;
    if (!confinement) return;
    confinement.declare(agentName, folders);
    // Decided at once when nothing is under way (in the same tick: a second change then waits for this one).
    if (this.restarts.has(agentName)) await this.settled(agentName);
    if (!agents.isRunning(agentName)) return;
    const missing = confinement.widens(agentName, folders);
    if (missing.length === 0) return;
    logger.info(`Restarting ${agentName}: its confinement does not include ${missing.join(', ')}.`);
    await this.restartSaying(agentName, l10n.t('Restarting {0} so that its confinement includes {1}.', agentName, listInWords(missing.map(baseName))));
  }

  /**
   * The user took these folders back from the agent (a revoked grant, a folder removed from the workspace; its
   * sessions have let them go already): they leave its confinement at once. When the running agent may write in
   * one of them and no session it serves still works there, it is restarted without them: its chats are told why
   * first, a running turn is stopped (the agent must not go on writing where it may no longer), and they are
   * reopened with the folders shared now. Resolves true once that restart is done, false when none was needed
   * (not running, unconfined, or a folder still used by another of its sessions).
   */
  async narrow(agentName: string, folders: readonly string[]): Promise<boolean> {
    const { confinement, agents, logger } = this.options;
    if (!confinement || folders.length === 0) return false;
    confinement.takeBack(agentName, folders);
    if (this.restarts.has(agentName)) await this.settled(agentName);
    if (!agents.isRunning(agentName)) return false;
    const { gone, kept } = confinement.narrows(agentName, folders);
    if (kept.length > 0)
      logger.info(`${agentName} may still write in ${kept.join(', ')}: another of its sessions works there, or a folder still shared holds it.`);
    if (gone.length === 0) return false;
    logger.info(`Restarting ${agentName}: its confinement must no longer include ${gone.join(', ')}.`);
    const names = listInWords(gone.map(baseName));
    await this.restartSaying(
      agentName,
      gone.length === 1
        ? l10n.t('Restarting {0} so that it can no longer write in {1}: it is no longer shared with {0}. A running turn is stopped.', agentName, names)
        : l10n.t('Restarting {0} so that it can no longer write in {1}: they are no longer shared with {0}. A running turn is stopped.', agentName, names),
    );
    return true;
  }

  /** The agents launched in this window (those a folder taken back may narrow). */
  launchedAgents(): readonly string[] {
    return this.options.confinement?.agents() ?? [];
  }

  dispose(): void {
    this.subscription?.dispose();
  }

  private async restart(agentName: string): Promise<AgentConnection> {
    const { agents, chats } = this.options;
    const affected = chats.all().filter((chat) => chat.session.agentName === agentName);
    for (const chat of affected) chat.expectRestart();
    let connection: AgentConnection;
    try {
      connection = await agents.restart(agentName);
    } catch (error) {
      const message = errorMessage(error);
      const explained = this.reopener.explain(agentName, error);
      for (const chat of affected) if (chats.has(chat)) chat.reconnectFailed(l10n.t('{0} did not start again: {1}', agentName, message), undefined, explained);
      throw error;
    }
    const currentFolders = this.withCurrentFolders.has(agentName);
    await Promise.all(affected.filter((chat) => chats.has(chat)).map((chat) => this.reopener.recover(chat, { currentFolders })));
    return connection;
  }

  /** Restarts the agent for its confinement (its chats reopened with the folders shared now) after saying `line` in them. */
  private async restartSaying(agentName: string, line: string): Promise<void> {
    for (const chat of this.options.chats.all()) if (chat.session.agentName === agentName) chat.thread.addInfo(line);
    await this.restartAgent(agentName, { currentFolders: true });
  }

  /** Resolves once no restart of the agent is under way (one that fails included). */
  private async settled(agentName: string): Promise<void> {
    for (;;) {
      const under = this.restarts.get(agentName);
      if (!under) return;
      await under.catch(() => undefined);
    }
  }
}

const baseName = (folder: string) => folder.split(/[\\/]/).filter(Boolean).at(-1) ?? folder;
