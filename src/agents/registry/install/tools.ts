/**
 * The programs that `npx` and `uvx` agents need, found on the PATH the agents will be started with, and what
 * to tell the user when one is missing.
 */
import * as l10n from '@vscode/l10n';
import { findProgram, isRegularFile, type IsFile } from '../../../process/programPath';

/** Absolute paths of the tools found; a missing one is undefined. */
export interface PackageTools {
  readonly npx?: string;
  readonly node?: string;
  readonly uvx?: string;
}

/** Looks `npx`, `node` and `uvx` up on `env`'s PATH (PATHEXT on Windows). */
export function findPackageTools(env: NodeJS.ProcessEnv = process.env, isFile: IsFile = isRegularFile, platform: NodeJS.Platform = process.platform): PackageTools {
  const npx = findProgram('npx', env, isFile, platform);
  const node = findProgram('node', env, isFile, platform);
  const uvx = findProgram('uvx', env, isFile, platform);
  return { ...(npx ? { npx } : {}), ...(node ? { node } : {}), ...(uvx ? { uvx } : {}) };
}

/** Why an `npx` agent cannot run here, or undefined when it can. */
export function npxProblem(tools: PackageTools): string | undefined {
  if (tools.npx && tools.node) return undefined;
  return l10n.t('Node.js (node and npx) is not on the PATH: install Node.js 18 or later from https://nodejs.org (or with your package manager), then restart VS Code.');
}

/** Why a `uvx` agent cannot run here, or undefined when it can. */
export function uvxProblem(tools: PackageTools): string | undefined {
  if (tools.uvx) return undefined;
  return l10n.t('uv (uvx) is not on the PATH: install uv as https://docs.astral.sh/uv/getting-started/installation/ describes, then restart VS Code.');
}
