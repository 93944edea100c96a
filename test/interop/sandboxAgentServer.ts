/**
 * A real Sandbox Agent server (`@sandbox-agent/cli-linux-x64`, from node_modules) on 127.0.0.1, prepared offline:
 * opencode (`opencode-linux-x64`) is put where the server looks for it (`$HOME/.local/share/sandbox-agent/bin/`),
 * and its ACP adapter comes from an ACP Registry served here on loopback (`SANDBOX_AGENT_ACP_REGISTRY_URL`: one
 * `opencode` entry whose `binary.linux-x86_64` archive is a .tar.gz of that binary made by this file, with its
 * sha256, `cmd: ./opencode`, `args: ["acp"]`). opencode is pointed at the scripted model server through
 * `OPENCODE_CONFIG_CONTENT` (the Anthropic provider with `baseURL` on the model server) with everything that
 * would reach the internet turned off. The server runs in its own process group, killed as a whole by {@link stop}
 * (and on the way out if the run is interrupted); it carries the run's marker, so the tier's leftover check sees
 * anything it left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { MARKER_NAME, RUN_ID } from './agents';

const REPO = path.resolve(__dirname, '..', '..', '..');
const MODULES = path.join(REPO, 'node_modules');
export const SANDBOX_AGENT_BINARY = path.join(MODULES, '@sandbox-agent', 'cli-linux-x64', 'bin', 'sandbox-agent');
export const OPENCODE_BINARY = path.join(MODULES, 'opencode-linux-x64', 'bin', 'opencode');
/** A model opencode's bundled catalog knows under the Anthropic provider. */
export const OPENCODE_MODEL = 'anthropic/claude-sonnet-4-5';

const running = new Set<ChildProcess>();
function killAll(): void {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
process.once('exit', killAll);

/** A loopback ACP Registry holding opencode's archive, as the server's adapter installer reads it. */
export class LoopbackRegistry {
  private constructor(private readonly server: http.Server) {}

  static async start(scratch: string): Promise<LoopbackRegistry> {
    const dir = path.join(scratch, 'registry');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(OPENCODE_BINARY, path.join(dir, 'opencode'));
    fs.chmodSync(path.join(dir, 'opencode'), 0o755);
    execFileSync('tar', ['-czf', 'opencode.tar.gz', 'opencode'], { cwd: dir });
    fs.rmSync(path.join(dir, 'opencode'));
    const archive = fs.readFileSync(path.join(dir, 'opencode.tar.gz'));
    const sha256 = createHash('sha256').update(archive).digest('hex');
    const server = http.createServer((request, response) => {
      const port = (server.address() as AddressInfo).port;
      if (request.url === '/registry.json') {
        const version = (JSON.parse(fs.readFileSync(path.join(MODULES, 'opencode-linux-x64', 'package.json'), 'utf8')) as { version: string }).version;
        const registry = {
          version: '1.0.0',
          agents: [
            {
              id: 'opencode',
              name: 'OpenCode',
              version,
              description: 'opencode from npm (opencode-linux-x64), served on loopback for the interop tier',
              distribution: { binary: { 'linux-x86_64': { archive: `http://127.0.0.1:${port}/opencode.tar.gz`, cmd: './opencode', args: ['acp'], sha256 } } },
            },
          ],
          extensions: [],
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(registry));
      } else if (request.url === '/opencode.tar.gz') {
        response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.length }).end(archive);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new LoopbackRegistry(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/registry.json`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface SandboxServerOptions {
  /** A scratch folder of its own (HOME and what the server and opencode keep). */
  readonly home: string;
  readonly registryUrl: string;
  /** The scripted model server (`http://127.0.0.1:<port>`). */
  readonly modelUrl: string;
  /** `--token`; none means `--no-token`. */
  readonly token?: string;
}

/** The real `sandbox-agent server`, started on a free loopback port. */
export class SandboxServerProcess {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output = (this.output + chunk.toString('utf8')).slice(-20_000)));
    child.stderr?.on('data', (chunk: Buffer) => (this.output = (this.output + chunk.toString('utf8')).slice(-20_000)));
  }

  /** The last of what the server printed (for a failing test's message). */
  get log(): string {
    return this.output;
  }

  static async start(options: SandboxServerOptions): Promise<SandboxServerProcess> {
    const bin = path.join(options.home, '.local', 'share', 'sandbox-agent', 'bin');
    fs.mkdirSync(bin, { recursive: true });
    // npm leaves the binaries without their execute bit when install scripts are not allowed.
    for (const file of [SANDBOX_AGENT_BINARY, OPENCODE_BINARY]) if ((fs.statSync(file).mode & 0o111) === 0) fs.chmodSync(file, 0o755);
    if (!fs.existsSync(path.join(bin, 'opencode'))) fs.copyFileSync(OPENCODE_BINARY, path.join(bin, 'opencode'));
    const tmp = path.join(options.home, 'tmp');
    fs.mkdirSync(tmp, { recursive: true });
    const config = {
      $schema: 'https://opencode.ai/config.json',
      model: OPENCODE_MODEL,
      small_model: OPENCODE_MODEL,
      autoupdate: false,
      share: 'disabled',
      provider: { anthropic: { options: { baseURL: `${options.modelUrl}/v1`, apiKey: 'sk-ant-interop-not-a-real-key' } } },
    };
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const child = spawn(
        SANDBOX_AGENT_BINARY,
        ['server', ...(options.token ? ['--token', options.token] : ['--no-token']), '--no-telemetry', '-H', '127.0.0.1', '-p', String(port)],
        {
          cwd: options.home,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            PATH: process.env['PATH'] ?? '/usr/bin:/bin',
            HOME: options.home,
            TMPDIR: tmp,
            LANG: 'C.UTF-8',
            [MARKER_NAME]: RUN_ID,
            SANDBOX_AGENT_ACP_REGISTRY_URL: options.registryUrl,
            OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
            OPENCODE_DISABLE_AUTOUPDATE: '1',
            OPENCODE_DISABLE_MODELS_FETCH: '1',
            OPENCODE_DISABLE_SHARE: '1',
            OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
            OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
            OPENCODE_DISABLE_CLAUDE_CODE: '1',
            OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
            OPENCODE_DISABLE_EMBEDDED_WEB_UI: '1',
          },
        },
      );
      running.add(child);
      const server = new SandboxServerProcess(child, `http://127.0.0.1:${port}`);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const up = await Promise.race([server.waitHealthy(), exited.then(() => false)]);
      if (up) return server;
      await server.stop();
      // Another process took the port between the probe and the bind: try another one.
      if (attempt >= 3) throw new Error(`sandbox-agent server did not start:\n${server.log}`);
    }
  }

  /** The processes the server started (its agents), read from /proc: their ids. */
  agentPids(): number[] {
    const pids: number[] = [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === this.child.pid) pids.push(Number(entry));
    }
    return pids;
  }

  /** Kills the server's whole process group (the agents it started included) and waits for the server to exit. */
  async stop(): Promise<void> {
    if (!running.delete(this.child)) return;
    const exited =
      this.child.exitCode !== null || this.child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await exited;
  }

  private async waitHealthy(): Promise<boolean> {
    for (;;) {
      if (this.child.exitCode !== null) return false;
      try {
        // Unauthenticated: 200 without a token, 401 with one; either way it is listening.
        const response = await fetch(`${this.url}/v1/health`, { signal: AbortSignal.timeout(1000) });
        await response.body?.cancel();
        return true;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = http.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
