/**
 * Agents that sandbox their own commands, how to recognise them from their command line, and how to turn their
 * own sandbox off for a launch that ACP Workspace confines (`acpWorkspace.sandbox`).
 *
 * Why off, and not theirs inside ours: Codex (codex-acp) runs each command in its own bubblewrap, which has to
 * create mount points and namespaces. Inside our bubblewrap the file system it creates them in is read-only
 * ("bwrap: Can't mkdir /tmp/.git: Read-only file system", exit 1): every command failed. Giving it what it
 * needs would mean a writable `/tmp` and nested namespaces, and our sandbox drops both (capabilities, PID
 * namespace). So when ours confines the agent, its own is turned off and ours alone confines it; the UI says
 * so. When ours is off, nothing is changed: the agent keeps its own sandbox as it is.
 *
 * Each entry was verified with the real agent (docs/interop.md): add one only with a test that runs it.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentCommand } from '../process/command';
import { findProgram } from '../process/programPath';

/** One agent that sandboxes its own commands. */
export interface SelfSandboxingAgent {
  /** The agent in words, for the UI ("Codex"). */
  readonly name: string;
  /** npm packages that run it: an npx spec (`<package>` or `<package>@<version>`) or a path inside the package. */
  readonly packages: readonly string[];
  /** Its ids in the ACP Registry, for a command line that comes from the registry. */
  readonly registryIds: readonly string[];
  /** Variables that start it with its own sandbox off. */
  readonly sandboxOff: Readonly<Record<string, string>>;
}

export const SELF_SANDBOXING_AGENTS: readonly SelfSandboxingAgent[] = [
  {
    // @agentclientprotocol/codex-acp (the TypeScript adapter, 1.0.0 to 2.6.0 checked): every session it opens
    // (new, load, resume, fork) starts in INITIAL_AGENT_MODE; `agent-full-access` is its "Full access" mode, whose
    // sandbox policy is `dangerFullAccess` (no sandbox of its own) and approval policy `never`. Its default is
    // `agent` (Auto review: workspace-write in its own bubblewrap). Not @zed-industries/codex-acp (unverified).
    name: 'Codex',
    packages: ['@agentclientprotocol/codex-acp'],
    registryIds: ['codex-acp'],
    sandboxOff: { INITIAL_AGENT_MODE: 'agent-full-access' },
  },
];

/** What a confined launch changes about an agent that sandboxes itself. */
export interface OwnSandboxOff {
  readonly agent: SelfSandboxingAgent;
  /** Variables to set for this launch (empty when the agent's entry already sets them so). */
  readonly env: Readonly<Record<string, string>>;
}

export interface RecogniseOptions {
  /** The ACP Registry id, when the command line comes from the registry. */
  readonly registryId?: string;
  /** The real path of the program a command names (default: looked up on PATH, symlinks resolved). */
  readonly programPath?: (command: string) => string | undefined;
}

/** Forward slashes, so one pattern fits every platform's paths. */
function slashed(p: string): string {
  return p.replace(/\\/g, '/');
}

function namesPackage(part: string, pkg: string): boolean {
  const value = part.replace(/^--package=/, '');
  if (value === pkg || (value.startsWith(`${pkg}@`) && !value.slice(pkg.length + 1).includes('/'))) return true;
  return slashed(part).includes(`/${pkg}/`);
}

/**
 * The self-sandboxing agent this command line runs, if any: its registry id, a package named on the command
 * line (npx spec, or a path inside it), or a program that is a link into the package (a global npm install).
 */
export function recogniseSelfSandboxing(command: Pick<AgentCommand, 'command' | 'args'>, options: RecogniseOptions = {}): SelfSandboxingAgent | undefined {
  const programPath = options.programPath ?? ((program: string) => realProgram(program, process.env));
  return SELF_SANDBOXING_AGENTS.find((agent) => {
    if (options.registryId !== undefined && agent.registryIds.includes(options.registryId)) return true;
    const parts = [command.command, ...command.args];
    if (agent.packages.some((pkg) => parts.some((part) => namesPackage(part, pkg)))) return true;
    const program = programPath(command.command);
    return program !== undefined && agent.packages.some((pkg) => slashed(program).includes(`/${pkg}/`));
  });
}

/** The program's real path (found on `env`'s PATH, symlinks resolved), undefined when it is not found. */
export function realProgram(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const found = findProgram(command, env);
  if (!found) return undefined;
  try {
    return fs.realpathSync(found);
  } catch {
    return path.resolve(found);
  }
}

/**
 * For a launch that ACP Workspace confines: the variables that turn the agent's own sandbox off, or undefined
 * when it does not sandbox itself, or when its entry decides itself (sets one of those variables to another
 * value, or removes it): the user's choice is left alone.
 */
export function ownSandboxOff(command: AgentCommand, options: RecogniseOptions = {}): OwnSandboxOff | undefined {
  const agent = recogniseSelfSandboxing(command, options);
  if (!agent) return undefined;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(agent.sandboxOff)) {
    if (command.unsetEnv?.includes(name)) return undefined;
    const own = command.env[name];
    if (own === undefined) env[name] = value;
    else if (own !== value) return undefined;
  }
  return { agent, env };
}

/** The UI's words for it: the one-line summary with it added (`summary`: the confinement's), and lines for tooltips. */
export function describeOwnSandboxOff(agentName: string, mode: string, summary: string): { readonly summary: string; readonly detail: readonly string[] } {
  return {
    summary: l10n.t("{0}; {1}'s own sandbox off", summary, agentName),
    detail: [
      l10n.t("{0}'s own sandbox is off: ACP Workspace confines it ({1}).", agentName, mode),
      l10n.t('It starts in its full-access mode: it runs commands without asking; they can write only where listed above, and may use the network.'),
    ],
  };
}
