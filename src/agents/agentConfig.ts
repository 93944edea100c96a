/**
 * Which agents exist: the built-in presets (run from the ACP Registry where it lists them), the agents installed
 * from the registry, and the user's `acpWorkspace.agents` setting, validated with zod (a bad entry is reported
 * and skipped, never a crash), and the command line each one runs.
 */
import * as l10n from '@vscode/l10n';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import type { AgentCommand } from '../process/command';
import { checkPathMappings } from '../acp/pathMapping';
import { formatIssues } from '../common/zodIssues';
import { displayUrl, type RemoteEndpoint, type RemoteKind } from '../acp/transport/remote';
import { OFFICIAL_REGISTRY_URL, type DistributionKind, type InstalledAgent, type PackageDistribution, type RegistryAgent } from './registry/types';

export type { AgentCommand } from '../process/command';

/** Absolute (POSIX, Windows, UNC), or starting with `~` or a `${…}` variable. */
const ABSOLUTE_OR_VARIABLE = /^(\/|~(\/|$)|\$\{|[A-Za-z]:[\\/]|\\\\)/;

/** One configured agent that runs here as a child process, as the user writes it in settings. */
export const AgentSetting = z.object({
  name: z
    .string()
    .trim()
    .min(1, { error: () => l10n.t('name must not be empty') }),
  command: z
    .string()
    .trim()
    .min(1, { error: () => l10n.t('command must not be empty') }),
  args: z.array(z.string()).default([]),
  /** Set over the inherited environment; `null` removes a variable the agent must not inherit. */
  env: z.record(z.string(), z.string().nullable()).default({}),
  /**
   * Where the agent keeps its state, writable when `acpWorkspace.sandbox` confines it: absolute, or starting
   * with `~` or a `${…}` variable (expanded like the other fields, and the XDG folders, see
   * {@link resolveAgentWritablePaths}).
   */
  writablePaths: z
    .array(
      z
        .string()
        .trim()
        .min(1, { error: () => l10n.t('a writable path must not be empty') })
        .refine((p) => ABSOLUTE_OR_VARIABLE.test(p), { error: () => l10n.t('a writable path must be absolute (or start with ~ or {0})', '${…}') }),
    )
    .default([]),
  /** More paths the agent may read when `acpWorkspace.sandbox` is `strict` (what its installation needs); same syntax. */
  readablePaths: z
    .array(
      z
        .string()
        .trim()
        .min(1, { error: () => l10n.t('a readable path must not be empty') })
        .refine((p) => ABSOLUTE_OR_VARIABLE.test(p), { error: () => l10n.t('a readable path must be absolute (or start with ~ or {0})', '${…}') }),
    )
    .optional(),
  /** Confined, the agent may write editor settings (`.vscode`, `.idea`, workspace files) in its folders. */
  writableEditorSettings: z.boolean().optional(),
  /** Which ACP version to offer this agent (overrides `acpWorkspace.protocol`). */
  protocol: z.enum(['auto', 'v1', 'v2']).optional(),
});
export type AgentSetting = z.output<typeof AgentSetting>;

/** A workspace folder and the path the remote agent sees for it (like a debugger's localRoot/remoteRoot). */
export const PathMappingSetting = z.object({
  local: z
    .string()
    .trim()
    .refine((p) => /^(\/|~(\/|$)|[A-Za-z]:[\\/]|\\\\)/.test(p), { error: () => l10n.t("a mapping's local path must be absolute (or start with ~)") }),
  remote: z
    .string()
    .trim()
    .refine((p) => p.startsWith('/'), { error: () => l10n.t("a mapping's remote path must be an absolute POSIX path (starting with /)") }),
});

/** Where a remote agent is and how its folders map. */
export const RemoteSetting = z.strictObject({
  /** `ws(s)://…` (WebSocket), `http(s)://…` (Streamable HTTP), or a Sandbox Agent server's base URL with `sandboxAgent`. */
  url: z
    .string()
    .trim()
    .min(1, { error: () => l10n.t('url must not be empty') })
    .max(2000),
  /** Inferred from the URL (and `sandboxAgent`) when left out. */
  transport: z.enum(['websocket', 'http', 'sandbox-agent']).optional(),
  /** The agent's id on a Sandbox Agent server (`GET /v1/agents`), e.g. `opencode`. */
  sandboxAgent: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, { error: () => l10n.t('sandboxAgent must be an agent id such as "opencode"') })
    .optional(),
  /** Each shared folder and the path the agent sees; none: the agent sees the same paths as this machine. */
  pathMappings: z.array(PathMappingSetting).max(100).default([]),
  /** Plain ws:/http: to a host that is not this machine. */
  allowInsecure: z.boolean().default(false),
  /**
   * The agent may run commands on this machine (`terminal/*`): each asked first, confined to the session's folders
   * whatever `acpWorkspace.sandbox` says (fail closed). Off: the terminal is not offered to it.
   */
  localTerminal: z.boolean().default(false),
});
export type RemoteSetting = z.output<typeof RemoteSetting>;

/** One configured agent that runs elsewhere, reached over the network. */
export const RemoteAgentSetting = z.object({
  name: z
    .string()
    .trim()
    .min(1, { error: () => l10n.t('name must not be empty') }),
  remote: RemoteSetting,
});
export type RemoteAgentSetting = z.output<typeof RemoteAgentSetting>;

/** A remote agent's endpoint and folder mappings, as the runtime uses them. */
export interface RemoteAgentConfig {
  readonly endpoint: RemoteEndpoint;
  /** Local (expanded, `~` resolved) → remote; empty: the agent sees this machine's paths. */
  readonly pathMappings: readonly { readonly local: string; readonly remote: string }[];
}

/** The transport a remote entry uses: as written, else `sandbox-agent` with `sandboxAgent`, else by URL scheme. */
export function remoteKindOf(remote: Pick<RemoteSetting, 'url' | 'transport' | 'sandboxAgent'>): RemoteKind {
  if (remote.transport) return remote.transport;
  if (remote.sandboxAgent !== undefined) return 'sandbox-agent';
  return /^wss?:/i.test(remote.url) ? 'websocket' : 'http';
}

/** The runtime's view of a remote entry (`home` expands a leading `~` in local paths). */
export function remoteAgentConfig(remote: RemoteSetting, home: string): RemoteAgentConfig {
  const kind = remoteKindOf(remote);
  return {
    endpoint: {
      url: remote.url,
      kind,
      ...(remote.sandboxAgent !== undefined ? { sandboxAgent: remote.sandboxAgent } : {}),
      allowInsecure: remote.allowInsecure,
    },
    pathMappings: remote.pathMappings.map((m) => ({ local: m.local === '~' || /^~[\\/]/.test(m.local) ? home + m.local.slice(1) : m.local, remote: m.remote })),
  };
}

/** Where a definition's command line comes from when the ACP Registry gives it. */
export interface RegistryOrigin {
  /** The registry's id of the agent, e.g. `claude-acp`. */
  readonly id: string;
  readonly version: string;
  readonly distribution: DistributionKind;
  /**
   * Installed in the extension's storage (Update and Uninstall apply to it); otherwise the catalog's entry is run
   * as it stands (an npx or uvx package, pinned, fetched by npx or uvx on its first start).
   */
  readonly installed: boolean;
}

/** An agent run here, as a child process. */
export interface LocalAgentDefinition extends AgentSetting {
  readonly remote?: undefined;
  /**
   * Where it came from: a built-in preset (whatever runs it), the user's settings, or an agent installed from the
   * ACP Registry that backs no preset.
   */
  readonly source: 'preset' | 'settings' | 'registry';
  /** One line for pickers. */
  readonly description: string;
  /**
   * Where a preset keeps its own state (logins, settings, sessions), writable when confined; same syntax as
   * {@link AgentSetting.writablePaths}. A user entry that replaces a preset lists its own in `writablePaths`.
   */
  readonly statePaths?: readonly string[];
  /** A preset's id in the ACP Registry, when the registry lists it. */
  readonly registryId?: string;
  /** Set when the command line comes from the ACP Registry (an installed agent, or a preset's catalog entry). */
  readonly registry?: RegistryOrigin;
}

/** An agent reached over the network (only ever from the user's settings). */
export interface RemoteAgentDefinition extends RemoteAgentSetting {
  readonly source: 'settings';
  readonly registry?: undefined;
  readonly registryId?: undefined;
  readonly statePaths?: undefined;
  /** One line for pickers. */
  readonly description: string;
}

export type AgentDefinition = LocalAgentDefinition | RemoteAgentDefinition;

/** Whether the agent runs elsewhere. */
export function isRemoteAgent(definition: AgentDefinition): definition is RemoteAgentDefinition {
  return definition.remote !== undefined;
}

/**
 * Built-in presets: the agents users pick from. The scripted reference agent the tests and the demo run is not
 * one of them; they configure it as an `acpWorkspace.agents` entry (scripts/vscode-web/codeServer.mjs).
 */
export function agentPresets(): readonly LocalAgentDefinition[] {
  return [
    {
      name: 'Claude Code',
      registryId: 'claude-acp',
      command: 'npx',
      args: ['-y', '@agentclientprotocol/claude-agent-acp'],
      env: {},
      writablePaths: [],
      statePaths: ['~/.claude', '~/.claude.json'],
      source: 'preset',
      description: l10n.t('Anthropic Claude Code through claude-agent-acp (npx)'),
    },
    {
      name: 'Codex',
      registryId: 'codex-acp',
      command: 'npx',
      args: ['-y', '@zed-industries/codex-acp'],
      env: {},
      writablePaths: [],
      statePaths: ['~/.codex'],
      source: 'preset',
      description: l10n.t('OpenAI Codex through codex-acp (npx)'),
    },
    {
      name: 'Gemini CLI',
      registryId: 'gemini',
      command: 'npx',
      args: ['-y', '@google/gemini-cli', '--acp'],
      env: {},
      writablePaths: [],
      statePaths: ['~/.gemini'],
      source: 'preset',
      description: l10n.t('Google Gemini CLI in ACP mode (npx)'),
    },
    {
      name: 'opencode',
      registryId: 'opencode',
      command: 'opencode',
      args: ['acp'],
      env: {},
      writablePaths: [],
      statePaths: ['${xdgDataHome}/opencode', '${xdgConfigHome}/opencode', '${xdgCacheHome}/opencode', '${xdgStateHome}/opencode'],
      source: 'preset',
      description: l10n.t('opencode in ACP mode (needs opencode on PATH)'),
    },
  ];
}

/** Registry id → the name of the preset it backs (`claude-acp` → "Claude Code"). */
export function presetsByRegistryId(): ReadonlyMap<string, string> {
  return new Map(agentPresets().flatMap((preset) => (preset.registryId !== undefined ? [[preset.registryId, preset.name] as const] : [])));
}

export interface AgentListResult {
  readonly agents: readonly AgentDefinition[];
  /** One readable line per settings entry that was skipped. */
  readonly problems: readonly string[];
}

/** What the ACP Registry adds to the list: the agents installed from it, and its catalog as known now. */
export interface RegistryAgentsInput {
  readonly installed: readonly InstalledAgent[];
  readonly catalog: readonly RegistryAgent[];
}

const NO_REGISTRY: RegistryAgentsInput = { installed: [], catalog: [] };

/**
 * Presets, then the agents installed from the registry that back no preset, then the user's agents.
 * - A preset keeps its name (session history is keyed by it) and its state paths; its command line comes from
 *   the installed registry agent with its `registryId`, else from the catalog's entry when that runs without a
 *   download (an npx or uvx package with a pinned version), else from the built-in command.
 * - An installed agent that backs no preset is listed under the registry's name (with its id added when a preset
 *   or an earlier agent has that name).
 * - A user entry with the name of a preset or an installed agent replaces it (so either can be re-pointed at a
 *   local install); a later duplicate name in the setting is skipped and reported.
 */
export function resolveAgentList(setting: unknown, registry: RegistryAgentsInput = NO_REGISTRY): AgentListResult {
  const problems: string[] = [];
  const installedById = new Map(registry.installed.map((agent) => [agent.id, agent]));
  const catalogById = new Map(registry.catalog.map((agent) => [agent.id, agent]));
  const byName = new Map<string, AgentDefinition>();
  const backing = new Set<string>();
  for (const preset of agentPresets()) {
    const id = preset.registryId;
    const installed = id === undefined ? undefined : installedById.get(id);
    const listed = id === undefined ? undefined : catalogById.get(id);
    if (id !== undefined) backing.add(id);
    byName.set(preset.name, installed ? presetFromInstalled(preset, installed) : ((listed && presetFromCatalog(preset, listed)) ?? preset));
  }
  for (const agent of [...registry.installed].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))) {
    if (backing.has(agent.id)) continue;
    const name = byName.has(agent.name) ? `${agent.name} (${agent.id})` : agent.name;
    if (byName.has(name)) continue;
    byName.set(name, { ...fromInstalled(agent), name, source: 'registry', description: agent.description });
  }
  const fromSettings = new Set<string>();
  const entries = setting === undefined || setting === null ? [] : Array.isArray(setting) ? setting : undefined;
  if (entries === undefined) {
    problems.push(l10n.t('acpWorkspace.agents must be a list of agents; it was ignored.'));
  } else {
    entries.forEach((entry: unknown, index) => {
      const isRemote = typeof entry === 'object' && entry !== null && 'remote' in entry;
      const parsed = isRemote ? RemoteAgentSetting.strict().safeParse(entry) : AgentSetting.safeParse(entry);
      if (!parsed.success) {
        problems.push(l10n.t('acpWorkspace.agents[{0}] was skipped: {1}', index, formatIssues(parsed.error.issues)));
        return;
      }
      const agent = parsed.data;
      const mappingProblems = 'remote' in agent ? checkPathMappings(remoteAgentConfig(agent.remote, os.homedir()).pathMappings) : [];
      if (mappingProblems.length > 0) {
        problems.push(l10n.t('acpWorkspace.agents[{0}] was skipped: {1}', index, mappingProblems.join(' ')));
        return;
      }
      if (fromSettings.has(agent.name)) {
        problems.push(l10n.t('acpWorkspace.agents[{0}] was skipped: another agent is already named "{1}".', index, agent.name));
        return;
      }
      fromSettings.add(agent.name);
      byName.set(
        agent.name,
        'remote' in agent
          ? { ...agent, source: 'settings', description: remoteDescription(agent.remote) }
          : { ...agent, source: 'settings', description: [agent.command, ...agent.args].join(' ') },
      );
    });
  }
  return { agents: [...byName.values()], problems };
}

/** One line for a remote agent: where it is (never a secret: the URL's query is left out). */
function remoteDescription(remote: RemoteSetting): string {
  const kind = remoteKindOf(remote);
  const where = displayUrl(remote.url);
  switch (kind) {
    case 'sandbox-agent':
      return l10n.t('{0} on the Sandbox Agent server {1}', remote.sandboxAgent ?? '?', where);
    case 'websocket':
      return l10n.t('Remote agent at {0} (WebSocket)', where);
    case 'http':
      return l10n.t('Remote agent at {0} (HTTP)', where);
  }
}

/** The command line, env and origin of an installed registry agent. */
function fromInstalled(agent: InstalledAgent): Pick<LocalAgentDefinition, 'command' | 'args' | 'env' | 'writablePaths' | 'registry'> {
  return {
    command: agent.command,
    args: [...agent.args],
    env: { ...agent.env },
    writablePaths: [],
    registry: { id: agent.id, version: agent.version, distribution: agent.distribution, installed: true },
  };
}

function presetFromInstalled(preset: LocalAgentDefinition, agent: InstalledAgent): LocalAgentDefinition {
  return { ...preset, ...fromInstalled(agent), description: registryDescription(agent.name, agent.version, agent.distribution) };
}

/** The preset run from its catalog entry, when that needs no download of ours (npx first, then uvx), pinned. */
function presetFromCatalog(preset: LocalAgentDefinition, agent: RegistryAgent): LocalAgentDefinition | undefined {
  for (const kind of ['npx', 'uvx'] as const) {
    const distribution = agent.distribution[kind];
    if (!distribution || !isPinned(kind, distribution.package)) continue;
    const { command, args } = packageCommandLine(kind, distribution);
    return {
      ...preset,
      command,
      args,
      env: { ...distribution.env },
      registry: { id: agent.id, version: agent.version, distribution: kind, installed: false },
      description: registryDescription(agent.name, agent.version, kind),
    };
  }
  return undefined;
}

function registryDescription(name: string, version: string, kind: DistributionKind): string {
  return l10n.t('{0} {1} from the ACP Registry ({2})', name, version, kind);
}

/**
 * The command line that runs a registry package: `npx --yes <package> [args]` (`--package <package> <cmd>` when
 * the entry names a command), `uvx <package> [args]` (`--from <package> <cmd>`).
 */
export function packageCommandLine(kind: 'npx' | 'uvx', distribution: PackageDistribution): { command: string; args: string[] } {
  const { package: pkg, cmd, args } = distribution;
  switch (kind) {
    case 'npx':
      return { command: 'npx', args: cmd ? ['--yes', '--package', pkg, cmd, ...args] : ['--yes', pkg, ...args] };
    case 'uvx':
      return { command: 'uvx', args: cmd ? ['--from', pkg, cmd, ...args] : [pkg, ...args] };
  }
}

/** Whether a package names its version: `name@1.2.3`, `@scope/name@1.2.3`; `name==1.2.3`, `name@1.2.3` for uvx. */
export function isPinned(kind: 'npx' | 'uvx', pkg: string): boolean {
  switch (kind) {
    case 'npx':
      return /^(@[^/@\s]+\/)?[^/@\s]+@[^@\s]+$/.test(pkg);
    case 'uvx':
      return /^[^=@\s]+(==|@)[^=@\s]+$/.test(pkg);
  }
}

/**
 * The registry URL a value of `acpWorkspace.registry.url` stands for: trimmed; the official index when it is not a
 * string; empty (no registry) when the user emptied it.
 */
export function registryUrlFromSetting(value: unknown): string {
  return typeof value === 'string' ? value.trim() : OFFICIAL_REGISTRY_URL;
}

/** Values for the `${…}` variables agent commands may use. */
export interface CommandVariables {
  /** Absolute path of the Node runtime to use for `${node}`. */
  readonly node: string;
  readonly extensionPath: string;
  readonly globalStorage: string;
  /** Environment variables the Node runtime needs, e.g. `ELECTRON_RUN_AS_NODE=1` inside Electron. */
  readonly nodeEnv?: Readonly<Record<string, string>>;
}

/**
 * The paths an agent must be able to write besides its folders, expanded: the preset's state folders and the
 * entry's `writablePaths`; and the entry's `readablePaths`. `${…}` as in {@link resolveAgentCommand}; as the
 * agent itself would see them, in its environment (its entry's `env` over `parentEnv`): a leading `~` is its
 * `HOME` (else `home`), and `${xdgDataHome}`, `${xdgConfigHome}`, `${xdgCacheHome}`, `${xdgStateHome}` are
 * `XDG_DATA_HOME` … when set to an absolute path, else their defaults under that home (`~/.local/share`,
 * `~/.config`, `~/.cache`, `~/.local/state`), as the XDG Base Directory specification says. Paths that use an
 * unset `${env:…}` or are not absolute once expanded are left out and returned in `ignored`.
 */
export function resolveAgentWritablePaths(
  agent: Pick<LocalAgentDefinition, 'writablePaths' | 'statePaths' | 'readablePaths'> & { readonly env?: LocalAgentDefinition['env'] },
  variables: CommandVariables,
  parentEnv: NodeJS.ProcessEnv,
  home: string,
): { readonly paths: string[]; readonly readable: string[]; readonly ignored: string[] } {
  const env: NodeJS.ProcessEnv = { ...parentEnv };
  for (const [name, value] of Object.entries(agent.env ?? {})) {
    if (value === null) delete env[name];
    else env[name] = expandVariables(value, variables, parentEnv);
  }
  const agentHome = env['HOME'] && path.isAbsolute(env['HOME']) ? env['HOME'] : home;
  const ignored: string[] = [];
  const expand = (list: readonly string[]): string[] => {
    const paths: string[] = [];
    for (const raw of list) {
      // An unset variable would leave a different, wider path (`${env:X}/state` → `/state`): left out.
      const unset = [...raw.matchAll(VARIABLE)].some((m) => m[2] !== undefined && !env[m[2]]);
      let text = expandVariables(
        raw.replace(XDG_VARIABLE, (_match, name: keyof typeof XDG) => xdgFolder(name, env, agentHome)),
        variables,
        env,
      );
      if (text === '~' || text.startsWith('~/') || text.startsWith('~\\')) text = agentHome + text.slice(1);
      if (!unset && /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(text)) {
        if (!paths.includes(text)) paths.push(text);
      } else ignored.push(raw);
    }
    return paths;
  };
  const paths = expand([...(agent.statePaths ?? []), ...agent.writablePaths]);
  const readable = expand(agent.readablePaths ?? []);
  return { paths, readable, ignored };
}

/** The XDG base directories: their variable and their default under the home folder. */
const XDG = {
  xdgDataHome: ['XDG_DATA_HOME', '.local/share'],
  xdgConfigHome: ['XDG_CONFIG_HOME', '.config'],
  xdgCacheHome: ['XDG_CACHE_HOME', '.cache'],
  xdgStateHome: ['XDG_STATE_HOME', '.local/state'],
} as const;

const XDG_VARIABLE = /\$\{(xdgDataHome|xdgConfigHome|xdgCacheHome|xdgStateHome)\}/g;

/** An XDG base directory as a program started with `env` uses it (a relative value is invalid and ignored). */
function xdgFolder(name: keyof typeof XDG, env: NodeJS.ProcessEnv, home: string): string {
  const [variable, fallback] = XDG[name];
  const value = env[variable];
  return value && path.isAbsolute(value) ? value.replace(/\/+$/, '') || '/' : path.join(home, fallback);
}

function expandVariables(text: string, variables: CommandVariables, parentEnv: NodeJS.ProcessEnv): string {
  return text.replace(VARIABLE, (_match, name: string, envName: string | undefined) => {
    if (envName !== undefined) return parentEnv[envName] ?? '';
    return variables[name as 'node' | 'extensionPath' | 'globalStorage'];
  });
}

const VARIABLE = /\$\{(node|extensionPath|globalStorage|env:([A-Za-z_][A-Za-z0-9_]*))\}/g;

/** Expands `${node}`, `${extensionPath}`, `${globalStorage}` and `${env:NAME}` in command, args and env. */
export function resolveAgentCommand(agent: Omit<AgentSetting, 'writablePaths'>, variables: CommandVariables, parentEnv: NodeJS.ProcessEnv): AgentCommand {
  const expand = (text: string) => expandVariables(text, variables, parentEnv);
  const usesNode = agent.command === '${node}';
  const env: Record<string, string> = usesNode ? { ...variables.nodeEnv } : {};
  const unsetEnv: string[] = [];
  for (const [key, value] of Object.entries(agent.env)) {
    if (value === null) {
      unsetEnv.push(key);
      delete env[key];
    } else env[key] = expand(value);
  }
  return { name: agent.name, command: expand(agent.command), args: agent.args.map(expand), env, ...(unsetEnv.length > 0 ? { unsetEnv } : {}) };
}
