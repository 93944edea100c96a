/**
 * An ACP Registry served by the test on 127.0.0.1: a `registry.json` listing one `binary` agent whose archive
 * the test builds (the offline reference agent, dist/reference-agent.js, with a launcher script), its checksum
 * and an SVG icon. The archive is sent in small slices with a pause between them, so an install takes long
 * enough for its progress to be seen in the gallery (the test waits for the progress bar; it never asserts
 * how long anything takes).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';
import * as tar from 'tar';

export interface TestRegistry {
  /** The registry.json URL, for `acpWorkspace.registry.url`. */
  readonly url: string;
  /** How many times the archive was asked for. */
  readonly downloads: () => number;
  close(): Promise<void>;
}

export interface TestAgent {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
}

/** The registry's key for this machine (FORMAT.md "Platform Targets"). */
function platformKey(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64';
  return `${os}-${arch}`;
}

const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><rect x="1" y="1" width="14" height="14" rx="3" fill="#3794ff"/><path d="M4 11l4-6 4 6z" fill="#fff"/></svg>';

/** Builds `<folder>/agent.tar.gz`: `reference-agent` (a launcher running the reference agent with this Node) and the agent's bundle. */
async function buildArchive(folder: string, referenceAgentJs: string): Promise<Buffer> {
  const content = path.join(folder, 'content');
  fs.mkdirSync(content, { recursive: true });
  fs.copyFileSync(referenceAgentJs, path.join(content, 'reference-agent.js'));
  const launcher = path.join(content, 'reference-agent');
  fs.writeFileSync(launcher, `#!/bin/sh\nexec '${process.execPath.replace(/'/g, `'\\''`)}' "$(dirname "$0")/reference-agent.js" "$@"\n`, { mode: 0o755 });
  fs.chmodSync(launcher, 0o755);
  const file = path.join(folder, 'agent.tar.gz');
  await tar.c({ gzip: true, file, cwd: content, portable: true }, ['reference-agent', 'reference-agent.js']);
  return fs.readFileSync(file);
}

/** Serves the registry until `close()`. `folder`: scratch space for the archive. */
export async function serveTestRegistry(agent: TestAgent, folder: string, referenceAgentJs: string): Promise<TestRegistry> {
  const archive = await buildArchive(folder, referenceAgentJs);
  const sha256 = createHash('sha256').update(archive).digest('hex');
  let downloads = 0;
  let registry = '';
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    if (url === '/registry.json') {
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
      response.end(registry);
    } else if (url === '/icon.svg') {
      response.writeHead(200, { 'content-type': 'image/svg+xml' });
      response.end(ICON);
    } else if (url === '/agent.tar.gz') {
      downloads++;
      response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(archive.length) });
      // Twenty slices, a pause between them: the install shows its progress for a while.
      const slice = Math.ceil(archive.length / 20);
      let at = 0;
      const next = () => {
        if (response.destroyed) return;
        if (at >= archive.length) {
          response.end();
          return;
        }
        response.write(archive.subarray(at, at + slice));
        at += slice;
        setTimeout(next, 150);
      };
      next();
    } else {
      response.writeHead(404).end();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  registry = JSON.stringify({
    version: '1.0.0',
    agents: [
      {
        id: agent.id,
        name: agent.name,
        version: agent.version,
        description: agent.description,
        repository: 'https://github.com/agentclientprotocol/typescript-sdk',
        authors: ['ACP Workspace tests'],
        license: 'MIT',
        icon: `${base}/icon.svg`,
        distribution: { binary: { [platformKey()]: { archive: `${base}/agent.tar.gz`, cmd: './reference-agent', sha256 } } },
      },
    ],
    extensions: [],
  });
  return {
    url: `${base}/registry.json`,
    downloads: () => downloads,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
