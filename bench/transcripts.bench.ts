/**
 * Full-text search over stored transcripts at the local index's limits: 1,000, 10,000 and 20,000 sessions
 * (MAX_RECORDS) × 32 KiB of transcript text (MAX_TEXT_CHARS), written to disk through LocalSessionIndex as the
 * product stores them (bench/transcriptCorpus.ts: English and code words with a Zipf distribution,
 * identifiers, paths, numbers, hashes).
 *
 * Engines, each measured in the same run on the same texts:
 *   index       the shipped transcript index: TranscriptIndexClient with dist/transcript-worker.js (a worker);
 *   includes    the baseline: every text read into memory and lower-cased, a plain `includes` per query word;
 *   minisearch  MiniSearch 7.2.0 (prefix search, AND), saved with toJSON / loadJSON;
 *   flexsearch  FlexSearch 0.8.212 (`tokenize: 'forward'`), saved with export / import;
 *   sqlite      SQLite FTS4 in WASM (sql.js 1.16.0, which has no FTS5; prefix indexes 1–3), saved with export.
 *
 * Per engine: building from scratch (reading the text files included); the COLD first keystroke (for the index:
 * worker start + loading the saved index + the first one-letter query, as after a window reload; for the others:
 * loading what they saved, or reading the texts, + the same query); typing four queries one character at a time
 * (median, p95, max per keystroke, and for the index the extension host's own busy time per keystroke); the
 * extension host's heap growth and the process's RSS growth once loaded; replacing one transcript.
 * The libraries run on the bench's main thread (they would need the same worker to stay off the host thread).
 *
 * Usage: node --expose-gc --max-old-space-size=8192 out/bench/transcripts.bench.js [--max N] [--libsMax N] [--runs N]
 *        (`npm run bench` builds first; --max 1000 for a quick look; --libsMax bounds the libraries' sizes: 1,000 by default, 10,000 for the comparison in CONTRIBUTING, which takes tens of minutes)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import FlexSearch from 'flexsearch';
import MiniSearch from 'minisearch';
import initSqlJs from 'sql.js';
import { silentLogger } from '../src/common/logger';
import { TranscriptIndexClient } from '../src/history/fulltext/transcriptIndexClient';
import { LocalSessionIndex, recordKey } from '../src/history/localIndex';
import { textFileName } from '../src/history/textFileName';
import { makeCorpus } from './transcriptCorpus';
import { median, parseArgs, printTable } from './util';

const { max: MAX, libsMax: LIBS_MAX, runs: RUNS } = parseArgs({ max: 20_000, libsMax: 1_000, runs: 1 });
const SIZES = [1_000, 10_000, 20_000].filter((n) => n <= MAX);
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const WORKER = path.join(REPO_ROOT, 'dist', 'transcript-worker.js');
const AGENT = 'Bench';

const corpus = makeCorpus();
/** Typed one character at a time: common words, an identifier, a rarer word. */
const QUERIES = ['error handler', 'saveSession cache', corpus.vocabulary[2500]!, 'cannot open'];
const FIRST = QUERIES[0]!.slice(0, 1);

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const memory = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => (value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(1)} ms`);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

interface Engine {
  readonly name: string;
  /** Builds from the text files; the engine keeps what it needs to search and can save it. */
  build(keys: readonly string[]): Promise<void>;
  save(): Promise<void>;
  /** Forgets everything in memory (a window reload). */
  unload(): Promise<void>;
  /** Loads what `save` wrote (or whatever it needs) before the first query. */
  load(keys: readonly string[]): Promise<void>;
  search(query: string): Promise<number>;
  /** Resolves once the engine is fully ready after `load` (the index: compared with the text files). */
  ready?(): Promise<void>;
  update(key: string, text: string): Promise<void>;
  /** The host's busy time of the last search, when it runs elsewhere. */
  hostTime?(): number;
}

function readText(history: string, key: string): string {
  return fs.readFileSync(path.join(history, 'text', textFileName(key)), 'utf8');
}

/** The shipped index, in its worker. */
function indexEngine(history: string): Engine {
  let client: TranscriptIndexClient | undefined;
  let keys: readonly string[] = [];
  let busy = 0;
  const complete = (c: TranscriptIndexClient) =>
    new Promise<void>((resolve) => {
      if (c.state.complete && c.state.pending === 0) return resolve();
      const subscription = c.onDidChangeState((state) => state.complete && (subscription.dispose(), resolve()));
    });
  const start = () =>
    (client = new TranscriptIndexClient({ workerFile: WORKER, historyDir: history, documents: () => keys, logger: silentLogger, saveDelayMs: 600_000 }));
  return {
    name: 'index (worker)',
    async build(all) {
      keys = all;
      fs.rmSync(path.join(history, 'transcript-index'), { recursive: true, force: true });
      await complete(start());
    },
    save: () => client!.save(),
    async unload() {
      await client?.dispose();
      client = undefined;
    },
    async load(all) {
      keys = all;
      start();
    },
    ready: () => complete(client!),
    async search(query) {
      const elu = performance.eventLoopUtilization();
      const result = await client!.search(query);
      const used = performance.eventLoopUtilization(elu);
      busy = used.active;
      return result.keys.size;
    },
    async update(key, text) {
      const file = path.join(history, 'text', textFileName(key));
      fs.writeFileSync(file, text);
      const stat = fs.statSync(file);
      client!.put(key, text, { mtimeMs: stat.mtimeMs, size: stat.size });
      await client!.search('x');
    },
    hostTime: () => busy,
  };
}

/** The baseline: the texts in memory, lower-cased, scanned with `includes`. */
function includesEngine(history: string): Engine {
  let texts = new Map<string, string>();
  const load = async (keys: readonly string[]) => {
    texts = new Map(keys.map((key) => [key, readText(history, key).toLowerCase()]));
  };
  return {
    name: 'includes scan',
    build: load,
    save: async () => undefined,
    async unload() {
      texts = new Map();
    },
    load,
    async search(query) {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      let count = 0;
      for (const text of texts.values()) if (words.every((w) => text.includes(w))) count++;
      return count;
    },
    async update(key, text) {
      texts.set(key, text.toLowerCase());
    },
  };
}

function miniSearchEngine(history: string, dir: string): Engine {
  let index: MiniSearch | undefined;
  const ids = new Map<string, number>();
  const options = { fields: ['text'], storeFields: [] as string[] };
  const file = path.join(dir, 'minisearch.json');
  return {
    name: 'minisearch',
    async build(keys) {
      index = new MiniSearch(options);
      keys.forEach((key, id) => {
        ids.set(key, id);
        index!.add({ id, text: readText(history, key) });
      });
    },
    save: async () => fs.writeFileSync(file, JSON.stringify(index)),
    async unload() {
      index = undefined;
    },
    async load() {
      index = MiniSearch.loadJSON(fs.readFileSync(file, 'utf8'), options);
    },
    async search(query) {
      return index!.search(query, { prefix: true, combineWith: 'AND' }).length;
    },
    async update(key, text) {
      const id = ids.get(key)!;
      index!.discard(id);
      index!.add({ id, text });
    },
  };
}

function flexSearchEngine(history: string, dir: string): Engine {
  let index: InstanceType<typeof FlexSearch.Index> | undefined;
  const ids = new Map<string, number>();
  const folder = path.join(dir, 'flexsearch');
  const make = () => new FlexSearch.Index({ tokenize: 'forward' });
  let limit = 0;
  return {
    name: 'flexsearch',
    async build(keys) {
      index = make();
      limit = keys.length;
      keys.forEach((key, id) => {
        ids.set(key, id);
        index!.add(id, readText(history, key));
      });
    },
    async save() {
      fs.rmSync(folder, { recursive: true, force: true });
      fs.mkdirSync(folder, { recursive: true });
      await index!.export((key: string, data: string) => fs.writeFileSync(path.join(folder, encodeURIComponent(key)), data ?? ''));
    },
    async unload() {
      index = undefined;
    },
    async load() {
      index = make();
      for (const name of fs.readdirSync(folder)) index.import(decodeURIComponent(name), fs.readFileSync(path.join(folder, name), 'utf8'));
    },
    async search(query) {
      return (index!.search(query, { limit }) as unknown[]).length;
    },
    async update(key, text) {
      index!.update(ids.get(key)!, text);
    },
  };
}

function sqliteEngine(history: string, dir: string): Engine {
  type Database = InstanceType<Awaited<ReturnType<typeof initSqlJs>>['Database']>;
  let db: Database | undefined;
  const ids = new Map<string, number>();
  const file = path.join(dir, 'fts4.sqlite');
  const open = async (data?: Uint8Array) => new (await initSqlJs()).Database(data);
  const match = (query: string) =>
    query
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .map((w) => `"${w}"*`)
      .join(' ');
  return {
    name: 'sqlite fts4 (wasm)',
    async build(keys) {
      db = await open();
      db.run("CREATE VIRTUAL TABLE t USING fts4(body, prefix='1,2,3', tokenize=unicode61)");
      db.run('BEGIN');
      const insert = db.prepare('INSERT INTO t(docid, body) VALUES (?, ?)');
      keys.forEach((key, id) => {
        ids.set(key, id);
        insert.bind([id, readText(history, key)]);
        insert.step();
        insert.reset();
      });
      insert.free();
      db.run('COMMIT');
    },
    save: async () => fs.writeFileSync(file, db!.export()),
    async unload() {
      db?.close();
      db = undefined;
    },
    async load() {
      db = await open(fs.readFileSync(file));
    },
    async search(query) {
      const text = match(query);
      if (!text) return 0;
      const statement = db!.prepare('SELECT count(*) FROM t WHERE t MATCH ?');
      statement.bind([text]);
      statement.step();
      const count = Number(statement.get()[0]);
      statement.free();
      return count;
    },
    async update(key, text) {
      db!.run('UPDATE t SET body = ? WHERE docid = ?', [text, ids.get(key)!]);
    },
  };
}

interface Figures {
  build: number;
  cold: number;
  keystrokes: number[];
  host: number[];
  heap: number;
  rss: number;
  update: number;
  counts: number[];
}

async function measure(engine: Engine, keys: readonly string[]): Promise<Figures> {
  let started = performance.now();
  await engine.build(keys);
  const build = performance.now() - started;
  await engine.save();
  await engine.unload();
  const cleared = memory();
  // Cold: as after a window reload, up to the answer to the first keystroke.
  started = performance.now();
  await engine.load(keys);
  await engine.search(FIRST);
  const cold = performance.now() - started;
  await engine.ready?.();
  // Typing, once loaded (for the index: once it has compared itself with the text files).
  const keystrokes: number[] = [];
  const host: number[] = [];
  const counts: number[] = [];
  for (let run = 0; run < Math.max(1, RUNS); run++) {
    for (const query of QUERIES) {
      for (let n = 1; n <= query.length; n++) {
        const at = performance.now();
        const count = await engine.search(query.slice(0, n));
        keystrokes.push(performance.now() - at);
        if (engine.hostTime) host.push(engine.hostTime());
        if (run === 0 && n === query.length) counts.push(count);
      }
    }
  }
  const loaded = memory();
  const updates: number[] = [];
  for (let i = 0; i < 10; i++) {
    const key = keys[(i * 7919) % keys.length]!;
    const text = corpus.transcript(1_000_000 + i, 32 * 1024).slice(0, 32 * 1024);
    const at = performance.now();
    await engine.update(key, text);
    updates.push(performance.now() - at);
  }
  await engine.unload();
  if (process.env['BENCH_TRACE']) console.log(engine.name, keystrokes.map((k) => k.toFixed(1)).join(' '), '| host', host.map((k) => k.toFixed(1)).join(' '));
  return { build, cold, keystrokes, host, heap: loaded.heap - cleared.heap, rss: loaded.rss - cleared.rss, update: median(updates), counts };
}

/** Writes `count` transcripts through LocalSessionIndex, as the product stores them. */
async function storeHistory(dir: string, count: number): Promise<string[]> {
  const index = new LocalSessionIndex(dir, { writeDelayMs: 600_000 });
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const sessionId = `session-${i}`;
    index.record({ agentName: AGENT, sessionId, cwd: '/w/app', at: i });
    index.setText(AGENT, sessionId, corpus.transcript(i, 34 * 1024));
    keys.push(recordKey(AGENT, sessionId));
    if (i % 500 === 499) await index.flush();
  }
  await index.dispose();
  return keys;
}

async function main(): Promise<void> {
  if (!fs.existsSync(WORKER)) throw new Error(`${WORKER} is missing: run \`node esbuild.mjs --production\` first.`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-transcripts-bench-'));
  try {
    const history = path.join(root, 'history');
    const started = performance.now();
    const all = await storeHistory(history, SIZES[SIZES.length - 1]!);
    console.log(
      `transcripts: ${all.length} × 32 KiB written through LocalSessionIndex in ${((performance.now() - started) / 1000).toFixed(0)} s; queries typed: ${QUERIES.map((q) => `"${q}"`).join(', ')}`,
    );
    for (const size of SIZES) {
      const keys = all.slice(0, size);
      const engines = [indexEngine(history), includesEngine(history)];
      if (size <= LIBS_MAX) engines.push(miniSearchEngine(history, root), flexSearchEngine(history, root), sqliteEngine(history, root));
      const results = new Map<string, Figures | string>();
      for (const engine of engines) {
        try {
          results.set(engine.name, await measure(engine, keys));
        } catch (error) {
          results.set(engine.name, `failed: ${(error as Error).message.split('\n')[0]!.slice(0, 80)}`);
          await engine.unload().catch(() => undefined);
        }
        gc();
      }
      const base = results.get('includes scan') as Figures;
      const ratio = (value: number, of: number) => (of > 0 ? `${(value / of).toFixed(3)}×` : '');
      console.log(`\n${size.toLocaleString('en')} transcripts (× 32 KiB = ${mb(size * 32 * 1024)} of text); ratios against the includes scan in this run`);
      const rows: string[][] = [];
      for (const [name, figures] of results) {
        if (typeof figures === 'string') {
          rows.push([name, figures, '', '', '', '', '', '', '', '', '']);
          continue;
        }
        const typing = [median(figures.keystrokes), percentile(figures.keystrokes, 0.95), Math.max(...figures.keystrokes)];
        rows.push([
          name,
          ms(figures.build),
          `${ms(figures.cold)} (${ratio(figures.cold, base.cold)})`,
          ms(typing[0]!),
          `${ms(typing[1]!)} (${ratio(typing[1]!, percentile(base.keystrokes, 0.95))})`,
          ms(typing[2]!),
          figures.host.length > 0 ? `${ms(median(figures.host))} / ${ms(Math.max(...figures.host))}` : 'all of it',
          mb(figures.heap),
          mb(figures.rss),
          ms(figures.update),
          figures.counts.join('/'),
        ]);
      }
      printTable(
        ['engine', 'build', 'cold 1st keystroke', 'key median', 'key p95', 'key max', 'host/key med/max', 'host heap +', 'RSS +', 'update one', 'hits'],
        rows,
      );
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
