import * as assert from 'node:assert/strict';
import { fetchBounded, fetchFollowingRedirects, MAX_REDIRECTS } from '../../../../src/agents/registry/httpGet';
import { startTestServer, type TestServer } from './testServer';

describe('registry fetches (fetchBounded)', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('reads a body with its status, headers and final URL, sending the given headers', async () => {
    server.route('/a.json', (request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' }).end(JSON.stringify({ seen: request.headers['if-none-match'] ?? null }));
    });
    const answer = await fetchBounded(`${server.origin}/a.json`, { maxBytes: 1024, headers: { 'If-None-Match': '"v0"' } });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('etag'), '"v1"');
    assert.equal(answer.url, `${server.origin}/a.json`);
    assert.deepEqual(JSON.parse(answer.body.toString('utf8')), { seen: '"v0"' });
  });

  it('returns a non-2xx answer for the caller to judge', async () => {
    server.route('/gone', (_request, response) => response.writeHead(304).end());
    const answer = await fetchBounded(`${server.origin}/gone`, { maxBytes: 10 });
    assert.equal(answer.status, 304);
    assert.equal(answer.body.length, 0);
  });

  it('follows relative and absolute redirects on loopback, each through the URL policy', async () => {
    server.route('/one', (_request, response) => response.writeHead(302, { location: '/two' }).end());
    server.route('/two', (_request, response) => response.writeHead(301, { location: `${server.origin}/three` }).end());
    server.route('/three', (_request, response) => response.writeHead(200).end('here'));
    const answer = await fetchBounded(`${server.origin}/one`, { maxBytes: 10 });
    assert.equal(answer.body.toString(), 'here');
    assert.equal(answer.url, `${server.origin}/three`);
  });

  it('refuses a redirect to plain HTTP off this machine without fetching it', async () => {
    server.route('/out', (_request, response) => response.writeHead(302, { location: 'http://example.com/registry.json' }).end());
    await assert.rejects(fetchBounded(`${server.origin}/out`, { maxBytes: 10 }), /example\.com.*plain HTTP/);
  });

  it('refuses a redirect to a file: URL', async () => {
    server.route('/file', (_request, response) => response.writeHead(307, { location: 'file:///etc/passwd' }).end());
    await assert.rejects(fetchBounded(`${server.origin}/file`, { maxBytes: 10 }), /not an HTTPS address/);
  });

  it(`stops after ${MAX_REDIRECTS} redirects`, async () => {
    server.route('/loop', (_request, response) => response.writeHead(302, { location: '/loop' }).end());
    await assert.rejects(fetchBounded(`${server.origin}/loop`, { maxBytes: 10 }), /redirected more than 5 times/);
    assert.equal(server.requests.length, MAX_REDIRECTS + 1);
  });

  it('fails on a redirect without a Location', async () => {
    server.route('/nowhere', (_request, response) => response.writeHead(302).end());
    await assert.rejects(fetchBounded(`${server.origin}/nowhere`, { maxBytes: 10 }), /no address to go to/);
  });

  it('refuses a body announced larger than the bound', async () => {
    server.route('/big', (_request, response) => response.writeHead(200, { 'content-length': '2048' }).end(Buffer.alloc(2048)));
    await assert.rejects(fetchBounded(`${server.origin}/big`, { maxBytes: 1024 }), /sent more than 1 KiB/);
  });

  it('stops reading a chunked body once it passes the bound, without waiting for the rest', async () => {
    server.route('/endless', (_request, response) => {
      response.writeHead(200);
      // The rest never comes: only a reader that stops at the bound finishes (the time limit would say otherwise).
      response.write(Buffer.alloc(4096));
    });
    await assert.rejects(fetchBounded(`${server.origin}/endless`, { maxBytes: 1024 }), /sent more than 1 KiB/);
  });

  it('says so when nothing listens', async () => {
    const origin = server.origin;
    await server.close();
    await assert.rejects(fetchBounded(`${origin}/x`, { maxBytes: 10 }), (error: Error) => {
      assert.match(error.message, /^Could not fetch http:\/\/127\.0\.0\.1:\d+\/x: .*ECONNREFUSED/);
      return true;
    });
    server = await startTestServer();
  });

  it('says in words that the host name was not found, not "getaddrinfo ENOTFOUND" (the offline registry banner quotes it)', async () => {
    // What Node's fetch throws offline: "fetch failed", the resolver's error in its cause.
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND cdn.agentclientprotocol.com'), {
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
      hostname: 'cdn.agentclientprotocol.com',
    });
    const offline = (): Promise<Response> => Promise.reject(new TypeError('fetch failed', { cause: lookup }));
    await assert.rejects(
      fetchBounded('https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json', { maxBytes: 10, fetch: offline }),
      (error: Error) => {
        assert.equal(
          error.message,
          'Could not fetch https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json: the host name was not found (ENOTFOUND)',
        );
        return true;
      },
    );
  });

  it('gives up after the time limit', async () => {
    server.route('/silent', () => undefined);
    await assert.rejects(fetchBounded(`${server.origin}/silent`, { maxBytes: 10, timeoutMs: 200 }), /did not answer within 0\.2 seconds/);
  });

  it('stops when the caller aborts, mid-body too', async () => {
    const controller = new AbortController();
    server.route('/slow', (_request, response) => {
      response.writeHead(200);
      response.write('part', () => controller.abort());
    });
    await assert.rejects(fetchBounded(`${server.origin}/slow`, { maxBytes: 1024, signal: controller.signal }), (error: Error) => {
      assert.equal(error.name, 'AbortError');
      assert.match(error.message, /was cancelled/);
      return true;
    });
  });

  it('refuses a URL the policy refuses before any request', async () => {
    await assert.rejects(fetchFollowingRedirects('http://example.com/registry.json'), /plain HTTP/);
    await assert.rejects(fetchFollowingRedirects('not a url'), /not a valid URL/);
  });
});
