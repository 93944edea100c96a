/**
 * Two HTTP servers on 127.0.0.1 for the redirect tests of the remote links: `elsewhere` records everything that
 * reaches it (method, path, headers, body), and `redirecting(...)` answers the requests a test picks with a redirect
 * to `elsewhere`, handing the others to the test's own handler.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface TestServer {
  readonly url: string;
  readonly origin: string;
  /** Every request that reached it, in order. */
  readonly requests: Recorded[];
  close(): Promise<void>;
}

type Handler = (request: Recorded, response: http.ServerResponse) => void;

async function listen(handle: Handler): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      handle(recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/acp`,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The other host: it answers like an agent would have (initialize, an empty event stream), so a followed redirect would work. */
export function elsewhere(): Promise<TestServer> {
  return listen((request, response) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(':\n\n');
      return;
    }
    let id: unknown = null;
    try {
      id = (JSON.parse(request.body) as { id?: unknown }).id ?? null;
    } catch {
      // Not JSON: answered all the same.
    }
    response.writeHead(200, { 'Content-Type': 'application/json', 'Acp-Connection-Id': 'elsewhere' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 1, agentCapabilities: {}, sessionId: 'elsewhere' } }));
  });
}

/**
 * A server that answers each request `redirect` picks with `status` and `Location: <to><its path>`, and every other
 * one with `otherwise`.
 */
export function redirecting(to: TestServer, status: number, redirect: (request: Recorded) => boolean, otherwise: Handler): Promise<TestServer> {
  return listen((request, response) => {
    if (!redirect(request)) return otherwise(request, response);
    response.writeHead(status, { Location: `${to.origin}${request.url}` });
    response.end();
  });
}

/** The JSON-RPC method of a recorded POST, if any. */
export function methodOf(request: Recorded): string | undefined {
  try {
    return (JSON.parse(request.body) as { method?: string }).method;
  } catch {
    return undefined;
  }
}
