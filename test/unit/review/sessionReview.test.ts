import * as assert from 'node:assert/strict';
import { keyOf } from '../../../src/review/fileStates';
import { type Harness, lines, makeHarness } from './reviewHarness';

describe('SessionReview: turns and pending changes', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await makeHarness();
  });
  afterEach(() => h.cleanup());

  it('records a turn between two checkpoints and makes what it changed pending, by root then path', async () => {
    h.put({ 'a.txt': 'a\n', 'gone.txt': 'bye\n', 'old.txt': 'moved\n', 'lib/x.txt': 'x\n' });
    let changes = 0;
    h.review.onDidChange(() => changes++);
    const turn = await h.turn(() =>
      h.put({ 'a.txt': 'A\n', 'new.txt': 'new\n', 'gone.txt': undefined, 'old.txt': undefined, 'moved.txt': 'moved\n', 'lib/x.txt': 'X\n' }),
    );
    assert.equal(turn.n, 1);
    assert.equal(turn.state, 'done');
    assert.deepEqual(h.store.labels, ['Before turn 1', 'After turn 1']);
    assert.equal(turn.files.length, 5);
    assert.ok(changes > 0);
    const pending = await h.review.pending();
    assert.deepEqual(
      pending.map((f) => [f.root === h.app ? 'app' : 'lib', f.path, f.status, f.oldPath]),
      [
        ['app', 'a.txt', 'modified', undefined],
        ['app', 'gone.txt', 'deleted', undefined],
        ['app', 'moved.txt', 'renamed', 'old.txt'],
        ['app', 'new.txt', 'added', undefined],
        ['lib', 'x.txt', 'modified', undefined],
      ],
    );
    assert.equal(pending[0]!.key, keyOf(h.app, 'a.txt'));
    assert.deepEqual(pending[0]!.hunks?.[0]?.lines, ['-a', '+A']);
    assert.deepEqual([pending[0]!.added, pending[0]!.removed], [1, 1]);
    assert.deepEqual(
      h.review.turns().map((t) => t.n),
      [1],
    );
  });

  it('keeps the base from before the first turn that changed a file; a file back at its base drops out', async () => {
    h.put({ 'a.txt': 'one\n', 'b.txt': 'b\n' });
    await h.turn(() => h.put({ 'a.txt': 'two\n', 'b.txt': 'B\n' }));
    await h.turn(() => h.put({ 'a.txt': 'three\n' }));
    assert.deepEqual(Buffer.from((await h.review.baseOf(keyOf(h.app, 'a.txt')))!.bytes).toString(), 'one\n');
    h.put({ 'b.txt': 'b\n' }); // the user reverted it by hand
    assert.deepEqual(
      (await h.review.pending()).map((f) => f.path),
      ['a.txt'],
    );
    await h.turn(() => h.put({ 'a.txt': 'one\n' })); // the agent wrote the same bytes back
    assert.deepEqual(await h.review.pending(), []);
  });

  it('accepts a whole file (it leaves the list) and one hunk (the others stay, indices move down)', async () => {
    h.put({ 'a.txt': lines(30), 'b.txt': 'b\n' });
    await h.turn(() => h.put({ 'a.txt': lines(30, { 2: 'two', 15: 'fifteen', 28: 'twenty-eight' }), 'b.txt': 'B\n' }));
    let pending = await h.review.pending();
    assert.deepEqual(await h.review.accept(keyOf(h.app, 'b.txt')), { ok: true, key: keyOf(h.app, 'b.txt') });
    const a = keyOf(h.app, 'a.txt');
    assert.equal(pending.find((f) => f.key === a)!.hunks!.length, 3);
    assert.deepEqual(await h.review.accept(a, 1), { ok: true, key: a });
    pending = await h.review.pending();
    assert.deepEqual(
      pending.map((f) => f.path),
      ['a.txt'],
    );
    assert.deepEqual(
      pending[0]!.hunks!.map((x) => x.lines.find((l) => l.startsWith('+'))),
      ['+two', '+twenty-eight'],
    );
    assert.equal(h.get('a.txt'), lines(30, { 2: 'two', 15: 'fifteen', 28: 'twenty-eight' }), 'accepting writes nothing');
    await h.review.accept(a, 1);
    await h.review.pending();
    await h.review.accept(a, 0);
    assert.deepEqual(await h.review.pending(), []);
    assert.equal((await h.review.accept(a)).ok, false);
  });

  it('rejects one hunk: that hunk is reverted on disk, the rest stays pending', async () => {
    h.put({ 'a.txt': lines(30).replace(/\n/g, '\r\n') });
    await h.turn(() => h.put({ 'a.txt': lines(30, { 2: 'two', 15: 'fifteen', 28: 'twenty-eight' }).replace(/\n/g, '\r\n') }));
    const a = keyOf(h.app, 'a.txt');
    await h.review.pending();
    assert.deepEqual(await h.review.reject(a, 1), { ok: true, key: a });
    assert.equal(h.get('a.txt'), lines(30, { 2: 'two', 28: 'twenty-eight' }).replace(/\n/g, '\r\n'));
    const pending = await h.review.pending();
    assert.equal(pending[0]!.hunks!.length, 2);
    await h.review.reject(a, 0);
    await h.review.pending();
    await h.review.reject(a, 0);
    assert.equal(h.get('a.txt'), lines(30).replace(/\n/g, '\r\n'));
    assert.deepEqual(await h.review.pending(), []);
  });

  it('rejects whole files: modified → base, created → removed, deleted → back, renamed → old path back', async () => {
    h.put({ 'a.txt': 'a\n', 'gone.txt': 'bye\n', 'old.txt': 'moved\n' });
    await h.turn(() => h.put({ 'a.txt': 'A\n', 'dir/new.txt': 'new\n', 'gone.txt': undefined, 'old.txt': undefined, 'moved.txt': 'moved\n' }));
    await h.review.pending();
    for (const p of ['a.txt', 'dir/new.txt', 'gone.txt', 'moved.txt'])
      assert.deepEqual(await h.review.reject(keyOf(h.app, p)), { ok: true, key: keyOf(h.app, p) }, p);
    assert.equal(h.get('a.txt'), 'a\n');
    assert.equal(h.get('dir/new.txt'), undefined);
    assert.equal(h.get('gone.txt'), 'bye\n');
    assert.equal(h.get('old.txt'), 'moved\n');
    assert.equal(h.get('moved.txt'), undefined);
    assert.deepEqual(await h.review.pending(), []);
  });

  it('rejectAll and acceptAll go through every file', async () => {
    h.put({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    await h.turn(() => h.put({ 'a.txt': 'A\n', 'b.txt': 'B\n', 'c.txt': 'c\n' }));
    await h.review.pending();
    h.dirty.add(`${h.app}:b.txt`);
    const outcome = await h.review.rejectAll();
    assert.deepEqual(outcome.done, [keyOf(h.app, 'a.txt'), keyOf(h.app, 'c.txt')]);
    assert.deepEqual(
      outcome.problems.map((p) => [p.key, p.reason]),
      [[keyOf(h.app, 'b.txt'), 'dirty']],
    );
    assert.deepEqual([h.get('a.txt'), h.get('b.txt'), h.get('c.txt')], ['a\n', 'B\n', undefined]);
    assert.deepEqual((await h.review.acceptAll()).done, [keyOf(h.app, 'b.txt')]);
    assert.deepEqual(await h.review.pending(), []);
  });

  it('writes nothing when the file changed since the review showed it, or an editor holds unsaved changes', async () => {
    h.put({ 'a.txt': 'a\n' });
    await h.turn(() => h.put({ 'a.txt': 'A\n' }));
    const [shown] = await h.review.pending();
    h.put({ 'a.txt': 'A, and the user typed\n' });
    const key = keyOf(h.app, 'a.txt');
    const changed = await h.review.reject(key);
    assert.equal(changed.ok, false);
    assert.equal(!changed.ok && changed.reason, 'changed');
    assert.equal(h.get('a.txt'), 'A, and the user typed\n');
    assert.equal((await h.review.reject(key, 0, shown!.shown)).ok, false, 'an explicit fingerprint is checked too');
    assert.equal((await h.review.accept(key, 0)).ok, false, 'accepting a hunk is checked as well');

    const [again] = await h.review.pending();
    h.dirty.add(`${h.app}:a.txt`);
    const dirty = await h.review.reject(key, undefined, again!.shown);
    assert.equal(!dirty.ok && dirty.reason, 'dirty');
    assert.match(!dirty.ok ? dirty.message : '', /unsaved changes/);
    assert.equal(h.get('a.txt'), 'A, and the user typed\n');
  });

  it('shows only the agent’s changes: a line the user edited since is no hunk, and rejecting the file keeps it', async () => {
    h.put({ 'a.txt': lines(30) });
    await h.turn(() => h.put({ 'a.txt': lines(30, { 2: 'two' }) }));
    h.put({ 'a.txt': lines(30, { 2: 'two', 25: 'the user wrote this' }) });
    const [file] = await h.review.pending();
    assert.deepEqual(
      file!.hunks!.map((x) => x.lines.filter((l) => l.startsWith('+') || l.startsWith('-'))),
      [['-l2', '+two']],
    );
    assert.deepEqual([file!.added, file!.removed], [1, 1]);
    assert.equal(
      Buffer.from((await h.review.baseOf(file!.key))!.bytes).toString(),
      lines(30, { 25: 'the user wrote this' }),
      'the diff’s left side: without the agent, with the user',
    );
    assert.deepEqual(await h.review.reject(file!.key), { ok: true, key: file!.key });
    assert.equal(h.get('a.txt'), lines(30, { 25: 'the user wrote this' }));
    assert.deepEqual(await h.review.pending(), []);
  });

  it('rejects one hunk of the agent’s without touching the user’s edits; accepting one keeps them too', async () => {
    h.put({ 'a.txt': lines(30) });
    await h.turn(() => h.put({ 'a.txt': lines(30, { 2: 'two', 28: 'twenty-eight' }) }));
    h.put({ 'a.txt': lines(30, { 2: 'two', 15: 'the user wrote this', 28: 'twenty-eight' }) });
    const [file] = await h.review.pending();
    assert.equal(file!.hunks!.length, 2);
    assert.equal((await h.review.reject(file!.key, 1)).ok, true);
    assert.equal(h.get('a.txt'), lines(30, { 2: 'two', 15: 'the user wrote this' }));
    const [left] = await h.review.pending();
    assert.deepEqual(
      left!.hunks!.map((x) => x.lines.filter((l) => l.startsWith('+'))),
      [['+two']],
    );
    assert.equal((await h.review.accept(left!.key, 0)).ok, true);
    assert.deepEqual(await h.review.pending(), []);
    assert.equal(h.get('a.txt'), lines(30, { 2: 'two', 15: 'the user wrote this' }));
  });

  it('edits the user made between turns are not shown as the agent’s, and a file only the user changed is not listed', async () => {
    h.put({ 'a.txt': lines(30), 'x.txt': 'x\n' });
    await h.turn(() => h.put({ 'a.txt': lines(30, { 2: 'two' }) }));
    h.put({ 'a.txt': lines(30, { 2: 'two', 15: 'the user wrote this' }), 'x.txt': 'the user\n', 'user.txt': 'mine\n' });
    await h.turn(() => h.put({ 'a.txt': lines(30, { 2: 'two', 15: 'the user wrote this', 28: 'twenty-eight' }) }));
    const files = await h.review.pending();
    assert.deepEqual(
      files.map((f) => f.path),
      ['a.txt'],
    );
    assert.deepEqual(
      files[0]!.hunks!.map((x) => x.lines.filter((l) => l.startsWith('+'))),
      [['+two'], ['+twenty-eight']],
    );
    const reopened = await h.reopen();
    assert.deepEqual(
      (await reopened.pending()).map((f) => f.hunks!.map((x) => x.lines.filter((l) => l.startsWith('+')))),
      [[['+two'], ['+twenty-eight']]],
      'the same after a reload',
    );
    assert.equal((await reopened.reject(files[0]!.key)).ok, true);
    assert.equal(h.get('a.txt'), lines(30, { 15: 'the user wrote this' }));
  });

  it('a file the user changed in the very lines the agent changed shows both, and is never rejected whole over the user’s lines', async () => {
    h.put({ 'a.txt': lines(30) });
    await h.turn(() => h.put({ 'a.txt': lines(30, { 2: 'two' }) }));
    h.put({ 'a.txt': lines(30, { 2: 'two, then the user' }) });
    const [file] = await h.review.pending();
    assert.ok(file!.mixed, 'the review says the user’s edits are in it');
    const outcome = await h.review.reject(file!.key);
    assert.equal(outcome.ok, false);
    assert.match(!outcome.ok ? outcome.message : '', /you changed/i);
    assert.equal(h.get('a.txt'), lines(30, { 2: 'two, then the user' }));
  });

  it('offers no hunks for a binary file, and reviews it whole', async () => {
    h.put({ 'img.bin': '\u0000\u0001' });
    await h.turn(() => h.put({ 'img.bin': '\u0000\u0002' }));
    const [file] = await h.review.pending();
    assert.equal(file!.binary, true);
    assert.match(file!.noHunks!, /binary/);
    const outcome = await h.review.reject(file!.key, 0);
    assert.equal(!outcome.ok && outcome.reason, 'no-such-hunk');
    assert.equal((await h.review.reject(file!.key)).ok, true);
    assert.equal(h.get('img.bin'), '\u0000\u0001');
  });
});

describe('SessionReview: paths it never touches', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await makeHarness();
  });
  afterEach(() => h.cleanup());

  it('lists a change with an unsafe path in the turn but never makes it pending, and the record still reopens', async () => {
    const changes = h.store.changes.bind(h.store);
    h.store.changes = async (from, to) => [
      ...(await changes(from, to)),
      { root: h.app, path: '../outside.txt', status: 'modified', added: 1, removed: 1, binary: false },
    ];
    h.put({ 'a.txt': 'a\n' });
    const turn = await h.turn(() => h.put({ 'a.txt': 'A\n' }));
    assert.deepEqual(
      turn.files.map((f) => f.path),
      ['a.txt', '../outside.txt'],
    );
    assert.deepEqual(
      (await h.review.pending()).map((f) => f.path),
      ['a.txt'],
    );
    const reopened = await h.reopen();
    assert.deepEqual(h.problems, []);
    assert.equal(reopened.turns().length, 1);
  });

  it('does not rename back over a file that exists again at the old path', async () => {
    h.put({ 'old.txt': 'moved\n' });
    await h.turn(() => h.put({ 'old.txt': undefined, 'new.txt': 'moved\n' }));
    const [file] = await h.review.pending();
    assert.equal(file!.status, 'renamed');
    h.put({ 'old.txt': 'the user made a new one\n' });
    const outcome = await h.review.reject(file!.key);
    assert.equal(!outcome.ok && outcome.reason, 'changed');
    assert.equal(h.get('old.txt'), 'the user made a new one\n');
    assert.equal(h.get('new.txt'), 'moved\n');
  });
});
