/**
 * A Sandbox Agent server (rivet-dev/sandbox-agent, `sandbox-agent server`): its health, the agents it can run
 * and installing one. Its ACP endpoint is reached through `sandboxAgentLink` (acp/transport). Plain Node with the
 * global `fetch` (VS Code's extension host applies the user's proxy to it); what the server answers is read with
 * zod and bounded, and every failure is an Error in words naming the server (never the token).
 */
import * as l10n from '@vscode/l10n';
import * as z from 'zod';
import { networkCause } from '../acp/transport/networkError';
import { readBounded, readHttpError, RemoteHttpError } from '../acp/transport/httpProblem';
import { checkRemoteEndpoint, credentialHeaders, displayUrl, type RemoteCredentials } from '../acp/transport/remote';

export { RemoteHttpError } from '../acp/transport/httpProblem';

export interface SandboxAgentServerOptions {
  /** `http(s)://host:port` (a path prefix is kept). */
  readonly baseUrl: string;
  readonly credentials: RemoteCredentials;
  /** Plain `http:` to a host that is not this machine, allowed by the user. */
  readonly allowInsecure: boolean;
  /** How long one call may take, installing included. Default 30 s (installs: 10 minutes). */
  readonly timeoutMs?: number;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/** One agent the server can run, as `GET /v1/agents` describes it. */
export interface SandboxAgentInfo {
  /** e.g. `claude`, `codex`, `opencode`, `amp`, `pi`, `cursor`, `mock`. */
  readonly id: string;
  readonly installed: boolean;
  /** Whether the server found credentials for it (API keys, logins). */
  readonly credentialsAvailable: boolean;
  readonly version?: string;
  /** What the server says the agent supports (`permissions`, `images`, `sessionLifecycle`, …); unknown keys kept, non-boolean values dropped. */
  readonly capabilities: Readonly<Record<string, boolean>>;
}

/** The most of an answer that is read. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_AGENTS = 200;
const DEFAULT_TIMEOUT_MS = 30_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;

const AgentEntry = z.looseObject({
  id: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9._-]+$/),
  installed: z.boolean().catch(false),
  credentialsAvailable: z.boolean().catch(false),
  version: z.string().max(200).optional().catch(undefined),
  capabilities: z
    .record(z.string().max(100), z.unknown())
    .catch({})
    .optional()
    .transform((caps) => {
      const out: Record<string, boolean> = {};
      let count = 0;
      for (const [key, value] of Object.entries(caps ?? {})) {
        if (typeof value === 'boolean' && count++ < 100) out[key] = value;
      }
      return out;
    }),
});
const AgentList = z.looseObject({ agents: z.array(z.unknown()).max(10_000) });
const Health = z.looseObject({ status: z.string().max(200) });

/** A client for one Sandbox Agent server's HTTP API (0.4.2). */
export class SandboxAgentServer {
  private readonly fetch: typeof fetch;
  readonly where: string;

  constructor(private readonly options: SandboxAgentServerOptions) {
    this.fetch = options.fetch ?? fetch;
    this.where = displayUrl(options.baseUrl);
  }

  /** Resolves when `GET /v1/health` says `ok`; rejects with why not. */
  async health(signal?: AbortSignal): Promise<void> {
    const what = l10n.t('the health check');
    const body = Health.safeParse(await this.getJson('/v1/health', what, signal));
    if (!body.success) throw new Error(l10n.t('The Sandbox Agent server at {0} answered the health check with something unexpected.', this.where));
    if (body.data.status !== 'ok') throw new Error(l10n.t('The Sandbox Agent server at {0} is not healthy: {1}', this.where, body.data.status));
  }

  /** The agents the server can run (`GET /v1/agents`); entries it cannot read are skipped. */
  async agents(signal?: AbortSignal): Promise<SandboxAgentInfo[]> {
    const what = l10n.t('the agent list');
    const body = AgentList.safeParse(await this.getJson('/v1/agents', what, signal));
    if (!body.success) throw new Error(l10n.t('The Sandbox Agent server at {0} sent an agent list this extension cannot read.', this.where));
    const agents: SandboxAgentInfo[] = [];
    const seen = new Set<string>();
    for (const entry of body.data.agents) {
      const agent = AgentEntry.safeParse(entry);
      if (!agent.success || seen.has(agent.data.id)) continue;
      seen.add(agent.data.id);
      const { id, installed, credentialsAvailable, version, capabilities } = agent.data;
      agents.push({ id, installed, credentialsAvailable, ...(version !== undefined ? { version } : {}), capabilities });
      if (agents.length >= MAX_AGENTS) break;
    }
    return agents;
  }

  /** Installs agent `id` on the server (`POST /v1/agents/{id}/install`; the server downloads it). */
  async install(id: string, signal?: AbortSignal): Promise<void> {
    const what = l10n.t('installing {0}', id);
    const response = await this.request(`/v1/agents/${encodeURIComponent(id)}/install`, what, signal, {
      method: 'POST',
      // 0.4.2 refuses the request without a JSON body.
      body: '{}',
      headers: { 'content-type': 'application/json' },
      timeoutMs: this.options.timeoutMs ?? INSTALL_TIMEOUT_MS,
    });
    await response.body?.cancel().catch(() => undefined);
  }

  private async getJson(path: string, what: string, signal: AbortSignal | undefined): Promise<unknown> {
    const response = await this.request(path, what, signal, { method: 'GET' });
    const text = await readBounded(response, MAX_ANSWER_BYTES + 1);
    if (Buffer.byteLength(text) > MAX_ANSWER_BYTES)
      throw new Error(l10n.t('The Sandbox Agent server at {0} sent more than {1} MiB for {2}.', this.where, MAX_ANSWER_BYTES / (1024 * 1024), what));
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(l10n.t('The Sandbox Agent server at {0} did not answer JSON for {1}.', this.where, what));
    }
  }

  private async request(
    path: string,
    what: string,
    signal: AbortSignal | undefined,
    init: { method: string; body?: string; headers?: Record<string, string>; timeoutMs?: number },
  ): Promise<Response> {
    const base = checkRemoteEndpoint({ url: this.options.baseUrl, kind: 'http', allowInsecure: this.options.allowInsecure });
    if (base instanceof Error) throw base;
    const url = new URL(base.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
    url.search = '';
    url.hash = '';
    const timeoutMs = init.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const signals = [AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])];
    let response: Response;
    try {
      response = await this.fetch(url, {
        method: init.method,
        body: init.body,
        headers: { ...credentialHeaders(this.options.credentials), ...init.headers, accept: 'application/json' },
        signal: AbortSignal.any(signals),
        // A redirect is answered (and refused in words below), never followed: the token would go with it.
        redirect: 'manual',
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      if ((error as Error).name === 'TimeoutError') {
        throw new ServerUnreachableError(
          l10n.t('The Sandbox Agent server at {0} did not answer {1} within {2} seconds.', this.where, what, Math.round(timeoutMs / 1000)),
        );
      }
      throw new ServerUnreachableError(l10n.t('Cannot reach the Sandbox Agent server at {0} for {1}: {2}', this.where, what, networkCause(error)));
    }
    if (!response.ok) throw await readHttpError(response, l10n.t('The Sandbox Agent server at {0}', this.where), what);
    return response;
  }
}

/** Nothing answered at the address (refused, unreachable, DNS, TLS, no answer in time): not an HTTP answer. */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';
}

/** Whether `error` is the server refusing the credentials. */
export function isAuthError(error: unknown): boolean {
  return error instanceof RemoteHttpError && error.auth;
}
