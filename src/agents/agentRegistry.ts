/**
 * The configured agents and their processes: one {@link AgentRuntime} per agent (a process of ours, or a remote agent), started on demand,
 * stopped with the extension. A changed definition applies to an agent the next time it starts; the list
 * shows a running agent whose definition changed as stale.
 */
import * as l10n from '@vscode/l10n';
import type { AgentConnection } from '../acp/port/agentConnection';
import { Emitter, type Event } from '../common/events';
import type { AgentRuntime, AgentState } from '../process/agentRuntime';
import { isRemoteAgent, type AgentDefinition } from './agentConfig';

/** What the UI shows about one agent. */
export interface AgentStatus {
  readonly definition: AgentDefinition;
  readonly state: AgentState;
  /** Why it stopped or failed, in words. */
  readonly message: string | undefined;
  /** The definition changed while it was running: a restart applies it. */
  readonly stale: boolean;
  readonly process: AgentRuntime | undefined;
}

/** An agent's new connection after its old one ended unexpectedly. */
export interface AgentRestarted {
  readonly name: string;
  /** It runs elsewhere (the connection was re-established, not the process restarted). */
  readonly remote: boolean;
  readonly connection: AgentConnection;
}

interface Entry {
  definition: AgentDefinition;
  process: AgentRuntime | undefined;
  /** The definition the running process was started with. */
  startedWith: AgentDefinition | undefined;
  lastMessage: string | undefined;
}

export interface AgentRegistryOptions {
  /** Whether agents may run (Workspace Trust); when not, starting one is refused with why. */
  isTrusted(): boolean;
  /** A process for an agent, not started yet. */
  createProcess(definition: AgentDefinition): AgentRuntime;
}

/** Why no agent starts in Restricted Mode. */
export function restrictedModeMessage(): string {
  return l10n.t(
    'Agents are not started in Restricted Mode: an agent runs programs and reads and writes files in this workspace. Trust the workspace to use agents.',
  );
}

export class AgentRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly changeEmitter = new Emitter<void>();
  private readonly restartEmitter = new Emitter<AgentRestarted>();

  /** The list of agents, or one agent's state, changed. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;
  /**
   * An agent has a new connection after its old one ended unexpectedly (a local agent restarted by itself, a
   * remote agent reconnected): the sessions of the old connection are gone.
   */
  readonly onDidRestart: Event<AgentRestarted> = this.restartEmitter.event;

  constructor(private readonly options: AgentRegistryOptions) {}

  /**
   * The agents there are now, in order. A known agent keeps its process; it is shown stale only when what it
   * runs changed (command line, env, writable paths), not for a new description or registry version label alone;
   * an agent no longer defined is stopped.
   */
  setDefinitions(definitions: readonly AgentDefinition[]): void {
    const seen = new Set<string>();
    for (const definition of definitions) {
      seen.add(definition.name);
      const entry = this.entries.get(definition.name);
      if (entry) entry.definition = definition;
      else this.entries.set(definition.name, { definition, process: undefined, startedWith: undefined, lastMessage: undefined });
    }
    for (const [name, entry] of this.entries) {
      if (!seen.has(name)) {
        void entry.process?.dispose();
        this.entries.delete(name);
      }
    }
    this.changeEmitter.fire();
  }

  /** Every configured agent with its current state, presets first. */
  list(): AgentStatus[] {
    return [...this.entries.values()].map((entry) => this.status(entry));
  }

  find(name: string): AgentStatus | undefined {
    const entry = this.entries.get(name);
    return entry && this.status(entry);
  }

  /** Its connection while it runs. */
  running(name: string): AgentConnection | undefined {
    return this.entries.get(name)?.process?.connection;
  }

  /** Whether its process runs or is starting. */
  isRunning(name: string): boolean {
    const state = this.entries.get(name)?.process?.state;
    return state === 'running' || state === 'starting';
  }

  /** Starts the agent if needed and resolves with its initialized connection. Refuses in Restricted Mode. */
  async start(name: string): Promise<AgentConnection> {
    if (!this.options.isTrusted()) throw new Error(restrictedModeMessage());
    const entry = this.entries.get(name);
    if (!entry) throw new Error(l10n.t('There is no agent named "{0}". Check the acpWorkspace.agents setting.', name));
    if (
      entry.process &&
      entry.startedWith &&
      !sameLaunch(entry.startedWith, entry.definition) &&
      entry.process.state !== 'running' &&
      entry.process.state !== 'starting'
    ) {
      // The definition changed while it was stopped: start from the new one.
      void entry.process.dispose();
      entry.process = undefined;
    }
    entry.process ??= this.createProcess(entry);
    entry.startedWith = entry.definition;
    return entry.process.start();
  }

  async stop(name: string): Promise<void> {
    await this.entries.get(name)?.process?.stop();
  }

  /**
   * Stops the agent and starts a new process with its current definition and settings. Its connection
   * closes saying the agent is restarting (not that ACP Workspace shuts down). Open chats are reopened by
   * `AgentLifecycle.restartAgent`, the one caller besides tests.
   */
  async restart(name: string): Promise<AgentConnection> {
    const entry = this.entries.get(name);
    if (entry?.process) {
      await entry.process.stop(`${name} is restarting.`);
      await entry.process.dispose();
      entry.process = undefined;
    }
    return this.start(name);
  }

  /** Stops every agent process tree; settles when they are gone. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => entry.process?.dispose()));
  }

  dispose(): void {
    void this.stopAll();
    this.changeEmitter.dispose();
    this.restartEmitter.dispose();
  }

  private createProcess(entry: Entry): AgentRuntime {
    const agentProcess = this.options.createProcess(entry.definition);
    agentProcess.onDidChangeState((change) => {
      entry.lastMessage = change.state === 'running' || change.state === 'starting' ? undefined : (change.message ?? entry.lastMessage);
      this.changeEmitter.fire();
    });
    agentProcess.onDidRestart((connection) => {
      if (entry.process === agentProcess) this.restartEmitter.fire({ name: entry.definition.name, remote: agentProcess.remote !== undefined, connection });
    });
    return agentProcess;
  }

  private status(entry: Entry): AgentStatus {
    const state = entry.process?.state ?? 'stopped';
    const running = state === 'running' || state === 'starting';
    return {
      definition: entry.definition,
      state,
      message: entry.lastMessage,
      stale: running && entry.startedWith !== undefined && !sameLaunch(entry.startedWith, entry.definition),
      process: entry.process,
    };
  }
}

/** Whether two definitions start the same process (or reach the same remote agent the same way). */
function sameLaunch(a: AgentDefinition, b: AgentDefinition): boolean {
  if (a === b) return true;
  return JSON.stringify(launchOf(a)) === JSON.stringify(launchOf(b));
}

function launchOf(definition: AgentDefinition): unknown {
  return isRemoteAgent(definition)
    ? [definition.remote]
    : [definition.command, definition.args, definition.env, definition.writablePaths, definition.readablePaths, definition.writableEditorSettings];
}
