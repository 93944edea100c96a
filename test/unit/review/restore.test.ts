import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { keyOf } from '../../../src/review/fileStates';
import { type Harness, lines, makeHarness } from './reviewHarness';

describe('SessionReview: undo, redo, persistence', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await makeHarness({ maxBytes: 1000 });
  });
  afterEach(() => h.cleanup());

  /** Three turns: 1 edits a.txt, 2 creates b.txt, 3 edits a.txt again and deletes c.txt. */
  async function threeTurns(): Promise<void> {
    h.put({ 'a.txt': lines(20), 'c.txt': 'c\n' });
    await h.turn(() => h.put({ 'a.txt': lines(20, { 1: 'one' }) }));
    await h.turn(() => h.put({ 'b.txt': 'b\n' }));
    await h.turn(() => h.put({ 'a.txt': lines(20, { 1: 'ONE' }), 'c.txt': undefined }));
  }

  it('undoes the last turn, then redoes it', async () => {
    await threeTurns();
    const plan = await h.review.planUndo(3);
    assert.equal(plan.blocked, undefined);
    assert.deepEqual(plan.turns, [3]);
    assert.deepEqual(plan.files.map((f) => [f.path, f.change, f.merged]).sort(), [
      ['a.txt', 'restore', false],
      ['c.txt', 'create', false],
    ]);
    assert.deepEqual(plan.conflicts, []);
    const outcome = await h.review.undo(plan);
    assert.equal(outcome.ok, true);
    assert.equal(h.get('a.txt'), lines(20, { 1: 'one' }));
    assert.equal(h.get('c.txt'), 'c\n');
    assert.deepEqual(
      h.review.turns().map((t) => t.state),
      ['done', 'done', 'undone'],
    );
    assert.deepEqual(h.store.labels.slice(-2), ['Before undo of turn 3', 'After undo of turn 3']);
    assert.deepEqual(
      (await h.review.pending()).map((f) => f.path),
      ['a.txt', 'b.txt'],
      'c.txt is back at its base',
    );

    const redo = await h.review.planRedo(3);
    assert.equal(redo.blocked, undefined);
    assert.equal((await h.review.redo(redo)).ok, true);
    assert.equal(h.get('a.txt'), lines(20, { 1: 'ONE' }));
    assert.equal(h.get('c.txt'), undefined);
    assert.deepEqual(
      h.review.turns().map((t) => t.state),
      ['done', 'done', 'done'],
    );
    assert.deepEqual(
      (await h.review.pending()).map((f) => [f.path, f.status]),
      [
        ['a.txt', 'modified'],
        ['b.txt', 'added'],
        ['c.txt', 'deleted'],
      ],
    );
    assert.match((await h.review.planRedo(3)).blocked!, /not undone/);
  });

  it('undoing an earlier turn undoes every later one too; redo brings them all back', async () => {
    await threeTurns();
    const plan = await h.review.planUndo(2);
    assert.deepEqual(plan.turns, [2, 3]);
    assert.equal((await h.review.undo(plan)).ok, true);
    assert.deepEqual([h.get('a.txt'), h.get('b.txt'), h.get('c.txt')], [lines(20, { 1: 'one' }), undefined, 'c\n']);
    assert.deepEqual(
      h.review.turns().map((t) => t.state),
      ['done', 'undone', 'undone'],
    );
    assert.match((await h.review.planUndo(3)).blocked!, /already undone/);
    // Undo turn 1 too, then redo turn 3: the state before turn 3 was undone comes back, turns 1–3 done.
    assert.equal((await h.review.undo(await h.review.planUndo(1))).ok, true);
    assert.equal(h.get('a.txt'), lines(20));
    assert.deepEqual(await h.review.pending(), []);
    const redo = await h.review.planRedo(3);
    assert.deepEqual(redo.turns, [1, 2, 3]);
    assert.equal((await h.review.redo(redo)).ok, true);
    assert.deepEqual([h.get('a.txt'), h.get('b.txt'), h.get('c.txt')], [lines(20, { 1: 'ONE' }), 'b\n', undefined]);
    assert.deepEqual(
      h.review.turns().map((t) => t.state),
      ['done', 'done', 'done'],
    );
  });

  it('a user edit in the same lines is a conflict: nothing is written, the file is named', async () => {
    await threeTurns();
    h.put({ 'a.txt': lines(20, { 1: 'the user wrote this' }) });
    const plan = await h.review.planUndo(3);
    assert.deepEqual(
      plan.conflicts.map((c) => c.path),
      ['a.txt'],
    );
    assert.match(plan.conflicts[0]!.reason, /same lines/);
    const outcome = await h.review.undo(plan);
    assert.equal(outcome.ok, false);
    assert.match(!outcome.ok ? outcome.message : '', /a\.txt/);
    assert.equal(h.get('a.txt'), lines(20, { 1: 'the user wrote this' }));
    assert.equal(h.get('c.txt'), undefined, 'not even the other files');
    assert.deepEqual(
      h.review.turns().map((t) => t.state),
      ['done', 'done', 'done'],
    );
  });

  it('a user edit elsewhere in the file is merged into what the undo writes', async () => {
    await threeTurns();
    h.put({ 'a.txt': lines(20, { 1: 'ONE', 18: 'the user wrote this' }) });
    const plan = await h.review.planUndo(3);
    assert.deepEqual(
      plan.files.find((f) => f.path === 'a.txt'),
      { root: h.app, path: 'a.txt', change: 'restore', merged: true },
    );
    assert.equal((await h.review.undo(plan)).ok, true);
    assert.equal(h.get('a.txt'), lines(20, { 1: 'one', 18: 'the user wrote this' }));
  });

  it('undoing several turns never touches what the user did between them: a file they created, a line they edited, a file the agent never changed', async () => {
    h.put({ 'a.txt': lines(20), 'x.txt': 'x\n' });
    await h.turn(() => h.put({ 'a.txt': lines(20, { 1: 'one' }) }));
    // The user, between the turns.
    h.put({ 'a.txt': lines(20, { 1: 'one', 18: 'the user wrote this' }), 'user.txt': 'mine\n', 'x.txt': 'x, edited by the user\n' });
    await h.turn(() => h.put({ 'a.txt': lines(20, { 1: 'one', 5: 'five', 18: 'the user wrote this' }), 'b.txt': 'b\n' }));
    const plan = await h.review.planUndo(1);
    assert.equal(plan.blocked, undefined);
    assert.deepEqual(plan.turns, [1, 2]);
    assert.deepEqual(plan.conflicts, []);
    assert.deepEqual(
      plan.files.map((f) => [f.path, f.change, f.merged]).sort(),
      [
        ['a.txt', 'restore', true],
        ['b.txt', 'remove', false],
      ],
      'only what the agent changed',
    );
    assert.equal((await h.review.undo(plan)).ok, true);
    assert.equal(h.get('a.txt'), lines(20, { 18: 'the user wrote this' }));
    assert.equal(h.get('b.txt'), undefined);
    assert.equal(h.get('user.txt'), 'mine\n', 'the file the user created is still there');
    assert.equal(h.get('x.txt'), 'x, edited by the user\n', 'the file only the user changed is as they left it');
  });

  it('after an undo and a redo, undoing again still keeps what the user did after the agent', async () => {
    h.put({ 'a.txt': lines(20) });
    await h.turn(() => h.put({ 'a.txt': lines(20, { 1: 'one' }), 'b.txt': 'b\n' }));
    h.put({ 'a.txt': lines(20, { 1: 'one', 18: 'the user wrote this' }), 'user.txt': 'mine\n' });
    assert.equal((await h.review.undo(await h.review.planUndo(1))).ok, true);
    assert.equal(h.get('a.txt'), lines(20, { 18: 'the user wrote this' }));
    assert.equal((await h.review.redo(await h.review.planRedo(1))).ok, true);
    assert.equal(h.get('a.txt'), lines(20, { 1: 'one', 18: 'the user wrote this' }));
    const again = await h.review.planUndo(1);
    assert.deepEqual(
      again.files.map((f) => [f.path, f.change]).sort(),
      [
        ['a.txt', 'restore'],
        ['b.txt', 'remove'],
      ],
      'the user’s file is not named',
    );
    assert.equal((await h.review.undo(again)).ok, true);
    assert.equal(h.get('a.txt'), lines(20, { 18: 'the user wrote this' }), 'the user’s line stays');
    assert.equal(h.get('user.txt'), 'mine\n', 'the user’s file stays');
    assert.equal(h.get('b.txt'), undefined);
  });

  it('redo brings back only what the undo took away, over edits the user made after the undo', async () => {
    h.put({ 'a.txt': lines(20) });
    await h.turn(() => h.put({ 'a.txt': lines(20, { 1: 'one' }) }));
    assert.equal((await h.review.undo(await h.review.planUndo(1))).ok, true);
    h.put({ 'a.txt': lines(20, { 18: 'after the undo' }), 'later.txt': 'later\n' });
    const redo = await h.review.planRedo(1);
    assert.deepEqual(
      redo.files.map((f) => [f.path, f.change, f.merged]),
      [['a.txt', 'restore', true]],
    );
    assert.equal((await h.review.redo(redo)).ok, true);
    assert.equal(h.get('a.txt'), lines(20, { 1: 'one', 18: 'after the undo' }));
    assert.equal(h.get('later.txt'), 'later\n');
  });

  it('a dirty editor, or a file changed after planning, stops the restore', async () => {
    await threeTurns();
    h.dirty.add(`${h.app}:a.txt`);
    assert.match((await h.review.planUndo(3)).conflicts[0]!.reason, /unsaved/);
    h.dirty.clear();
    const plan = await h.review.planUndo(3);
    h.put({ 'a.txt': 'meanwhile\n' });
    const outcome = await h.review.undo(plan);
    assert.equal(outcome.ok, false);
    assert.deepEqual(!outcome.ok && outcome.conflicts.map((c) => c.path), ['a.txt']);
    assert.equal(h.get('c.txt'), undefined);
  });

  it('a new turn after an undo ends the chance to redo', async () => {
    await threeTurns();
    await h.review.undo(await h.review.planUndo(3));
    await h.turn(() => h.put({ 'd.txt': 'd\n' }));
    assert.match((await h.review.planRedo(3)).blocked!, /can no longer be redone/);
  });

  it('reports files too large to capture as not restorable', async () => {
    h.put({ 'a.txt': 'a\n' });
    await h.turn(() => h.put({ 'a.txt': 'A\n', 'big.bin': 'x'.repeat(2000) }));
    const plan = await h.review.planUndo(1);
    assert.deepEqual(
      plan.cannotRestore.map((c) => c.path),
      ['big.bin'],
    );
    const outcome = await h.review.undo(plan);
    assert.deepEqual(outcome.ok && outcome.cannotRestore.map((c) => c.path), ['big.bin']);
    assert.equal(h.get('a.txt'), 'a\n');
    assert.equal(h.get('big.bin')?.length, 2000, 'left as it is');
  });

  it('a turn whose checkpoint was evicted becomes unavailable for undo', async () => {
    await threeTurns();
    let fired = 0;
    h.review.onDidChange(() => fired++);
    h.store.evict([h.review.turns()[0]!.before]);
    await h.review.pending(); // operations run in order: the eviction has been handled
    assert.deepEqual(
      h.review.turns().map((t) => t.state),
      ['unavailable', 'done', 'done'],
    );
    assert.ok(fired > 0);
    assert.match((await h.review.planUndo(1)).blocked!, /removed to save space/);
    assert.equal((await h.review.planUndo(2)).blocked, undefined);
    const a = (await h.review.pending()).find((f) => f.path === 'a.txt')!;
    assert.match(a.noHunks!, /no longer kept/);
    assert.equal((await h.review.accept(a.key)).ok, true);
  });

  it('saves the record after each change and reads it back on reopen', async () => {
    await threeTurns();
    await h.review.pending();
    await h.review.accept(keyOf(h.app, 'b.txt'));
    await h.review.undo(await h.review.planUndo(3));
    const before = { turns: h.review.turns(), pending: await h.review.pending() };
    const reopened = await h.reopen();
    assert.deepEqual(reopened.turns(), before.turns);
    assert.deepEqual(await reopened.pending(), before.pending);
    assert.equal((await reopened.redo(await reopened.planRedo(3))).ok, true, 'redo still possible');
    const next = await h.turn(() => h.put({ 'e.txt': 'e\n' }));
    assert.equal(next.n, 4);
    assert.deepEqual(h.problems, []);
    assert.deepEqual(fs.readdirSync(h.base + '/storage'), ['review.json'], 'no temporary file left');
  });

  it('a corrupt or invalid record is an empty one, reported, never thrown', async () => {
    await threeTurns();
    fs.writeFileSync(h.file, '{ not json');
    const reopened = await h.reopen();
    assert.deepEqual(reopened.turns(), []);
    assert.deepEqual(await reopened.pending(), []);
    assert.match(h.problems[0]!, /not JSON/);
    fs.writeFileSync(
      h.file,
      JSON.stringify({ version: 1, nextTurn: 1, turns: [], undos: [], pending: [{ root: h.app, path: '../../etc/passwd', base: { kind: 'absent' } }] }),
    );
    await h.reopen();
    assert.match(h.problems[1]!, /not valid/);
    assert.equal((await h.turn(() => h.put({ 'f.txt': 'f\n' }))).n, 1);
  });
});
