/**
 * One agent as a child process: spawn with stdio pipes, stderr to the log, an explicit environment,
 * `initialize`, and an end that takes the whole process tree with it (several real agents ignore
 * stdin closing, and many start helpers of their own).
 */
import * as l10n from '@vscode/l10n';
import type { ChildProcess } from 'node:child_process';
import { Emitter, type Disposable, type Event } from 'vscode-jsonrpc/node';
import type { AgentCaps, ClientFeatureOptions } from '../acp/capabilities';
import { createAgentConnection, type OwnedAgentConnection, type ProtocolChoice } from '../acp/agentConnections';
import type { AgentConnection, ClientInfo } from '../acp/port/agentConnection';
import { stdioTransport } from '../acp/transport/stdio';
import type { MessageTap } from '../acp/transport/transport';
import type { AgentCommand } from './command';
import { silentLogger, type Logger } from '../common/logger';
import { mergeEnv, withoutEnv } from './environment';
import { describeExit, describeSpawnError, exitSummary } from './exitReasons';
import { initializeFailureMessage, initializeWithin } from '../acp/initialize';
import { groupGone, killTree, processRunning } from './processTree';
import { RestartPolicy, type RestartPolicyOptions } from './restartPolicy';
import { executableProblem, spawnGroup } from './spawnGroup';
import { StderrLines } from './stderrLines';
import { redactSecrets } from '../common/redact';
import { StderrTail } from './stderrTail';
import { AgentStartError } from './startFailure';
import type { AgentRuntime, AgentState, AgentStateChange } from './agentRuntime';
import { ConfinementUnavailableError, type ConfinedCommand, type Confinement, type LaunchConfinement } from './confinement/types';
import { errorMessage } from '../common/errors';

export type { AgentState, AgentStateChange } from './agentRuntime';

export interface AgentProcessOptions {
  readonly command: AgentCommand;
  /** Working directory of the process (the primary folder, usually). */
  readonly cwd?: string;
  /** The environment the agent's settings are merged over (default: this process's). */
  readonly parentEnv?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  readonly clientInfo: ClientInfo;
  readonly features?: ClientFeatureOptions;
  /** Registers agent → client handlers on every new connection, before `initialize`. */
  readonly registerHandlers?: (connection: AgentConnection, confinement?: Confinement) => void;
  /**
   * How to confine the agent, asked at every launch (a restart picks up a widened policy). Absent: not
   * confined, and {@link AgentProcess.confinement} is undefined. A rejection fails the launch (fail closed):
   * nothing is spawned, and the message says why and how to fix it.
   */
  readonly confinement?: () => Promise<LaunchConfinement>;
  /** Restarts after unexpected exits while running; `false` never restarts. */
  readonly restartPolicy?: RestartPolicyOptions | false;
  /** How long `initialize` may take (npx may first download the agent). Default 120 s. */
  readonly initializeTimeoutMs?: number;
  /** How long the agent gets to exit after SIGTERM before SIGKILL. Default 2 s. */
  readonly stopGraceMs?: number;
  readonly maxLineBytes?: number;
  readonly tap?: MessageTap;
  /** Which ACP version to offer (`acp/agentConnections.ts`); default v1. */
  readonly protocol?: ProtocolChoice;
}

/** A running (or not) agent process and its current connection. */
export class AgentProcess implements Disposable, AgentRuntime {
  private child: ChildProcess | undefined;
  private current: OwnedAgentConnection | undefined;
  private starting: Promise<OwnedAgentConnection> | undefined;
  private stopping: Promise<void> | undefined;
  private stateValue: AgentState = 'stopped';
  private readonly restartPolicy: RestartPolicy | undefined;
  private readonly logger: Logger;
  private readonly stderrTail = new StderrTail();
  private confinementValue: Confinement | undefined;
  /** Processes we asked to stop: their exit is expected, not a crash. */
  private readonly stopRequested = new WeakSet<ChildProcess>();
  private readonly stateEmitter = new Emitter<AgentStateChange>();
  private readonly restartEmitter = new Emitter<OwnedAgentConnection>();

  /** Every state change, with the reason when it stopped or failed. */
  readonly onDidChangeState: Event<AgentStateChange> = this.stateEmitter.event;
  /** A new connection after an automatic restart (sessions of the old one are gone: reopen them). */
  readonly onDidRestart: Event<OwnedAgentConnection> = this.restartEmitter.event;

  constructor(private readonly options: AgentProcessOptions) {
    this.logger = options.logger ?? silentLogger;
    this.restartPolicy = options.restartPolicy === false ? undefined : new RestartPolicy(options.restartPolicy);
  }

  get name(): string {
    return this.options.command.name;
  }

  get state(): AgentState {
    return this.stateValue;
  }

  /** The initialized connection while running. */
  get connection(): OwnedAgentConnection | undefined {
    return this.stateValue === 'running' ? this.current : undefined;
  }

  get caps(): AgentCaps | undefined {
    return this.connection?.caps;
  }

  /** How the current (or last) process was started: confined by what, to what, or unconfined and why. */
  get confinement(): Confinement | undefined {
    return this.confinementValue;
  }

  /** The last lines the current (or last) process wrote to stderr: bounded, secrets redacted. */
  get recentStderr(): readonly string[] {
    return this.stderrTail.lines();
  }

  /** Process id while a process exists (tests use it to check the tree is gone). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the agent (or joins a start in progress) and resolves with the initialized connection. */
  start(): Promise<OwnedAgentConnection> {
    if (this.stateValue === 'running' && this.current) return Promise.resolve(this.current);
    if (this.starting) return this.starting;
    const attempt = (this.stopping ?? Promise.resolve()).then(() => this.launch());
    this.starting = attempt;
    const clear = () => {
      if (this.starting === attempt) this.starting = undefined;
    };
    attempt.then(clear, clear);
    return attempt;
  }

  /** Stops the agent and its whole process tree. Outstanding requests fail with "stopped". */
  stop(reason = `${this.name} was stopped.`): Promise<void> {
    if (this.stopping) return this.stopping;
    const child = this.child;
    if (!child) {
      if (this.stateValue !== 'failed') this.setState({ state: 'stopped' });
      return Promise.resolve();
    }
    this.stopRequested.add(child);
    this.setState({ state: 'stopping' });
    this.current?.dispose(reason);
    const stopped = this.terminate(child).finally(() => {
      if (this.stopping === stopped) this.stopping = undefined;
    });
    this.stopping = stopped;
    return stopped;
  }

  /** Stops (if needed) and starts again. */
  async restart(): Promise<OwnedAgentConnection> {
    await this.stop(`${this.name} is restarting.`);
    return this.start();
  }

  /** Stops the process tree; the returned promise settles when it is gone. */
  dispose(): Promise<void> {
    const done = this.stop(l10n.t('{0} was stopped because ACP Workspace is shutting down.', this.name));
    return done.finally(() => {
      this.stateEmitter.dispose();
      this.restartEmitter.dispose();
    });
  }

  // ---- internals ----------------------------------------------------------------------------------

  private async launch(): Promise<OwnedAgentConnection> {
    this.setState({ state: 'starting' });
    this.stderrTail.clear();
    const { command } = this.options;
    const entries = Object.entries(command.env).map(([name, value]) => ({ name, value }));
    const env = withoutEnv(mergeEnv(this.options.parentEnv ?? process.env, entries), command.unsetEnv ?? []);
    this.confinementValue = undefined;
    let launchConfinement: LaunchConfinement | undefined;
    if (this.options.confinement) {
      try {
        launchConfinement = await this.options.confinement();
      } catch (error) {
        throw this.fail(confinementFailure(command.name, error), false);
      }
    }
    const line = [command.command, ...command.args].join(' ');
    if (launchConfinement && 'confiner' in launchConfinement) {
      const { confiner, policy } = launchConfinement;
      const readable = policy.mode === 'strict' ? `; readable besides the system: ${policy.readable.join(', ') || 'nothing'}` : '';
      this.logger.info(
        `Starting ${command.name} confined by ${confiner.mechanism} (${policy.mode}): writable ${policy.writable.join(', ') || 'nothing'} and a private TMPDIR${readable}: ${line}`,
      );
    } else if (launchConfinement) {
      this.logger.info(
        `Starting ${command.name} unconfined (${launchConfinement.unconfined === 'off' ? 'acpWorkspace.sandbox is off' : 'unconfined this once'}): ${line}`,
      );
    } else {
      this.logger.info(`Starting ${command.name}: ${line}`);
    }

    const missing = executableProblem(command.command, env, this.options.cwd);
    if (missing) throw this.fail(describeSpawnError(command, missing), false);
    let confined: ConfinedCommand | undefined;
    let child: ChildProcess;
    try {
      if (launchConfinement && 'confiner' in launchConfinement) {
        const launchEnv = launchConfinement.env ?? {};
        confined = launchConfinement.confiner.wrap(command.command, command.args, { ...env, ...launchEnv }, this.options.cwd, launchConfinement.policy);
      }
      // Its own process group (so stopping it can signal every process it started), watched so that it ends
      // with the extension host however the host ends. Confined, the watchdog runs outside the mechanism.
      child = confined
        ? spawnGroup(confined.file, confined.args, { cwd: this.options.cwd, env: confined.env, stdio: ['pipe', 'pipe', 'pipe'] })
        : spawnGroup(command.command, command.args, { cwd: this.options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      confined?.dispose();
      throw this.fail(describeSpawnError(command, error), false);
    }
    this.child = child;
    if (confined) {
      // Its private temporary folder goes once the process and everything holding its output are done.
      const done = confined;
      child.once('close', () => done.dispose());
      child.once('error', () => done.dispose());
    }
    if (launchConfinement && 'confiner' in launchConfinement) {
      const { confiner, policy } = launchConfinement;
      this.confinementValue = { confined: true, mechanism: confiner.mechanism, description: confiner.description, policy, confiner };
    } else if (launchConfinement) {
      this.confinementValue = { confined: false, why: launchConfinement.unconfined };
    }

    const spawnFailure = new Promise<Error>((resolve) => child.once('error', (error) => resolve(error)));
    const spawned = await Promise.race([new Promise<true>((resolve) => child.once('spawn', () => resolve(true))), spawnFailure]);
    if (spawned !== true) {
      this.child = undefined;
      throw this.fail(describeSpawnError(command, spawned), false);
    }

    const stderrDone = this.captureStderr(child);
    child.on('error', (error) => this.logger.warn(`${command.name}: ${error.message}`));
    child.stdin?.on('error', (error) => this.logger.trace(`${command.name} stdin: ${error.message}`));

    const connection = createAgentConnection({
      transport: stdioTransport(child.stdout!, child.stdin!, { peer: command.name, maxLineBytes: this.options.maxLineBytes }),
      logger: this.logger,
      tap: this.options.tap,
      // The process's exit closes the connection with its exit code and last stderr lines; the generic
      // "closed the connection" is only for an agent that ends its output and then keeps running. A busy
      // machine can take a while to report the exit after the output ended, so wait for it.
      closeGraceMs: EXIT_AFTER_EOF_MS,
      recentStderr: () => this.stderrTail.lines(),
      ...(this.options.protocol !== undefined ? { protocol: this.options.protocol } : {}),
    });
    this.current = connection;
    this.options.registerHandlers?.(connection, this.confinementValue);

    let initializing = true;
    child.once('exit', (code, signal) => {
      const duringInitialize = initializing;
      // Let the last stderr lines arrive (they explain most crashes), but do not wait on helpers that
      // inherited the pipe and keep it open.
      void Promise.race([stderrDone, delay(100)]).then(() => this.onExit(child, connection, code, signal, duringInitialize));
    });

    try {
      await initializeWithin(
        connection,
        { clientInfo: this.options.clientInfo, features: this.options.features },
        { agent: command.name, timeoutMs: this.options.initializeTimeoutMs ?? 120_000 },
      );
    } catch (error) {
      const message = initializeFailureMessage(error);
      initializing = false;
      await this.stop(message);
      throw this.fail(message);
    }
    initializing = false;
    this.setState({ state: 'running' });
    return connection;
  }

  private onExit(child: ChildProcess, connection: OwnedAgentConnection, code: number | null, signal: NodeJS.Signals | null, initializing: boolean): void {
    const wasStopping = this.stopRequested.has(child);
    const message = describeExit(this.name, code, signal, initializing, this.stderrTail.lines().slice(-STDERR_IN_EXIT_LINES));
    if (wasStopping) this.logger.info(`${this.name} stopped (${exitSummary(code, signal)}).`);
    else this.logger.warn(message);
    // Deliver what it wrote before exiting (the last chunks often explain the exit), then close.
    connection.close(message);
    // Helpers the agent started may still be running: end the whole group. When we stopped it,
    // terminate() does that once the group had its grace period.
    if (!wasStopping) killTree(child, 'SIGKILL');
    if (this.child === child) this.child = undefined;
    if (this.current === connection) this.current = undefined;
    if (wasStopping || initializing) return; // stop() / launch() settle the state
    if (this.restartPolicy?.allowRestart(Date.now())) {
      this.logger.info(`Restarting ${this.name} after it stopped unexpectedly.`);
      this.setState({ state: 'stopped', message });
      this.start().then(
        (restarted) => this.restartEmitter.fire(restarted),
        (error: Error) => this.logger.error(`Restarting ${this.name} failed: ${error.message}`),
      );
    } else {
      this.setState({ state: 'failed', message: this.restartPolicy ? `${message} ${capitalize(this.restartPolicy.describeCap())}.` : message });
    }
  }

  private async terminate(child: ChildProcess): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    child.stdin?.end();
    killTree(child, 'SIGTERM');
    const grace = this.options.stopGraceMs ?? 2000;
    const deadline = Date.now() + grace;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      exited.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), grace);
      }),
    ]);
    clearTimeout(timer);
    // On a busy machine the exit can be reported after the grace period although the agent did exit:
    // only an agent that still runs ignored the SIGTERM.
    if (timedOut && child.pid !== undefined && processRunning(child.pid)) {
      this.logger.warn(`${this.name} did not exit within ${grace} ms of SIGTERM; killing it.`);
    } else if (!(await groupGone(child, deadline))) {
      // The rest of the group got the SIGTERM too. Killing it the moment the agent exits cuts short what
      // its helpers do on the way out (Claude Code writes a session's last messages to disk then).
      this.logger.info(`Processes started by ${this.name} were still running ${grace} ms after SIGTERM; killing them.`);
    }
    killTree(child, 'SIGKILL');
    await exited;
    // SIGKILL is delivered at once but takes effect when each process is next scheduled: stopping is
    // done when nothing of the group runs any more, not when the signal was sent.
    if (!(await groupGone(child, Date.now() + KILL_SETTLE_MS))) {
      this.logger.warn(`Processes started by ${this.name} were still running ${KILL_SETTLE_MS} ms after SIGKILL.`);
    }
    if (this.child === child) this.child = undefined;
    this.setState({ state: 'stopped' });
  }

  /** Logs stderr line by line (bounded, see StderrLines) and keeps the last lines for error messages; resolves when it ends. */
  private captureStderr(child: ChildProcess): Promise<void> {
    const lines = new StderrLines((line) => this.noteStderr(line));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => lines.push(text));
    return new Promise<void>((resolve) => {
      if (!child.stderr) return resolve();
      child.stderr.on('end', () => {
        lines.end();
        resolve();
      });
      child.stderr.on('error', () => resolve());
    });
  }

  private noteStderr(line: string): void {
    if (line.trim() === '') return;
    this.logger.info(`[${this.name} stderr] ${redactSecrets(line)}`);
    this.stderrTail.push(line);
  }

  /** `started`: false when the agent never ran (refused, not found, could not be spawned): it had no stderr. */
  private fail(message: string, started = true): Error {
    this.setState({ state: 'failed', message });
    return new AgentStartError(this.name, message, this.stderrTail.lines(), undefined, started);
  }

  private setState(change: AgentStateChange): void {
    if (this.stateValue === change.state && change.message === undefined) return;
    this.stateValue = change.state;
    this.stateEmitter.fire(change);
  }
}

/** The last stderr lines an exit reason quotes (the whole tail is in {@link AgentProcess.recentStderr}). */
const STDERR_IN_EXIT_LINES = 12;

/** How long after the agent's output ends its exit is awaited before the connection closes without it. */
const EXIT_AFTER_EOF_MS = 5000;

/** How long a stop waits for SIGKILLed processes to be gone. */
const KILL_SETTLE_MS = 1000;

/** Why a confined launch did not start, and how to fix it. */
function confinementFailure(name: string, error: unknown): string {
  if (error instanceof ConfinementUnavailableError) {
    return l10n.t('{0} was not started: it is to run confined (acpWorkspace.sandbox), but {1} {2}', name, lowerFirst(error.reason), error.fix);
  }
  return l10n.t('{0} was not started: its confinement (acpWorkspace.sandbox) could not be set up: {1}', name, errorMessage(error));
}

function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
