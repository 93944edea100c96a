/**
 * Registry bench: what the ACP Registry costs the extension host, each against a baseline measured in the same
 * run, interleaved run by run (the order rotated), the cold first run reported apart, medians (and p95 where one
 * operation is timed many times):
 *
 * 1. Catalog: `JSON.parse` + `parseRegistry` (as `RegistrySource` reads a registry) of documents of 100, 1,000
 *    and 5,000 agents (the shipped snapshot's entries repeated, ids made unique) against a bare `JSON.parse` of
 *    the same text; and the first parse in the process (the snapshot, cold).
 * 2. Extraction: a tar.gz of many small files (10,000 × 1 KiB in 1,100 folders) and one of a few large files
 *    (3 × 64 MiB), built once: `extractArchive` (our checked extractor) against node-tar's `tar.x` and the
 *    system's `tar -xzf`; the same trees as zips (yazl) against yauzl streaming each entry to a file unchecked.
 * 3. Download: `download()` (fetch policy, SHA-256 while streaming, size cap, idle timer) of a 256 MiB body from
 *    a node:http server on 127.0.0.1 (a child process) against `fetch` piped into `fs.createWriteStream`, and the
 *    same pipeline hashing each chunk (what the checksum alone costs).
 * 4. Gallery state: the cost of one progress event of a running install at 150 and 1,000 catalog agents
 *    (`RegistryAgents.state()`, then `galleryView` + JSON as the panel posts it) against building the same array
 *    with a bare `map` (and the same `galleryView` + JSON).
 *
 *   node out/bench/registry.bench.js [--runs 3] [--parseRuns 10] [--smallFiles 10000] [--largeMiB 64]
 *     [--downloadMiB 256] [--events 2000] [--only parse,extract,download,state]
 *
 * The sizes can also be given in the environment (BENCH_RUNS, BENCH_SMALL_FILES, BENCH_LARGE_MIB,
 * BENCH_DOWNLOAD_MIB, BENCH_EVENTS) for larger runs; the defaults take about three minutes on 2 cores.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import * as tar from 'tar';
import * as yauzl from 'yauzl';
import * as yazl from 'yazl';
import { download } from '../src/agents/registry/install/download';
import { extractArchive, type ArchiveKind } from '../src/agents/registry/install/extract';
import { parseRegistry } from '../src/agents/registry/schema';
import type {
  AgentInstaller,
  Availability,
  InstalledAgent,
  InstallOptions,
  RegistryAgent,
  RegistryCatalog,
  RegistrySource,
} from '../src/agents/registry/types';
import { isNewer } from '../src/agents/registry/version';
import { Emitter } from '../src/common/events';
import { RegistryAgents } from '../src/sessions/agents/registryAgents';
import { galleryView } from '../src/sessions/agents/galleryView';
import { median, parseArgs, printTable } from './util';

const REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';
const SNAPSHOT = path.join(__dirname, '..', '..', 'resources', 'registry-snapshot.json');
const MiB = 2 ** 20;

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

function p95(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
}

const ms = (value: number) => value.toFixed(value < 1 ? 3 : value < 10 ? 2 : 1);
const ratio = (ours: number, base: number) => `${(ours / base).toFixed(2)}×`;

/** Runs `work` for each method in turn, `runs` + 1 times (run 0 is the cold one), the order rotated each run. */
async function interleaved(
  methods: readonly string[],
  runs: number,
  work: (method: string, run: number) => Promise<number>,
): Promise<Map<string, { cold: number; warm: number[] }>> {
  const results = new Map(methods.map((m) => [m, { cold: 0, warm: [] as number[] }]));
  for (let run = 0; run <= runs; run++) {
    for (let i = 0; i < methods.length; i++) {
      const method = methods[(i + run) % methods.length]!;
      const time = await work(method, run);
      const result = results.get(method)!;
      if (run === 0) result.cold = time;
      else result.warm.push(time);
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------- catalog

/** A registry document of `count` agents: the snapshot's entries over and over, each id made unique. */
function registryText(snapshot: { agents: Array<Record<string, unknown>> }, count: number): string {
  const agents: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const entry = snapshot.agents[i % snapshot.agents.length]!;
    agents.push({ ...entry, id: `${String(entry.id)}-${i}`, name: `${String(entry.name)} ${i}` });
  }
  return JSON.stringify({ version: '1.0.0', agents, extensions: [] });
}

function benchCatalog(parseRuns: number): void {
  // The first parse in the process, before anything else warmed zod or the schema up.
  const snapshotText = fs.readFileSync(SNAPSHOT, 'utf8');
  let started = performance.now();
  const snapshotJson = JSON.parse(snapshotText) as { agents: Array<Record<string, unknown>> };
  const coldJson = performance.now() - started;
  started = performance.now();
  const cold = parseRegistry(snapshotJson, REGISTRY_URL);
  const coldParse = performance.now() - started;
  const snapshotAgents = cold.agents.length;
  if (cold.problems.length > 0) throw new Error(`the snapshot has problems: ${cold.problems.join('; ')}`);

  const rows: string[][] = [];
  rows.push([
    `snapshot (${snapshotAgents} agents, ${(snapshotText.length / 1024).toFixed(0)} KiB), cold first`,
    ms(coldJson),
    ms(coldJson + coldParse),
    '',
    '',
    ratio(coldJson + coldParse, coldJson),
  ]);
  for (const count of [snapshotAgents, 100, 1_000, 5_000]) {
    const text = count === snapshotAgents ? snapshotText : registryText(snapshotJson, count);
    const base: number[] = [];
    const ours: number[] = [];
    for (let run = 0; run <= parseRuns; run++) {
      const t0 = performance.now();
      const bare = JSON.parse(text) as { agents: unknown[] };
      const t1 = performance.now();
      const parsed = parseRegistry(JSON.parse(text), REGISTRY_URL);
      const t2 = performance.now();
      if (parsed.agents.length !== bare.agents.length || parsed.problems.length > 0)
        throw new Error(`${count} agents: ${parsed.agents.length} read, ${parsed.problems.length} problems`);
      if (run === 0) continue; // the first of each size apart: the cold one is the row above
      base.push(t1 - t0);
      ours.push(t2 - t1);
    }
    const b = median(base);
    const o = median(ours);
    rows.push([
      `${count.toLocaleString('en')} agents, ${(text.length / MiB).toFixed(2)} MiB`,
      ms(b),
      ms(o),
      ms(p95(ours)),
      Math.round(count / (o / 1000)).toLocaleString('en'),
      ratio(o, b),
    ]);
  }
  console.log(`\n1. Catalog: JSON.parse + parseRegistry (ours) against a bare JSON.parse, ${parseRuns} runs each (median)\n`);
  printTable(['document', 'JSON.parse ms', 'ours ms', 'ours p95', 'agents/s', 'ours / JSON.parse'], rows);
}

// ------------------------------------------------------------------------------------------------- extraction

/** Bytes that compress about as well as a program does (about 2:1), never the same 32 KiB twice in a row. */
function binaryLike(size: number): Buffer {
  const buffer = randomBytes(size);
  for (let offset = 0; offset < size; offset += 4096) {
    // Half of each page structured (small integers, like code and tables), half random.
    for (let i = offset + 2048; i + 4 <= Math.min(offset + 4096, size); i += 4) buffer.writeUInt32LE((i >>> 6) & 0xff, i);
  }
  return buffer;
}

interface Tree {
  readonly name: string;
  readonly root: string;
  readonly files: number;
  readonly bytes: number;
}

function writeSmallTree(root: string, count: number): Tree {
  let files = 0;
  for (let a = 0; files < count; a++) {
    for (let b = 0; b < 10 && files < count; b++) {
      const dir = path.join(root, 'small', `pkg${a}`, `mod${b}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let c = 0; c < 10 && files < count; c++, files++)
        fs.writeFileSync(path.join(dir, `file${c}.js`), randomBytes(768).toString('base64').slice(0, 1024));
    }
  }
  return { name: `${count.toLocaleString('en')} × 1 KiB`, root: path.join(root, 'small'), files: count, bytes: count * 1024 };
}

function writeLargeTree(root: string, mib: number): Tree {
  const dir = path.join(root, 'large', 'bin');
  fs.mkdirSync(dir, { recursive: true });
  const block = binaryLike(4 * MiB);
  for (let f = 0; f < 3; f++) {
    const fd = fs.openSync(path.join(dir, `agent${f}`), 'w', 0o755);
    // A different start in the block for each file; 4 MiB apart is far beyond gzip's 32 KiB window.
    for (let written = 0; written < mib * MiB; written += MiB) fs.writeSync(fd, block, ((written / MiB + f) % 4) * MiB, MiB);
    fs.closeSync(fd);
  }
  return { name: `3 × ${mib} MiB`, root: path.join(root, 'large'), files: 3, bytes: 3 * mib * MiB };
}

function listFiles(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

async function makeZip(tree: Tree, file: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const name of listFiles(tree.root)) zip.addFile(path.join(tree.root, name), name.split(path.sep).join('/'), { compress: true });
  zip.end();
  await pipeline(zip.outputStream, fs.createWriteStream(file));
}

/** Checks that an extraction wrote the whole tree (count and bytes), so every method did the same work. */
function verify(tree: Tree, target: string, method: string): void {
  const files = listFiles(target);
  const bytes = files.reduce((sum, name) => sum + fs.statSync(path.join(target, name)).size, 0);
  if (files.length !== tree.files || bytes !== tree.bytes)
    throw new Error(`${method} wrote ${files.length} files, ${bytes} bytes; expected ${tree.files}, ${tree.bytes}`);
}

function systemTar(file: string, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('tar', ['-xzf', file, '-C', target], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar -xzf exited with ${code}`))));
  });
}

function hasSystemTar(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('tar', ['--version'], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

/** The plain way with yauzl: every entry streamed to its file, folders made as named, nothing checked. */
async function yauzlUnchecked(file: string, target: string): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  const made = new Set<string>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      const destination = path.join(target, entry.fileName);
      if (entry.fileName.endsWith('/')) {
        fs.mkdirSync(destination, { recursive: true });
        zip.readEntry();
        return;
      }
      const parent = path.dirname(destination);
      if (!made.has(parent)) {
        fs.mkdirSync(parent, { recursive: true });
        made.add(parent);
      }
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        pipeline(stream, fs.createWriteStream(destination)).then(() => zip.readEntry(), reject);
      });
    });
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.readEntry();
  });
  zip.close();
}

async function benchExtraction(dir: string, runs: number, smallFiles: number, largeMiB: number): Promise<void> {
  console.log(`\nBuilding the archives (${smallFiles.toLocaleString('en')} × 1 KiB, 3 × ${largeMiB} MiB)…`);
  const sources = path.join(dir, 'sources');
  const trees = [writeSmallTree(sources, smallFiles), writeLargeTree(sources, largeMiB)];
  const archives: Array<{ tree: Tree; kind: ArchiveKind; file: string }> = [];
  for (const tree of trees) {
    const base = path.join(dir, path.basename(tree.root));
    await tar.c({ gzip: true, file: `${base}.tar.gz`, cwd: tree.root, portable: true }, fs.readdirSync(tree.root));
    await makeZip(tree, `${base}.zip`);
    archives.push({ tree, kind: 'tar.gz', file: `${base}.tar.gz` }, { tree, kind: 'zip', file: `${base}.zip` });
  }
  const withSystemTar = await hasSystemTar();
  const rows: string[][] = [];
  let counter = 0;
  for (const { tree, kind, file } of archives) {
    const methods =
      kind === 'tar.gz'
        ? ['extractArchive (ours)', 'node-tar tar.x', ...(withSystemTar ? ['system tar -xzf'] : [])]
        : ['extractArchive (ours)', 'yauzl unchecked'];
    const results = await interleaved(methods, runs, async (method, run) => {
      const target = path.join(dir, `out-${counter++}`);
      const started = performance.now();
      switch (method) {
        case 'extractArchive (ours)':
          await extractArchive(file, kind, target);
          break;
        case 'node-tar tar.x':
          fs.mkdirSync(target);
          await tar.x({ file, cwd: target });
          break;
        case 'system tar -xzf':
          fs.mkdirSync(target);
          await systemTar(file, target);
          break;
        case 'yauzl unchecked':
          fs.mkdirSync(target);
          await yauzlUnchecked(file, target);
          break;
      }
      const time = performance.now() - started;
      if (run === 0) verify(tree, target, method);
      fs.rmSync(target, { recursive: true, force: true });
      return time;
    });
    const base = median(results.get(methods[1]!)!.warm);
    for (const method of methods) {
      const { cold, warm } = results.get(method)!;
      const m = median(warm);
      rows.push([
        `${kind} ${tree.name} (${(fs.statSync(file).size / MiB).toFixed(0)} MiB): ${method}`,
        ms(cold),
        ms(m),
        (tree.bytes / MiB / (m / 1000)).toFixed(0),
        Math.round(tree.files / (m / 1000)).toLocaleString('en'),
        ratio(m, base),
      ]);
    }
  }
  console.log(`\n2. Extraction: ${runs} runs after a cold one, interleaved (median); MB/s of unpacked bytes; ratio against the second method\n`);
  printTable(['archive: method', 'cold ms', 'median ms', 'MiB/s', 'files/s', 'ratio'], rows);
}

// --------------------------------------------------------------------------------------------------- download

/** The body the server sends: this 1 MiB, again and again (deterministic, so both sides know its hash). */
function bodyChunk(): Buffer {
  const chunk = Buffer.alloc(MiB);
  for (let i = 0; i < MiB; i += 4) chunk.writeUInt32LE(Math.imul(i, 2654435761) >>> 0, i);
  return chunk;
}

/** The child process: serves `mib` MiB at any path, then reports its port to the parent. */
function serve(mib: number): void {
  const chunk = bodyChunk();
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(mib * MiB) });
    let sent = 0;
    const more = () => {
      while (sent < mib) {
        sent++;
        if (sent === mib) return void response.end(chunk);
        if (!response.write(chunk)) return void response.once('drain', more);
      }
    };
    more();
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
  process.on('disconnect', () => process.exit(0));
}

async function startServer(mib: number): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(__filename, ['--serve', String(mib)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/agent.tar.gz` };
}

async function benchDownload(dir: string, runs: number, mib: number): Promise<void> {
  const chunk = bodyChunk();
  const hash = createHash('sha256');
  for (let i = 0; i < mib; i++) hash.update(chunk);
  const sha256 = hash.digest('hex');
  const { child, url } = await startServer(mib);
  let counter = 0;
  try {
    const methods = ['download() (ours)', 'fetch → createWriteStream', 'fetch → SHA-256 + createWriteStream'];
    const results = await interleaved(methods, runs, async (method) => {
      const file = path.join(dir, `download-${counter++}`);
      const started = performance.now();
      if (method === methods[0]) {
        const done = await download(url, file, { sha256 });
        if (done.bytes !== mib * MiB) throw new Error(`download() got ${done.bytes} bytes`);
      } else {
        const response = await fetch(url);
        if (!response.ok || !response.body) throw new Error(`fetch: ${response.status}`);
        const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
        if (method === methods[1]) await pipeline(body, fs.createWriteStream(file));
        else {
          // The same pipeline hashing each chunk on its way: what the checksum alone costs.
          const hashing = createHash('sha256');
          await pipeline(
            body,
            async function* (chunks: AsyncIterable<Buffer>) {
              for await (const chunk of chunks) {
                hashing.update(chunk);
                yield chunk;
              }
            },
            fs.createWriteStream(file),
          );
          if (hashing.digest('hex') !== sha256) throw new Error('the hashing baseline got other bytes');
        }
      }
      const time = performance.now() - started;
      if (fs.statSync(file).size !== mib * MiB) throw new Error(`${method} wrote ${fs.statSync(file).size} bytes`);
      fs.rmSync(file);
      return time;
    });
    const base = median(results.get(methods[1]!)!.warm);
    const rows = methods.map((method) => {
      const { cold, warm } = results.get(method)!;
      const m = median(warm);
      return [method, ms(cold), ms(m), (mib / (m / 1000)).toFixed(0), ratio(m, base)];
    });
    console.log(`\n3. Download: ${mib} MiB from 127.0.0.1 (a child process serving it), ${runs} runs after a cold one, interleaved (median)\n`);
    printTable(['method', 'cold ms', 'median ms', 'MiB/s', 'ratio'], rows);
  } finally {
    child.kill();
  }
}

// ----------------------------------------------------------------------------------------------- gallery state

class BenchSource implements RegistrySource {
  private readonly emitter = new Emitter<RegistryCatalog>();
  readonly onDidChange = this.emitter.event;
  constructor(private readonly catalog: RegistryCatalog) {}
  current(): RegistryCatalog {
    return this.catalog;
  }
  refresh(): Promise<RegistryCatalog> {
    return Promise.resolve(this.catalog);
  }
}

/** Like the real installer where the cost lies: installed agents in a list searched by id; one install held running. */
class BenchInstaller implements AgentInstaller {
  private readonly emitter = new Emitter<void>();
  readonly onDidChange = this.emitter.event;
  progress: InstallOptions['onProgress'];
  constructor(private readonly list: InstalledAgent[]) {}
  installed(): readonly InstalledAgent[] {
    return this.list;
  }
  find(id: string): InstalledAgent | undefined {
    return this.list.find((agent) => agent.id === id);
  }
  availability(agent: RegistryAgent): Promise<readonly Availability[]> {
    return Promise.resolve([
      { kind: 'npx', available: agent.distribution.npx !== undefined },
      { kind: 'binary', available: agent.distribution.binary !== undefined },
    ]);
  }
  install(_agent: RegistryAgent, options: InstallOptions = {}): Promise<InstalledAgent> {
    this.progress = options.onProgress;
    return new Promise((_resolve, reject) => options.signal?.addEventListener('abort', () => reject(new Error('cancelled'))));
  }
  uninstall(): Promise<void> {
    return Promise.resolve();
  }
}

async function benchState(snapshotJson: { agents: Array<Record<string, unknown>> }, events: number): Promise<void> {
  const rows: string[][] = [];
  for (const count of [150, 1_000]) {
    const { agents } = parseRegistry(JSON.parse(registryText(snapshotJson, count)), REGISTRY_URL);
    // Ten agents installed (five of them with an update listed), one being installed.
    const installed: InstalledAgent[] = agents.slice(0, 10).map((agent, i) => ({
      id: agent.id,
      name: agent.name,
      version: i < 5 ? '0.0.1' : agent.version,
      description: agent.description,
      distribution: 'npx',
      command: 'npx',
      args: [],
      env: {},
      installedAt: 1,
      registryUrl: REGISTRY_URL,
    }));
    const installer = new BenchInstaller(installed);
    const service = new RegistryAgents({
      source: new BenchSource({ url: REGISTRY_URL, agents, problems: [], source: 'network', fetchedAt: Date.now() }),
      registryUrl: () => REGISTRY_URL,
      installer,
      icons: { dataUri: () => Promise.resolve(undefined) },
      isTrusted: () => true,
      builtIns: new Map(agents.slice(0, 5).map((agent) => [agent.id, agent.name])),
      isNewer,
    });
    try {
      let started = performance.now();
      const first = service.state();
      const cold = performance.now() - started;
      // What works here is asked once per entry; the answers arrive on the next turns.
      await new Promise((resolve) => setTimeout(resolve, 10));
      const running = agents[agents.length >> 1]!;
      void service.install(running.id);
      await new Promise((resolve) => setImmediate(resolve));
      const report = installer.progress;
      if (!report) throw new Error('the install did not start');
      const availability: readonly Availability[] = [{ kind: 'npx', available: true }];
      const catalogState = first.catalog;
      const ours: number[] = [];
      const oursPosted: number[] = [];
      const bare: number[] = [];
      const barePosted: number[] = [];
      let length = 0;
      for (let i = 0; i < events; i++) {
        const progress = { message: `Downloading ${running.name} (${i} of ${events} MB)`, fraction: i / events };
        // The bare way: the catalog mapped to the same shape, the one running agent's progress on it.
        started = performance.now();
        const plain = agents.map((agent) => ({ agent, availability, ...(agent === running ? { busy: { action: 'install' as const, progress } } : {}) }));
        let t1 = performance.now();
        length += JSON.stringify(galleryView({ catalog: catalogState, agents: plain, trusted: true, refreshing: false })).length;
        bare.push(t1 - started);
        barePosted.push(performance.now() - started);
        // Ours: the progress event, then the state as the panel asks for it and posts it.
        started = performance.now();
        report(progress);
        const state = service.state();
        t1 = performance.now();
        length += JSON.stringify(galleryView(state)).length;
        ours.push(t1 - started);
        oursPosted.push(performance.now() - started);
        if (i === 0 && (state.agents.length !== agents.length || state.agents.filter((a) => a.availability.length > 0).length !== agents.length)) {
          throw new Error(`state() has ${state.agents.length} agents, not all with what works here`);
        }
      }
      if (first.agents.length !== agents.length || length === 0) throw new Error('no state');
      const row = (what: string, list: number[], coldMs: string, base: number[]) => [
        `${count.toLocaleString('en')} agents: ${what}`,
        coldMs,
        ms(median(list)),
        ms(p95(list)),
        ratio(median(list), median(base)),
      ];
      rows.push(row('bare map (baseline)', bare, '', bare));
      rows.push(row('RegistryAgents.state() (ours)', ours, ms(cold), bare));
      rows.push(row('bare map + galleryView + JSON (baseline)', barePosted, '', barePosted));
      rows.push(row('state() + galleryView + JSON (ours)', oursPosted, '', barePosted));
    } finally {
      service.dispose();
    }
  }
  console.log(`\n4. Gallery state: one progress event of a running install, ${events.toLocaleString('en')} events (median, p95)\n`);
  printTable(['catalog: what', 'cold first ms', 'median ms', 'p95 ms', 'ratio'], rows);
}

// ------------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const args = parseArgs({
    runs: envNumber('BENCH_RUNS', 3),
    parseRuns: envNumber('BENCH_PARSE_RUNS', 10),
    smallFiles: envNumber('BENCH_SMALL_FILES', 10_000),
    largeMiB: envNumber('BENCH_LARGE_MIB', 64),
    downloadMiB: envNumber('BENCH_DOWNLOAD_MIB', 256),
    events: envNumber('BENCH_EVENTS', 2_000),
  });
  const onlyAt = process.argv.indexOf('--only');
  const only = new Set(onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? '').split(',') : ['parse', 'extract', 'download', 'state']);
  console.log(`Registry bench (Node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)})`);
  const started = performance.now();
  // First, so that its cold row is the first parse in the process.
  if (only.has('parse')) benchCatalog(args.parseRuns);
  const dir = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-registry-bench-')));
  try {
    if (only.has('extract')) await benchExtraction(dir, args.runs, args.smallFiles, args.largeMiB);
    if (only.has('download')) await benchDownload(dir, args.runs, args.downloadMiB);
    if (only.has('state')) await benchState(JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')) as { agents: Array<Record<string, unknown>> }, args.events);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nTotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

if (process.argv[2] === '--serve') serve(Number(process.argv[3]));
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
