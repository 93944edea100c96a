/**
 * The {@link SandboxServers} port over a per-server client with the shape of `remote/SandboxAgentServer`
 * (`new SandboxAgentServer({ baseUrl, credentials, allowInsecure, timeoutMs? })` → `health`, `agents`, `install`,
 * errors as RemoteHttpError); core.ts makes it over the real one.
 */
import type { RemoteCredentials } from '../../acp/transport/remote';
import type { SandboxAgentSummary, SandboxServers } from './addRemoteAgent';

/** What a Sandbox Agent server client is given. */
export interface SandboxServerOptions {
  readonly baseUrl: string;
  readonly credentials: RemoteCredentials;
  readonly allowInsecure: boolean;
  readonly timeoutMs?: number;
}

/** The per-server client's shape (`remote/SandboxAgentServer`). */
export interface SandboxServerClient {
  health(signal?: AbortSignal): Promise<unknown>;
  agents(signal?: AbortSignal): Promise<readonly SandboxAgentSummary[]>;
  install(id: string, signal?: AbortSignal): Promise<unknown>;
}

/** The port, making one client per call (credentials change between calls: a token asked for after a 401). */
export function sandboxServersOver(create: (options: SandboxServerOptions) => SandboxServerClient): SandboxServers {
  const client = (baseUrl: string, credentials: RemoteCredentials, allowInsecure: boolean) => create({ baseUrl, credentials, allowInsecure });
  return {
    health: async (url, credentials, allowInsecure, signal) => {
      await client(url, credentials, allowInsecure).health(signal);
    },
    agents: (url, credentials, allowInsecure, signal) => client(url, credentials, allowInsecure).agents(signal),
    install: async (url, credentials, allowInsecure, id, signal) => {
      await client(url, credentials, allowInsecure).install(id, signal);
    },
  };
}
