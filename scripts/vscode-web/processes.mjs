// @ts-check
// Process bookkeeping for the real-VS-Code tooling: free loopback ports, child process groups that are
// always killed (on success, failure, Ctrl-C and SIGTERM), and a sweep for anything a test run left behind.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

/** @type {Set<import('node:child_process').ChildProcess>} */
const groups = new Set();
/** @type {Array<() => Promise<void> | void>} */
const cleanups = [];
let exiting = false;

/** A free TCP port on 127.0.0.1 (bind port 0, read it, release it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Spawns a process in its own process group and remembers it, so {@link killAll} (and the signal
 * handlers below) can end it and everything it started.
 * @param {string} command @param {string[]} args @param {import('node:child_process').SpawnOptions} options
 */
export function spawnGroup(command, args, options) {
  const child = spawn(command, args, { ...options, detached: process.platform !== 'win32' });
  groups.add(child);
  child.once('exit', () => groups.delete(child));
  return child;
}

/** Signals a child's whole process group; never throws. @param {import('node:child_process').ChildProcess} child */
export function killGroup(child, signal = /** @type {NodeJS.Signals} */ ('SIGKILL')) {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore' });
    else process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Ends a group politely (SIGTERM), then for sure (SIGKILL) after `graceMs`. */
export async function stopGroup(/** @type {import('node:child_process').ChildProcess} */ child, graceMs = 2000) {
  if (child.exitCode !== null || child.signalCode !== null) {
    killGroup(child);
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killGroup(child, 'SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, graceMs))]);
  killGroup(child, 'SIGKILL');
  groups.delete(child);
}

/** Runs `cleanup` when the process ends through {@link killAll} or a signal. */
export function onCleanup(/** @type {() => Promise<void> | void} */ cleanup) {
  cleanups.push(cleanup);
}

/** Runs registered cleanups (newest first) and kills every remembered process group. */
export async function killAll() {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch {
      // keep going: the groups below must die regardless
    }
  }
  for (const child of [...groups]) killGroup(child);
  groups.clear();
}

for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.on(signal, () => {
    if (exiting) return;
    exiting = true;
    void killAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}
process.on('exit', () => {
  for (const child of groups) killGroup(child);
});

/**
 * Waits until no process whose environment holds `marker=value` runs any more (zombies do not count), for
 * at most `graceMs`, then sweeps what is left (see sweepMarkedProcesses). Processes that end on their own
 * within the grace period (an agent's watchdog finishing its group after the host went away) are not
 * leftovers.
 * @returns {Promise<{ pid: number, command: string }[]>}
 */
export async function sweepMarkedProcessesAfter(/** @type {string} */ marker, /** @type {string} */ value, graceMs = 5000) {
  const deadline = Date.now() + graceMs;
  while (markedRunning(marker, value) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return sweepMarkedProcesses(marker, value);
}

function markedRunning(/** @type {string} */ marker, /** @type {string} */ value) {
  return markedProcesses(marker, value).some(({ pid }) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z'); // a zombie waits to be reaped, it does not run
    } catch {
      return false; // gone meanwhile
    }
  });
}

/**
 * Finds processes whose environment holds `marker=value` (every process a test run starts inherits it:
 * code-server, the extension host, agents, their helpers), kills them, and returns their pids and
 * command lines. Linux only (reads /proc); elsewhere returns [].
 * @returns {{ pid: number, command: string }[]}
 */
export function sweepMarkedProcesses(/** @type {string} */ marker, /** @type {string} */ value) {
  const found = markedProcesses(marker, value);
  for (const { pid } of found) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** @returns {{ pid: number, command: string }[]} the processes whose environment holds `marker=value` (Linux only). */
export function markedProcesses(/** @type {string} */ marker, /** @type {string} */ value) {
  if (process.platform !== 'linux') return [];
  const needle = `${marker}=${value}`;
  const found = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (!environ.includes(needle)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid, command });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
