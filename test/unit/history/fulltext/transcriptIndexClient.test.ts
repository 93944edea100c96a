import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../../src/common/logger';
import { TranscriptIndexClient, type IndexState } from '../../../../src/history/fulltext/transcriptIndexClient';
import { textFileName } from '../../../../src/history/textFileName';
import { TRANSCRIPT_WORKER } from './workerFile';

const CRASHING_WORKER = path.join(__dirname, 'fixtures', 'crashingWorker.js');

/** A text file as LocalSessionIndex writes it, and its stamp. */
function writeText(dir: string, key: string, text: string): { mtimeMs: number; size: number } {
  fs.mkdirSync(path.join(dir, 'text'), { recursive: true });
  const file = path.join(dir, 'text', textFileName(key));
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
  const stat = fs.statSync(file);
  return { mtimeMs: stat.mtimeMs, size: stat.size };
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string) => void lines.push(message);
  return { lines, trace: keep, info: keep, warn: keep, error: keep };
}

function whenState(client: TranscriptIndexClient, test: (state: IndexState) => boolean): Promise<IndexState> {
  if (test(client.state)) return Promise.resolve(client.state);
  return new Promise((resolve) => {
    const subscription = client.onDidChangeState((state) => {
      if (!test(state)) return;
      subscription.dispose();
      resolve(state);
    });
  });
}

async function keys(client: TranscriptIndexClient, query: string): Promise<string[]> {
  return [...(await client.search(query)).keys].sort();
}

describe('TranscriptIndexClient with the real worker', () => {
  let dir: string;
  let clients: TranscriptIndexClient[];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-tclient-'));
    clients = [];
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function client(documents: readonly string[], options: { workerFile?: string; logger?: Logger; maxRestarts?: number } = {}): TranscriptIndexClient {
    const made = new TranscriptIndexClient({
      workerFile: options.workerFile ?? TRANSCRIPT_WORKER,
      historyDir: dir,
      documents: () => documents,
      logger: options.logger ?? recordingLogger(),
      saveDelayMs: 60_000,
      maxRestarts: options.maxRestarts ?? 3,
    });
    clients.push(made);
    return made;
  }

  it('finds what it was told, says when the result is complete, and gives snippets for the keys asked', async () => {
    const index = client([]);
    await whenState(index, (s) => s.complete);
    const versionBefore = index.version;
    index.put('A\u0000s1', 'User: refactor the auth flow', writeText(dir, 'A\u0000s1', 'User: refactor the auth flow'));
    index.put('A\u0000s2', 'User: fix parseConfigFile', writeText(dir, 'A\u0000s2', 'User: fix parseConfigFile'));
    assert.ok(index.version > versionBefore, 'a change bumps the version');
    const found = await index.search('AUTH ref');
    assert.deepEqual([...found.keys], ['A\u0000s1']);
    assert.equal(found.complete, true);
    assert.equal(found.searched, 2);
    assert.deepEqual(await keys(index, 'config'), ['A\u0000s2']);
    const snippets = await index.snippets('config', ['A\u0000s1', 'A\u0000s2', 'A\u0000missing']);
    assert.deepEqual([...snippets.keys()], ['A\u0000s2']);
    assert.deepEqual(snippets.get('A\u0000s2'), { text: 'User: fix parseConfigFile', highlights: [[15, 21]] });
    index.remove('A\u0000s1');
    assert.deepEqual(await keys(index, 'auth'), []);
  });

  it('after a restart answers from the saved index, then catches up with the text files', async () => {
    const first = client([]);
    for (const [key, text] of [
      ['A\u0000kept', 'alpha kept'],
      ['A\u0000changed', 'alpha before'],
      ['A\u0000deleted', 'alpha deleted'],
    ] as const)
      first.put(key, text, writeText(dir, key, text));
    await first.save();
    await first.dispose();
    // While the window was closed (or between a text write and an index save): a text changed, one was
    // deleted, one was written but never indexed.
    writeText(dir, 'A\u0000changed', 'alpha after, and longer');
    fs.rmSync(path.join(dir, 'text', textFileName('A\u0000deleted')));
    writeText(dir, 'A\u0000new', 'alpha new');
    const second = client(['A\u0000kept', 'A\u0000changed', 'A\u0000deleted', 'A\u0000new']);
    const early = await second.search('kept');
    assert.deepEqual([...early.keys], ['A\u0000kept'], 'answered from the saved index');
    await whenState(second, (s) => s.complete);
    assert.deepEqual(await keys(second, 'alpha'), ['A\u0000changed', 'A\u0000kept', 'A\u0000new']);
    assert.deepEqual(await keys(second, 'before'), []);
    assert.deepEqual(await keys(second, 'after'), ['A\u0000changed']);
    assert.equal((await second.search('alpha')).complete, true);
  });

  it('drops documents the host no longer lists', async () => {
    const first = client([]);
    first.put('A\u0000a', 'alpha', writeText(dir, 'A\u0000a', 'alpha'));
    first.put('A\u0000b', 'alpha', writeText(dir, 'A\u0000b', 'alpha'));
    await first.save();
    await first.dispose();
    const second = client(['A\u0000a']);
    await whenState(second, (s) => s.complete);
    assert.deepEqual(await keys(second, 'alpha'), ['A\u0000a']);
  });

  it('rebuilds a damaged saved index from the text files, and says so in the log', async () => {
    const first = client([]);
    first.put('A\u0000a', 'alpha', writeText(dir, 'A\u0000a', 'alpha'));
    await first.save();
    await first.dispose();
    const manifest = path.join(dir, 'transcript-index', 'index.bin');
    const bytes = fs.readFileSync(manifest);
    bytes[bytes.length - 1]! ^= 0xff;
    fs.writeFileSync(manifest, bytes);
    const logger = recordingLogger();
    const second = client(['A\u0000a'], { logger });
    await whenState(second, (s) => s.complete && s.indexed === 1);
    assert.deepEqual(await keys(second, 'alpha'), ['A\u0000a']);
    assert.ok(
      logger.lines.some((line) => /rebuilt from the text files: the saved index is damaged/.test(line)),
      logger.lines.join('\n'),
    );
  });

  it('answers a short word from the saved prefixes, and rebuilds when a word block turns out damaged', async () => {
    const first = client([]);
    first.put('A\u0000a', 'alpha', writeText(dir, 'A\u0000a', 'alpha'));
    await first.save();
    await first.dispose();
    const folder = path.join(dir, 'transcript-index');
    const segment = path.join(
      folder,
      fs.readdirSync(folder).find((name) => name.startsWith('segment-'))!,
    );
    const bytes = fs.readFileSync(segment);
    bytes[bytes.length - 1]! ^= 0xff; // the last byte of the word block
    fs.writeFileSync(segment, bytes);
    const logger = recordingLogger();
    const second = client(['A\u0000a'], { logger });
    assert.deepEqual(await keys(second, 'al'), ['A\u0000a'], 'from the prefix blocks');
    await whenState(second, (s) => s.complete && s.indexed === 1);
    assert.deepEqual(await keys(second, 'alpha'), ['A\u0000a']);
    assert.ok(
      logger.lines.some((line) => /rebuilt from the text files: segment \d+ is damaged/.test(line)),
      logger.lines.join('\n'),
    );
  });

  it('rejects a superseded search with an AbortError', async () => {
    const index = client([]);
    index.put('A\u0000a', 'alpha', writeText(dir, 'A\u0000a', 'alpha'));
    const controller = new AbortController();
    const superseded = index.search('alpha', controller.signal);
    controller.abort();
    await assert.rejects(superseded, (error: unknown) => error instanceof Error && error.name === 'AbortError');
    await assert.rejects(
      index.search('alpha', controller.signal),
      (error: unknown) => error instanceof Error && error.name === 'AbortError',
      'already aborted',
    );
    assert.deepEqual(await keys(index, 'alpha'), ['A\u0000a'], 'the next search is answered');
  });

  it('bounds what it sends: a long query, text and key list are cut', async () => {
    const index = client([]);
    const text = `alpha ${'x'.repeat(100_000)} omega`;
    index.put('A\u0000a', text, writeText(dir, 'A\u0000a', text));
    assert.deepEqual(await keys(index, `alpha ${'y'.repeat(5000)}`), [], 'the query is cut, not refused');
    assert.deepEqual(await keys(index, 'alpha'), ['A\u0000a']);
    assert.deepEqual(await keys(index, 'omega'), [], 'text past the limit is not indexed');
    const many = Array.from({ length: 500 }, (_, i) => `A\u0000k${i}`);
    assert.equal((await index.snippets('alpha', ['A\u0000a', ...many])).size, 1);
  });

  it('reports a crashed worker, answers "unavailable", restarts it and catches up from the text files', async () => {
    fs.writeFileSync(path.join(dir, 'crash-once'), '');
    writeText(dir, 'A\u0000a', 'alpha');
    const logger = recordingLogger();
    const index = client(['A\u0000a'], { workerFile: CRASHING_WORKER, logger });
    const crashed = await index.search('alpha');
    assert.equal(crashed.keys.size, 0);
    assert.match(crashed.unavailable ?? '', /Text search is unavailable: the transcript index failed: a crash for the test/);
    assert.ok(
      logger.lines.some((line) => /Restarting the transcript index \(attempt 1\)/.test(line)),
      logger.lines.join('\n'),
    );
    await whenState(index, (s) => s.complete && s.indexed === 1);
    const found = await index.search('alpha');
    assert.deepEqual([...found.keys], ['A\u0000a']);
    assert.equal(found.unavailable, undefined);
  });

  it('gives up after its restarts, and every search then says text search is unavailable', async () => {
    fs.writeFileSync(path.join(dir, 'crash-always'), '');
    const index = client([], { workerFile: CRASHING_WORKER, maxRestarts: 2 });
    for (let attempt = 0; attempt < 3; attempt++) assert.ok((await index.search('alpha')).unavailable, `crash ${attempt + 1}`);
    const after = await index.search('alpha');
    assert.match(after.unavailable ?? '', /unavailable/);
    assert.equal((await index.snippets('alpha', ['A\u0000a'])).size, 0);
  });

  it('saves when disposed, and answers nothing after', async () => {
    const index = client([]);
    index.put('A\u0000a', 'alpha', writeText(dir, 'A\u0000a', 'alpha'));
    await index.dispose();
    assert.ok(fs.existsSync(path.join(dir, 'transcript-index', 'index.bin')), 'saved');
    await assert.rejects(index.search('alpha'), /closed/);
  });
});
