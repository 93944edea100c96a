import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexWorker } from '../../../../src/history/fulltext/indexWorker';
import { textFileName } from '../../../../src/history/textFileName';
import { CANCEL_SLOTS, MAX_TEXT_CHARS, type FromWorker } from '../../../../src/history/fulltext/workerProtocol';

/** The worker's logic in this thread, with what it sends collected. */
describe('IndexWorker (what the transcript worker does with each message)', () => {
  let dir: string;
  let worker: IndexWorker;
  let sent: FromWorker[];
  let cancel: SharedArrayBuffer;
  let waiting: Array<{ test: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }>;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-tworker-'));
    sent = [];
    waiting = [];
    cancel = new SharedArrayBuffer(4 * CANCEL_SLOTS);
    worker = new IndexWorker({ indexDir: path.join(dir, 'transcript-index'), textDir: path.join(dir, 'text'), cancel, saveDelayMs: 60_000 }, (message) => {
      sent.push(message);
      for (const w of [...waiting]) {
        if (!w.test(message)) continue;
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(message);
      }
    });
  });
  afterEach(() => {
    worker.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function next(test: (m: FromWorker) => boolean): Promise<FromWorker> {
    const already = sent.find(test);
    return already ? Promise.resolve(already) : new Promise((resolve) => waiting.push({ test, resolve }));
  }

  it('stops a search whose id the host marked as cancelled, and says so', async () => {
    worker.receive({ type: 'put', key: 'A\u0000a', handle: 5, text: 'alpha', stamp: { mtimeMs: 1, size: 5 } });
    new Int32Array(cancel)[7 % CANCEL_SLOTS] = 7;
    worker.receive({ type: 'search', id: 7, query: 'alpha' });
    worker.receive({ type: 'search', id: 8, query: 'alpha' });
    assert.deepEqual(await next((m) => m.type === 'found' && m.id === 8), {
      type: 'found',
      id: 8,
      handles: new Uint32Array([5]),
      searched: 1,
      complete: false,
    });
    assert.ok(sent.some((m) => m.type === 'cancelled' && m.id === 7));
    assert.ok(!sent.some((m) => m.type === 'found' && m.id === 7));
  });

  it('refuses a message that does not validate (oversized text, unknown type), answering a request id it can read', async () => {
    worker.receive({ type: 'put', key: 'A\u0000a', handle: 0, text: 'x'.repeat(MAX_TEXT_CHARS + 1), stamp: { mtimeMs: 1, size: 1 } });
    worker.receive({ type: 'search', id: 3, query: 'q'.repeat(5000) });
    worker.receive({ type: 'explode' });
    worker.receive('not even an object');
    assert.deepEqual(await next((m) => m.type === 'failed'), { type: 'failed', id: 3, message: 'The request was not valid.' });
    assert.equal(sent.filter((m) => m.type === 'problem').length, 4);
    worker.receive({ type: 'search', id: 4, query: 'x' });
    const found = await next((m) => m.type === 'found');
    assert.equal(found.type === 'found' && found.searched, 0, 'nothing was indexed');
  });

  it('reports progress: incomplete until the host’s list was compared with the text files', async () => {
    fs.mkdirSync(path.join(dir, 'text'));
    worker.receive({ type: 'documents', keys: [], first: 0, last: true });
    const state = await next((m) => m.type === 'state' && m.complete);
    assert.equal(state.type === 'state' && state.indexed, 0);
  });

  it('does not call a result complete while a batch of text files is still being read', async () => {
    // A regression: the keys of the batch being read had left the queue, so a search answered meanwhile (and the
    // progress) said "complete" with that batch missing (at 20,000 transcripts, 800 of them).
    const text = path.join(dir, 'text');
    fs.mkdirSync(text);
    // The only file to read is a FIFO: the batch waits on it until the test writes into it.
    const fifo = path.join(text, textFileName('A\u0000a'));
    execFileSync('mkfifo', [fifo]);
    worker.receive({ type: 'documents', keys: ['A\u0000a'], first: 0, last: true });
    const writer = await fs.promises.open(fifo, 'w'); // opens once the worker opened it for reading
    worker.receive({ type: 'search', id: 1, query: 'alpha' });
    const during = await next((m) => m.type === 'found' && m.id === 1);
    assert.equal(during.type === 'found' && during.complete, false, 'not complete while the batch is read');
    await writer.writeFile('alpha');
    await writer.close();
    await next((m) => m.type === 'state' && m.complete);
    worker.receive({ type: 'search', id: 2, query: 'alpha' });
    const after = await next((m) => m.type === 'found' && m.id === 2);
    assert.deepEqual(after.type === 'found' && [...after.handles], [0]);
    assert.equal(after.type === 'found' && after.complete, true);
  });
});
