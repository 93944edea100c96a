/**
 * The terminals of one agent connection (ACP `terminal/*`): create, output, wait_for_exit, kill and
 * release, each scoped to the session that created the terminal. A terminal id asked for by another
 * session is answered exactly like an unknown one (-32002), so ids do not leak between sessions.
 *
 * Commands run in a folder the session may use (see {@link resolveTerminalCwd}), with the extension
 * host's environment plus the agent's `env`, stdin closed, in their own process group; see
 * {@link planCommand} for when a shell is used and {@link OutputBuffer} for how output is kept. Each
 * terminal keeps at most `outputByteLimit` bytes, and never more than {@link MAX_RETAINED_OUTPUT_BYTES}
 * (16 MiB by default), whatever the agent asked for.
 *
 * No `vscode` here: the VS Code layer registers the ACP handlers, shows live output through
 * {@link Terminals.onDidChange} and {@link Terminals.get}, and throttles as it sees fit.
 */
import * as l10n from '@vscode/l10n';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../common/logger';
import type { CreateTerminalRequest, TerminalRef } from '../acp/port/client';
import type { RootGuard } from '../roots/rootGuard';
import { planCommand } from './commandLine';
import { mergeEnv } from '../process/environment';
import { MAX_RETAINED_OUTPUT_BYTES } from './outputBuffer';
import {
  type CancellationSignal,
  type ExitStatus,
  Terminal,
  type TerminalChange,
  type TerminalOutput,
  type TerminalConfine,
  type TerminalView,
} from './terminal';
import { resolveTerminalCwd } from './terminalCwd';
import { TerminalError, TerminalErrorCodes } from './terminalError';
import { errorMessage } from '../common/errors';

export type { CancellationSignal, ExitStatus, TerminalChange, TerminalConfine, TerminalOutput, TerminalView } from './terminal';

/** The command the agent wants run (the port's `terminal/create` request). */
export type CreateTerminalParams = CreateTerminalRequest;

/** Which terminal, asked for by which session (the params of output, wait_for_exit, kill and release). */
export type { TerminalRef };

/** A command about to start, for whoever must allow it first (a remote agent's command: asked, confined). */
export interface TerminalStartRequest {
  readonly sessionId: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The command line as a person would type it. */
  readonly display: string;
  /** The folder it runs in: resolved by the session's RootGuard, a real path. */
  readonly cwd: string;
}

/**
 * Lets a command start, and says how it is confined: resolves with the confinement it must run under (there is
 * no "unconfined" answer), or rejects with a {@link TerminalError} and nothing starts.
 */
export type TerminalAdmission = (request: TerminalStartRequest) => Promise<TerminalConfine>;

/** Called with the terminal's id and what changed. */
export type TerminalChangeListener = (terminalId: string, change: TerminalChange) => void;

/** Options of {@link Terminals}. */
export interface TerminalsOptions {
  /** The environment the agent's `env` is merged over (default: this process's). */
  readonly parentEnv?: NodeJS.ProcessEnv;
  /** Time between SIGTERM and SIGKILL when killing (default 2 s). */
  readonly killGraceMs?: number;
  /** Most output bytes one terminal keeps, whatever the agent asks (default {@link MAX_RETAINED_OUTPUT_BYTES}). */
  readonly maxOutputBytes?: number;
  readonly logger?: Logger;
  /** The platform whose rules apply (shell, environment, process groups). Default: the real one. */
  readonly platform?: NodeJS.Platform;
  /**
   * Wraps every command to run confined like the agent (its mechanism and policy); the cwd is still checked
   * by the session's RootGuard first. Undefined runs commands as they are.
   */
  readonly confine?: TerminalConfine;
}

/** The terminals of one agent connection. */
export class Terminals {
  private readonly terminals = new Map<string, Terminal>();
  private readonly listeners = new Set<TerminalChangeListener>();
  private disposed = false;

  constructor(private readonly options: TerminalsOptions = {}) {}

  /**
   * Starts `command` for the session `params.sessionId`.
   * @param guard the session's {@link RootGuard}: an explicit `cwd` must resolve inside its roots.
   * @param sessionCwd the session's cwd, used when `params.cwd` is absent.
   * @param admit asked once the folder is settled and before anything starts: the confinement this command runs
   *   under instead of the connection's (a remote agent's command), or a rejection (nothing starts).
   * @throws TerminalError -32602 for an empty command, a malformed `env` entry or a refused cwd (the message
   *   names the cwd and the roots); -32603 when the command cannot be started; whatever `admit` rejects with.
   */
  async create(params: CreateTerminalParams, guard: RootGuard, sessionCwd: string, admit?: TerminalAdmission): Promise<{ terminalId: string }> {
    this.assertOpen();
    const { sessionId, command } = params;
    const args = params.args ?? [];
    const entries = params.env ?? [];
    if (command.trim() === '') throw new TerminalError(TerminalErrorCodes.InvalidParams, l10n.t('Cannot run an empty command.'), { sessionId });
    const badEnv = entries.find((e) => e.name === '' || e.name.includes('=') || e.name.includes('\0') || e.value.includes('\0'));
    if (badEnv) {
      throw new TerminalError(
        TerminalErrorCodes.InvalidParams,
        l10n.t('Invalid environment variable {0}: a name must be non-empty without "=", and neither may contain NUL.', JSON.stringify(badEnv.name)),
        {
          sessionId,
          command,
        },
      );
    }

    const cwd = await resolveTerminalCwd(params.cwd, guard, sessionCwd);
    const platform = this.options.platform ?? process.platform;
    const env = mergeEnv(this.options.parentEnv ?? process.env, entries, platform);
    const plan = await planCommand(command, args, cwd, env, platform);
    this.assertOpen();
    const confine = admit ? await admit({ sessionId, command, args, display: plan.display, cwd }) : this.options.confine;
    this.assertOpen();
    const terminalId = newTerminalId();
    const requested = params.outputByteLimit ?? Number.POSITIVE_INFINITY;
    const terminal = await Terminal.start({
      terminalId,
      sessionId,
      command,
      args,
      plan,
      cwd,
      env,
      outputByteLimit: Math.min(requested, this.options.maxOutputBytes ?? MAX_RETAINED_OUTPUT_BYTES),
      killGraceMs: this.options.killGraceMs ?? 2000,
      platform,
      confine,
      onChange: (change) => this.fire(terminalId, change),
    });
    if (this.disposed) {
      // The connection closed while it was starting.
      void terminal.release();
      throw closedError();
    }
    this.terminals.set(terminalId, terminal);
    this.options.logger?.info(`Terminal ${terminalId} (session ${sessionId}) started${confine ? ' confined' : ''}: ${plan.display} in ${cwd}`);
    this.fire(terminalId, 'created');
    return { terminalId };
  }

  /** `terminal/output`. @throws TerminalError -32002 for an unknown id or another session's terminal. */
  output(ref: TerminalRef): TerminalOutput {
    return this.find(ref).output();
  }

  /**
   * `terminal/wait_for_exit`: resolves with the exit status once the command has exited.
   * @throws TerminalError -32002 for an unknown id; -32800 when `token` is cancelled first.
   */
  async waitForExit(ref: TerminalRef, token?: CancellationSignal): Promise<ExitStatus> {
    return this.find(ref).waitForExit(token);
  }

  /**
   * `terminal/kill`: ends the command and its whole process group (SIGTERM, SIGKILL after the grace
   * period); resolves when it has exited. The terminal stays valid. After the command exited by itself,
   * only background processes still holding its output pipes are ended (see {@link Terminal.kill}).
   * @throws TerminalError -32002 for an unknown id.
   */
  async kill(ref: TerminalRef): Promise<void> {
    await this.find(ref).kill();
  }

  /**
   * `terminal/release`: forgets the terminal at once (later calls with its id fail with -32002) and kills
   * whatever still runs of it; resolves when that is gone.
   * @throws TerminalError -32002 for an unknown id.
   */
  async release(ref: TerminalRef): Promise<void> {
    const terminal = this.find(ref);
    this.terminals.delete(ref.terminalId);
    this.options.logger?.info(`Terminal ${ref.terminalId} released.`);
    await terminal.release();
  }

  /** Releases every terminal of a session (the session was closed or is gone). */
  async releaseSession(sessionId: string): Promise<void> {
    const mine = [...this.terminals.values()].filter((t) => t.sessionId === sessionId);
    await Promise.all(mine.map((t) => this.release({ sessionId, terminalId: t.terminalId })));
  }

  /** The connection closed: releases every terminal (killing what runs) and refuses new ones. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.terminals.values()];
    this.terminals.clear();
    await Promise.all(all.map((t) => t.release()));
    this.listeners.clear();
  }

  /** A live, read-only view of a terminal for the UI (any session's), or undefined once released. */
  get(terminalId: string): TerminalView | undefined {
    return this.terminals.get(terminalId)?.view;
  }

  /** Views of the terminals not yet released, optionally only one session's, oldest first. */
  list(sessionId?: string): TerminalView[] {
    return [...this.terminals.values()].filter((t) => sessionId === undefined || t.sessionId === sessionId).map((t) => t.view);
  }

  /**
   * Calls `listener(terminalId, change)` on every creation, new output, exit and release. Output can
   * arrive many times a second: throttle in the listener. A terminal released while running still
   * reports its exit after `released` (its id is then unknown to {@link get}; a view obtained earlier
   * stays readable). A throwing listener is logged and does not affect the others. Returns a handle to
   * stop listening.
   */
  onDidChange(listener: TerminalChangeListener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  private find(ref: TerminalRef): Terminal {
    const terminal = this.terminals.get(ref.terminalId);
    if (!terminal || terminal.sessionId !== ref.sessionId) {
      throw new TerminalError(
        TerminalErrorCodes.UnknownTerminal,
        l10n.t('Unknown terminal {0} in session {1}: it was never created there, or it was released.', JSON.stringify(ref.terminalId), ref.sessionId),
        { terminalId: ref.terminalId, sessionId: ref.sessionId },
      );
    }
    return terminal;
  }

  private fire(terminalId: string, change: TerminalChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(terminalId, change);
      } catch (error) {
        this.options.logger?.error(`A terminal listener failed: ${errorMessage(error)}`);
      }
    }
  }

  private assertOpen(): void {
    if (this.disposed) throw closedError();
  }
}

function closedError(): TerminalError {
  return new TerminalError(TerminalErrorCodes.SpawnFailed, l10n.t('Cannot start a terminal: the connection to the agent is closing.'));
}

/** `term_` and 96 random bits (base64url). */
function newTerminalId(): string {
  return `term_${randomBytes(12).toString('base64url')}`;
}
