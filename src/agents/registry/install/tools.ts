/**
 * The programs that `npx` and `uvx` agents need, found on the PATH the agents will be started with, and what
 * to tell the user when one is missing.
 */
import { findProgram, isRegularFile, type IsFile } from '../../../process/programPath';

/** Absolute paths of the tools found; a missing one is undefined. */
export interface PackageTools {
  readonly npx?: string;
  readonly node?: string;
  readonly uvx?: string;
}

/** Looks `npx`, `node` and `uvx` up on `env`'s PATH (PATHEXT on Windows). */
export function findPackageTools(
  env: NodeJS.ProcessEnv = process.env,
  isFile: IsFile = isRegularFile,
  platform: NodeJS.Platform = process.platform,
): PackageTools {
  const npx = findProgram('npx', env, isFile, platform);
  const node = findProgram('node', env, isFile, platform);
  const uvx = findProgram('uvx', env, isFile, platform);
  return { ...(npx ? { npx } : {}), ...(node ? { node } : {}), ...(uvx ? { uvx } : {}) };
}
