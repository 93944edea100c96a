import * as assert from 'node:assert/strict';
import { RemoteHttpError, SandboxAgentServer, isAuthError } from '../../../src/remote/sandboxAgentServer';
import { elsewhere, redirecting } from '../acp/transport/redirectHarness';
import { FakeSandboxAgentServer } from './fakeSandboxAgentServer';

/** Entries as 0.4.2 sends them, plus the ones a tolerant reader must skip or clean. */
const AGENTS = {
  agents: [
    { id: 'claude', installed: false, credentialsAvailable: false, capabilities: { permissions: true, images: false, mystery: 'x' }, extra: { nested: true } },
    { id: 'opencode', installed: true, credentialsAvailable: true, version: '1.18.34', capabilities: { sessionLifecycle: true } },
    { id: 'opencode', installed: false, credentialsAvailable: false, capabilities: {} },
    { id: '../evil', installed: true, credentialsAvailable: true, capabilities: {} },
    { installed: true },
    'not an object',
    { id: 'mock', installed: 'yes', credentialsAvailable: true, version: 42, capabilities: 'all' },
  ],
};

describe("SandboxAgentServer: health, agents and install over the server's HTTP API", () => {
  let fake: FakeSandboxAgentServer | undefined;
  afterEach(async () => {
    await fake?.stop();
    fake = undefined;
  });

  const client = (token?: string, options: { baseUrl?: string; allowInsecure?: boolean; fetch?: typeof fetch; timeoutMs?: number } = {}) =>
    new SandboxAgentServer({
      baseUrl: options.baseUrl ?? fake!.url,
      credentials: token ? { token } : {},
      allowInsecure: options.allowInsecure ?? false,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
    });

  it('checks health and reads the agent list, skipping bad entries and ignoring unknown fields', async () => {
    fake = await FakeSandboxAgentServer.start({ token: 'T', agents: AGENTS });
    await client('T').health();
    assert.deepEqual(await client('T').agents(), [
      { id: 'claude', installed: false, credentialsAvailable: false, capabilities: { permissions: true, images: false } },
      { id: 'opencode', installed: true, credentialsAvailable: true, version: '1.18.34', capabilities: { sessionLifecycle: true } },
      { id: 'mock', installed: false, credentialsAvailable: true, capabilities: {} },
    ]);
    assert.ok(fake.requests.every((r) => r.authorization === 'Bearer T'));
  });

  it("a missing or wrong token is an auth error in the server's words, naming no secret", async () => {
    fake = await FakeSandboxAgentServer.start({ token: 'T' });
    for (const token of [undefined, 'wrong-secret']) {
      const error = await client(token)
        .agents()
        .then(
          () => assert.fail('expected a refusal'),
          (e: unknown) => e,
        );
      assert.ok(error instanceof RemoteHttpError);
      assert.equal(isAuthError(error), true);
      assert.match(
        error.message,
        /The Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+ refused the credentials for the agent list \(HTTP 401: Token Invalid: token invalid\)/,
      );
      assert.doesNotMatch(error.message, /wrong-secret/);
    }
  });

  it('installs with a JSON body, and says why an install failed', async () => {
    fake = await FakeSandboxAgentServer.start();
    await client().install('mock');
    await assert.rejects(client().install('codex'), /answered HTTP 502 for installing codex: Install Failed: cannot download codex/);
    assert.deepEqual(
      fake.requests.map((r) => `${r.method} ${r.path}`),
      ['POST /v1/agents/mock/install', 'POST /v1/agents/codex/install'],
    );
  });

  it('refuses plain HTTP to another machine and credentials in the URL before any request', async () => {
    let called = 0;
    const counting = (async () => {
      called++;
      return new Response('{}');
    }) as typeof fetch;
    await assert.rejects(client(undefined, { baseUrl: 'http://box.example:2468', fetch: counting }).health(), /is not encrypted/);
    await assert.rejects(client(undefined, { baseUrl: 'https://u:p@box.example', fetch: counting }).health(), /carries a user name or password/);
    await assert.rejects(client(undefined, { baseUrl: 'not a url', fetch: counting }).health(), /is not a valid URL/);
    assert.equal(called, 0);
    await client(undefined, { baseUrl: 'http://box.example:2468', allowInsecure: true, fetch: async () => new Response('{"status":"ok"}') }).health();
  });

  it('refuses a redirect in words (where it pointed, not followed): the token and the body reach no other host', async () => {
    const other = await elsewhere();
    const server = await redirecting(
      other,
      307,
      () => true,
      (_request, response) => response.writeHead(500).end(),
    );
    try {
      const box = client('T', { baseUrl: server.origin });
      for (const call of [() => box.health(), () => box.install('opencode')]) {
        await assert.rejects(call(), (error: Error) => {
          assert.ok(error instanceof RemoteHttpError, error.message);
          assert.match(
            error.message,
            /^The Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+ answered .+ with a redirect \(HTTP 307\) to http:\/\/127\.0\.0\.1:\d+\/v1\/.+ ACP Workspace does not follow redirects/,
          );
          return true;
        });
      }
      assert.deepEqual(other.requests, []);
    } finally {
      await server.close();
      await other.close();
    }
  });

  it('says in words when the server is unreachable, slow, not JSON, too big or unhealthy', async () => {
    fake = await FakeSandboxAgentServer.start();
    const url = fake.url;
    await fake.stop();
    fake = undefined;
    await assert.rejects(
      client(undefined, { baseUrl: url }).health(),
      /Cannot reach the Sandbox Agent server at http:\/\/127\.0\.0\.1:\d+ for the health check: ECONNREFUSED/,
    );
    const answering = (body: string) => (async () => new Response(body, { status: 200 })) as typeof fetch;
    const at = 'http://127.0.0.1:1';
    await assert.rejects(client(undefined, { baseUrl: at, fetch: answering('<html>') }).agents(), /did not answer JSON for the agent list/);
    await assert.rejects(client(undefined, { baseUrl: at, fetch: answering('{"status":"degraded"}') }).health(), /is not healthy: degraded/);
    await assert.rejects(client(undefined, { baseUrl: at, fetch: answering('{"agents":{}}') }).agents(), /agent list this extension cannot read/);
    await assert.rejects(
      client(undefined, { baseUrl: at, fetch: answering(`{"agents":[${'"x",'.repeat(400_000)}1]}`) }).agents(),
      /sent more than 1 MiB for the agent list/,
    );
    const hanging = ((_: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error)))) as typeof fetch;
    await assert.rejects(client(undefined, { baseUrl: at, fetch: hanging, timeoutMs: 50 }).health(), /did not answer the health check within 0 seconds/);
    const abort = new AbortController();
    const pending = client(undefined, { baseUrl: at, fetch: hanging }).agents(abort.signal);
    abort.abort();
    await assert.rejects(pending, (e: Error) => e.name === 'AbortError');
  });
});
