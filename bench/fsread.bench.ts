/**
 * fs read bench: an agent's `fs/read_text_file` with `line`/`limit` on a large file (300 MB, 4 million lines),
 * through the RootGuard and the guarded read, against the way it was read before in the same run (the whole
 * file read, then the lines sliced). Figures: time and heap growth, medians.
 *
 *   node out/bench/fsread.bench.js [--runs 5]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readTextFile, sliceLines } from '../src/roots/guardedFs';
import { RootGuard } from '../src/roots/rootGuard';
import { median, parseArgs, printTable } from './util';

const LINES = 4_000_000;

async function measure(work: () => Promise<string>): Promise<{ ms: number; heapMb: number; chars: number }> {
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  let peak = heap0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 2);
  const started = performance.now();
  const text = await work();
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { ms, heapMb: (peak - heap0) / 2 ** 20, chars: text.length };
}

async function main(): Promise<void> {
  const { runs } = parseArgs({ runs: 5 });
  const dir = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-fsread-bench-')));
  const file = path.join(dir, 'big.log');
  try {
    const out = fs.openSync(file, 'w');
    const block: string[] = [];
    for (let i = 1; i <= LINES; i++) {
      block.push(`${String(i).padStart(8, '0')} INFO request handled in ${i % 997} ms by worker ${i % 16} of the pool\n`);
      if (block.length === 10_000) fs.writeSync(out, block.splice(0).join(''));
    }
    fs.closeSync(out);
    const size = fs.statSync(file).size;
    console.log(`fs read bench: a ${(size / 2 ** 20).toFixed(0)} MiB file of ${LINES.toLocaleString('en')} lines, ${runs} runs (median)`);
    const guard = new RootGuard([dir]);
    const cases: Array<[string, number, number]> = [
      ['10 lines at line 1', 1, 10],
      ['10 lines at line 100,000', 100_000, 10],
      ['10 lines at line 3,900,000', 3_900_000, 10],
    ];
    const rows: string[][] = [];
    for (const [what, line, limit] of cases) {
      const ours: Array<Awaited<ReturnType<typeof measure>>> = [];
      const before: Array<Awaited<ReturnType<typeof measure>>> = [];
      for (let run = 0; run <= runs; run++) {
        const b = await measure(async () => sliceLines(await fs.promises.readFile(file, 'utf8'), line, limit));
        const o = await measure(() => readTextFile(guard, { path: file, line, limit }));
        if (o.chars !== b.chars) throw new Error(`different answers: ${o.chars} vs ${b.chars} characters`);
        if (run === 0) continue;
        before.push(b);
        ours.push(o);
      }
      const m = (list: typeof ours, key: 'ms' | 'heapMb') => median(list.map((r) => r[key]));
      rows.push([`${what}, whole file then slice (before)`, m(before, 'ms').toFixed(1), m(before, 'heapMb').toFixed(1)]);
      rows.push([`${what}, guarded read (ours)`, m(ours, 'ms').toFixed(1), m(ours, 'heapMb').toFixed(1)]);
      rows.push([`  ours / before: time ${(m(ours, 'ms') / m(before, 'ms')).toFixed(3)}×`, '', '']);
    }
    printTable(['what', 'ms', 'heap + MB'], rows);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
