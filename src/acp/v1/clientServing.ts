/**
 * The client-served capabilities of the port (`acp/port/client.ts`) on ACP v1: `fs/read_text_file`,
 * `fs/write_text_file` and the five `terminal/*` requests, registered on the connection (validated there) and
 * handed to the application's hosts as the port's plain requests. A host's `ClientRefusal` reaches the agent as
 * the JSON-RPC error with its code, message and data (`RpcPeer` answers so for every handler). What is registered
 * here is what `initialize` advertises (`fs.readTextFile`, `fs.writeTextFile`, `terminal` when all five are served and advertised).
 */
import type { Disposable } from 'vscode-jsonrpc/node';
import { type FileSystemHost, type ServeTerminalsOptions, type TerminalHost, type TerminalRef } from '../port/client';
import type { RequestHandler } from '../rpcPeer';
import {
  ReadTextFileMethod,
  TerminalCreateMethod,
  TerminalKillMethod,
  TerminalOutputMethod,
  TerminalReleaseMethod,
  TerminalWaitForExitMethod,
  WriteTextFileMethod,
  type RequestDefinition,
} from '../schema';

/** Where the handlers are registered: the connection (its `advertise: false` answers without advertising). */
export interface RequestServer {
  onRequest<D extends RequestDefinition>(definition: D, handler: RequestHandler<D>, options?: { readonly advertise?: boolean }): Disposable;
}

export function serveFileSystem(server: RequestServer, host: FileSystemHost): Disposable {
  return all([
    server.onRequest(ReadTextFileMethod, async (params, token) => ({
      content: await host.readTextFile({ sessionId: params.sessionId, path: params.path, line: params.line, limit: params.limit }, token),
    })),
    server.onRequest(WriteTextFileMethod, async (params, token) => {
      await host.writeTextFile({ sessionId: params.sessionId, path: params.path, content: params.content }, token);
      return {};
    }),
  ]);
}

export function serveTerminals(server: RequestServer, host: TerminalHost, options: ServeTerminalsOptions = {}): Disposable {
  const registration = { advertise: options.advertise !== false };
  const ref = (params: TerminalRef): TerminalRef => ({ sessionId: params.sessionId, terminalId: params.terminalId });
  return all([
    server.onRequest(
      TerminalCreateMethod,
      async (params, token) => {
        const { terminalId } = await host.create(
          {
            sessionId: params.sessionId,
            command: params.command,
            args: params.args,
            env: params.env.map(({ name, value }) => ({ name, value })),
            cwd: params.cwd,
            outputByteLimit: params.outputByteLimit,
          },
          token,
        );
        return { terminalId };
      },
      registration,
    ),
    server.onRequest(
      TerminalOutputMethod,
      async (params) => {
        const { output, truncated, exitStatus } = host.output(ref(params));
        return exitStatus ? { output, truncated, exitStatus: { exitCode: exitStatus.exitCode, signal: exitStatus.signal } } : { output, truncated };
      },
      registration,
    ),
    server.onRequest(
      TerminalWaitForExitMethod,
      async (params, token) => {
        const { exitCode, signal } = await host.waitForExit(ref(params), token);
        return { exitCode, signal };
      },
      registration,
    ),
    server.onRequest(
      TerminalKillMethod,
      async (params) => {
        await host.kill(ref(params));
        return {};
      },
      registration,
    ),
    server.onRequest(
      TerminalReleaseMethod,
      async (params) => {
        await host.release(ref(params));
        return {};
      },
      registration,
    ),
  ]);
}

function all(registrations: readonly Disposable[]): Disposable {
  return { dispose: () => registrations.forEach((registration) => registration.dispose()) };
}
