/**
 * The {@link SandboxServers} port over a per-server client with the shape of `remote/SandboxAgentServer`
 * (`new SandboxAgentServer({ baseUrl, credentials, allowInsecure, timeoutMs? })` → `health`, `agents`, `install`,
 * errors as RemoteHttpError). {@link FetchSandboxServer} is a small client of that shape over `fetch`, used
 * until core.ts wires the full one.
 */
import * as l10n from '@vscode/l10n';
import * as z from 'zod';
import { readHttpError, readBounded } from '../acp/transport/httpProblem';
import { checkRemoteEndpoint, displayUrl, type RemoteCredentials } from '../acp/transport/remote';
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

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_AGENTS = 500;

const Health = z.looseObject({ status: z.string().max(100) });
const AgentEntry = z.looseObject({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  installed: z.boolean().catch(false),
  credentialsAvailable: z.boolean().optional().catch(undefined),
  version: z.string().max(100).optional().catch(undefined),
  capabilities: z.record(z.string().max(100), z.unknown()).catch({}).default({}),
});
const AgentList = z.looseObject({ agents: z.array(z.unknown()).max(MAX_AGENTS) });

/**
 * The three calls "Add Remote Agent…" makes to a Sandbox Agent server, over `fetch` (VS Code applies the user's
 * proxy to it): bounded bodies, a time limit, problem+json errors in words, bad list entries skipped.
 */
export class FetchSandboxServer implements SandboxServerClient {
  private readonly base: string;
  private readonly peer: string;

  constructor(private readonly options: SandboxServerOptions & { readonly fetch?: typeof fetch }) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.peer = l10n.t('The Sandbox Agent server {0}', displayUrl(options.baseUrl));
  }

  async health(signal?: AbortSignal): Promise<{ status: string }> {
    const body = await this.request('GET', '/v1/health', l10n.t('its health'), signal);
    const parsed = Health.safeParse(body);
    if (!parsed.success) throw new Error(l10n.t('{0} did not answer /v1/health as a Sandbox Agent server does.', displayUrl(this.options.baseUrl)));
    return parsed.data;
  }

  async agents(signal?: AbortSignal): Promise<SandboxAgentSummary[]> {
    const parsed = AgentList.safeParse(await this.request('GET', '/v1/agents', l10n.t('the agent list'), signal));
    if (!parsed.success) throw new Error(l10n.t('{0} answered /v1/agents with something that is not an agent list.', this.peer));
    return parsed.data.agents.flatMap((raw) => {
      const agent = AgentEntry.safeParse(raw);
      if (!agent.success) return [];
      const { id, installed, credentialsAvailable, version, capabilities } = agent.data;
      return [{ id, installed, capabilities, ...(credentialsAvailable !== undefined ? { credentialsAvailable } : {}), ...(version !== undefined ? { version } : {}) }];
    });
  }

  async install(id: string, signal?: AbortSignal): Promise<void> {
    await this.request('POST', `/v1/agents/${encodeURIComponent(id)}/install`, l10n.t('installing {0}', id), signal, {}, 10 * 60_000);
  }

  private async request(method: 'GET' | 'POST', path: string, what: string, signal: AbortSignal | undefined, body?: unknown, timeoutMs = this.options.timeoutMs ?? 30_000): Promise<unknown> {
    const checked = checkRemoteEndpoint({ url: this.options.baseUrl, kind: 'http', allowInsecure: this.options.allowInsecure });
    if (checked instanceof Error) throw checked;
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.credentials.headers };
    if (this.options.credentials.token !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) headers.authorization = `Bearer ${this.options.credentials.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await (this.options.fetch ?? fetch)(`${this.base}${path}`, {
      method,
      headers,
      redirect: 'error',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      const reason = timeout.aborted ? l10n.t('no answer within {0} s', Math.round(timeoutMs / 1000)) : error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      throw new Error(l10n.t('{0} could not be reached for {1}: {2}', this.peer, what, reason));
    });
    if (!response.ok) throw await readHttpError(response, this.peer, what);
    const text = await readBounded(response, MAX_BODY_BYTES);
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(l10n.t('{0} answered {1} with something that is not JSON.', this.peer, what));
    }
  }
}
