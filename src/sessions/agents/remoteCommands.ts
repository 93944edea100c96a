/**
 * The commands a remote agent runs on this machine. A remote agent (behind a WebSocket, Streamable HTTP or Sandbox
 * Agent link) is not offered the client terminal at all unless its entry says `"localTerminal": true`
 * (`acpWorkspace.agents`, machine scope); then every command is asked first (see SessionRouter) and runs confined
 * by the mechanism local agents use (bubblewrap, Seatbelt), to the session's folders as they are at that moment,
 * whatever `acpWorkspace.sandbox` says: `off` and `writes` confine writes, `strict` reads too. There is no
 * unconfined way: when confinement cannot be set up here (bubblewrap missing, Windows), the command is refused
 * with the reason and its fix. The agent itself runs elsewhere, so nothing about its own launch applies.
 */
import { windowsUnavailable } from './agentConfinement';
import { buildPolicy, inside, realPath } from './confinementPolicy';
import type { ConfinementPolicy, Confiner, SandboxMode } from '../../process/confinement/types';
import type { RemoteCommandConfinement } from '../routing/sessionRouter';

export interface LocalCommandConfinementOptions {
  /** `acpWorkspace.sandbox` now: `strict` confines reads as well; anything else confines writes. */
  readonly mode: () => SandboxMode;
  /** The mechanism for this machine (`findConfiner`); rejects with a ConfinementUnavailableError. */
  readonly findConfiner: (env: NodeJS.ProcessEnv) => Promise<Confiner>;
  readonly home: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
}

/** {@link RemoteCommandConfinement} with this machine's mechanism and the local agents' policy rules. */
export class LocalCommandConfinement implements RemoteCommandConfinement {
  constructor(private readonly options: LocalCommandConfinementOptions) {}

  async forCommand(folders: readonly string[], command: string, args: readonly string[]): Promise<{ confiner: Confiner; policy: ConfinementPolicy }> {
    if ((this.options.platform ?? process.platform) === 'win32') throw windowsUnavailable();
    const env = this.options.env ?? process.env;
    const confiner = await this.options.findConfiner(env);
    const policy = buildPolicy({
      mode: this.options.mode() === 'strict' ? 'strict' : 'writes',
      folders,
      statePaths: [],
      command: { name: command, command, args: [...args], env: {} },
      home: this.options.home,
      env,
    });
    // The session's folders only: not npm's cache, which buildPolicy opens for an npx agent (a cache a remote
    // agent could fill is one a local agent would later run from).
    const sessionFolders = folders.map((folder) => realPath(folder));
    return { confiner, policy: { ...policy, writable: policy.writable.filter((path) => sessionFolders.some((folder) => inside(path, folder))) } };
  }
}
