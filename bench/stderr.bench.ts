/**
 * stderr bench: what an agent's stderr costs the extension host. A child process writes one line of 20 MB and
 * one of 60 MB (no newline) to stderr, then exits; the host reads it through AgentProcess (which logs each line
 * and keeps a tail for exit reasons). Baseline, in the same run: the host only reading the same stream and
 * counting its bytes. Figures: the host's CPU time and the growth of its heap and RSS (sampled), medians.
 *
 *   node out/bench/stderr.bench.js [--runs 3]
 */
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import { silentLogger } from '../src/common/logger';
import { AgentProcess } from '../src/process/agentProcess';
import { median, parseArgs, printTable } from './util';

const SIZES_MB = [20, 60];

/** A node script that writes `mb` MiB to stderr without a newline (64 KiB pieces, honouring backpressure), then exits 3. */
function writerScript(mb: number): string {
  return [
    "const piece = 'x'.repeat(64 * 1024);",
    `let left = ${mb * 16};`,
    'const next = () => {',
    "  if (left-- > 0) { if (process.stderr.write(piece)) setImmediate(next); else process.stderr.once('drain', next); return; }",
    "  process.stderr.write('\\nbye\\n', () => process.exit(3));",
    '};',
    'next();',
  ].join('\n');
}

interface Cost {
  cpuMs: number;
  heapMb: number;
  rssMb: number;
}

async function measure(work: () => Promise<void>): Promise<Cost> {
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  let heapPeak = heap0;
  let rssPeak = rss0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    heapPeak = Math.max(heapPeak, m.heapUsed);
    rssPeak = Math.max(rssPeak, m.rss);
  }, 5);
  const cpu0 = process.cpuUsage();
  await work();
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  const m = process.memoryUsage();
  heapPeak = Math.max(heapPeak, m.heapUsed);
  rssPeak = Math.max(rssPeak, m.rss);
  return { cpuMs: (cpu.user + cpu.system) / 1000, heapMb: (heapPeak - heap0) / 2 ** 20, rssMb: (rssPeak - rss0) / 2 ** 20 };
}

/** Baseline: read the child's stderr and count bytes, nothing else. */
function bare(mb: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', writerScript(mb)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let bytes = 0;
    child.stderr.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.on('error', reject);
    child.on('close', () => (bytes > mb * 2 ** 20 ? resolve() : reject(new Error(`read ${bytes} bytes`))));
  });
}

/** Ours: an agent that writes the line and exits while starting; AgentProcess reads, logs and explains it. */
async function ours(mb: number): Promise<void> {
  const agent = new AgentProcess({
    command: { name: 'Noisy', command: process.execPath, args: ['-e', writerScript(mb)], env: {} },
    cwd: os.tmpdir(),
    logger: silentLogger,
    clientInfo: { name: 'bench', version: '0' },
    restartPolicy: false,
  });
  await agent.start().then(
    () => Promise.reject(new Error('the noisy agent started')),
    (error: Error) => (/exit code 3/.test(error.message) ? undefined : Promise.reject(error)),
  );
  await agent.dispose();
}

async function main(): Promise<void> {
  const { runs } = parseArgs({ runs: 3 });
  console.log(`stderr bench: one stderr line of ${SIZES_MB.join(' and ')} MB from an agent, ${runs} runs (median)`);
  const rows: string[][] = [];
  for (const mb of SIZES_MB) {
    const results: Record<'bare' | 'ours', Cost[]> = { bare: [], ours: [] };
    for (let run = 0; run <= runs; run++) {
      // Alternate, and throw the first (cold) pair away.
      const b = await measure(() => bare(mb));
      const o = await measure(() => ours(mb));
      if (run === 0) continue;
      results.bare.push(b);
      results.ours.push(o);
    }
    for (const name of ['bare', 'ours'] as const) {
      const r = results[name];
      rows.push([
        `${mb} MB, ${name === 'bare' ? 'read and count (baseline)' : 'AgentProcess (ours)'}`,
        median(r.map((c) => c.cpuMs)).toFixed(0),
        median(r.map((c) => c.heapMb)).toFixed(1),
        median(r.map((c) => c.rssMb)).toFixed(1),
      ]);
    }
    const ratio = median(results.ours.map((c) => c.cpuMs)) / median(results.bare.map((c) => c.cpuMs));
    rows.push([`${mb} MB: ours / baseline CPU ${ratio.toFixed(2)}×`, '', '', '']);
  }
  printTable(['what', 'host CPU ms', 'heap + MB', 'RSS + MB'], rows);
  console.log('goal: a 60 MB stderr line costs the host well under a second and under 50 MB');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
