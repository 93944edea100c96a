/**
 * checkpoint bench: what a checkpoint costs (src/review/checkpointStore.ts). Three roots with `--files` files
 * in all, each a git repository with a commit. Baseline, in the same run: `git status --porcelain` in each
 * of the three repositories (run one after the other, as a user would). Figures:
 * - the cold first `take` of a fresh store (the baseline capture: every file hashed once);
 * - an incremental `take` with no change, with 1 file changed, with 50 files changed (medians of `--runs`,
 *   interleaved with the baseline run by run), and their ratio to `git status`. Target: ≤ 1×.
 *
 *   node out/bench/checkpoint.bench.js [--files 20000] [--runs 15]
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitCheckpointStore } from '../src/review/checkpointStore';
import { Git } from '../src/review/git';
import type { CheckpointRoot } from '../src/review/types';
import { median, parseArgs, printTable } from './util';

const { files, runs } = parseArgs({ files: 20_000, runs: 15 });

const userEnv: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@x',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@x',
};
const userGit = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: userEnv, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

function fileOf(dir: string, i: number): string {
  return path.join(dir, `pkg${i % 20}`, `mod${Math.floor(i / 20) % 25}`, `file${i}.ts`);
}

/** A root of `count` source-like files in nested folders, committed. */
function makeRoot(dir: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const file = fileOf(dir, i);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `export const value${i} = ${i};\n// ${'x'.repeat(i % 200)}\n`);
  }
  fs.writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n*.log\n');
  userGit(dir, 'init', '-q');
  userGit(dir, 'add', '-A');
  userGit(dir, 'commit', '-qm', 'initial');
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function gitStatus(roots: readonly CheckpointRoot[]): number {
  const start = process.hrtime.bigint();
  for (const root of roots) userGit(root.path, 'status', '--porcelain');
  return ms(start);
}

async function main(): Promise<void> {
  const base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-checkpoint-bench-')));
  try {
    const roots: CheckpointRoot[] = ['one', 'two', 'three'].map((name) => ({ name, path: path.join(base, name) }));
    const shares = [Math.floor(files / 2), Math.floor(files / 3), files - Math.floor(files / 2) - Math.floor(files / 3)];
    roots.forEach((root, i) => makeRoot(root.path, shares[i]!));
    const git = await Git.find();
    console.log(
      `checkpoint bench: ${files} files in 3 roots (${shares.join(' + ')}), ${runs} runs, git ${git.version.join('.')}, ${os.cpus().length} cores, Node ${process.version}`,
    );
    const store = await GitCheckpointStore.open({
      storageDir: path.join(base, 'storage'),
      sessionKey: GitCheckpointStore.sessionKey('bench', 's'),
      roots,
      git,
    });

    gitStatus(roots); // warm the file system cache like the store's first take will find it
    const coldStatus = gitStatus(roots);
    let start = process.hrtime.bigint();
    await store.take('cold');
    const cold = ms(start);

    const changeFiles = (count: number, run: number): void => {
      for (let i = 0; i < count; i++) {
        const root = roots[i % 3]!;
        fs.appendFileSync(fileOf(root.path, Math.floor(i / 3)), `// run ${run}\n`);
      }
    };
    const rows: string[][] = [['cold first take', cold.toFixed(1), coldStatus.toFixed(1), (cold / coldStatus).toFixed(2)]];
    for (const count of [0, 1, 50]) {
      const takes: number[] = [];
      const statuses: number[] = [];
      const ratios: number[] = [];
      for (let run = 0; run < runs; run++) {
        changeFiles(count, run);
        // Baseline first (it also sees the change, as the user's status would), then the take.
        const s = gitStatus(roots);
        start = process.hrtime.bigint();
        await store.take(`run ${run}`);
        const t = ms(start);
        takes.push(t);
        statuses.push(s);
        ratios.push(t / s);
      }
      rows.push([`take, ${count} file${count === 1 ? '' : 's'} changed`, median(takes).toFixed(1), median(statuses).toFixed(1), median(ratios).toFixed(2)]);
    }
    await store.flush();
    store.dispose();
    printTable(['checkpoint (ms, median)', 'take', 'git status ×3', 'ratio'], rows);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

void main();
