/**
 * The review over the real checkpoint store (real git, real files): what a window reload reads back, folders
 * a checkpoint could not capture, and folders that leave the session's list while a turn runs.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitCheckpointStore } from '../../../src/review/checkpointStore';
import { GuardedReviewFs } from '../../../src/review/reviewFs';
import { type RestorePlan, SessionReview } from '../../../src/review/sessionReview';
import type { CheckpointRoot } from '../../../src/review/types';
import { RootGuard } from '../../../src/roots/rootGuard';

const lines = (n: number, change: Record<number, string> = {}): string => Array.from({ length: n }, (_, i) => `${change[i + 1] ?? `l${i + 1}`}\n`).join('');

describe('SessionReview over the real checkpoint store', function () {
  this.timeout(60_000);
  let base: string;
  let storageDir: string;
  let app: CheckpointRoot;
  let lib: CheckpointRoot;
  let store: GitCheckpointStore;
  let review: SessionReview;
  const problems: string[] = [];
  let maxFiles: number | undefined;

  const where = (rel: string) => (rel.startsWith('lib/') ? path.join(lib.path, rel.slice(4)) : path.join(app.path, rel));
  function put(files: Record<string, string | undefined>): void {
    for (const [rel, content] of Object.entries(files)) {
      if (content === undefined) fs.rmSync(where(rel), { force: true });
      else {
        fs.mkdirSync(path.dirname(where(rel)), { recursive: true });
        fs.writeFileSync(where(rel), content);
      }
    }
  }
  const get = (rel: string) => (fs.existsSync(where(rel)) ? fs.readFileSync(where(rel), 'utf8') : undefined);

  /** Opens the store and the review as a window does (a reload opens them again from disk). */
  async function open(roots: readonly CheckpointRoot[] = [app, lib]): Promise<void> {
    store = await GitCheckpointStore.open({
      storageDir,
      sessionKey: GitCheckpointStore.sessionKey('agent', 's1'),
      roots,
      ...(maxFiles === undefined ? {} : { maxFiles }),
      logger: { trace: () => undefined, info: () => undefined, warn: (m) => problems.push(m), error: (m) => problems.push(m) },
    });
    review = await SessionReview.open({
      store,
      fs: new GuardedReviewFs(new RootGuard(roots.map((r) => r.path))),
      file: path.join(storageDir, 'reviews', 'review.json'),
      onProblem: (m) => problems.push(m),
    });
  }
  function close(): void {
    review.dispose();
    store.dispose();
  }
  async function turn(work: () => void) {
    const start = await review.beginTurn();
    work();
    return review.endTurn(start);
  }
  /** What an undo plan names, in words like the confirmation's. */
  const named = (plan: RestorePlan) => plan.files.map((f) => `${f.change} ${path.basename(f.root)}/${f.path}${f.merged ? ' (merged)' : ''}`).sort();

  beforeEach(async () => {
    base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-review-git-')));
    storageDir = path.join(base, 'storage');
    app = { name: 'app', path: path.join(base, 'app') };
    lib = { name: 'lib', path: path.join(base, 'lib') };
    fs.mkdirSync(app.path);
    fs.mkdirSync(lib.path);
    problems.length = 0;
    maxFiles = undefined;
  });
  afterEach(() => {
    close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('after a reload, undo plans and does exactly what it did before: the user’s line and file kept, nothing of theirs named', async () => {
    put({ 'src/lines.ts': lines(30), 'lib/x.ts': 'x\n' });
    await open();
    await store.take('Session opened');
    await turn(() => put({ 'src/lines.ts': lines(30, { 1: 'agent top', 30: 'agent end' }), 'lib/agent.ts': 'agent\n' }));
    // The user, after the turn and while the window reloads.
    put({ 'src/lines.ts': lines(30, { 1: 'agent top', 15: 'the user', 30: 'agent end' }), 'src/user.ts': 'mine\n', 'lib/x.ts': 'x, by the user\n' });
    const live = {
      plan: named(await review.planUndo(1)),
      pending: (await review.pending()).map((f) => [f.path, f.status, f.added, f.removed]),
      turns: review.turns(),
    };
    assert.deepEqual(live.plan, ['remove lib/agent.ts', 'restore app/src/lines.ts (merged)']);
    close();
    await open();
    await store.take('Session opened');
    assert.deepEqual(review.turns(), live.turns, 'the turns read back');
    assert.deepEqual(
      (await review.pending()).map((f) => [f.path, f.status, f.added, f.removed]),
      live.pending,
      'the review reads back',
    );
    assert.deepEqual(
      live.pending,
      [
        ['src/lines.ts', 'modified', 2, 2],
        ['agent.ts', 'added', 1, 0],
      ],
      'only the agent’s changes are listed',
    );
    const plan = await review.planUndo(1);
    assert.deepEqual(named(plan), live.plan);
    assert.equal((await review.undo(plan)).ok, true);
    assert.equal(get('src/lines.ts'), lines(30, { 15: 'the user' }));
    assert.equal(get('src/user.ts'), 'mine\n');
    assert.equal(get('lib/x.ts'), 'x, by the user\n');
    assert.equal(get('lib/agent.ts'), undefined);
    assert.deepEqual(problems, []);
  });

  it('reads back a turn whatever its checkpoint could not capture (a folder gone, too many files, a repository nested too deep)', async () => {
    const gone = { name: 'gone', path: path.join(base, 'gone') };
    put({ 'a.txt': 'a\n' });
    await open([app, lib, gone]);
    const done = await turn(() => put({ 'a.txt': 'A\n' }));
    assert.deepEqual(
      done.skipped.map((s) => [path.basename(s.root), s.reason]),
      [['gone', 'root-unavailable']],
    );
    close();
    await open([app, lib, gone]);
    assert.deepEqual(
      problems.filter((p) => /review record/.test(p)),
      [],
      'the record is valid',
    );
    assert.deepEqual(
      review.turns().map((t) => [t.n, t.state, t.files.map((f) => f.path)]),
      [[1, 'done', ['a.txt']]],
    );
    assert.equal((await turn(() => put({ 'b.txt': 'b\n' }))).n, 2, 'turns go on being numbered');
  });

  it('a folder over the file cap before a turn yields no added or deleted claims for it, and undo leaves the user’s files (cap lowered to 500)', async () => {
    maxFiles = 500;
    const userFiles = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`lib/user/${String(i).padStart(3, '0')}.txt`, `user file ${i}\n`]));
    put({ ...userFiles, 'a.txt': 'a\n' });
    await open();
    const before = await store.take('Session opened');
    assert.deepEqual(
      before.skipped.map((s) => [path.basename(s.root), s.path, s.reason]),
      [['lib', '', 'too-many-files']],
    );
    // The agent shrinks lib below the cap (deletes 150 of the user's files, adds one) and edits app.
    const done = await turn(() => {
      for (let i = 0; i < 150; i++) fs.rmSync(where(`lib/user/${String(i).padStart(3, '0')}.txt`));
      put({ 'lib/agent.txt': 'agent\n', 'a.txt': 'A\n' });
    });
    assert.deepEqual(
      done.files.map((f) => [path.basename(f.root), f.path, f.status]),
      [['app', 'a.txt', 'modified']],
      'nothing claimed for lib',
    );
    assert.deepEqual(
      done.skipped.map((s) => [path.basename(s.root), s.path, s.reason]),
      [['lib', '', 'too-many-files']],
      'the turn says lib was not captured',
    );
    assert.deepEqual(
      (await review.pending()).map((f) => f.path),
      ['a.txt'],
    );
    const plan = await review.planUndo(1);
    assert.deepEqual(named(plan), ['restore app/a.txt']);
    assert.deepEqual(
      plan.cannotRestore.map((p) => [path.basename(p.root), p.path]),
      [['lib', '']],
      'what is not known is said',
    );
    assert.equal((await review.undo(plan)).ok, true);
    assert.equal(fs.readdirSync(path.join(lib.path, 'user')).length, 450, 'the user’s remaining files are all there');
    assert.equal(get('lib/agent.txt'), 'agent\n');
    // The next turn compares lib with a capture of it: what the agent changes there is listed again…
    assert.equal((await review.redo(await review.planRedo(1))).ok, true);
    const next = await turn(() => put({ 'lib/user/599.txt': 'changed by the agent\n' }));
    assert.deepEqual(
      next.files.map((f) => [path.basename(f.root), f.path, f.status]),
      [['lib', 'user/599.txt', 'modified']],
    );
    // …and undoing both turns restores it, while still leaving alone what turn 1 could not compare.
    const both = await review.planUndo(1);
    assert.deepEqual(named(both), ['restore app/a.txt', 'restore lib/user/599.txt']);
    assert.equal((await review.undo(both)).ok, true);
    assert.equal(get('lib/user/599.txt'), 'user file 599\n');
    assert.equal(fs.readdirSync(path.join(lib.path, 'user')).length, 450);
  });

  it('a file over the size cap before a turn, shrunk by the agent, is not claimed added, and undo does not remove it', async () => {
    put({ 'big.log': 'x'.repeat(2000), 'a.txt': 'a\n' });
    store = await GitCheckpointStore.open({ storageDir, sessionKey: GitCheckpointStore.sessionKey('agent', 's1'), roots: [app, lib], maxFileBytes: 1000 });
    review = await SessionReview.open({
      store,
      fs: new GuardedReviewFs(new RootGuard([app.path, lib.path])),
      file: path.join(storageDir, 'reviews', 'review.json'),
    });
    await store.take('Session opened');
    const done = await turn(() => put({ 'big.log': 'shrunk by the agent\n', 'a.txt': 'A\n' }));
    assert.deepEqual(
      done.files.map((f) => [f.path, f.status]),
      [['a.txt', 'modified']],
      'nothing is known of big.log before the turn',
    );
    assert.deepEqual(
      done.skipped.map((s) => [s.path, s.reason]),
      [['big.log', 'too-large']],
      'it is said instead',
    );
    const plan = await review.planUndo(1);
    assert.deepEqual(named(plan), ['restore app/a.txt']);
    assert.deepEqual(
      plan.cannotRestore.map((p) => p.path),
      ['big.log'],
    );
    assert.equal((await review.undo(plan)).ok, true);
    assert.equal(get('big.log'), 'shrunk by the agent\n', 'left as it is');
  });

  it('a folder that leaves the store’s roots while a turn runs stays in the turn’s capture until the turn ends', async () => {
    put({ 'a.txt': 'a\n', 'lib/old.txt': 'old\n' });
    await open();
    const start = await review.beginTurn();
    // Taken back meanwhile (the session's folders changed): later captures leave lib out…
    store.setRoots([app]);
    put({ 'lib/new.txt': 'written after it was taken back\n', 'a.txt': 'A\n' });
    const done = await review.endTurn(start);
    // …but this turn's "After" still captures it: what the agent wrote there is listed, and nothing is claimed deleted.
    assert.deepEqual(
      done.files.map((f) => [path.basename(f.root), f.path, f.status]),
      [
        ['app', 'a.txt', 'modified'],
        ['lib', 'new.txt', 'added'],
      ],
    );
    const next = await turn(() => put({ 'lib/later.txt': 'later\n' }));
    assert.deepEqual(next.files, [], 'the next turn no longer captures lib');
  });
});
