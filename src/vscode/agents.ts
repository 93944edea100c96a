/**
 * The configured agents and their processes: one {@link AgentProcess} per agent, started on demand,
 * stopped with the extension. Settings changes apply to an agent the next time it starts.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { resolveAgentCommand, type AgentCommand, type AgentDefinition } from '../agents/agentConfig';
import { AgentProcess, type AgentState } from '../process/agentProcess';
import type { ClientFeatureOptions } from '../acp/capabilities';
import type { AcpConnection } from '../acp/connection';
import type { Logger } from '../common/logger';
import { traceTap } from '../acp/trace';
import { Disposable } from '../common/lifecycle';
import { affectsUs, readAgents, readMaxMessageBytes, readTrace } from './settings';

/** What the UI shows about one agent. */
export interface AgentStatus {
  readonly definition: AgentDefinition;
  readonly state: AgentState;
  /** Why it stopped or failed, in words. */
  readonly message: string | undefined;
  /** The settings changed while it was running: a restart applies them. */
  readonly stale: boolean;
  readonly process: AgentProcess | undefined;
}

interface Entry {
  definition: AgentDefinition;
  process: AgentProcess | undefined;
  /** The definition the running process was started with. */
  startedWith: AgentDefinition | undefined;
  lastMessage: string | undefined;
}

export interface AgentsOptions {
  readonly context: vscode.ExtensionContext;
  readonly logger: Logger;
  readonly features: ClientFeatureOptions;
  /** Registers agent → client handlers on every new connection (fs, permission, terminals…). */
  readonly registerHandlers?: (agent: AgentDefinition, connection: AcpConnection) => void;
}

export class Agents extends Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  /** The list of agents, or one agent's state, changed. */
  readonly onDidChange = this.changeEmitter.event;
  /** The trace setting, read when it changes (the trace tap asks for it on every message). */
  private trace = readTrace();

  constructor(private readonly options: AgentsOptions) {
    super();
    this.reload();
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsUs(event, 'agents')) this.reload();
        if (affectsUs(event, 'trace')) this.trace = readTrace();
      }),
    );
  }

  /** Every configured agent with its current state, presets first. */
  list(): AgentStatus[] {
    return [...this.entries.values()].map((entry) => this.status(entry));
  }

  find(name: string): AgentStatus | undefined {
    const entry = this.entries.get(name);
    return entry && this.status(entry);
  }

  /**
   * Starts the agent if needed and resolves with its initialized connection. Refuses in Restricted
   * Mode: an agent runs programs and reads and writes files, so it needs a trusted workspace.
   */
  async start(name: string): Promise<AcpConnection> {
    if (!vscode.workspace.isTrusted) {
      throw new Error('Agents are not started in Restricted Mode: an agent runs programs and reads and writes files in this workspace. Trust the workspace to use agents.');
    }
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`There is no agent named "${name}". Check the acpWorkspace.agents setting.`);
    if (entry.process && entry.startedWith !== entry.definition && entry.process.state !== 'running' && entry.process.state !== 'starting') {
      // Settings changed while it was stopped: start from the new definition.
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

  async restart(name: string): Promise<AcpConnection> {
    const entry = this.entries.get(name);
    if (entry?.process) {
      await entry.process.dispose();
      entry.process = undefined;
    }
    return this.start(name);
  }

  /** Stops every agent process tree; settles when they are gone. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => entry.process?.dispose()));
  }

  override dispose(): void {
    void this.stopAll();
    super.dispose();
  }

  private reload(): void {
    const { agents, problems } = readAgents();
    const seen = new Set<string>();
    for (const definition of agents) {
      seen.add(definition.name);
      const entry = this.entries.get(definition.name);
      if (entry) entry.definition = sameDefinition(entry.definition, definition) ? entry.definition : definition;
      else this.entries.set(definition.name, { definition, process: undefined, startedWith: undefined, lastMessage: undefined });
    }
    for (const [name, entry] of this.entries) {
      if (!seen.has(name)) {
        void entry.process?.dispose();
        this.entries.delete(name);
      }
    }
    if (problems.length > 0) {
      for (const problem of problems) this.options.logger.warn(problem);
      void vscode.window
        .showWarningMessage(`ACP Workspace: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more, see the log)` : ''}`, 'Open Settings')
        .then((choice) => {
          if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettingsJson');
        });
    }
    this.changeEmitter.fire();
  }

  /** The command line an agent runs (variables expanded), e.g. for a terminal sign-in. */
  commandFor(name: string): AgentCommand | undefined {
    const entry = this.entries.get(name);
    return entry && this.resolve(entry.definition);
  }

  private resolve(definition: AgentDefinition): AgentCommand {
    const { context } = this.options;
    return resolveAgentCommand(
      definition,
      {
        node: process.execPath,
        extensionPath: context.extensionUri.fsPath,
        globalStorage: context.globalStorageUri.fsPath,
        // Inside desktop VS Code the runtime is Electron; this makes it behave as plain Node.
        nodeEnv: { ELECTRON_RUN_AS_NODE: '1' },
      },
      process.env,
    );
  }

  private createProcess(entry: Entry): AgentProcess {
    const { logger, features, context } = this.options;
    const command = this.resolve(entry.definition);
    const agentProcess = new AgentProcess({
      command,
      cwd: vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? os.homedir(),
      logger,
      clientInfo: { name: 'acp-workspace', title: 'ACP Workspace', version: String(context.extension.packageJSON.version ?? '0.0.0') },
      features,
      maxLineBytes: readMaxMessageBytes(),
      tap: traceTap(entry.definition.name, () => this.trace, logger),
      registerHandlers: (connection) => this.options.registerHandlers?.(entry.definition, connection),
    });
    agentProcess.onDidChangeState((change) => {
      entry.lastMessage = change.state === 'running' || change.state === 'starting' ? undefined : (change.message ?? entry.lastMessage);
      this.changeEmitter.fire();
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
      stale: running && entry.startedWith !== undefined && entry.startedWith !== entry.definition,
      process: entry.process,
    };
  }
}

function sameDefinition(a: AgentDefinition, b: AgentDefinition): boolean {
  return JSON.stringify([a.command, a.args, a.env]) === JSON.stringify([b.command, b.args, b.env]);
}
