import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { capText, LocalSessionIndex, MAX_TEXT_CHARS } from '../../../src/history/localIndex';

describe('LocalSessionIndex (the client’s own session history)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-index-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('records sessions with their roots, title and times, and reads them back after a restart', async () => {
    let now = 1000;
    const index = new LocalSessionIndex(dir, { now: () => now });
    index.record({ agentName: 'A', sessionId: 's1', cwd: '/w/app', additionalDirectories: ['/w/lib'] });
    now = 2000;
    index.record({ agentName: 'A', sessionId: 's1', title: 'Fix the greeting' });
    index.record({ agentName: 'B', sessionId: 's1', cwd: '/w/docs' });
    index.setText('A', 's1', 'user: fix the greeting\nagent: done');
    await index.dispose();

    const again = new LocalSessionIndex(dir);
    assert.equal(again.loadProblem, undefined);
    assert.deepEqual(again.get('A', 's1'), {
      agentName: 'A',
      sessionId: 's1',
      cwd: '/w/app',
      additionalDirectories: ['/w/lib'],
      title: 'Fix the greeting',
      createdAt: 1000,
      updatedAt: 2000,
      hasText: true,
    });
    assert.equal(again.forAgent('B').length, 1, 'the same session id under another agent is another session');
    assert.equal(again.text('A', 's1'), 'user: fix the greeting\nagent: done');
    await again.dispose();
  });

  it('keeps the first prompt’s title and a fork’s origin once known, and reads them back after a restart', async () => {
    const index = new LocalSessionIndex(dir);
    index.record({ agentName: 'A', sessionId: 'fork', cwd: '/w/app', forkOf: { sessionId: 'parent', title: 'Greeting work', agentTitle: 'Fix the greeting' } });
    index.record({ agentName: 'A', sessionId: 'fork', promptTitle: 'First words' });
    index.record({ agentName: 'A', sessionId: 'fork', promptTitle: 'Later words', forkOf: { sessionId: 'other', title: 'Other' } });
    await index.dispose();
    const again = new LocalSessionIndex(dir);
    const record = again.get('A', 'fork');
    assert.equal(record?.promptTitle, 'First words', 'the first prompt does not change');
    assert.deepEqual(record?.forkOf, { sessionId: 'parent', title: 'Greeting work', agentTitle: 'Fix the greeting' });
    await again.dispose();
  });

  it('keeps the folders the user chose to keep across a restart, and forgets them once the session is reopened with others', async () => {
    const index = new LocalSessionIndex(dir);
    index.record({ agentName: 'A', sessionId: 's1', cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs'] });
    assert.equal(index.setKeptRoots('A', 'nope', ['/w/app']), false);
    assert.equal(index.setKeptRoots('A', 's1', ['/w/app', '/w/lib']), true);
    index.record({ agentName: 'A', sessionId: 's1', cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs'], title: 'Still the same folders' });
    index.record({ agentName: 'A', sessionId: 's1', cwd: '/w/app', additionalDirectories: ['/w/lib'] });
    await index.dispose();
    const again = new LocalSessionIndex(dir);
    assert.deepEqual(again.get('A', 's1')?.keptRoots, ['/w/app', '/w/lib'], 'reopened with the kept folders: still kept');
    again.record({ agentName: 'A', sessionId: 's1', cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs', '/w/new'] });
    assert.equal(again.get('A', 's1')?.keptRoots, undefined, 'reopened with other folders: forgotten');
    await again.dispose();
  });

  it('does not record a session it knows no folder of', () => {
    const index = new LocalSessionIndex(dir);
    assert.equal(index.record({ agentName: 'A', sessionId: 's1', title: 'x' }), undefined);
    assert.equal(index.size, 0);
  });

  it('keeps the user’s rename, pin and hide, and clears them again', async () => {
    const index = new LocalSessionIndex(dir);
    index.record({ agentName: 'A', sessionId: 's1', cwd: '/w' });
    assert.equal(index.setLocal('A', 'nope', { pinned: true }), false);
    index.setLocal('A', 's1', { localTitle: '  My name  ', pinned: true, hidden: true });
    assert.equal(index.get('A', 's1')?.localTitle, 'My name');
    assert.equal(index.get('A', 's1')?.pinned, true);
    index.setLocal('A', 's1', { localTitle: '', pinned: false, hidden: false });
    const record = index.get('A', 's1')!;
    assert.equal('localTitle' in record || 'pinned' in record || 'hidden' in record, false);
    await index.dispose();
  });

  it('forgets a deleted session together with its text', async () => {
    const index = new LocalSessionIndex(dir);
    index.record({ agentName: 'A', sessionId: 's1', cwd: '/w' });
    index.setText('A', 's1', 'secret plans');
    await index.flush();
    assert.equal(fs.readdirSync(path.join(dir, 'text')).length, 1);
    index.remove('A', 's1');
    await index.flush();
    assert.equal(fs.readdirSync(path.join(dir, 'text')).length, 0);
    assert.equal(new LocalSessionIndex(dir).size, 0);
  });

  it('keeps a file it cannot read aside, says so, and starts a new history', () => {
    fs.writeFileSync(path.join(dir, 'index.json'), '{ not json');
    const problems: string[] = [];
    const index = new LocalSessionIndex(dir, { now: () => 42, onProblem: (p) => problems.push(p) });
    assert.equal(index.size, 0);
    assert.match(index.loadProblem!, /could not be read .*kept as .*index\.json\.unreadable-42.*new history/);
    assert.deepEqual(problems, [index.loadProblem]);
    assert.equal(fs.readFileSync(path.join(dir, 'index.json.unreadable-42'), 'utf8'), '{ not json', 'nothing is lost');
  });

  it('skips entries it cannot read and keeps the others', () => {
    fs.writeFileSync(
      path.join(dir, 'index.json'),
      JSON.stringify({
        version: 1,
        sessions: [
          { agentName: 'A', sessionId: 'ok', cwd: '/w', additionalDirectories: [], createdAt: 1, updatedAt: 2 },
          { agentName: 'A', sessionId: 'bad', cwd: 7 },
          'junk',
        ],
      }),
    );
    const index = new LocalSessionIndex(dir);
    assert.equal(index.size, 1);
    assert.match(index.loadProblem!, /2 unreadable entries .* skipped/);
  });

  it('keeps a transcript in memory only until it is written, and does not write an unchanged one again', async () => {
    const index = new LocalSessionIndex(dir, { writeDelayMs: 60_000 });
    const written: string[] = [];
    index.onDidChangeText((change) => change.kind === 'written' && written.push(change.text));
    index.record({ agentName: 'A', sessionId: 's1', cwd: '/w' });
    index.setText('A', 's1', 'first words');
    assert.equal(index.text('A', 's1'), 'first words', 'not written yet: from memory');
    await index.flush();
    const file = path.join(dir, 'text', fs.readdirSync(path.join(dir, 'text'))[0]!);
    fs.writeFileSync(file, 'changed on disk');
    assert.equal(index.text('A', 's1'), 'changed on disk', 'written: read from disk, not from a copy kept in memory');
    index.setText('A', 's1', 'first words');
    await index.flush();
    assert.deepEqual(written, ['first words'], 'the same text is not written or indexed again');
    index.setText('A', 's1', 'second words');
    await index.flush();
    assert.deepEqual(written, ['first words', 'second words']);
    await index.dispose();
  });

  it('caps long transcripts to their beginning and most recent part', () => {
    const long = `START ${'x'.repeat(100_000)} END`;
    const capped = capText(long);
    assert.equal(capped.length, MAX_TEXT_CHARS);
    assert.ok(capped.startsWith('START '));
    assert.ok(capped.endsWith(' END'));
    assert.equal(capText('short'), 'short');
  });
});
