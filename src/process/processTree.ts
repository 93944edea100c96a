/**
 * Process groups and trees: signalling everything a spawned program started, and telling when all of it
 * is gone (zombies waiting to be reaped do not count).
 */
import type { ChildProcess } from 'node:child_process';
import { spawn as spawnChild } from 'node:child_process';
import * as fs from 'node:fs';

/** Signals the process and everything in its group (POSIX) or its tree (Windows). Never throws. */
export function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (process.platform === 'win32') {
    // taskkill /T ends the whole tree; /F because console programs ignore polite requests.
    const killer = spawnChild('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' });
    killer.on('error', () => undefined);
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Resolves true once no process of the child's process group is left running, false at `deadline`
 * (POSIX; on Windows `taskkill /T /F` has already ended the tree, so true).
 */
export async function groupGone(child: ChildProcess, deadline: number): Promise<boolean> {
  const pid = child.pid;
  if (pid === undefined || process.platform === 'win32') return true;
  while (groupRunning(pid)) {
    if (Date.now() >= deadline) return false;
    await delay(Math.min(25, Math.max(1, deadline - Date.now())));
  }
  return true;
}

/**
 * Whether a process of group `pgid` is still running. Members whose parent (the agent) is gone are
 * reaped by init, which may take a while: on Linux zombies are not counted (they are already dead).
 */
export function groupRunning(pgid: number): boolean {
  if (process.platform === 'linux') {
    let entries: string[];
    try {
      entries = fs.readdirSync('/proc');
    } catch {
      entries = [];
    }
    if (entries.length > 0) {
      return entries.some((entry) => {
        if (!/^\d+$/.test(entry)) return false;
        const stat = procStat(entry);
        return stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z';
      });
    }
  }
  return signalReaches(-pgid);
}

/** Whether process `pid` is still running (on Linux a zombie, dead but not yet reaped, is not). */
export function processRunning(pid: number): boolean {
  if (process.platform === 'linux' && fs.existsSync('/proc/self/stat')) {
    const stat = procStat(String(pid));
    return stat !== undefined && stat.state !== 'Z';
  }
  return signalReaches(pid);
}

/** State and process group of a process from `/proc/<pid>/stat`; undefined when it is gone. */
function procStat(pid: string): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
  // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses.
  const [state = '', , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, pgrp: Number(pgrp) };
}

/** Whether signal 0 reaches `target` (a pid, or a negated process group id). */
function signalReaches(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
