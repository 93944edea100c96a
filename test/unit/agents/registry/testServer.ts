/** A real HTTP server on 127.0.0.1 for the registry tests: each test sets what it answers and sees what it was asked. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Every request, in order. */
  readonly requests: http.IncomingMessage[];
  /** Answers requests for `path` (path and query) with `handler`; anything else is a 404. */
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startTestServer(): Promise<TestServer> {
  const routes = new Map<string, Handler>();
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request);
    const handler = routes.get(request.url ?? '');
    if (handler) handler(request, response);
    else response.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
