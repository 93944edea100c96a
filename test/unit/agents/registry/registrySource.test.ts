import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CACHE_FILE, HttpRegistrySource, MAX_REGISTRY_BYTES, snapshotFromFile } from '../../../../src/agents/registry/registrySource';
import type { RegistryCatalog } from '../../../../src/agents/registry/types';
import { claudeAcp, codexAcp, gemini, goose, registryDocument } from './fixtures';
import { startTestServer, type TestServer } from './testServer';

const SNAPSHOT = registryDocument([claudeAcp, codexAcp]);
const ids = (catalog: RegistryCatalog) => catalog.agents.map((a) => a.id);

describe('ACP Registry catalog (HttpRegistrySource)', () => {
  let server: TestServer;
  let cacheDir: string;
  let url: string;
  let clock: number;
  const sources: HttpRegistrySource[] = [];

  function source(options: { snapshot?: unknown; timeoutMs?: number } = {}): HttpRegistrySource {
    const made = new HttpRegistrySource({
      url: () => url,
      cacheDir,
      snapshot: () => options.snapshot ?? SNAPSHOT,
      now: () => clock,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
    sources.push(made);
    return made;
  }

  /** Serves `document` with an ETag; answers 304 to a request that names it. */
  function serveWithEtag(document: unknown, etag = '"v1"'): void {
    server.route('/registry.json', (request, response) => {
      if (request.headers['if-none-match'] === etag) response.writeHead(304, { etag }).end();
      else response.writeHead(200, { 'content-type': 'application/json', etag }).end(JSON.stringify(document));
    });
  }

  function readCache(): { url: string; etag?: string; lastModified?: string; fetchedAt: number; body: string } {
    return JSON.parse(fs.readFileSync(path.join(cacheDir, CACHE_FILE), 'utf8'));
  }

  beforeEach(async () => {
    server = await startTestServer();
    cacheDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'acp-registry-'));
    url = `${server.origin}/registry.json`;
    clock = 1_000;
  });
  afterEach(async () => {
    for (const made of sources.splice(0)) made.dispose();
    await server.close();
    await fs.promises.rm(cacheDir, { recursive: true, force: true });
  });

  it('starts from the snapshot when nothing is cached, without touching the network', async () => {
    const registry = source();
    const ready = await registry.ready();
    assert.equal(ready.source, 'snapshot');
    assert.deepEqual(ids(ready), ['claude-acp', 'codex-acp']);
    assert.equal(ready.url, url);
    assert.equal(ready.fetchedAt, undefined);
    assert.equal(registry.current(), ready);
    assert.equal(server.requests.length, 0);
  });

  it('fetches, caches the answer with its ETag, then revalidates with If-None-Match and takes the 304', async () => {
    serveWithEtag(registryDocument([gemini, goose]));
    const registry = source();
    await registry.ready();
    const fetched = await registry.refresh();
    assert.equal(fetched.source, 'network');
    assert.deepEqual(ids(fetched), ['gemini', 'goose']);
    assert.equal(fetched.fetchedAt, 1_000);
    assert.equal(fetched.error, undefined);
    assert.equal(server.requests[0]!.headers['if-none-match'], undefined);
    const cache = readCache();
    assert.equal(cache.url, url);
    assert.equal(cache.etag, '"v1"');
    assert.equal(cache.fetchedAt, 1_000);
    assert.deepEqual(JSON.parse(cache.body), registryDocument([gemini, goose]));

    clock = 2_000;
    const revalidated = await registry.refresh();
    assert.equal(server.requests[1]!.headers['if-none-match'], '"v1"');
    assert.equal(revalidated.source, 'network');
    assert.equal(revalidated.fetchedAt, 2_000);
    // Not parsed again: the very same agents.
    assert.equal(revalidated.agents, fetched.agents);
    assert.equal(readCache().fetchedAt, 2_000);
  });

  it('starts from the cache after a restart and revalidates it', async () => {
    serveWithEtag(registryDocument([gemini]));
    const first = source();
    await first.ready();
    await first.refresh();

    const second = source();
    const ready = await second.ready();
    assert.equal(ready.source, 'cache');
    assert.deepEqual(ids(ready), ['gemini']);
    assert.equal(ready.fetchedAt, 1_000);
    const changes: RegistryCatalog[] = [];
    second.onDidChange((c) => changes.push(c));
    const revalidated = await second.refresh();
    assert.equal(server.requests.at(-1)!.headers['if-none-match'], '"v1"');
    assert.equal(revalidated.source, 'network');
    assert.deepEqual(ids(revalidated), ['gemini']);
    assert.deepEqual(
      changes.map((c) => c.source),
      ['network'],
    );
  });

  it('uses Last-Modified when there is no ETag', async () => {
    const stamp = 'Wed, 21 Oct 2026 07:28:00 GMT';
    server.route('/registry.json', (request, response) => {
      if (request.headers['if-modified-since'] === stamp) response.writeHead(304).end();
      else response.writeHead(200, { 'last-modified': stamp }).end(JSON.stringify(registryDocument([codexAcp])));
    });
    const registry = source();
    await registry.refresh();
    assert.equal(readCache().lastModified, stamp);
    assert.equal(readCache().etag, undefined);
    const again = await registry.refresh();
    assert.equal(server.requests[1]!.headers['if-modified-since'], stamp);
    assert.equal(server.requests[1]!.headers['if-none-match'], undefined);
    assert.deepEqual(ids(again), ['codex-acp']);
    assert.equal(again.error, undefined);
  });

  it('takes a new document when the ETag changed, and says so', async () => {
    serveWithEtag(registryDocument([gemini]), '"v1"');
    const registry = source();
    await registry.refresh();
    serveWithEtag(registryDocument([gemini, codexAcp]), '"v2"');
    const changes: RegistryCatalog[] = [];
    registry.onDidChange((c) => changes.push(c));
    const updated = await registry.refresh();
    assert.deepEqual(ids(updated), ['gemini', 'codex-acp']);
    assert.equal(readCache().etag, '"v2"');
    assert.equal(changes.length, 1);
  });

  it('keeps skipped entries as problems and the rest as agents', async () => {
    serveWithEtag(registryDocument([gemini, { ...codexAcp, id: 'Bad Id' }]));
    const catalog = await source().refresh();
    assert.deepEqual(ids(catalog), ['gemini']);
    assert.equal(catalog.problems.length, 1);
    assert.match(catalog.problems[0]!, /^agents\[1\] \("Bad Id"\) was skipped: id: /);
  });

  describe('keeps the previous catalog, with the reason, when the registry', () => {
    async function failsWith(setup: () => void, reason: RegExp, options: { timeoutMs?: number } = {}): Promise<void> {
      serveWithEtag(registryDocument([gemini]));
      const registry = source(options);
      const good = await registry.refresh();
      setup();
      const changes: RegistryCatalog[] = [];
      registry.onDidChange((c) => changes.push(c));
      const failed = await registry.refresh();
      assert.match(failed.error ?? '(no error)', reason);
      assert.equal(failed.agents, good.agents);
      assert.equal(failed.source, 'network');
      assert.equal(failed.fetchedAt, good.fetchedAt);
      assert.equal(registry.current(), failed);
      assert.deepEqual(changes, [failed]);
      // The cache still holds the last good answer.
      assert.deepEqual(JSON.parse(readCache().body), registryDocument([gemini]));
    }

    it('answers 500', () =>
      failsWith(() => server.route('/registry.json', (_q, r) => r.writeHead(500).end('oops')), /answered 500: a server error; try again later/));
    it('answers 404', () => failsWith(() => server.route('/registry.json', (_q, r) => r.writeHead(404).end()), /was not found \(404\)/));
    it('sends what is not JSON', () => failsWith(() => server.route('/registry.json', (_q, r) => r.writeHead(200).end('<html>')), /did not send JSON/));
    it('sends JSON that is not a registry', () =>
      failsWith(() => server.route('/registry.json', (_q, r) => r.writeHead(200).end('{"items": []}')), /is not an ACP registry: it has no "agents" list/));
    it('sends more than 16 MiB', () =>
      failsWith(
        () => server.route('/registry.json', (_q, r) => r.writeHead(200).end(Buffer.alloc(MAX_REGISTRY_BYTES + 1, 0x20))),
        /sent more than 16 MiB; stopped reading there/,
      ));
    it('redirects to plain HTTP off this machine', () =>
      failsWith(
        () => server.route('/registry.json', (_q, r) => r.writeHead(302, { location: 'http://registry.example/registry.json' }).end()),
        /uses plain HTTP/,
      ));
    it('redirects too many times', () =>
      failsWith(() => server.route('/registry.json', (_q, r) => r.writeHead(302, { location: '/registry.json' }).end()), /redirected more than 5 times/));
    it('does not answer in time', () => failsWith(() => server.route('/registry.json', () => undefined), /did not answer within/, { timeoutMs: 300 }));
    it('drops the connection', () =>
      failsWith(() => server.route('/registry.json', (request) => request.socket.destroy()), /^Could not fetch http:\/\/127\.0\.0\.1:\d+\/registry\.json: /));
  });

  it('offline at the first start: the snapshot, with the reason', async () => {
    const closed = await startTestServer();
    url = `${closed.origin}/registry.json`;
    await closed.close();
    const registry = source();
    const catalog = await registry.refresh();
    assert.equal(catalog.source, 'snapshot');
    assert.deepEqual(ids(catalog), ['claude-acp', 'codex-acp']);
    assert.match(catalog.error!, /ECONNREFUSED/);
  });

  it("does not use another registry's cache when the URL changes: the snapshot until the new one answers", async () => {
    serveWithEtag(registryDocument([gemini]));
    const registry = source();
    await registry.refresh();
    server.route('/other.json', (_q, r) => r.writeHead(503).end());
    url = `${server.origin}/other.json`;
    const other = await registry.refresh();
    assert.equal(other.url, url);
    assert.equal(other.source, 'snapshot');
    assert.deepEqual(ids(other), ['claude-acp', 'codex-acp']);
    assert.match(other.error!, /answered 503/);
    assert.equal(server.requests.at(-1)!.headers['if-none-match'], undefined);

    // And after a restart with the other URL, the cache (of the first) is not used either.
    const restarted = source();
    const ready = await restarted.ready();
    assert.equal(ready.source, 'snapshot');
    assert.equal(ready.url, url);
  });

  it('stops when the caller aborts, and keeps what it had', async () => {
    serveWithEtag(registryDocument([gemini]));
    const registry = source();
    const good = await registry.refresh();
    const controller = new AbortController();
    server.route('/registry.json', (_q, response) => {
      response.writeHead(200);
      response.write('{"agents": [', () => controller.abort());
    });
    const aborted = await registry.refresh(controller.signal);
    assert.match(aborted.error!, /was cancelled/);
    assert.equal(aborted.agents, good.agents);
  });

  it('shares one request between concurrent refreshes', async () => {
    serveWithEtag(registryDocument([gemini]));
    const registry = source();
    const [a, b] = await Promise.all([registry.refresh(), registry.refresh()]);
    assert.equal(a, b);
    assert.equal(server.requests.length, 1);
  });

  it('ignores a damaged cache file and starts from the snapshot', async () => {
    await fs.promises.writeFile(path.join(cacheDir, CACHE_FILE), '{"format": 1, "url": ');
    const ready = await source().ready();
    assert.equal(ready.source, 'snapshot');
    await fs.promises.writeFile(path.join(cacheDir, CACHE_FILE), JSON.stringify({ format: 1, url, fetchedAt: 5, body: 'not json' }));
    assert.equal((await source().ready()).source, 'snapshot');
  });

  it('reports a snapshot that cannot be read, with no agents, rather than failing', async () => {
    const ready = await source({ snapshot: { nothing: true } }).ready();
    assert.deepEqual(ready.agents, []);
    assert.match(ready.error!, /no "agents" list/);
  });

  it('reads the shipped snapshot file once, when first needed', async () => {
    const file = path.join(cacheDir, 'snapshot.json');
    await fs.promises.writeFile(file, JSON.stringify(SNAPSHOT));
    const read = snapshotFromFile(file);
    const first = await read();
    await fs.promises.rm(file);
    assert.equal(await read(), first);
    assert.deepEqual(first, SNAPSHOT);
  });
});
