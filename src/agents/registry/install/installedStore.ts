/**
 * `installed.json`: the registry agents installed in the extension's global storage. Read back with zod (a
 * file that does not validate is reported, treated as empty and kept aside, never deleted); written
 * atomically (a temporary file renamed over it), so a crash leaves the old or the new list, never half of one.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { z } from 'zod';
import { installedCommandProblem, refusedVariables } from '../packageSpec';
import type { InstalledAgent } from '../types';

/** Larger than any real list (a record is a few hundred bytes); a bigger file is not read. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

const installedAgentSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/),
  name: z.string().max(500),
  version: z.string().max(200),
  description: z.string().max(10_000),
  distribution: z.enum(['binary', 'npx', 'uvx']),
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(32_768)).max(1000),
  env: z.record(z.string(), z.string().max(32_768)),
  dir: z.string().max(4096).optional(),
  installedAt: z.number().int().nonnegative(),
  registryUrl: z.string().max(4096),
});

const fileSchema = z.object({
  version: z.literal(1),
  agents: z.array(installedAgentSchema).max(10_000),
});

export interface InstalledList {
  readonly agents: readonly InstalledAgent[];
  /** Why the file could not be read (then `agents` is empty). */
  readonly problem?: string;
  /**
   * Records left out because they would run something else than their package or set a variable a registry may
   * not set (written before those rules, or by hand), each in words. They are dropped when the list is next
   * written, and their folders with the next clean-up.
   */
  readonly refused?: readonly string[];
}

/** Why an installed record is not run, in words; undefined when it may be (the rules of packageSpec.ts). */
export function installedRecordProblem(agent: InstalledAgent): string | undefined {
  if (agent.distribution !== 'binary') {
    if (agent.command !== agent.distribution) return l10n.t('its command is {0}, not {1}', agent.command, agent.distribution);
    const problem = installedCommandProblem(agent.distribution, agent.args);
    if (problem !== undefined) return problem;
  }
  const variables = refusedVariables(agent.env);
  return variables.length > 0 ? variables.join('; ') : undefined;
}

/** Reads `file`; a missing file is an empty list. */
export function readInstalled(file: string): InstalledList {
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_FILE_BYTES) return { agents: [], problem: l10n.t('{0} is larger than {1} MB and was not read.', file, MAX_FILE_BYTES / (1024 * 1024)) };
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { agents: [] };
    return { agents: [], problem: l10n.t('{0} could not be read: {1}', file, (error as Error).message) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { agents: [], problem: l10n.t('{0} is not valid JSON: {1}', file, (error as Error).message) };
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) return { agents: [], problem: l10n.t('{0} does not hold a list of installed agents: {1}', file, z.prettifyError(parsed.error)) };
  const seen = new Set<string>();
  // One record per agent: the last one written wins (a list written by hand may repeat one).
  const unique = parsed.data.agents
    .reverse()
    .filter((agent) => !seen.has(agent.id) && seen.add(agent.id))
    .reverse();
  const agents: InstalledAgent[] = [];
  const refused: string[] = [];
  for (const agent of unique) {
    const problem = installedRecordProblem(agent);
    if (problem === undefined) agents.push(agent);
    else
      refused.push(
        l10n.t('Installed registry agent {0} ({1} {2}) is not run: {3}. Install it again from Add Agent.', agent.name, agent.id, agent.version, problem),
      );
  }
  return refused.length > 0 ? { agents, refused } : { agents };
}

/** Writes the list atomically; a file that could not be read before is first kept as `<file>.unreadable`. */
export async function writeInstalled(file: string, agents: readonly InstalledAgent[], keepUnreadable: boolean): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  if (keepUnreadable) await fs.promises.copyFile(file, `${file}.unreadable`).catch(() => undefined);
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.promises.writeFile(temporary, `${JSON.stringify({ version: 1, agents }, null, 2)}\n`, { mode: 0o600 });
    await fs.promises.rename(temporary, file);
  } catch (error) {
    await fs.promises.rm(temporary, { force: true });
    throw error;
  }
}
