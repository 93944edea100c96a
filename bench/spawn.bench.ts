/**
 * spawn bench: what the watchdog (src/process/spawnGroup.ts) costs. Every agent and terminal command is started
 * as `sh -c` that forks a watchdog and `exec`s the program. Baseline, in the same run and interleaved run by run:
 * the plain spawn the code used before (its own process group, no watchdog). Figures, medians:
 * - a short command (`true`) from spawn to 'close' (every pipe closed, so the watchdog has left too), the
 *   first (cold) run apart;
 * - a Node program (`node -e 0`), the same way, which is closer to what starting an agent costs;
 * - the watchdog's resident memory while a command runs (the agent's own memory is not counted).
 *
 *   node out/bench/spawn.bench.js [--runs 40]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { spawnGroup } from '../src/process/spawnGroup';
import { median, parseArgs, printTable } from './util';

const { runs } = parseArgs({ runs: 40 });

type Start = (file: string, args: readonly string[]) => ChildProcess;

const watched: Start = (file, args) => spawnGroup(file, args, { cwd: undefined, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
const plain: Start = (file, args) => spawn(file, [...args], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });

/** Milliseconds from spawn until the command exited and every pipe closed. */
function timeOne(start: Start, file: string, args: readonly string[]): Promise<number> {
  const began = process.hrtime.bigint();
  const child = start(file, args);
  child.stdout?.resume();
  child.stderr?.resume();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve(Number(process.hrtime.bigint() - began) / 1e6));
  });
}

async function compare(label: string, file: string, args: readonly string[]): Promise<string[][]> {
  const cold = { watched: await timeOne(watched, file, args), plain: await timeOne(plain, file, args) };
  const times = { watched: [] as number[], plain: [] as number[] };
  const ratios: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first, so drift of the machine's speed does not favour one.
    let w: number;
    let p: number;
    if (i % 2 === 0) {
      w = await timeOne(watched, file, args);
      p = await timeOne(plain, file, args);
    } else {
      p = await timeOne(plain, file, args);
      w = await timeOne(watched, file, args);
    }
    times.watched.push(w);
    times.plain.push(p);
    ratios.push(w / p);
  }
  return [
    [`${label}, cold (first)`, cold.watched.toFixed(2), cold.plain.toFixed(2), (cold.watched / cold.plain).toFixed(2)],
    [`${label}, median of ${runs}`, median(times.watched).toFixed(2), median(times.plain).toFixed(2), median(ratios).toFixed(2)],
  ];
}

/** The watchdog's resident memory (KiB) while a command runs: the group member that is not the command. */
async function watchdogRssKiB(): Promise<number | undefined> {
  if (process.platform !== 'linux') return undefined;
  const child = watched('sleep', ['30']);
  await new Promise((resolve) => setTimeout(resolve, 200));
  let rss: number | undefined;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === child.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== child.pid) continue;
      rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
    } catch {
      // gone
    }
  }
  process.kill(-child.pid!, 'SIGKILL');
  return rss;
}

async function main(): Promise<void> {
  console.log(`spawn bench: ${runs} runs each, ${os.cpus().length} cores, Node ${process.version}`);
  const rows = [...(await compare('true', 'true', [])), ...(await compare('node -e 0', process.execPath, ['-e', '0']))];
  printTable(['start to close (ms)', 'watched', 'plain', 'ratio'], rows);
  const rss = await watchdogRssKiB();
  console.log(`watchdog resident memory while a command runs: ${rss === undefined ? 'n/a' : `${(rss / 1024).toFixed(1)} MiB`}`);
}

void main();
