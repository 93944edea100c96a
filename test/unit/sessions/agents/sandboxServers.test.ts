import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RemoteHttpError } from '../../../../src/acp/transport/httpProblem';
import { SandboxAgentServer } from '../../../../src/remote/sandboxAgentServer';
import { sandboxServersOver } from '../../../../src/sessions/agents/sandboxServers';

describe('SandboxAgentServer through the Add Remote Agent port (health, agent list and install of a Sandbox Agent server on loopback)', () => {
  let server: http.Server;
  let base: string;
  const seen: { method?: string; url?: string; authorization?: string; team?: string }[] = [];
  let agentsBody = '';

  before(async () => {
    server = http.createServer((request, response): void => {
      seen.push({
        method: request.method,
        url: request.url,
        authorization: request.headers.authorization,
        team: request.headers['x-team'] as string | undefined,
      });
      if (request.headers.authorization !== 'Bearer tok') {
        response.writeHead(401, { 'content-type': 'application/problem+json' });
        return void response.end(JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'missing or invalid token' }));
      }
      if (request.url === '/v1/health') return void response.end(JSON.stringify({ status: 'ok' }));
      if (request.url === '/v1/agents') return void response.end(agentsBody);
      if (request.url === '/v1/agents/opencode/install' && request.method === 'POST') return void response.end(JSON.stringify({ installed: true }));
      if (request.url === '/v1/agents/broken/install') {
        response.writeHead(500, { 'content-type': 'application/problem+json' });
        return void response.end(JSON.stringify({ title: 'Install failed', status: 500, detail: 'download of broken 1.0 failed: network unreachable' }));
      }
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('no such route');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  const client = (token?: string) =>
    new SandboxAgentServer({ baseUrl: `${base}/`, credentials: token ? { token, headers: { 'X-Team': 'blue' } } : {}, allowInsecure: false });

  it('sends the bearer token and headers, and reads health and the agent list (bad entries skipped)', async () => {
    agentsBody = JSON.stringify({
      agents: [
        { id: 'opencode', installed: true, credentialsAvailable: true, version: '1.18.33', capabilities: { sessionLifecycle: true, images: false }, extra: 1 },
        { id: 'claude', installed: false, capabilities: 'weird' },
        { id: '../evil', installed: true },
        'junk',
      ],
    });
    await client('tok').health();
    assert.deepEqual(await client('tok').agents(), [
      { id: 'opencode', installed: true, credentialsAvailable: true, version: '1.18.33', capabilities: { sessionLifecycle: true, images: false } },
      { id: 'claude', installed: false, credentialsAvailable: false, capabilities: {} },
    ]);
    assert.deepEqual(seen.at(-1), { method: 'GET', url: '/v1/agents', authorization: 'Bearer tok', team: 'blue' });
  });

  it("a refused token is a RemoteHttpError with auth, in the server's words", async () => {
    const error = await client()
      .health()
      .then(
        () => assert.fail('refused'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof RemoteHttpError);
    assert.equal(error.auth, true);
    assert.match(error.message, /refused the credentials.*Unauthorized: missing or invalid token/);
  });

  it('installs, and a failed install says what the server said', async () => {
    await client('tok').install('opencode');
    assert.deepEqual(seen.at(-1)?.method, 'POST');
    await assert.rejects(client('tok').install('broken'), /HTTP 500 .*Install failed: download of broken 1\.0 failed: network unreachable/);
  });

  it('what is not a Sandbox Agent server is said so: a 404, a body that is not the expected shape', async () => {
    await assert.rejects(
      new SandboxAgentServer({ baseUrl: `${base}/nothing`, credentials: { token: 'tok' }, allowInsecure: false }).health(),
      (e: unknown) => e instanceof RemoteHttpError && e.status === 404,
    );
    agentsBody = '{"agents": 5}';
    await assert.rejects(client('tok').agents(), /agent list this extension cannot read/);
    agentsBody = '<html>';
    await assert.rejects(client('tok').agents(), /did not answer JSON/);
  });

  it('refuses plain http to another machine unless allowed, before sending anything', async () => {
    const before = seen.length;
    await assert.rejects(
      new SandboxAgentServer({ baseUrl: 'http://192.0.2.1:2468', credentials: { token: 'tok' }, allowInsecure: false }).health(),
      /not encrypted/,
    );
    assert.equal(seen.length, before);
  });

  it('the port makes a client with the credentials of each call', async () => {
    const made: unknown[] = [];
    const servers = sandboxServersOver((options) => {
      made.push(options);
      return new SandboxAgentServer(options);
    });
    await servers.health(base, { token: 'tok' }, false, new AbortController().signal);
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(servers.agents(base, { token: 'tok' }, false, aborted.signal), (e: unknown) => e instanceof Error && e.name === 'AbortError');
    assert.deepEqual(made, [
      { baseUrl: base, credentials: { token: 'tok' }, allowInsecure: false },
      { baseUrl: base, credentials: { token: 'tok' }, allowInsecure: false },
    ]);
  });
});
