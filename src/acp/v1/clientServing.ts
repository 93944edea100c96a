/**
 * The client-served capabilities of the port (`acp/port/client.ts`) on ACP v1: `fs/read_text_file`,
 * `fs/write_text_file` and the five `terminal/*` requests, registered on the connection (validated there) and
 * handed to the application's hosts as the port's plain requests. A host's {@link ClientRefusal} reaches the
 * agent as the JSON-RPC error with its code, message and data. What is registered here is what `initialize`
 * advertises (`fs.readTextFile`, `fs.writeTextFile`, `terminal` when all five are served and advertised).
 */
import type { Disposable } from 'vscode-jsonrpc/node';
import { ClientRefusal, type FileSystemHost, type ServeTerminalsOptions, type TerminalHost, type TerminalRef } from '../port/client';
import { HandlerError, type RequestHandler } from '../rpcPeer';
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
    server.onRequest(ReadTextFileMethod, (params, token) =>
      answered(async () => ({
        content: await host.readTextFile({ sessionId: params.sessionId, path: params.path, line: params.line, limit: params.limit }, token),
      })),
    ),
    server.onRequest(WriteTextFileMethod, (params, token) =>
      answered(async () => {
        await host.writeTextFile({ sessionId: params.sessionId, path: params.path, content: params.content }, token);
        return {};
      }),
    ),
  ]);
}

export function serveTerminals(server: RequestServer, host: TerminalHost, options: ServeTerminalsOptions = {}): Disposable {
  const registration = { advertise: options.advertise !== false };
  const ref = (params: TerminalRef): TerminalRef => ({ sessionId: params.sessionId, terminalId: params.terminalId });
  return all([
    server.onRequest(
      TerminalCreateMethod,
      (params, token) =>
        answered(async () => {
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
        }),
      registration,
    ),
    server.onRequest(
      TerminalOutputMethod,
      (params) =>
        answered(async () => {
          const { output, truncated, exitStatus } = host.output(ref(params));
          return exitStatus ? { output, truncated, exitStatus: { exitCode: exitStatus.exitCode, signal: exitStatus.signal } } : { output, truncated };
        }),
      registration,
    ),
    server.onRequest(
      TerminalWaitForExitMethod,
      (params, token) =>
        answered(async () => {
          const { exitCode, signal } = await host.waitForExit(ref(params), token);
          return { exitCode, signal };
        }),
      registration,
    ),
    server.onRequest(
      TerminalKillMethod,
      (params) =>
        answered(async () => {
          await host.kill(ref(params));
          return {};
        }),
      registration,
    ),
    server.onRequest(
      TerminalReleaseMethod,
      (params) =>
        answered(async () => {
          await host.release(ref(params));
          return {};
        }),
      registration,
    ),
  ]);
}

/** Serves one request; a refusal becomes the JSON-RPC error the agent receives (code, message, data). */
async function answered<T>(serve: () => Promise<T>): Promise<T> {
  try {
    return await serve();
  } catch (error) {
    if (error instanceof ClientRefusal) throw new HandlerError(error.code, error.message, error.data);
    throw error;
  }
}

function all(registrations: readonly Disposable[]): Disposable {
  return { dispose: () => registrations.forEach((registration) => registration.dispose()) };
}
