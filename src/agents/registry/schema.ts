/**
 * The ACP Registry's document (`registry.json`) and its entries, validated with zod where they arrive: the rules
 * of the registry's `agent.schema.json` and `FORMAT.md`, with bounds on every size. One bad entry (or one bad
 * platform of a `binary` distribution) is skipped and reported in one readable line; it never fails the catalog.
 * Fields this extension does not use (`preview`, `extensions`, whatever the registry adds later) are ignored.
 */
import * as l10n from '@vscode/l10n';
import * as z from 'zod';
import { commandProblem, packageProblem, refusedVariables, type PackageTool } from './packageSpec';
import { PLATFORM_KEYS, type BinaryTarget, type PackageDistribution, type PlatformKey, type RegistryAgent } from './types';

/** More agents than this are not read (the official registry lists a few dozen). */
export const MAX_AGENTS = 5_000;
export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 2_000;
export const MAX_URL_LENGTH = 2_048;
export const MAX_ARGS = 64;
const MAX_TEXT = 1_024;
const MAX_ENV = 64;

const text = (max = MAX_TEXT) => z.string().max(max, { error: () => l10n.t('longer than {0} characters', max) });

/** Absolute http(s); which of them are actually fetched is `checkFetchUrl`'s decision, at fetch time. */
const Url = z
  .string()
  .max(MAX_URL_LENGTH, { error: () => l10n.t('longer than {0} characters', MAX_URL_LENGTH) })
  .refine(isAbsoluteHttpUrl, { error: () => l10n.t('must be an absolute http(s) URL') });

const Args = z
  .array(text())
  .max(MAX_ARGS, { error: () => l10n.t('more than {0} arguments', MAX_ARGS) })
  .default([]);
/**
 * Variables that decide which code a program loads (the dynamic loader, Node, Python, shells): a registry entry
 * has no business setting them, and one that does is refused rather than run with them.
 */
const LOADER_VARIABLES = /^(PATH|LD_.+|DYLD_.+|NODE_OPTIONS|NODE_PATH|PYTHON(PATH|HOME|STARTUP)|BASH_ENV|ENV|PERL5(LIB|OPT)|RUBYOPT|RUBYLIB)$/i;

const Env = z
  .record(text(256), text())
  .refine((env) => Object.keys(env).length <= MAX_ENV, { error: () => l10n.t('more than {0} variables', MAX_ENV) })
  .refine((env) => !Object.keys(env).some((name) => LOADER_VARIABLES.test(name)), {
    error: (issue) =>
      l10n.t(
        'sets {0}, which decides what code a program loads: not accepted from a registry',
        Object.keys(issue.input as Record<string, string>)
          .filter((name) => LOADER_VARIABLES.test(name))
          .join(', '),
      ),
  })
  // Package manager configuration, git's commands, proxies and trusted certificates (packageSpec.ts says why).
  .superRefine((env, context) => {
    for (const message of refusedVariables(env)) context.addIssue({ code: 'custom', message });
  })
  .default({});

/** One platform's download. `cmd` must name a file inside the extracted archive. */
export const BinaryTargetSchema = z.object({
  archive: Url,
  cmd: text()
    .min(1, { error: () => l10n.t('must not be empty') })
    .refine(staysInsideArchive, { error: () => l10n.t('must be a relative path inside the archive (no absolute path, no ".." segment)') }),
  args: Args,
  env: Env,
  sha256: z
    .string()
    .regex(/^[a-fA-F0-9]{64}$/, { error: () => l10n.t('must be 64 hexadecimal digits') })
    .transform((hex) => hex.toLowerCase())
    .optional(),
});

/**
 * An `npx` or `uvx` package: `package` is a name of its index with an exact version, `cmd` one of its commands;
 * nothing that the tool would read as its own option or as code from elsewhere (see packageSpec.ts).
 */
export function packageDistributionSchema(tool: PackageTool) {
  return z.object({
    package: text(512)
      .trim()
      .min(1, { error: () => l10n.t('must not be empty'), abort: true })
      .superRefine((spec, context) => {
        const problem = packageProblem(tool, spec);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      }),
    cmd: text(256)
      .min(1, { error: () => l10n.t('must not be empty'), abort: true })
      .superRefine((cmd, context) => {
        const problem = commandProblem(tool, cmd);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    args: Args,
    env: Env,
  });
}

const NpxDistributionSchema = packageDistributionSchema('npx');
const UvxDistributionSchema = packageDistributionSchema('uvx');

/** An entry without its `binary` platforms, which are parsed one by one (see {@link parseAgent}). */
const AgentFields = z.object({
  id: z
    .string()
    .max(MAX_NAME_LENGTH, { error: () => l10n.t('longer than {0} characters', MAX_NAME_LENGTH) })
    .regex(/^[a-z][a-z0-9-]*$/, { error: () => l10n.t('must be lower-case letters, digits and hyphens, starting with a letter') }),
  name: text(MAX_NAME_LENGTH)
    .trim()
    .min(1, { error: () => l10n.t('must not be empty') }),
  version: text(128).regex(/^[0-9]+\.[0-9]+\.[0-9]+/, { error: () => l10n.t('must be a version such as 1.2.3') }),
  description: text(MAX_DESCRIPTION_LENGTH),
  repository: Url.optional(),
  website: Url.optional(),
  authors: z
    .array(text(MAX_NAME_LENGTH))
    .max(MAX_ARGS, { error: () => l10n.t('more than {0} authors', MAX_ARGS) })
    .default([]),
  license: text(MAX_NAME_LENGTH).optional(),
  license_url: Url.optional(),
  // A registry's own `agent.json` says "./icon.svg" (its build makes it a URL): an agent is not lost for its icon.
  icon: Url.optional().catch(undefined),
  distribution: z.object({
    binary: z.record(z.string(), z.unknown()).optional(),
    // Parsed on their own (see parseAgent): a refused package leaves out that distribution, not the agent.
    npx: z.unknown().optional(),
    uvx: z.unknown().optional(),
  }),
});

/** What reading a registry document gives: the agents that passed, and one line per thing left out. */
export interface ParsedRegistry {
  readonly agents: RegistryAgent[];
  readonly problems: string[];
}

/**
 * Reads a registry document (`JSON.parse`d). Throws an Error in words when it is not one at all (not an object
 * with an `agents` array); otherwise never throws: each entry is parsed on its own, a bad one skipped with one
 * line in `problems`, a duplicate id after the first skipped too, a bad `binary` platform left out of its entry.
 */
export function parseRegistry(json: unknown, url: string): ParsedRegistry {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(l10n.t('{0} is not an ACP registry: the document is not a JSON object.', url));
  const list = (json as { agents?: unknown }).agents;
  if (!Array.isArray(list)) throw new Error(l10n.t('{0} is not an ACP registry: it has no "agents" list.', url));
  const agents: RegistryAgent[] = [];
  const problems: string[] = [];
  const firstIndexOf = new Map<string, number>();
  const count = Math.min(list.length, MAX_AGENTS);
  for (let index = 0; index < count; index++) {
    const result = parseAgent(list[index]);
    const label = labelOf(index, list[index]);
    for (const note of result.notes) problems.push(l10n.t('{0}: {1}', label, note));
    if (result.agent === undefined) {
      problems.push(l10n.t('{0} was skipped: {1}', label, result.error));
      continue;
    }
    const first = firstIndexOf.get(result.agent.id);
    if (first !== undefined) {
      problems.push(l10n.t('{0} was skipped: the id "{1}" is already used by agents[{2}].', label, result.agent.id, first));
      continue;
    }
    firstIndexOf.set(result.agent.id, index);
    agents.push(result.agent);
  }
  if (list.length > MAX_AGENTS) problems.push(l10n.t('Only the first {0} of {1} agents were read.', MAX_AGENTS, list.length));
  return { agents, problems };
}

/** One entry: the agent, or why not; `notes` name the platforms left out of an agent that is kept. */
export type ParsedAgent = { agent: RegistryAgent; notes: string[]; error?: undefined } | { agent?: undefined; notes: string[]; error: string };

/** Parses one registry entry (see {@link parseRegistry}). */
export function parseAgent(entry: unknown): ParsedAgent {
  const fields = AgentFields.safeParse(entry);
  if (!fields.success) return { error: issuesAt([], fields.error.issues), notes: [] };
  const { license_url, distribution, ...rest } = fields.data;
  const notes: string[] = [];
  let binary: Partial<Record<PlatformKey, BinaryTarget>> | undefined;
  const targetErrors: string[] = [];
  for (const [platform, value] of Object.entries(distribution.binary ?? {})) {
    // Platforms this version does not know (a future `linux-riscv64`) are not errors, only of no use here.
    if (!isPlatformKey(platform)) continue;
    const target = BinaryTargetSchema.safeParse(value);
    if (target.success) (binary ??= {})[platform] = target.data;
    else targetErrors.push(issuesAt(['distribution', 'binary', platform], target.error.issues));
  }
  const npx = parsePackage(NpxDistributionSchema, distribution.npx, 'npx', targetErrors);
  const uvx = parsePackage(UvxDistributionSchema, distribution.uvx, 'uvx', targetErrors);
  if (!binary && !npx && !uvx) {
    const why = targetErrors.length > 0 ? targetErrors.join('; ') : l10n.t('distribution: no binary, npx or uvx distribution');
    return { error: why, notes: [] };
  }
  for (const error of targetErrors) notes.push(l10n.t('left out {0}', error));
  const agent: RegistryAgent = {
    ...rest,
    ...(license_url !== undefined ? { licenseUrl: license_url } : {}),
    distribution: { ...(binary ? { binary } : {}), ...(npx ? { npx } : {}), ...(uvx ? { uvx } : {}) },
  };
  return { agent: withoutUndefined(agent), notes };
}

/** One package distribution, or undefined (absent, or refused: then why is added to `errors`). */
function parsePackage(schema: typeof NpxDistributionSchema, value: unknown, tool: PackageTool, errors: string[]): PackageDistribution | undefined {
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  errors.push(issuesAt(['distribution', tool], parsed.error.issues));
  return undefined;
}

/** `cmd` of a binary target: relative, no `..` segment, `/` or `\` as separators (Windows entries use both). */
export function staysInsideArchive(cmd: string): boolean {
  if (cmd.includes('\0')) return false;
  if (/^[/\\]/.test(cmd) || /^[A-Za-z]:/.test(cmd)) return false;
  return cmd.split(/[/\\]/).every((segment) => segment !== '..');
}

/** zod's issues as `a.b.c: message` lines, under `prefix` (the place the parsed value sits in the entry). */
function issuesAt(prefix: readonly string[], issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const where = [...prefix, ...issue.path.map(String)].join('.');
      return where ? `${where}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function isPlatformKey(key: string): key is PlatformKey {
  return (PLATFORM_KEYS as readonly string[]).includes(key);
}

function labelOf(index: number, entry: unknown): string {
  const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id.length > 0 ? `agents[${index}] ("${id.length > 60 ? `${id.slice(0, 60)}…` : id}")` : `agents[${index}]`;
}

/** Optional fields stay absent rather than `undefined`, so a catalog compares and serializes cleanly. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
