/**
 * One open ACP session: which agent, its id, the connection it lives on, the roots it was given and the
 * guard that enforces them, what the guard refused, and whether the workspace's folders moved on since.
 */
import type { AgentConnection, SessionModeState, SessionModelState } from '../../acp/port/agentConnection';
import type { ConfigOption } from '../../acp/port/events';
import { RootGuard } from '../../roots/rootGuard';
import { rootPaths, type RootSet } from '../../roots/rootSet';
import { Emitter, type Event } from '../../common/events';

/** A request the client refused because its path (a file, a terminal's folder) was outside the session's roots. */
export interface Refusal {
  readonly time: number;
  readonly operation: 'read' | 'write' | 'terminal';
  /** The path the agent asked for, as it asked (a terminal's folder). */
  readonly path: string;
  /** Why, naming the path and the roots. */
  readonly message: string;
  /** For a terminal: the command it would have run. */
  readonly command?: string;
}

/** The workspace's folders changed after the session started; ACP has no way to change roots mid-session. */
export interface StaleRoots {
  /** In words: which folders were added or removed. */
  readonly reason: string;
}

/** What the agent's setup answer (new / load / resume / fork) said about modes, models and config options. */
export interface SessionSetup {
  readonly modes?: SessionModeState;
  /** Unstable `models`: the model picker when no config option has category `model`. */
  readonly models?: SessionModelState;
  readonly configOptions?: readonly ConfigOption[];
}

const MAX_REFUSALS_KEPT = 50;

export class AgentSession {
  private roots: RootSet;
  private guardValue: RootGuard;
  /** Roots the user took back (a revoked grant, a folder removed from the workspace): refused from then on. */
  private readonly withdrawnPaths = new Set<string>();
  private readonly refusalList: Refusal[] = [];
  private staleValue: StaleRoots | undefined;
  private readonly changeEmitter = new Emitter<void>();

  /** Its roots, refusals or stale flag changed. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(
    readonly agentName: string,
    readonly sessionId: string,
    readonly connection: AgentConnection,
    rootSet: RootSet,
    /** Modes and config options from the setup answer. */
    readonly setup: SessionSetup = {},
    /** When the session started (or was reopened) on this connection. */
    readonly openedAt = Date.now(),
  ) {
    this.roots = rootSet;
    this.guardValue = new RootGuard(rootPaths(rootSet));
  }

  get rootSet(): RootSet {
    return this.roots;
  }

  /** Enforces exactly the roots the agent was given. */
  get guard(): RootGuard {
    return this.guardValue;
  }

  get refusals(): readonly Refusal[] {
    return this.refusalList;
  }

  get stale(): StaleRoots | undefined {
    return this.staleValue;
  }

  /** Roots the agent was given but may no longer reach through the client (until the session is reopened). */
  get withdrawn(): readonly string[] {
    return [...this.withdrawnPaths];
  }

  /** The connection this session lives on is gone (agent stopped or crashed). */
  get isDisconnected(): boolean {
    return this.connection.isClosed;
  }

  /** After a reopen with a new list: the guard follows the new roots at once. */
  setRoots(rootSet: RootSet): void {
    this.roots = rootSet;
    this.withdrawnPaths.clear();
    this.guardValue = new RootGuard(rootPaths(rootSet));
    this.staleValue = undefined;
    this.changed();
  }

  /**
   * Takes roots back at once: the guard refuses them from now on (files, terminals, prompts), whatever the
   * agent was told, and the session is marked stale with `reason`. ACP cannot change a session's roots, so
   * reopening is what gives the agent the list it may use. Returns the roots withdrawn now.
   */
  withdraw(paths: readonly string[], reason: string): string[] {
    const withdrawn = rootPaths(this.roots).filter((root) => paths.includes(root) && !this.withdrawnPaths.has(root));
    if (withdrawn.length === 0) return [];
    for (const root of withdrawn) this.withdrawnPaths.add(root);
    this.guardValue = new RootGuard(rootPaths(this.roots).filter((root) => !this.withdrawnPaths.has(root)));
    this.staleValue = { reason };
    this.changed();
    return withdrawn;
  }

  noteRefusal(refusal: Omit<Refusal, 'time'>): Refusal {
    const entry = { ...refusal, time: Date.now() };
    this.refusalList.push(entry);
    if (this.refusalList.length > MAX_REFUSALS_KEPT) this.refusalList.shift();
    this.changed();
    return entry;
  }

  markStale(stale: StaleRoots | undefined): void {
    this.staleValue = stale;
    this.changed();
  }

  private changed(): void {
    this.changeEmitter.fire();
  }
}
