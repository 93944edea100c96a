/** Git and process helpers for tests that attack a confined agent and then look at what is left. */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

/** A git that reads no user or system configuration and commits as a fixed test author. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

/** Runs git in `cwd` with {@link GIT_ENV}; its exit status. */
export function git(cwd: string, ...args: string[]): number | null {
  return spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', timeout: 15_000 }).status;
}

/** Processes whose command line holds `marker` (Linux /proc), zombies apart. */
export function withMarker(marker: string): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) return [];
      return /^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${entry}/stat`, 'utf8')) ? [] : [Number(entry)];
    } catch {
      return [];
    }
  });
}
