import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexFileError, IndexFiles } from '../../../../src/history/fulltext/indexFiles';
import { TextIndex } from '../../../../src/history/fulltext/textIndex';
import { queryTerms } from '../../../../src/history/fulltext/tokens';

describe('IndexFiles (the saved transcript index)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-tindex-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function sample(): TextIndex {
    const index = new TextIndex();
    index.put('Agent\u0000s1', 'User: refactor the auth flow', { mtimeMs: 1732665123456.789, size: 28 });
    index.put('Agent\u0000s2', 'User: fix parseConfigFile', { mtimeMs: 2, size: 25 });
    index.put('Agent\u0000s3', 'Agent: gone soon', { mtimeMs: 3, size: 16 });
    index.remove('Agent\u0000s3');
    return index;
  }

  function segmentFiles(): string[] {
    return fs.readdirSync(dir).filter((name) => name.startsWith('segment-'));
  }

  it('reads back what it saved: documents, stamps and search results', async () => {
    await new IndexFiles(dir).save(sample());
    const { index: loaded, loadWords } = await new IndexFiles(dir).load();
    assert.equal(loaded.documentCount, 2);
    assert.equal(loaded.wordsLoaded, false, 'the short prefixes come first');
    assert.deepEqual(loaded.search(queryTerms('aut')), ['Agent\u0000s1'], 'a three-letter word is answered from them');
    await loadWords();
    assert.equal(loaded.wordsLoaded, true);
    assert.deepEqual(loaded.stampOf('Agent\u0000s1'), { mtimeMs: 1732665123456.789, size: 28 });
    assert.deepEqual(loaded.search(queryTerms('auth')), ['Agent\u0000s1']);
    assert.deepEqual(loaded.search(queryTerms('config')), ['Agent\u0000s2']);
    assert.deepEqual(loaded.search(queryTerms('gone')), [], 'a removed document stays removed');
  });

  it('writes only new segments and deletes the ones no longer named', async () => {
    const files = new IndexFiles(dir);
    const index = sample();
    await files.save(index);
    const before = segmentFiles();
    assert.equal(before.length, 3, 'one file per part');
    index.put('Agent\u0000s4', 'more text', { mtimeMs: 4, size: 9 });
    await files.save(index);
    assert.deepEqual(segmentFiles().filter((f) => !before.includes(f)).length, 1, 'one new segment file');
    while (index.maintain());
    index.renumber();
    await files.save(index);
    assert.equal(segmentFiles().length, 1, 'merged parts deleted');
    const reloaded = await new IndexFiles(dir).load();
    await reloaded.loadWords();
    assert.deepEqual(reloaded.index.search(queryTerms('more')), ['Agent\u0000s4']);
  });

  it('refuses a missing, damaged, truncated or other-format index with a reason', async () => {
    await assert.rejects(new IndexFiles(dir).load(), (e: unknown) => e instanceof IndexFileError && /no saved index/.test(e.message));
    await new IndexFiles(dir).save(sample());
    const manifest = path.join(dir, 'index.bin');
    const good = fs.readFileSync(manifest);

    const flipped = Buffer.from(good);
    flipped[flipped.length - 3]! ^= 0xff;
    fs.writeFileSync(manifest, flipped);
    await assert.rejects(new IndexFiles(dir).load(), (e: unknown) => e instanceof IndexFileError && /damaged/.test(e.message));

    fs.writeFileSync(manifest, good.subarray(0, good.length - 10));
    await assert.rejects(new IndexFiles(dir).load(), (e: unknown) => e instanceof IndexFileError && /length/.test(e.message));

    const other = Buffer.from(good);
    other.writeUInt32LE(999, 4);
    fs.writeFileSync(manifest, other);
    await assert.rejects(new IndexFiles(dir).load(), (e: unknown) => e instanceof IndexFileError && /another format/.test(e.message));

    fs.writeFileSync(manifest, good);
    const segment = path.join(dir, segmentFiles()[0]!);
    const bytes = fs.readFileSync(segment);
    bytes[bytes.length - 1]! ^= 0x01;
    fs.writeFileSync(segment, bytes);
    const damagedWords = await new IndexFiles(dir).load();
    await assert.rejects(
      damagedWords.loadWords(),
      (e: unknown) => e instanceof IndexFileError && /segment \d+ is damaged/.test(e.message),
      'a damaged word block',
    );
    bytes[bytes.length - 1]! ^= 0x01;
    bytes[40]! ^= 0x01;
    fs.writeFileSync(segment, bytes);
    await assert.rejects(
      new IndexFiles(dir).load(),
      (e: unknown) => e instanceof IndexFileError && /segment \d+ is damaged/.test(e.message),
      'a damaged prefix block',
    );

    fs.rmSync(segment);
    await assert.rejects(new IndexFiles(dir).load(), (e: unknown) => e instanceof IndexFileError && /could not be read/.test(e.message));
  });

  it('deletes a segment file a save left behind without its manifest', async () => {
    await new IndexFiles(dir).save(sample());
    fs.writeFileSync(path.join(dir, 'segment-99.bin'), 'left over');
    fs.writeFileSync(path.join(dir, 'segment-7.bin.123.abc.tmp'), 'half written');
    await new IndexFiles(dir).load();
    assert.ok(!fs.existsSync(path.join(dir, 'segment-99.bin')));
    assert.ok(!fs.existsSync(path.join(dir, 'segment-7.bin.123.abc.tmp')));
  });

  it('saves one moment of the index when merges replace its parts while the files are written', async () => {
    // A regression: the parts were read as the save went while the documents were taken at its end, so a merge
    // during a save (the benchmark: a rebuild of 20,000) left documents named without their postings.
    const index = new TextIndex();
    for (let i = 0; i < 16; i++) index.put(`k${i}`, `word${i} common`, { mtimeMs: i, size: 1 });
    const firstWrite = new Promise<void>((resolve) => {
      const watcher = fs.watch(dir, () => {
        watcher.close();
        resolve();
      });
    });
    const saving = new IndexFiles(dir).save(index);
    await firstWrite;
    while (index.maintain()); // merges while the save is writing parts
    await saving;
    const { index: loaded, loadWords } = await new IndexFiles(dir).load();
    await loadWords();
    const named = loaded
      .documents()
      .map((d) => d.key)
      .sort();
    assert.ok(named.length > 0);
    assert.deepEqual(loaded.search(queryTerms('common')).sort(), named, 'every document the manifest names has its postings');
  });
});
