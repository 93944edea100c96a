/**
 * Which confinement mechanism this machine has, checked before anything confined is started (fail closed):
 *
 * - Linux: `bwrap` on the PATH, util-linux's `setsid`, and a probe run of the whole recipe (the namespaces,
 *   no capabilities, the supervisor starting `/bin/true`; a few seconds at most): bwrap can be installed but
 *   useless when unprivileged user namespaces are disabled (Ubuntu 24.04's AppArmor restriction,
 *   `kernel.unprivileged_userns_clone=0`, a container without them). The probe's stderr is the reason given.
 * - macOS: `/usr/bin/sandbox-exec`.
 * - Windows and the rest: nothing ACP Workspace can use.
 *
 * A mechanism found is remembered per platform and PATH; a failure is not (installing bwrap and trying again
 * works without a reload).
 */
import * as l10n from '@vscode/l10n';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { envValue } from '../environment';
import { Bubblewrap, findSetsid, NAMESPACE_ARGS, setsidMissing, SUPERVISOR } from './bubblewrap';
import { programPaths } from './paths';
import { SANDBOX_EXEC, Seatbelt } from './seatbelt';
import { ConfinementUnavailableError, type Confiner } from './types';

const PROBE_TIMEOUT_MS = 5000;

const found = new Map<string, Promise<Confiner>>();

/**
 * The mechanism to confine agents with here.
 * @throws ConfinementUnavailableError (as a rejection) with why and how to fix it.
 */
export function findConfiner(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): Promise<Confiner> {
  const key = `${platform}\0${envValue(env, 'PATH', platform) ?? ''}`;
  const cached = found.get(key);
  if (cached) return cached;
  const search = detect(platform, env);
  found.set(key, search);
  search.catch(() => {
    if (found.get(key) === search) found.delete(key);
  });
  return search;
}

async function detect(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): Promise<Confiner> {
  // Any name Node reports, not only those its types list today.
  const name: string = platform;
  switch (name) {
    case 'linux':
      return detectBubblewrap(env);
    case 'darwin':
      if (!fs.existsSync(SANDBOX_EXEC)) {
        throw new ConfinementUnavailableError(
          l10n.t('{0} (Seatbelt) was not found, so agents cannot be confined on this Mac.', SANDBOX_EXEC),
          l10n.t('Use a macOS that has it, or set acpWorkspace.sandbox to "off" to run agents unconfined.'),
        );
      }
      return new Seatbelt();
    case 'win32':
      throw new ConfinementUnavailableError(
        l10n.t('Windows has no mechanism ACP Workspace can use to confine agents.'),
        l10n.t('Set acpWorkspace.sandbox to "off" (or run VS Code in WSL, where bubblewrap works).'),
      );
    default:
      throw new ConfinementUnavailableError(l10n.t('ACP Workspace cannot confine agents on {0}.', platform), l10n.t('Set acpWorkspace.sandbox to "off".'));
  }
}

async function detectBubblewrap(env: NodeJS.ProcessEnv): Promise<Confiner> {
  const [bwrapDir] = programPaths('bwrap', env, '/');
  if (!bwrapDir) {
    throw new ConfinementUnavailableError(
      l10n.t('bubblewrap (bwrap), which confines agents on Linux, was not found on the PATH.'),
      l10n.t(
        'Install it (Debian, Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), or set acpWorkspace.sandbox to "off" to run agents unconfined.',
      ),
    );
  }
  const bwrap = `${bwrapDir}/bwrap`;
  const setsid = findSetsid();
  if (!setsid) throw setsidMissing();
  const probe = await run(
    bwrap,
    [
      ...NAMESPACE_ARGS,
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--',
      '/bin/sh',
      '-c',
      SUPERVISOR,
      'acp-workspace-sandbox',
      setsid,
      '/bin/true',
    ],
    env,
  );
  if (probe.error) {
    const said = probe.stderr.trim() || probe.error;
    throw new ConfinementUnavailableError(
      l10n.t('bubblewrap ({0}) cannot create a sandbox here: {1}.', bwrap, said),
      l10n.t(
        'Enable unprivileged user namespaces: on Ubuntu 24.04 and later AppArmor restricts them (allow bwrap with an AppArmor profile, or sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0); elsewhere sudo sysctl kernel.unprivileged_userns_clone=1 or a non-zero user.max_user_namespaces; in a container, allow user namespaces (e.g. seccomp); or set acpWorkspace.sandbox to "off" to run agents unconfined.',
      ),
    );
  }
  const version = await run(bwrap, ['--version'], env);
  return new Bubblewrap(version.error ? 'bubblewrap' : version.stdout.trim() || 'bubblewrap', bwrap, setsid);
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; error?: string }> {
  return new Promise((resolve) => {
    execFile(file, [...args], { env, timeout: PROBE_TIMEOUT_MS, killSignal: 'SIGKILL', encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return resolve({ stdout, stderr });
      const reason = error.killed
        ? l10n.t('it did not finish within {0} s', PROBE_TIMEOUT_MS / 1000)
        : typeof error.code === 'number'
          ? l10n.t('it exited with code {0}', error.code)
          : error.message;
      resolve({ stdout, stderr, error: reason });
    });
  });
}
