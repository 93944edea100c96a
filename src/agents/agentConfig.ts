/**
 * Which agents exist: the built-in presets plus the user's `acpWorkspace.agents` setting, validated
 * with zod (a bad entry is reported and skipped, never a crash), and the command line each one runs.
 */
import * as l10n from '@vscode/l10n';
import * as z from 'zod';
import type { AgentCommand } from '../process/command';
import { formatIssues } from '../acp/schema';

export type { AgentCommand } from '../process/command';

/** One configured agent, as the user writes it in settings. */
export const AgentSetting = z.object({
  name: z.string().trim().min(1, { error: () => l10n.t('name must not be empty') }),
  command: z.string().trim().min(1, { error: () => l10n.t('command must not be empty') }),
  args: z.array(z.string()).default([]),
  /** Set over the inherited environment; `null` removes a variable the agent must not inherit. */
  env: z.record(z.string(), z.string().nullable()).default({}),
  /**
   * Where the agent keeps its state, writable when `acpWorkspace.sandbox` confines it: absolute, or starting
   * with `~` or a `${…}` variable (expanded like the other fields).
   */
  writablePaths: z
    .array(
      z
        .string()
        .trim()
        .min(1, { error: () => l10n.t('a writable path must not be empty') })
        .refine((p) => /^(\/|~(\/|$)|\$\{|[A-Za-z]:[\\/]|\\\\)/.test(p), { error: () => l10n.t('a writable path must be absolute (or start with ~ or {0})', '${…}') }),
    )
    .default([]),
});
export type AgentSetting = z.output<typeof AgentSetting>;

export interface AgentDefinition extends AgentSetting {
  /** Where it came from: a built-in preset or the user's settings. */
  readonly source: 'preset' | 'settings';
  /** One line for pickers. */
  readonly description: string;
  /**
   * Where a preset keeps its own state (logins, settings, sessions), writable when confined; same syntax as
   * {@link AgentSetting.writablePaths}. A user entry that replaces a preset lists its own in `writablePaths`.
   */
  readonly statePaths?: readonly string[];
}

/**
 * Built-in presets: the agents users pick from. The scripted reference agent the tests and the demo run is not
 * one of them; they configure it as an `acpWorkspace.agents` entry (scripts/vscode-web/codeServer.mjs).
 */
export function agentPresets(): readonly AgentDefinition[] {
  return [
    {
      name: 'Claude Code',
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
      command: 'opencode',
      args: ['acp'],
      env: {},
      writablePaths: [],
      statePaths: ['~/.local/share/opencode', '~/.config/opencode', '~/.cache/opencode', '~/.local/state/opencode'],
      source: 'preset',
      description: l10n.t('opencode in ACP mode (needs opencode on PATH)'),
    },
  ];
}

export interface AgentListResult {
  readonly agents: readonly AgentDefinition[];
  /** One readable line per settings entry that was skipped. */
  readonly problems: readonly string[];
}

/**
 * Presets followed by the user's agents. A user entry with a preset's name replaces that preset (so a
 * preset can be re-pointed at a local install); a later duplicate name is skipped and reported.
 */
export function resolveAgentList(setting: unknown): AgentListResult {
  const problems: string[] = [];
  const byName = new Map<string, AgentDefinition>(agentPresets().map((preset) => [preset.name, preset]));
  const fromSettings = new Set<string>();
  const entries = setting === undefined || setting === null ? [] : Array.isArray(setting) ? setting : undefined;
  if (entries === undefined) {
    problems.push(l10n.t('acpWorkspace.agents must be a list of agents; it was ignored.'));
  } else {
    entries.forEach((entry: unknown, index) => {
      const parsed = AgentSetting.safeParse(entry);
      if (!parsed.success) {
        problems.push(l10n.t('acpWorkspace.agents[{0}] was skipped: {1}', index, formatIssues(parsed.error.issues)));
        return;
      }
      const agent = parsed.data;
      if (fromSettings.has(agent.name)) {
        problems.push(l10n.t('acpWorkspace.agents[{0}] was skipped: another agent is already named "{1}".', index, agent.name));
        return;
      }
      fromSettings.add(agent.name);
      byName.set(agent.name, { ...agent, source: 'settings', description: [agent.command, ...agent.args].join(' ') });
    });
  }
  return { agents: [...byName.values()], problems };
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
 * entry's `writablePaths` (`${…}` as in {@link resolveAgentCommand}, a leading `~` is `home`). Paths that use
 * an unset `${env:…}` or are not absolute once expanded are left out and returned in `ignored`.
 */
export function resolveAgentWritablePaths(
  agent: Pick<AgentDefinition, 'writablePaths' | 'statePaths'>,
  variables: CommandVariables,
  parentEnv: NodeJS.ProcessEnv,
  home: string,
): { readonly paths: string[]; readonly ignored: string[] } {
  const paths: string[] = [];
  const ignored: string[] = [];
  for (const raw of [...(agent.statePaths ?? []), ...agent.writablePaths]) {
    // An unset variable would leave a different, wider path (`${env:X}/state` → `/state`): left out.
    const unset = [...raw.matchAll(VARIABLE)].some((m) => m[2] !== undefined && !parentEnv[m[2]]);
    let text = expandVariables(raw, variables, parentEnv);
    if (text === '~' || text.startsWith('~/') || text.startsWith('~\\')) text = home + text.slice(1);
    if (!unset && /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(text)) {
      if (!paths.includes(text)) paths.push(text);
    } else ignored.push(raw);
  }
  return { paths, ignored };
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
