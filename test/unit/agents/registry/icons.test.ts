import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ICON_MAX_AGE_MS, IconCache, MAX_ICON_BYTES, MAX_ICON_FETCHES, typeOf } from '../../../../src/agents/registry/icons';
import { Limiter } from '../../../../src/agents/registry/limiter';
import { startTestServer, type TestServer } from './testServer';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path fill="currentColor" d="M0 0h16v16H0z"/></svg>';
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR rest of a png')]);
const base64 = (data: string | Buffer) => Buffer.from(data).toString('base64');

describe('ACP Registry icons (IconCache)', () => {
  let server: TestServer;
  let dir: string;
  beforeEach(async () => {
    server = await startTestServer();
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'acp-icons-'));
  });
  afterEach(async () => {
    await server.close();
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  const serve = (route: string, type: string, body: string | Buffer) => server.route(route, (_q, r) => r.writeHead(200, { 'content-type': type }).end(body));

  it('hands out an SVG and a PNG as data: URIs', async () => {
    serve('/a.svg', 'image/svg+xml', SVG);
    serve('/b.png', 'image/png', PNG);
    const icons = new IconCache({ dir });
    assert.equal(await icons.dataUri(`${server.origin}/a.svg`), `data:image/svg+xml;base64,${base64(SVG)}`);
    assert.equal(await icons.dataUri(`${server.origin}/b.png`), `data:image/png;base64,${base64(PNG)}`);
  });

  it('recognizes an SVG served with a wrong type by its content, and refuses HTML, text and JSON', async () => {
    serve('/plain.svg', 'text/plain', `<?xml version="1.0"?>\n<!-- logo -->\n${SVG}`);
    serve('/page', 'text/html', '<!doctype html><html><body><svg></svg></body></html>');
    serve('/json', 'application/json', '{"svg": "<svg>"}');
    serve('/text', 'image/svg+xml', 'just text');
    const icons = new IconCache({ dir });
    assert.match((await icons.dataUri(`${server.origin}/plain.svg`))!, /^data:image\/svg\+xml;base64,/);
    assert.equal(await icons.dataUri(`${server.origin}/page`), undefined);
    assert.equal(await icons.dataUri(`${server.origin}/json`), undefined);
    assert.equal(await icons.dataUri(`${server.origin}/text`), undefined);
  });

  it('gives nothing for a missing, oversized or refused icon, and does not ask again this session', async () => {
    serve('/huge.svg', 'image/svg+xml', `<svg>${' '.repeat(MAX_ICON_BYTES)}</svg>`);
    const icons = new IconCache({ dir });
    assert.equal(await icons.dataUri(`${server.origin}/missing.svg`), undefined);
    assert.equal(await icons.dataUri(`${server.origin}/huge.svg`), undefined);
    assert.equal(await icons.dataUri('http://example.com/icon.svg'), undefined);
    assert.equal(await icons.dataUri('file:///etc/passwd'), undefined);
    const asked = server.requests.length;
    assert.equal(asked, 2);
    assert.equal(await icons.dataUri(`${server.origin}/missing.svg`), undefined);
    assert.equal(await icons.dataUri(`${server.origin}/huge.svg`), undefined);
    assert.equal(server.requests.length, asked);
  });

  it('keeps icons on disk: a new session shows them without the network', async () => {
    serve('/a.svg', 'image/svg+xml', SVG);
    const url = `${server.origin}/a.svg`;
    const first = await new IconCache({ dir }).dataUri(url);
    await server.close();
    const second = await new IconCache({ dir }).dataUri(url);
    assert.equal(second, first);
    assert.equal(server.requests.length, 1);
    server = await startTestServer();
  });

  it('fetches an icon older than a week again, and keeps the old one when that fails', async () => {
    serve('/a.svg', 'image/svg+xml', SVG);
    const url = `${server.origin}/a.svg`;
    const old = await new IconCache({ dir }).dataUri(url);
    const later = Date.now() + ICON_MAX_AGE_MS + 1000;
    const newer = SVG.replace('currentColor', 'none');
    serve('/a.svg', 'image/svg+xml', newer);
    assert.equal(await new IconCache({ dir, now: () => later }).dataUri(url), `data:image/svg+xml;base64,${base64(newer)}`);
    server.route('/a.svg', (_q, r) => r.writeHead(500).end());
    const stale = await new IconCache({ dir, now: () => later + ICON_MAX_AGE_MS * 2 }).dataUri(url);
    assert.equal(stale, `data:image/svg+xml;base64,${base64(newer)}`);
    assert.notEqual(stale, old);
  });

  it('ignores a damaged cache file', async () => {
    serve('/a.svg', 'image/svg+xml', SVG);
    const url = `${server.origin}/a.svg`;
    await new IconCache({ dir }).dataUri(url);
    const [file] = await fs.promises.readdir(dir);
    await fs.promises.writeFile(path.join(dir, file!), 'data:text/html;base64,PHNjcmlwdD4=');
    assert.equal(await new IconCache({ dir }).dataUri(url), `data:image/svg+xml;base64,${base64(SVG)}`);
    assert.equal(server.requests.length, 2);
  });

  it(`fetches at most ${MAX_ICON_FETCHES} icons at once`, async () => {
    let active = 0;
    let most = 0;
    const held: (() => void)[] = [];
    const fakeFetch = ((): Promise<Response> => {
      active++;
      most = Math.max(most, active);
      return new Promise<Response>((resolve) =>
        held.push(() => {
          active--;
          resolve(new Response(SVG, { status: 200, headers: { 'content-type': 'image/svg+xml' } }));
        }),
      );
    }) as typeof fetch;
    const icons = new IconCache({ dir, fetch: fakeFetch });
    const all = Array.from({ length: 10 }, (_, i) => icons.dataUri(`https://icons.example/${i}.svg`));
    // Every call has looked at the disk and asked for a fetch: running or queued, none answered yet.
    const allAsked = () => icons.fetchesInProgress.running + icons.fetchesInProgress.queued === 10;
    while (!allAsked()) await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(active, MAX_ICON_FETCHES);
    assert.deepEqual(icons.fetchesInProgress, { running: MAX_ICON_FETCHES, queued: 10 - MAX_ICON_FETCHES });
    let answered = 0;
    for (const answer of all) void answer.then(() => answered++);
    while (answered < 10) {
      if (held.length > 0) held.shift()!();
      else await new Promise<void>((resolve) => setImmediate(resolve));
      assert.ok(active <= MAX_ICON_FETCHES);
    }
    assert.equal((await Promise.all(all)).filter(Boolean).length, 10);
    assert.equal(most, MAX_ICON_FETCHES);
  });

  it('sniffs PNG by signature and SVG by its prolog', () => {
    assert.equal(typeOf(PNG), 'png');
    assert.equal(typeOf(Buffer.from(SVG)), 'svg');
    assert.equal(typeOf(Buffer.from(`\uFEFF<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x"><svg>`)), 'svg');
    assert.equal(typeOf(Buffer.from('<html><svg>')), undefined);
    assert.equal(typeOf(Buffer.from('<html><svg>'), 'image/svg+xml'), 'svg');
    assert.equal(typeOf(Buffer.from('GIF89a')), undefined);
    assert.equal(typeOf(Buffer.alloc(0)), undefined);
  });
});

describe('Limiter', () => {
  it('runs at most N tasks at once, the rest in order as slots free', async () => {
    const limiter = new Limiter(2);
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const startedEvent: (() => void)[] = [];
    const tasks = [0, 1, 2, 3].map((i) =>
      limiter.run(
        () =>
          new Promise<number>((resolve) => {
            started.push(i);
            startedEvent[i]?.();
            finish[i] = () => resolve(i);
          }),
      ),
    );
    const startOf = (i: number) => (started.includes(i) ? Promise.resolve() : new Promise<void>((resolve) => (startedEvent[i] = resolve)));
    await startOf(1);
    assert.deepEqual(started, [0, 1]);
    assert.equal(limiter.running, 2);
    finish[1]!();
    await startOf(2);
    assert.deepEqual(started, [0, 1, 2]);
    finish[0]!();
    await startOf(3);
    finish[2]!();
    finish[3]!();
    assert.deepEqual(await Promise.all(tasks), [0, 1, 2, 3]);
    assert.equal(limiter.running, 0);
  });

  it('frees the slot when a task fails', async () => {
    const limiter = new Limiter(1);
    await assert.rejects(
      limiter.run(() => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await limiter.run(() => Promise.resolve(7)), 7);
    assert.equal(limiter.running, 0);
  });
});
