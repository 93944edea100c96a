/**
 * Runs git for the checkpoint store's shadow repositories, and only for them: every invocation names its
 * repository (`GIT_DIR`), work tree and index explicitly, inherits no `GIT_*` variable and no user or
 * system configuration, runs no hook, filter or credential prompt, and has a bounded output. Never a shell.
 */
import * as l10n from '@vscode/l10n';
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

/** The oldest git the store supports: `GIT_CONFIG_GLOBAL` (which keeps the user's configuration out) came in 2.32. */
export const MIN_GIT_VERSION: readonly [number, number] = [2, 32];

/** Default cap on what one git invocation may print (stdout). */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** The committer and author of every shadow commit: fixed, so nothing about the user leaks into the store. */
const IDENTITY = { name: 'ACP Workspace', email: 'checkpoints@acp-workspace.invalid', date: '1700000000 +0000' };

/** Git cannot be used for checkpoints (missing, too old, or it did not start); the message says what to do. */
export class GitUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitUnavailableError';
  }
}

/** A git invocation failed (exit code not accepted) or printed more than allowed. */
export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitCommandError';
  }
}

/** Where one invocation runs. */
export interface GitTarget {
  /** The shadow repository (bare); never a user's repository. */
  readonly gitDir: string;
  /** The folder captured; omitted for commands that only read or write objects and refs. */
  readonly workTree?: string;
  /** The index file; omitted: a file inside `gitDir` that is never used for captures. */
  readonly indexFile?: string;
}

export interface GitRunOptions {
  /** Written to git's stdin, then closed. */
  readonly input?: Uint8Array | string;
  /** Exit codes that count as success (default: only 0). */
  readonly okCodes?: (code: number) => boolean;
  /** Cap on stdout bytes (default {@link DEFAULT_MAX_OUTPUT_BYTES}); beyond it the process is killed and the call fails. */
  readonly maxOutputBytes?: number;
}

export interface GitResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
}

/** The variables every invocation gets, whatever the extension host's environment holds. */
function sanitisedEnv(target: GitTarget): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    // GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_CONFIG_* from a terminal or a hook would redirect us.
    if (!/^GIT_/i.test(name) && name !== 'LC_ALL' && name !== 'LANG' && name !== 'LANGUAGE') env[name] = value;
  }
  // Without a work tree a bare repository has none: commands that need one fail instead of guessing.
  if (target.workTree !== undefined) env.GIT_WORK_TREE = target.workTree;
  return {
    ...env,
    GIT_DIR: target.gitDir,
    GIT_INDEX_FILE: target.indexFile ?? path.join(target.gitDir, 'index-unused'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_TERMINAL_PROMPT: '0',
    // Paths we pass are file names, never patterns (a file may be called `*.ts`).
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_AUTHOR_DATE: IDENTITY.date,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    GIT_COMMITTER_DATE: IDENTITY.date,
    LC_ALL: 'C',
  };
}

/**
 * Configuration given on every command line: nothing of the folder or the user can run code or convert bytes.
 * Hooks are looked for in the null device (`/dev/null/<hook>`, never a folder, nobody can put a file in it):
 * no folder anyone could create first (a fixed name in the shared temp folder was one) and not the shadow
 * repository's own `hooks/`.
 */
function configArgs(): string[] {
  const settings: Record<string, string> = {
    'core.hooksPath': os.devNull,
    'core.fsmonitor': 'false',
    'core.autocrlf': 'false',
    'core.safecrlf': 'false',
    'core.quotePath': 'false',
    'core.untrackedCache': 'true',
    'core.splitIndex': 'false',
    'core.sparseCheckout': 'false',
    'core.preloadIndex': 'true',
    'core.longpaths': 'true',
    'gc.auto': '0',
    'commit.gpgSign': 'false',
    'status.showUntrackedFiles': 'all',
    'submodule.recurse': 'false',
    'diff.renameLimit': '1000',
    'protocol.allow': 'never',
    'maintenance.auto': 'false',
  };
  return Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
}

/** A git executable whose version was checked; runs commands against shadow repositories. */
export class Git {
  private constructor(
    /** The executable (a name found on PATH, or the path given). */
    readonly executable: string,
    /** e.g. `[2, 39, 5]`. */
    readonly version: readonly number[],
  ) {}

  /**
   * Finds git (`executable`, default `git` on PATH) and checks its version.
   * @throws GitUnavailableError when it cannot be started or is older than {@link MIN_GIT_VERSION}.
   */
  static async find(executable = 'git'): Promise<Git> {
    let output: string;
    try {
      const result = await runProcess(executable, ['--version'], { env: sanitisedEnv({ gitDir: os.tmpdir() }), cwd: os.tmpdir() });
      if (result.exitCode !== 0) throw new Error(result.stderr.trim() || `exit code ${result.exitCode}`);
      output = result.stdout.toString('utf8');
    } catch (error) {
      throw new GitUnavailableError(
        l10n.t(
          'Checkpoints need Git {0} or later, and Git could not be started ({1}: {2}). Install Git from https://git-scm.com/downloads, or set its path, then reload the window.',
          MIN_GIT_VERSION.join('.'),
          executable,
          (error as Error).message,
        ),
      );
    }
    const match = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(output);
    const version = match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : [];
    const [major = 0, minor = 0] = version;
    if (major < MIN_GIT_VERSION[0] || (major === MIN_GIT_VERSION[0] && minor < MIN_GIT_VERSION[1])) {
      throw new GitUnavailableError(
        l10n.t(
          'Checkpoints need Git {0} or later; {1} is {2}. Install a newer Git from https://git-scm.com/downloads, then reload the window.',
          MIN_GIT_VERSION.join('.'),
          executable,
          match ? version.join('.') : JSON.stringify(output.trim()),
        ),
      );
    }
    return new Git(executable, version);
  }

  /**
   * Runs `git <args>` against `target` (cwd = the shadow repository). Resolves when the exit code is
   * accepted; rejects with {@link GitCommandError} otherwise or when stdout exceeds the cap.
   */
  async run(target: GitTarget, args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
    const result = await runProcess(this.executable, [...configArgs(), ...args], {
      env: sanitisedEnv(target),
      cwd: target.gitDir,
      input: options.input,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    });
    const ok = options.okCodes ?? ((code: number) => code === 0);
    if (!ok(result.exitCode)) {
      const command = args.find((a) => !a.startsWith('-')) ?? args[0] ?? '';
      throw new GitCommandError(
        l10n.t('git {0} failed (exit code {1}): {2}', command, result.exitCode, result.stderr.trim().slice(0, 2000)),
        result.exitCode,
        result.stderr,
      );
    }
    return result;
  }
}

interface ProcessOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly input?: Uint8Array | string;
  readonly maxOutputBytes?: number;
}

/** Spawns without a shell; collects stdout up to the cap and the head of stderr. */
function runProcess(file: string, args: readonly string[], options: ProcessOptions): Promise<GitResult> {
  const maxOut = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, shell: false });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let overflow = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (overflow) return;
      outBytes += chunk.length;
      if (outBytes > maxOut) {
        overflow = true;
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      // Only the head: it goes into an error message.
      if (err.length < 16_384) err += chunk.toString('utf8');
    });
    child.once('error', reject);
    // git may exit before reading all of stdin (e.g. on an error); the exit code tells what happened.
    child.stdin.on('error', () => undefined);
    child.once('close', (code, signal) => {
      if (overflow) {
        reject(new GitCommandError(l10n.t('git printed more than {0} bytes; the output was cut off', maxOut), code, err));
        return;
      }
      resolve({ stdout: Buffer.concat(out), stderr: err, exitCode: code ?? (signal ? 128 : -1) });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Splits NUL-terminated records (`-z` output); a trailing empty record is dropped. */
export function splitNul(output: Buffer): string[] {
  const records: string[] = [];
  let start = 0;
  for (let i = output.indexOf(0, start); i !== -1; i = output.indexOf(0, start)) {
    records.push(output.toString('utf8', start, i));
    start = i + 1;
  }
  if (start < output.length) records.push(output.toString('utf8', start));
  return records;
}

/** Paths as NUL-terminated records for `--stdin -z`. */
export function joinNul(paths: readonly string[]): Buffer {
  return Buffer.concat(paths.map((p) => Buffer.from(`${p}\0`, 'utf8')));
}
