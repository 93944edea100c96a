/**
 * One terminal: a command running in its own process group, its output (stdout and stderr interleaved
 * as they arrive, decoded as UTF-8 per stream so a character split across reads stays whole) kept within
 * a byte limit, and its exit status once it ended.
 *
 * "Exited" means the command's own process ended and its output pipes closed — or 100 ms passed after
 * it ended, when a background process it started keeps them open; output such a process writes later is
 * still recorded.
 */
import * as l10n from '@vscode/l10n';
import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { quotePath } from '../roots/rootGuard';
import type { CommandPlan } from './commandLine';
import { OutputBuffer } from './outputBuffer';
import { ProcessGroup } from '../process/processGroup';
import { executableProblem, spawnGroup } from '../process/spawnGroup';
import type { ConfinedCommand } from '../process/confinement/types';
import { TerminalError, TerminalErrorCodes } from './terminalError';
import { errorMessage } from '../common/errors';
import type { CancellationSignal, TerminalExitStatus as ExitStatus, TerminalOutput } from '../acp/port/client';

/**
 * How a command ended (`exitCode` null when a signal ended it, `signal` null when it exited by itself), the answer
 * to `terminal/output`, and the part of a cancellation token this needs: the port's shapes (`acp/port/client.ts`).
 */
export type { CancellationSignal, ExitStatus, TerminalOutput };

/** What changed: a terminal was created, has new output, exited, or was released. */
export type TerminalChange = 'created' | 'output' | 'exited' | 'released';

/** A read-only, live view of one terminal, for the UI. It stays readable after the terminal is released. */
export interface TerminalView {
  readonly terminalId: string;
  readonly sessionId: string;
  /** `command` and `args` as the agent sent them. */
  readonly command: string;
  readonly args: readonly string[];
  /** The command as a person would type it. */
  readonly commandLine: string;
  /** Whether it runs as a shell line (`/bin/sh -c`, `cmd.exe /c`). */
  readonly shell: boolean;
  /** The real path it runs in. */
  readonly cwd: string;
  readonly pid: number | undefined;
  /** The retained output so far. */
  readonly output: string;
  /** Whether the beginning of the output was dropped to stay within {@link outputByteLimit}. */
  readonly truncated: boolean;
  /** Most bytes of output kept (the agent's limit, capped). */
  readonly outputByteLimit: number;
  readonly exitStatus: ExitStatus | undefined;
  /** `Date.now()` when it was started, and when it exited. */
  readonly startedAt: number;
  readonly exitedAt: number | undefined;
  readonly released: boolean;
}

/** Everything needed to start one terminal. */
export interface TerminalStart {
  readonly terminalId: string;
  readonly sessionId: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly plan: CommandPlan;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly outputByteLimit: number;
  /** Time between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  readonly onChange: (change: TerminalChange) => void;
  readonly platform?: NodeJS.Platform;
  /** Wraps the command to run confined (the agent's own confinement); undefined runs it as it is. */
  readonly confine?: TerminalConfine;
}

/** `file args` in `cwd` with `env`, as a confined command line (see ConfinedCommand). */
export type TerminalConfine = (file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) => ConfinedCommand;

/** How long to wait for the output pipes after the command exited before reporting the exit. */
const PIPE_SETTLE_MS = 100;
/** How often `kill` looks whether the process group is gone. */
const KILL_POLL_MS = 20;

/** One running or exited command. Created by {@link Terminal.start}. */
export class Terminal {
  readonly view: TerminalView;
  private readonly buffer: OutputBuffer;
  private readonly group: ProcessGroup;
  private readonly startedAt = Date.now();
  private exitedAt: number | undefined;
  private exitStatus: ExitStatus | undefined;
  private releasedValue = false;
  private openPipes = 0;
  private readonly exited: Promise<ExitStatus>;
  private resolveExited!: (status: ExitStatus) => void;
  private pipesClosed!: () => void;
  private readonly allPipesClosed: Promise<void>;
  private killing: Promise<void> | undefined;
  /** False until the command runs: a command that failed to start reports nothing. */
  private started = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: TerminalStart,
  ) {
    this.buffer = new OutputBuffer(options.outputByteLimit);
    this.group = new ProcessGroup(child, options.platform);
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.allPipesClosed = new Promise((resolve) => (this.pipesClosed = resolve));
    this.capture(child.stdout);
    this.capture(child.stderr);
    if (this.openPipes === 0) this.pipesClosed();
    child.on('exit', (code, signal) => this.onProcessExit(code, signal));
    this.view = this.makeView();
  }

  /**
   * Spawns the command and resolves once it runs.
   * @throws TerminalError -32603 when it cannot be started (not found, not executable…), -32602 for
   *   arguments the OS cannot take (a NUL character).
   */
  static async start(options: TerminalStart): Promise<Terminal> {
    const { plan } = options;
    const platform = options.platform ?? process.platform;
    const missing = executableProblem(plan.file, options.env, options.cwd, platform);
    if (missing) throw spawnError(options, missing);
    let child: ChildProcess;
    let confined: ConfinedCommand | undefined;
    try {
      confined = options.confine?.(plan.file, plan.args, options.env, options.cwd);
      // Its own process group (so kill can signal everything it started), watched so that it ends with the
      // extension host however the host ends. Confined, the watchdog runs outside the mechanism, and the
      // group holds the mechanism's process and everything inside.
      child = confined
        ? spawnGroup(confined.file, confined.args, { cwd: options.cwd, env: confined.env, stdio: ['ignore', 'pipe', 'pipe'] }, platform)
        : spawnGroup(
            plan.file,
            plan.args,
            {
              cwd: options.cwd,
              env: options.env,
              stdio: ['ignore', 'pipe', 'pipe'],
              shell: plan.shell,
              windowsVerbatimArguments: plan.windowsVerbatimArguments,
            },
            platform,
          );
    } catch (error) {
      confined?.dispose();
      throw new TerminalError(TerminalErrorCodes.InvalidParams, l10n.t('Cannot run {0}: {1}', quotePath(plan.display), errorMessage(error)), {
        command: options.command,
        reason: codeOf(error),
      });
    }
    if (confined) {
      // Its private temporary folder goes once the command and whatever held its output are done.
      const done = confined;
      child.once('close', () => done.dispose());
      child.once('error', () => done.dispose());
    }
    const terminal = new Terminal(child, options);
    const failure = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (error) => resolve(error));
    });
    if (failure) throw spawnError(options, failure);
    terminal.started = true;
    child.on('error', (error) => terminal.onLateError(error));
    return terminal;
  }

  get terminalId(): string {
    return this.options.terminalId;
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  /** The output so far, whether it was truncated, and the exit status once exited. */
  output(): TerminalOutput {
    const result = { output: this.buffer.text, truncated: this.buffer.truncated };
    return this.exitStatus ? { ...result, exitStatus: { ...this.exitStatus } } : result;
  }

  /**
   * Resolves with the exit status once the command has exited.
   * @throws TerminalError -32800 when `token` is cancelled first.
   */
  waitForExit(token?: CancellationSignal): Promise<ExitStatus> {
    if (this.exitStatus) return Promise.resolve({ ...this.exitStatus });
    if (!token) return this.exited;
    const cancelled = () =>
      new TerminalError(TerminalErrorCodes.Cancelled, l10n.t('Waiting for terminal {0} to exit was cancelled.', this.terminalId), {
        terminalId: this.terminalId,
        sessionId: this.sessionId,
      });
    if (token.isCancellationRequested) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      let settled = false;
      const subscription = token.onCancellationRequested(() => {
        if (settled) return;
        settled = true;
        reject(cancelled());
      });
      void this.exited.then((status) => {
        subscription.dispose();
        if (settled) return;
        settled = true;
        resolve(status);
      });
    });
  }

  /**
   * Ends the command and every process of its group: SIGTERM, then SIGKILL once the grace period is over
   * if any is left. Resolves when the command has exited. The terminal stays readable.
   */
  kill(): Promise<void> {
    this.killing ??= this.terminate().finally(() => (this.killing = undefined));
    return this.killing;
  }

  /** Marks the terminal released and kills what is still running of it. */
  release(): Promise<void> {
    if (!this.releasedValue) {
      this.releasedValue = true;
      this.notify('released');
    }
    return this.kill();
  }

  // ---- internals ----------------------------------------------------------------------------------

  /**
   * The group is only signalled while it is certainly the command's: its own process runs, or something
   * still holds the output pipes (a background process it started). Once the command exited and the
   * pipes closed, a group id could in time belong to someone else, so processes that detached from the
   * output (daemons) are left alone.
   */
  private async terminate(): Promise<void> {
    const grace = this.options.killGraceMs;
    if (this.group.leaderRunning || this.openPipes > 0) {
      this.group.signal('SIGTERM');
      const deadline = Date.now() + grace;
      while (this.group.alive() && Date.now() < deadline) await delay(KILL_POLL_MS);
      if (this.group.alive()) this.group.signal('SIGKILL');
    }
    // Bounded: a process stuck in the kernel may never be reaped.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(grace, 1000))))]);
    clearTimeout(timer);
  }

  private capture(stream: Readable | null): void {
    if (!stream) return;
    this.openPipes++;
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => this.append(decoder.write(chunk)));
    stream.on('error', () => undefined); // 'close' follows
    stream.once('close', () => {
      this.append(decoder.end());
      if (--this.openPipes === 0) this.pipesClosed();
    });
  }

  private append(text: string): void {
    if (text === '') return;
    this.buffer.append(text);
    this.notify('output');
  }

  private notify(change: TerminalChange): void {
    if (this.started) this.options.onChange(change);
  }

  private onProcessExit(code: number | null, signal: NodeJS.Signals | null): void {
    void Promise.race([this.allPipesClosed, delay(PIPE_SETTLE_MS)]).then(() => this.finish(code, signal));
  }

  /** An error after the command started: cross-spawn reports a command not found on Windows this way, instead of 'exit'. */
  private onLateError(error: Error): void {
    this.append(`\n${errorMessage(error)}\n`);
    if (!this.group.leaderRunning) this.onProcessExit(this.child.exitCode, this.child.signalCode);
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitStatus) return;
    // Windows reports NTSTATUS codes; ACP's exitCode is unsigned.
    const exitCode = signal !== null || code === null ? null : code < 0 ? code >>> 0 : code;
    this.exitStatus = Object.freeze({ exitCode, signal: signal ?? null });
    this.exitedAt = Date.now();
    this.group.alive(); // an empty group is then never signalled again
    this.resolveExited({ ...this.exitStatus });
    this.notify('exited');
  }

  private makeView(): TerminalView {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const { options } = this;
    return Object.freeze({
      terminalId: options.terminalId,
      sessionId: options.sessionId,
      command: options.command,
      args: Object.freeze([...options.args]),
      commandLine: options.plan.display,
      shell: options.plan.shell,
      cwd: options.cwd,
      pid: this.child.pid,
      outputByteLimit: options.outputByteLimit,
      startedAt: this.startedAt,
      get output() {
        return self.buffer.text;
      },
      get truncated() {
        return self.buffer.truncated;
      },
      get exitStatus() {
        return self.exitStatus;
      },
      get exitedAt() {
        return self.exitedAt;
      },
      get released() {
        return self.releasedValue;
      },
    });
  }
}

function spawnError(options: TerminalStart, error: Error): TerminalError {
  const code = codeOf(error);
  const what = quotePath(options.plan.display);
  const where = ` (in ${options.cwd})`;
  let message: string;
  if (code === 'ENOENT') message = `Cannot run ${what}: the command "${options.plan.file}" was not found${where}.`;
  else if (code === 'EACCES') message = `Cannot run ${what}: "${options.plan.file}" is not executable (permission denied).`;
  else message = `Cannot run ${what}${where}: ${errorMessage(error)}`;
  return new TerminalError(TerminalErrorCodes.SpawnFailed, message, { command: options.command, cwd: options.cwd, reason: code });
}

function codeOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
