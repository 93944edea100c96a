/**
 * "Add Remote Agent…": asks for a URL (TLS rule; plain ws/http off this machine only after a warning), probes an
 * http(s) URL for a Sandbox Agent server (its token asked for and retried on 401/403), lets the user pick one of
 * its agents (installing it on the server when needed, not in Restricted Mode; never Sandbox Agent's own `mock`),
 * checks that something answers at a ws(s) URL, then asks for a name and the path the agent sees for each
 * workspace folder, and writes the entry to the user's `acpWorkspace.agents` (in a remote window, the remote's
 * settings: the setting is machine-scoped), saying where. An address where nothing answers is added only when the
 * user says so. The token is stored in SecretStorage only once the entry is written; nothing secret goes to the
 * settings.
 */
import * as l10n from '@vscode/l10n';
import { ServerUnreachableError } from '../../remote/sandboxAgentServer';
import type { RemoteCredentials } from '../../acp/transport/remote';
import type { Logger } from '../../common/logger';
import {
  buildRemoteAgentEntry,
  checkAgentName,
  checkMappingPath,
  checkRemoteUrl,
  checkToken,
  defaultMappingPath,
  defaultRemoteName,
  entryNames,
  isInsecureRemote,
  isLoopbackUrl,
  mayBeSandboxServer,
  uniqueName,
  withRemoteAgentEntry,
  type RemoteAgentEntry,
} from './remoteAgentEntry';
import { errorMessage } from '../../common/errors';

/** One agent a Sandbox Agent server offers (`GET /v1/agents`). */
export interface SandboxAgentSummary {
  readonly id: string;
  readonly installed: boolean;
  /** Whether the server has the credentials (API keys) the agent needs; unknown when left out. */
  readonly credentialsAvailable?: boolean;
  readonly version?: string;
  /** What it supports, as the server says (`{ sessionLifecycle: true, … }`). */
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/**
 * A Sandbox Agent server's management API, per base URL (implemented over `remote/SandboxAgentServer`). Errors
 * are Errors in words; one with `auth: true` means the server refused the credentials (401/403).
 */
export interface SandboxServers {
  /** `GET /v1/health`: resolves when a Sandbox Agent server answers there. */
  health(url: string, credentials: RemoteCredentials, allowInsecure: boolean, signal: AbortSignal): Promise<void>;
  /** `GET /v1/agents`. */
  agents(url: string, credentials: RemoteCredentials, allowInsecure: boolean, signal: AbortSignal): Promise<readonly SandboxAgentSummary[]>;
  /** `POST /v1/agents/{id}/install`. */
  install(url: string, credentials: RemoteCredentials, allowInsecure: boolean, id: string, signal: AbortSignal): Promise<void>;
}

/** A workspace folder that can be shared (a local path). */
export interface MappableFolder {
  readonly name: string;
  readonly path: string;
}

/** The questions "Add Remote Agent…" asks (integration tests answer them instead of the real prompts). */
export interface RemoteAgentUi {
  /** The URL; `validate` says what is wrong with a text (undefined: fine). undefined = cancelled. */
  askUrl(validate: (text: string) => string | undefined): Promise<string | undefined>;
  /** Plain ws/http to another machine: go on unencrypted? */
  confirmInsecure(url: string): Promise<boolean>;
  /** The server refused the credentials: the bearer token to use (password box). undefined = cancelled. */
  askToken(server: string, reason: string, validate: (text: string) => string | undefined): Promise<string | undefined>;
  /** Which of the server's agents? undefined = cancelled. */
  pickSandboxAgent(server: string, agents: readonly SandboxAgentSummary[]): Promise<SandboxAgentSummary | undefined>;
  /** The agent is not installed on the server: install it there? */
  confirmInstall(server: string, agentId: string): Promise<boolean>;
  /** Runs `task` with a cancellable progress notification titled `title`. */
  withProgress<T>(title: string, task: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** The new agent's name, prefilled with `suggested`. undefined = cancelled. */
  askName(suggested: string, validate: (text: string) => string | undefined): Promise<string | undefined>;
  /** The path the agent sees for `folder` (prefilled with `suggested`); '' = not shared; undefined = cancelled. */
  askMapping(agentName: string, folder: MappableFolder, suggested: string, validate: (text: string) => string | undefined): Promise<string | undefined>;
  /**
   * Nothing answered at `url` (`reason` says why): add it anyway (the agent may not be running yet)? false =
   * cancelled.
   */
  confirmUnreachable(url: string, reason: string): Promise<boolean>;
  /** Says something went wrong (the flow ends). */
  error(message: string): void;
  /** Says the agent was added (`message`: where it was written and which folders it sees), offering Set Token…. */
  added(name: string, message: string): void;
}

/** Where `acpWorkspace.agents` (a machine setting) is written: the user settings, or a remote window's machine settings. */
export type SettingsPlace = { readonly kind: 'user' } | { readonly kind: 'remote'; readonly name: string };

export interface AddRemoteAgentOptions {
  readonly ui: () => RemoteAgentUi;
  readonly servers: SandboxServers;
  /** The credentials kept for an endpoint; `set` stores them (SecretStorage). */
  readonly secrets: { get(url: string): Promise<RemoteCredentials>; set(url: string, credentials: RemoteCredentials): Promise<void> };
  /** The user's own `acpWorkspace.agents` (user settings) and how to write it there; `place` says where that is. */
  readonly settings: { read(): unknown; write(agents: unknown[]): Promise<void>; place(): SettingsPlace };
  /**
   * Whether anything answers at a WebSocket URL (a connection to its host and port); rejects with a
   * `ServerUnreachableError` in words when nothing does.
   */
  readonly reach: (url: string, signal: AbortSignal) => Promise<void>;
  /** The names of every agent there is now (presets, registry, settings). */
  readonly agentNames: () => readonly string[];
  /** The workspace's local folders, in order. */
  readonly folders: () => readonly MappableFolder[];
  /** Workspace Trust: installing on a server is refused without it. */
  readonly isTrusted: () => boolean;
  readonly logger: Logger;
}

/** What became of one run. */
export type AddRemoteAgentOutcome =
  { readonly kind: 'added'; readonly entry: RemoteAgentEntry } | { readonly kind: 'cancelled' } | { readonly kind: 'failed'; readonly message: string };

/** Sandbox Agent's own test double (`mock`): listed by every server, not an agent to work with (0.4.2 cannot start it). */
const SANDBOX_TEST_AGENTS = new Set(['mock']);

/** An error the server answered with because of the credentials (RemoteHttpError's `auth`). */
function isAuthError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { auth?: unknown }).auth === true;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** What the server said about the credentials, without sending the user to the command that asks for the token. */
function refusalOf(error: unknown): string {
  const statement = typeof error === 'object' && error !== null ? (error as { statement?: unknown }).statement : undefined;
  return typeof statement === 'string' ? statement : errorMessage(error);
}

export class AddRemoteAgent {
  constructor(private readonly options: AddRemoteAgentOptions) {}

  /** Runs the questions once; the outcome is also what the user was told. */
  async run(): Promise<AddRemoteAgentOutcome> {
    const ui = this.options.ui();
    const typed = await ui.askUrl(checkRemoteUrl);
    if (typed === undefined) return { kind: 'cancelled' };
    const url = typed.trim().replace(/(?<=[^/])\/+$/, '');
    const problem = checkRemoteUrl(url);
    if (problem) return this.fail(ui, problem);
    const allowInsecure = isInsecureRemote(url);
    if (allowInsecure && !(await ui.confirmInsecure(url))) return { kind: 'cancelled' };

    let credentials = await this.options.secrets.get(url);
    let newToken = false;
    let sandboxAgent: string | undefined;
    if (mayBeSandboxServer(url)) {
      const probe = await this.probe(ui, url, credentials, allowInsecure);
      if (probe.kind !== 'done') return probe.kind === 'cancelled' ? probe : this.fail(ui, probe.message);
      credentials = probe.credentials;
      newToken = probe.newToken;
      if (probe.agents) {
        const picked = await ui.pickSandboxAgent(
          url,
          probe.agents.filter((agent) => !SANDBOX_TEST_AGENTS.has(agent.id)),
        );
        if (!picked) return { kind: 'cancelled' };
        if (!picked.installed) {
          const installed = await this.install(ui, url, credentials, allowInsecure, picked.id);
          if (installed.kind !== 'done') return installed.kind === 'cancelled' ? installed : this.fail(ui, installed.message);
        }
        sandboxAgent = picked.id;
      }
    } else {
      const reached = await this.reachable(ui, url);
      if (reached.kind === 'cancelled') return reached;
    }

    const current = this.options.settings.read();
    const taken = new Set([...this.options.agentNames(), ...entryNames(current)]);
    const name = await ui.askName(uniqueName(defaultRemoteName(url, sandboxAgent), taken), (text) => checkAgentName(text, taken));
    if (name === undefined) return { kind: 'cancelled' };

    const loopback = isLoopbackUrl(url);
    const folders: { local: string; remote: string }[] = [];
    for (const folder of this.options.folders()) {
      const remote = await ui.askMapping(name.trim(), folder, defaultMappingPath(folder.path, loopback), checkMappingPath);
      if (remote === undefined) return { kind: 'cancelled' };
      folders.push({ local: folder.path, remote });
    }

    const entry = buildRemoteAgentEntry({ name, url, ...(sandboxAgent !== undefined ? { sandboxAgent } : {}), allowInsecure, folders });
    if (entry instanceof Error) return this.fail(ui, entry.message);
    const next = withRemoteAgentEntry(current, entry);
    if (next instanceof Error) return this.fail(ui, next.message);
    // The token first: an agent that starts as soon as the setting changes finds it.
    if (newToken) await this.options.secrets.set(url, credentials);
    try {
      await this.options.settings.write(next);
    } catch (error) {
      return this.fail(ui, l10n.t('The agent could not be added to the settings: {0}', errorMessage(error)));
    }
    const notShared = folders.filter((f) => f.remote.trim() === '').length;
    const shared = entry.remote.pathMappings.length;
    const sees =
      shared === 0
        ? l10n.t('It sees the workspace folders at the same paths as this machine.')
        : notShared === 0
          ? shared === 1
            ? l10n.t('It sees the workspace folder at the path you gave.')
            : l10n.t('It sees all {0} workspace folders at the paths you gave.', shared)
          : shared === 1
            ? notShared === 1
              ? l10n.t('It sees 1 workspace folder; 1 is not shared with it.')
              : l10n.t('It sees 1 workspace folder; {0} are not shared with it.', notShared)
            : notShared === 1
              ? l10n.t('It sees {0} workspace folders; 1 is not shared with it.', shared)
              : l10n.t('It sees {0} workspace folders; {1} are not shared with it.', shared, notShared);
    const place = this.options.settings.place();
    ui.added(
      entry.name,
      place.kind === 'remote'
        ? l10n.t('{0} was added to the Remote [{1}] settings (acpWorkspace.agents is a machine setting). {2}', entry.name, place.name, sees)
        : l10n.t('{0} was added to your user settings. {1}', entry.name, sees),
    );
    this.options.logger.info(
      `Added the remote agent "${entry.name}" (${entry.remote.url}${sandboxAgent ? `, Sandbox Agent ${sandboxAgent}` : ''}) to the ${place.kind === 'remote' ? `Remote [${place.name}]` : 'user'} settings.`,
    );
    return { kind: 'added', entry };
  }

  /** Whether anything answers at a WebSocket URL; when nothing does, the user says whether to add it anyway. */
  private async reachable(ui: RemoteAgentUi, url: string): Promise<{ kind: 'done' } | { kind: 'cancelled' }> {
    try {
      await ui.withProgress(l10n.t('Connecting to {0}…', url), (signal) => this.options.reach(url, signal));
      return { kind: 'done' };
    } catch (error) {
      if (isAbort(error)) return { kind: 'cancelled' };
      this.options.logger.info(`${url}: nothing answered (${errorMessage(error)}).`);
      return (await ui.confirmUnreachable(url, errorMessage(error))) ? { kind: 'done' } : { kind: 'cancelled' };
    }
  }

  /**
   * Asks `/v1/health` and `/v1/agents`; on 401/403 asks for a token and tries again. `agents` is undefined when
   * no Sandbox Agent server answers there (the URL is then a plain ACP endpoint).
   */
  private async probe(
    ui: RemoteAgentUi,
    url: string,
    initial: RemoteCredentials,
    allowInsecure: boolean,
  ): Promise<
    | { kind: 'done'; credentials: RemoteCredentials; newToken: boolean; agents: readonly SandboxAgentSummary[] | undefined }
    | { kind: 'cancelled' }
    | { kind: 'failed'; message: string }
  > {
    let credentials = initial;
    let newToken = false;
    for (let attempt = 0; ; attempt++) {
      try {
        const agents = await ui.withProgress(l10n.t('Connecting to {0}…', url), async (signal) => {
          try {
            await this.options.servers.health(url, credentials, allowInsecure, signal);
          } catch (error) {
            if (isAuthError(error) || isAbort(error) || error instanceof ServerUnreachableError) throw error;
            // No Sandbox Agent server there: a plain ACP endpoint (Streamable HTTP) then.
            this.options.logger.info(`${url}: no Sandbox Agent server answered (${errorMessage(error)}); taken as an ACP endpoint.`);
            return undefined;
          }
          return this.options.servers.agents(url, credentials, allowInsecure, signal);
        });
        return { kind: 'done', credentials, newToken, agents };
      } catch (error) {
        if (isAbort(error)) return { kind: 'cancelled' };
        if (error instanceof ServerUnreachableError) {
          // Nothing answered: not known to be a Sandbox Agent server; added as a plain endpoint only if the user says so.
          this.options.logger.info(`${url}: nothing answered (${errorMessage(error)}).`);
          return (await ui.confirmUnreachable(url, errorMessage(error))) ? { kind: 'done', credentials, newToken, agents: undefined } : { kind: 'cancelled' };
        }
        if (!isAuthError(error) || attempt >= 2) return { kind: 'failed', message: errorMessage(error) };
        const token = await ui.askToken(url, refusalOf(error), (text) => (text.trim() === '' ? l10n.t('Enter the token.') : checkToken(text)));
        if (token === undefined) return { kind: 'cancelled' };
        credentials = { ...credentials, token: token.trim() };
        newToken = true;
      }
    }
  }

  /** Installs an agent on the server after the user agreed; never without Workspace Trust. */
  private async install(
    ui: RemoteAgentUi,
    url: string,
    credentials: RemoteCredentials,
    allowInsecure: boolean,
    id: string,
  ): Promise<{ kind: 'done' } | { kind: 'cancelled' } | { kind: 'failed'; message: string }> {
    if (!this.options.isTrusted()) {
      return {
        kind: 'failed',
        message: l10n.t(
          '{0} is not installed on {1}, and installing it is refused in Restricted Mode: it makes the server download and run a program. Trust the workspace, or install it on the server yourself.',
          id,
          url,
        ),
      };
    }
    if (!(await ui.confirmInstall(url, id))) return { kind: 'cancelled' };
    try {
      await ui.withProgress(l10n.t('Installing {0} on {1}…', id, url), (signal) => this.options.servers.install(url, credentials, allowInsecure, id, signal));
      return { kind: 'done' };
    } catch (error) {
      if (isAbort(error)) return { kind: 'cancelled' };
      return { kind: 'failed', message: l10n.t('{0} could not be installed on {1}: {2}', id, url, errorMessage(error)) };
    }
  }

  private fail(ui: RemoteAgentUi, message: string): AddRemoteAgentOutcome {
    ui.error(message);
    return { kind: 'failed', message };
  }
}
