import { createServer } from 'node:http';
import { formatGreeting } from '../../shared-lib/src/greeting';

const server = createServer((request, response) => {
  const name = new URL(request.url ?? '/', 'http://localhost').searchParams.get('name') ?? 'world';
  response.setHeader('content-type', 'text/plain; charset=utf-8');
  response.end(formatGreeting(name));
});

server.listen(8080, '127.0.0.1', () => console.log('listening on http://127.0.0.1:8080'));
