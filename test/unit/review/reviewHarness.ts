/** Two roots in a temp folder, a {@link FakeStore}, a real {@link GuardedReviewFs} and a {@link SessionReview} over them. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GuardedReviewFs } from '../../../src/review/reviewFs';
import { SessionReview, type TurnChanges } from '../../../src/review/sessionReview';
import { RootGuard } from '../../../src/roots/rootGuard';
import { FakeStore } from './fakeStore';

export interface Harness {
  readonly base: string;
  readonly app: string;
  readonly lib: string;
  readonly store: FakeStore;
  readonly fs: GuardedReviewFs;
  readonly file: string;
  /** Paths (`root:path`) an editor holds unsaved changes to. */
  readonly dirty: Set<string>;
  readonly problems: string[];
  review: SessionReview;
  /** Writes (string) or removes (undefined) files under `app` (or `lib/…` paths under lib). */
  put(files: Record<string, string | undefined>): void;
  get(rel: string): string | undefined;
  /** One agent turn that does `work`. */
  turn(work: () => void): Promise<TurnChanges>;
  reopen(): Promise<SessionReview>;
  cleanup(): void;
}

export async function makeHarness(options: { maxBytes?: number } = {}): Promise<Harness> {
  const base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-review-')));
  const app = path.join(base, 'app');
  const lib = path.join(base, 'lib');
  fs.mkdirSync(app);
  fs.mkdirSync(lib);
  const store = new FakeStore(options.maxBytes);
  store.setRoots([
    { name: 'app', path: app },
    { name: 'lib', path: lib },
  ]);
  const dirty = new Set<string>();
  const rfs = new GuardedReviewFs(new RootGuard([app, lib]), (root, p) => dirty.has(`${root}:${p}`));
  const file = path.join(base, 'storage', 'review.json');
  const problems: string[] = [];
  const where = (rel: string) => (rel.startsWith('lib/') ? path.join(lib, rel.slice(4)) : path.join(app, rel));
  const open = () => SessionReview.open({ store, fs: rfs, file, onProblem: (m) => problems.push(m) });
  const h: Harness = {
    base,
    app,
    lib,
    store,
    fs: rfs,
    file,
    dirty,
    problems,
    review: await open(),
    put(files) {
      for (const [rel, content] of Object.entries(files)) {
        if (content === undefined) fs.rmSync(where(rel), { force: true });
        else {
          fs.mkdirSync(path.dirname(where(rel)), { recursive: true });
          fs.writeFileSync(where(rel), content);
        }
      }
    },
    get(rel) {
      return fs.existsSync(where(rel)) ? fs.readFileSync(where(rel), 'utf8') : undefined;
    },
    async turn(work) {
      const start = await h.review.beginTurn();
      work();
      return h.review.endTurn(start);
    },
    async reopen() {
      h.review.dispose();
      h.review = await open();
      return h.review;
    },
    cleanup() {
      h.review.dispose();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
  return h;
}

/** Lines `l1`..`ln`, each ending with a newline. */
export function lines(n: number, change: Record<number, string> = {}): string {
  return Array.from({ length: n }, (_, i) => `${change[i + 1] ?? `l${i + 1}`}\n`).join('');
}
