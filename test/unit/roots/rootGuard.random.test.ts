/**
 * 10,000 generated paths (seeded, deterministic) checked by the RootGuard and by an independent oracle
 * that resolves segment by segment with lstat/readlink, as the kernel does: no guard-allowed path may
 * resolve anywhere but to the same real path inside a root.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RootGuard } from '../../../src/roots/rootGuard';
import { type Fixture, makeFixture } from './fixture';

const SEED = 0x5eed_acf1;
const COUNT = 10_000;
const MAX_HOPS = 40;

/** mulberry32: small, seeded, good enough to spread paths. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type OracleResult = { readonly kind: 'resolved'; readonly real: string; readonly exists: boolean } | { readonly kind: 'unresolvable'; readonly why: string };

/**
 * Resolves an absolute POSIX path physically, one segment at a time: lstat each existing component,
 * follow symlinks through readlink (relative targets against the folder reached so far), `..` pops the
 * folder reached (never a lexical step back over the agent's string), `.` and empty segments stay put,
 * anything after a file is ENOTDIR, and once a component is missing the rest is appended (`..` there is
 * undecidable).
 */
function oracle(candidate: string): OracleResult {
  if (!candidate.startsWith('/') || candidate.includes('\0')) return { kind: 'unresolvable', why: 'syntax' };
  const queue = candidate.split('/').slice(1);
  let stack: string[] = [];
  let state: 'dir' | 'file' | 'missing' = 'dir';
  let hops = 0;
  while (queue.length > 0) {
    const segment = queue.shift()!;
    if (state === 'file') return { kind: 'unresolvable', why: 'ENOTDIR' };
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (state === 'missing') return { kind: 'unresolvable', why: 'dotdot-after-missing' };
      stack.pop();
      continue;
    }
    if (state === 'missing') {
      stack.push(segment);
      continue;
    }
    const full = `/${[...stack, segment].join('/')}`;
    let stats: fs.Stats;
    try {
      stats = fs.lstatSync(full);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return { kind: 'unresolvable', why: String((error as NodeJS.ErrnoException).code) };
      state = 'missing';
      stack.push(segment);
      continue;
    }
    if (stats.isSymbolicLink()) {
      if (++hops > MAX_HOPS) return { kind: 'unresolvable', why: 'loop' };
      const target = fs.readlinkSync(full);
      const parts = target.split('/');
      if (target.startsWith('/')) {
        stack = [];
        parts.shift();
      }
      queue.unshift(...parts);
      continue;
    }
    stack.push(segment);
    state = stats.isDirectory() ? 'dir' : 'file';
  }
  return { kind: 'resolved', real: `/${stack.join('/')}`, exists: state !== 'missing' };
}

/** Containment written independently of the guard: path.relative must not climb. */
function insideAny(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = path.relative(root, real);
    return rel === '' || (rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel));
  });
}

const SEGMENTS: ReadonlyArray<readonly [string, number]> = [
  ['app', 10],
  ['lib', 6],
  ['nested', 4],
  ['outside', 4],
  ['app2', 3],
  ['sub', 5],
  ['src', 3],
  ['dir', 3],
  ['file.txt', 5],
  ['inner.txt', 3],
  ['greet.ts', 2],
  ['secret.txt', 3],
  ['deep.txt', 2],
  ['x', 2],
  ['a..b', 2],
  ['..', 12],
  ['.', 5],
  ['', 5],
  ['missing', 5],
  ['new.txt', 4],
  ['APP', 1],
  ['link-out-file', 3],
  ['link-out-dir', 4],
  ['link-in', 3],
  ['link-in-dir', 3],
  ['link-lib-abs', 3],
  ['link-up', 4],
  ['link-self-dir', 2],
  ['loop-a', 2],
  ['self', 1],
  ['dangling-out', 3],
  ['dangling-in', 3],
  ['dangling-dir-out', 3],
  ['chain-1', 2],
  ['link-to-app', 2],
];
const TOTAL_WEIGHT = SEGMENTS.reduce((sum, [, w]) => sum + w, 0);

function generate(random: () => number, f: Fixture): string {
  const pick = (): string => {
    let r = random() * TOTAL_WEIGHT;
    for (const [segment, weight] of SEGMENTS) {
      r -= weight;
      if (r < 0) return segment;
    }
    return SEGMENTS[0]![0];
  };
  const start = random();
  // Mostly from inside a root, sometimes from the scratch folder, rarely from the file-system root.
  const prefix = start < 0.45 ? f.p('app') : start < 0.6 ? f.p('lib') : start < 0.95 ? f.base : '';
  const parts: string[] = [];
  const length = 1 + Math.floor(random() * 6);
  for (let i = 0; i < length; i++) parts.push(pick());
  let candidate = `${prefix}/${parts.join('/')}`;
  if (random() < 0.1) candidate += '/';
  if (random() < 0.05) candidate = candidate.replace('/', '//');
  return candidate;
}

describe('RootGuard against an independent physical resolver (randomized)', () => {
  let f: Fixture;
  before(() => {
    f = makeFixture();
  });
  after(() => f.cleanup());

  it(`lets no escape through in ${COUNT.toLocaleString('en')} generated paths (seed ${SEED.toString(16)})`, async function () {
    this.timeout(60_000);
    const guard = new RootGuard(f.roots);
    const random = prng(SEED);
    const candidates = Array.from({ length: COUNT }, () => generate(random, f));
    const started = Date.now();

    let allowed = 0;
    let refused = 0;
    let refusedOutside = 0;
    let refusedUnresolvable = 0;
    const failClosed = new Map<string, string[]>();
    const escapes: string[] = [];
    const refusalReasons = new Map<string, number>();

    const BATCH = 64;
    for (let i = 0; i < candidates.length; i += BATCH) {
      const batch = candidates.slice(i, i + BATCH);
      const decisions = await Promise.all(batch.map((c) => guard.check(c)));
      batch.forEach((candidate, j) => {
        const decision = decisions[j]!;
        const truth = oracle(candidate);
        if (decision.allowed) {
          allowed++;
          if (truth.kind !== 'resolved' || truth.real !== decision.realPath || truth.exists !== decision.exists || !insideAny(truth.real, f.roots)) {
            escapes.push(`${candidate} → guard ${decision.realPath} (exists ${decision.exists}), oracle ${JSON.stringify(truth)}`);
          }
          return;
        }
        refused++;
        refusalReasons.set(decision.reason, (refusalReasons.get(decision.reason) ?? 0) + 1);
        if (truth.kind === 'resolved' && insideAny(truth.real, f.roots)) {
          const list = failClosed.get(decision.reason) ?? [];
          list.push(candidate.split(f.base).join('<base>'));
          failClosed.set(decision.reason, list);
        } else if (truth.kind === 'resolved') {
          refusedOutside++;
        } else {
          refusedUnresolvable++;
        }
      });
    }
    const elapsed = Date.now() - started;
    const failClosedCount = [...failClosed.values()].reduce((n, l) => n + l.length, 0);

    console.log(
      `      ${COUNT} paths in ${elapsed} ms: ${allowed} allowed, ${refused} refused ` +
        `(${refusedOutside} outside per the oracle, ${refusedUnresolvable} unresolvable per the oracle, ${failClosedCount} fail-closed: inside per the oracle)`,
    );
    console.log(`      refusals by reason: ${[...refusalReasons].map(([r, n]) => `${r} ${n}`).join(', ')}`);
    for (const [reason, list] of failClosed) {
      console.log(`      fail-closed (${reason}, ${list.length}): e.g. ${list.slice(0, 3).join('  ')}`);
    }

    assert.deepEqual(escapes.slice(0, 20), [], `${escapes.length} allowed paths disagree with the oracle`);
    // The generator must exercise both outcomes substantially.
    assert.ok(allowed > COUNT * 0.2, `only ${allowed} allowed`);
    assert.ok(refusedOutside > COUNT * 0.1, `only ${refusedOutside} refused as outside`);
    assert.ok(failClosedCount <= COUNT * 0.01, `${failClosedCount} fail-closed refusals of paths inside the roots`);
  });
});
