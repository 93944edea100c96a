/**
 * confinement bench: what starting a command inside bubblewrap costs (src/process/confinement/). Every agent and
 * terminal command of a confined agent is spawned as `bwrap … -- <program>` through `spawnGroup`. Baseline, in
 * the same run and interleaved run by run: the same command through `spawnGroup` unconfined. Figures, medians:
 * - `true` from spawn to 'close', the first (cold) run apart: the fixed cost of setting up the sandbox;
 * - a Node program (`node -e 0`), closer to what starting an agent costs;
 * - `writes` and `strict` policies with three writable folders, each a git repository whose configuration,
 *   hooks and editor settings the mechanism protects (`folders`: pinned and read-only mounts, placeholders for
 *   what does not exist). Linux only (bubblewrap).
 *
 *   node out/bench/confinement.bench.js [--runs 30]
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findConfiner } from '../src/process/confinement/find';
import type { ConfinementPolicy, Confiner } from '../src/process/confinement/types';
import { spawnGroup } from '../src/process/spawnGroup';
import { median, parseArgs, printTable } from './util';

const { runs } = parseArgs({ runs: 30 });

/** Milliseconds from spawn until the command exited and every pipe closed. */
function timeOne(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const began = process.hrtime.bigint();
  const child = spawnGroup(file, args, { cwd: undefined, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.resume();
  child.stderr?.resume();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - began) / 1e6) : reject(new Error(`${file} exited with ${code}`))));
  });
}

async function confinedOnce(confiner: Confiner, policy: ConfinementPolicy, file: string, args: readonly string[]): Promise<number> {
  const command = confiner.wrap(file, args, process.env, policy.writable[0], policy);
  try {
    return await timeOne(command.file, command.args, command.env);
  } finally {
    command.dispose();
  }
}

async function compare(label: string, confiner: Confiner, policy: ConfinementPolicy, file: string, args: readonly string[]): Promise<string[][]> {
  const cold = { confined: await confinedOnce(confiner, policy, file, args), plain: await timeOne(file, args, process.env) };
  const times = { confined: [] as number[], plain: [] as number[] };
  const ratios: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first, so drift of the machine's speed does not favour one.
    const first = i % 2 === 0;
    const c = first ? await confinedOnce(confiner, policy, file, args) : undefined;
    const p = await timeOne(file, args, process.env);
    const confined = c ?? (await confinedOnce(confiner, policy, file, args));
    times.confined.push(confined);
    times.plain.push(p);
    ratios.push(confined / p);
  }
  return [
    [`${label}, cold (first)`, cold.confined.toFixed(2), cold.plain.toFixed(2), (cold.confined / cold.plain).toFixed(2)],
    [`${label}, median of ${runs}`, median(times.confined).toFixed(2), median(times.plain).toFixed(2), median(ratios).toFixed(2)],
  ];
}

async function main(): Promise<void> {
  const confiner = await findConfiner();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-confinement-bench-'));
  try {
    const folders = ['app', 'lib', 'docs'].map((name) => path.join(fs.realpathSync(base), name));
    for (const folder of folders) {
      fs.mkdirSync(folder);
      execFileSync('git', ['init', '-q', folder], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    }
    const writes: ConfinementPolicy = { mode: 'writes', writable: folders, readable: [], folders };
    const strict: ConfinementPolicy = { mode: 'strict', writable: folders, readable: [path.dirname(process.execPath)], folders };
    console.log(`confinement bench: ${confiner.description}, ${runs} runs each, ${os.cpus().length} cores, Node ${process.version}`);
    const rows = [
      ...(await compare('true, writes', confiner, writes, '/bin/true', [])),
      ...(await compare('true, strict', confiner, strict, '/bin/true', [])),
      ...(await compare('node -e 0, writes', confiner, writes, process.execPath, ['-e', '0'])),
      ...(await compare('node -e 0, strict', confiner, strict, process.execPath, ['-e', '0'])),
    ];
    printTable(['start to close (ms)', 'confined', 'unconfined', 'ratio'], rows);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

void main();
