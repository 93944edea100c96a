/**
 * OS confinement of an agent and of the commands it runs: the contracts between the mechanisms (bubblewrap on
 * Linux, Seatbelt on macOS; room for Landlock or containers), the policy the application layer works out from
 * the folders granted to the agent, and the spawning code that wraps a command line. Plain Node; no `vscode`.
 *
 * The additional-directories RFD: `additionalDirectories` is not a sandbox by itself; a client that launches an
 * agent which reads and writes files directly SHOULD apply operating-system sandboxing consistent with the
 * declared root set. Network is not restricted.
 */

/** `acpWorkspace.sandbox`: none; writes only inside the policy's paths; reads limited too. */
export type SandboxMode = 'off' | 'writes' | 'strict';

/** What a confined agent (and every command it runs through the client) may touch. */
export interface ConfinementPolicy {
  readonly mode: Exclude<SandboxMode, 'off'>;
  /**
   * Absolute real paths it may write (and read): the folders granted to the agent in this window, its own
   * state directories (e.g. `~/.claude`), paths its user entry adds. A private temporary directory is added
   * by the mechanism itself (TMPDIR points at it).
   */
  readonly writable: readonly string[];
  /**
   * `strict` only: paths it may read besides the system's (`/usr`, `/etc`, …) and `writable`: the agent's
   * installation, the runtime that runs it (e.g. Node), the npm cache it is started from.
   */
  readonly readable: readonly string[];
  /**
   * More paths inside `writable` ones that stay read-only (re-protected after the writable ones are opened).
   * Only paths that exist when the command starts are protected. Default: none. What the folders' own
   * configuration protects comes from {@link folders}.
   */
  readonly readOnly?: readonly string[];
  /**
   * The folders the agent works in (workspace folders, inside `writable`): in each, what makes other programs
   * run code stays read-only and cannot be created where it does not exist yet (a repository's git
   * configuration and hooks, a `.git` where there is none, editor settings; see protectedPaths.ts). Default:
   * none.
   */
  readonly folders?: readonly string[];
  /** The agent may write editor settings in {@link folders} (`.vscode`, `.idea`, workspace files): its entry opted in. */
  readonly editorSettings?: boolean;
}

/** How a protected path that does not exist yet is held while confined commands need it (placeholders.ts). */
export type Placeholder = { readonly kind: 'folder' } | { readonly kind: 'file'; readonly content: string };

/** A path that stays read-only; without a placeholder it is protected only once it exists. */
export interface ProtectedPath {
  readonly path: string;
  readonly placeholder?: Placeholder;
}

/** A command line ready to spawn confined (the mechanism's program runs the original one). */
export interface ConfinedCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Removes what the mechanism created for this command (its private temporary directory), once it exited. */
  dispose(): void;
}

/** One mechanism (bubblewrap, Seatbelt, …). */
export interface Confiner {
  readonly mechanism: 'bubblewrap' | 'seatbelt';
  /** In words for the UI, e.g. "bubblewrap 0.8.0". */
  readonly description: string;
  /** `file args` to run confined by `policy`, in `cwd` (which must be readable under the policy). */
  wrap(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string | undefined, policy: ConfinementPolicy): ConfinedCommand;
}

/**
 * Confinement is on and cannot be set up here: `reason` says why (bwrap missing, user namespaces disabled,
 * Windows), `fix` how to fix it. The agent does not start (fail closed); the UI offers to start it unconfined
 * this once.
 */
export class ConfinementUnavailableError extends Error {
  override readonly name = 'ConfinementUnavailableError';
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`${reason} ${fix}`);
  }
}

/** How an agent process was started: confined (by what, to what) or not. */
export type Confinement =
  | {
      readonly confined: true;
      readonly mechanism: Confiner['mechanism'];
      readonly description: string;
      readonly policy: ConfinementPolicy;
      /** The mechanism itself: the commands the client runs for this agent (`terminal/create`) are wrapped by it too. */
      readonly confiner: Confiner;
    }
  | { readonly confined: false; readonly why: 'off' | 'unconfined-once' };

/**
 * What an agent launch is to use, asked for at every launch (so a restart picks up a widened policy): a
 * mechanism and a policy, or no confinement and why. A rejection (a {@link ConfinementUnavailableError})
 * fails the launch; nothing is spawned.
 */
export type LaunchConfinement =
  | {
      readonly confiner: Confiner;
      readonly policy: ConfinementPolicy;
      /** Variables set for this launch over the agent's own (e.g. turning off a sandbox of its own: `agents/selfSandboxing`). */
      readonly env?: Readonly<Record<string, string>>;
    }
  | { readonly unconfined: 'off' | 'unconfined-once' };
