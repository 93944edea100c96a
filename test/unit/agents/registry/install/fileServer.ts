/** A node:http server on 127.0.0.1 whose routes the test sets; every request is counted. */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Route = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export class FileServer {
  readonly routes = new Map<string, Route>();
  readonly requests: string[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: http.Server) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<FileServer> {
    const server = http.createServer();
    const files = new FileServer(server);
    server.on('request', (request, response) => {
      const url = request.url ?? '/';
      files.requests.push(url);
      const route = files.routes.get(url.split('?')[0]!);
      if (route) route(request, response);
      else {
        response.statusCode = 404;
        response.end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return files;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves `body` at `route`. */
  file(route: string, body: Buffer | string): void {
    this.routes.set(route, (_request, response) => {
      response.setHeader('content-length', Buffer.byteLength(body));
      response.end(body);
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
