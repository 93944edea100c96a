/**
 * Where a program named on a command line is found: as given when it has a directory part, else the first
 * match on PATH (with PATHEXT's extensions on Windows). One PATH walk for everyone who asks.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { envValue } from './environment';

/** Whether a path is a regular file (replaceable in tests). */
export type IsFile = (p: string) => boolean;

/** `fs.statSync(p).isFile()`, false when it cannot be read. */
export const isRegularFile: IsFile = (p) => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * The program's absolute path: `command` resolved when it has a directory part, else the first file named
 * `command` (Windows: `command` plus each PATHEXT extension, `.EXE;.CMD;.BAT` when unset) in a PATH folder;
 * undefined when there is none.
 */
export function findProgram(
  command: string,
  env: NodeJS.ProcessEnv,
  isFile: IsFile = isRegularFile,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (command.includes('/') || command.includes('\\')) return path.resolve(command);
  const exts = platform === 'win32' ? ['', ...(envValue(env, 'PATHEXT', platform) ?? '.EXE;.CMD;.BAT').split(';').filter((ext) => ext !== '')] : [''];
  const delimiter = platform === 'win32' ? ';' : ':';
  for (const dir of (envValue(env, 'PATH', platform) ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, command + ext);
      if (isFile(candidate)) return candidate;
    }
  }
  return undefined;
}
