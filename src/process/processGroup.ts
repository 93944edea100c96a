/**
 * Signals for everything a terminal command started. On POSIX the command is spawned detached, so it
 * leads its own process group and a signal to `-pid` reaches its children and grandchildren too. On
 * Windows `taskkill /T /F` ends the tree while its root still runs.
 *
 * A process group id is only used while the group may still exist: once a probe or a signal finds it
 * empty (`ESRCH`) it is never signalled again, so a later process that happens to get the same id is
 * left alone.
 */
import type { ChildProcess } from 'node:child_process';
import { killTree } from './processTree';

/** The process group (POSIX) or process tree (Windows) of one spawned command. */
export class ProcessGroup {
  private gone = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  /** Whether the command's own process is still running. */
  get leaderRunning(): boolean {
    return this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Whether any process of the group may still exist. On POSIX a probe (signal 0), so zombies that no
   * one reaped yet count; on Windows only the command itself is known.
   */
  alive(): boolean {
    if (this.leaderRunning) return true;
    if (this.platform === 'win32') return false;
    return this.send(0);
  }

  /** Sends `signal` to the whole group (Windows: ends the tree, whatever the signal). False when nothing was there. */
  signal(signal: NodeJS.Signals): boolean {
    if (this.platform === 'win32') {
      if (!this.leaderRunning) return false;
      killTree(this.child, signal);
      return true;
    }
    return this.send(signal);
  }

  private send(signal: NodeJS.Signals | 0): boolean {
    const pid = this.child.pid;
    if (pid === undefined || this.gone) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') this.gone = true;
      return false; // ESRCH: empty; EPERM: not ours to signal
    }
  }
}
