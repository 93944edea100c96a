/**
 * The one rule for a remote agent with path mappings (its entry's `remote.pathMappings`): it can only ever be
 * given folders its entry maps to its own paths. Before the consent question the workspace's candidates are
 * narrowed to those (`mappedCandidates`); a root list chosen elsewhere (a restored tab's, the history's, a
 * fork's) is narrowed when the session is reopened (`mappedRootSet`). Both say what they left out and why.
 * A local agent, or a remote one without mappings, has no `isMapped`: everything passes.
 */
import * as l10n from '@vscode/l10n';
import type { FolderGrants } from '../../roots/folderGrants';
import { createRootSet, type Root, type RootSet } from '../../roots/rootSet';
import type { WorkspacePort } from '../ports';
import { restrictToMapped, type Candidates } from '../../roots/workspaceRoots';

/** Whether a local folder is mapped for an agent; undefined when the agent takes every folder. */
export type IsMapped = ((folder: string) => boolean) | undefined;

/** Why nothing was started, in words. */
export class SessionStartError extends Error {
  override readonly name = 'SessionStartError';
}

/**
 * The candidates `agentName` can be given: for a remote agent with path mappings only the mapped ones, the
 * others listed as not shared (`not-mapped`); none mapped is a `SessionStartError` saying how to map one.
 */
export function mappedCandidates(agentName: string, all: Candidates, isMapped: IsMapped): Candidates {
  if (!isMapped) return all;
  const candidates = restrictToMapped(all, isMapped);
  if (candidates.roots.length === 0) {
    throw new SessionStartError(
      l10n.t(
        "None of this workspace's folders has a path mapping for {0}, so there is no folder to share with it: add the folders to remote.pathMappings of its entry in acpWorkspace.agents.",
        agentName,
      ),
    );
  }
  return candidates;
}

/**
 * The roots a reopened session of `agentName` can be given: its working folder must be mapped (else the
 * session cannot be reopened, and the error says how to fix it); unmapped other folders are left out and
 * returned, for the chat to say so.
 */
export function mappedRootSet(agentName: string, roots: RootSet, isMapped: IsMapped): { roots: RootSet; unmapped: readonly Root[] } {
  if (!isMapped) return { roots, unmapped: [] };
  if (!isMapped(roots.cwd.path)) {
    throw new Error(
      l10n.t(
        '{0} cannot work in “{1}” ({2}): that folder has no path mapping for this remote agent. Add it to remote.pathMappings of its entry in acpWorkspace.agents.',
        agentName,
        roots.cwd.name,
        roots.cwd.path,
      ),
    );
  }
  const unmapped = roots.additionalDirectories.filter((root) => !isMapped(root.path));
  if (unmapped.length === 0) return { roots, unmapped };
  return {
    roots: createRootSet(
      roots.cwd,
      roots.additionalDirectories.filter((root) => isMapped(root.path)),
    ),
    unmapped,
  };
}

/**
 * The workspace's folders shared with the agent now, without asking: those granted to it (all with
 * `acpWorkspace.shareAllFolders`), only mapped ones for a remote agent with path mappings. What a chat reopened
 * by a restart of its confinement is given (see `AgentLifecycle.restartAgent`).
 */
export function sharedFolders(
  agentName: string,
  workspace: Pick<WorkspacePort, 'candidates' | 'shareAllFolders'>,
  grants: Pick<FolderGrants, 'isGranted'>,
  isMapped: IsMapped,
): Root[] {
  let candidates: Candidates;
  try {
    candidates = mappedCandidates(agentName, workspace.candidates(), isMapped);
  } catch {
    return [];
  }
  const shareAll = workspace.shareAllFolders();
  return candidates.roots.filter((root) => shareAll || grants.isGranted(agentName, root.path)).map((root) => ({ path: root.path, name: root.name }));
}
