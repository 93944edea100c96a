/**
 * From the workspace's folders to what a session may be given: which folders can be roots at all
 * (local, existing, resolved to real paths), which one is primary, which the user granted, and what the
 * agent can take. Every folder that is not shared is listed with the reason, never dropped silently.
 */
import { createRootSet, type Root, type RootSet } from './rootSet';

/** A workspace folder as plain data (the VS Code layer converts `vscode.WorkspaceFolder`). */
export interface FolderInfo {
  readonly name: string;
  /** The folder's URI as a string, for messages about folders that have no local path. */
  readonly uri: string;
  readonly scheme: string;
  /** Local path, for `file:` folders. */
  readonly fsPath: string | undefined;
}

export type NotSharedReason =
  /** A virtual or remote folder: it has no path on this machine an agent could use. */
  | 'not-local'
  /** The folder does not exist (any more) or cannot be resolved. */
  | 'missing'
  /** The user did not allow it (yet). */
  | 'not-granted'
  /** The agent cannot take more than one root (no `sessionCapabilities.additionalDirectories`). */
  | 'agent-unsupported'
  /** A remote agent's entry maps other folders to its paths, not this one. */
  | 'not-mapped';

export interface NotShared {
  readonly name: string;
  /** Path when there is one, else the URI. */
  readonly location: string;
  readonly reason: NotSharedReason;
}

/** A workspace folder that can be a root. */
export interface CandidateRoot extends Root {
  /** Index of the folder in the workspace. */
  readonly index: number;
}

export interface Candidates {
  readonly roots: readonly CandidateRoot[];
  readonly notShared: readonly NotShared[];
}

/**
 * The folders that can be roots, in workspace order, as real paths. `realpath` returns undefined for a
 * folder that does not exist or cannot be resolved. Two folders resolving to the same real path count
 * once (the first).
 */
export function candidateRoots(folders: readonly FolderInfo[], realpath: (p: string) => string | undefined): Candidates {
  const roots: CandidateRoot[] = [];
  const notShared: NotShared[] = [];
  const seen = new Set<string>();
  folders.forEach((folder, index) => {
    if (folder.scheme !== 'file' || !folder.fsPath) {
      notShared.push({ name: folder.name, location: folder.uri, reason: 'not-local' });
      return;
    }
    const real = realpath(folder.fsPath);
    if (real === undefined) {
      notShared.push({ name: folder.name, location: folder.fsPath, reason: 'missing' });
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    roots.push({ path: real, name: folder.name, index });
  });
  return { roots, notShared };
}

/**
 * The candidates a remote agent can be given: those `isMapped` accepts (its entry maps them to its own paths);
 * the others are listed as not shared (`not-mapped`).
 */
export function restrictToMapped(candidates: Candidates, isMapped: (path: string) => boolean): Candidates {
  const roots = candidates.roots.filter((root) => isMapped(root.path));
  if (roots.length === candidates.roots.length) return candidates;
  const unmapped = candidates.roots
    .filter((root) => !isMapped(root.path))
    .map((root): NotShared => ({ name: root.name, location: root.path, reason: 'not-mapped' }));
  return { roots, notShared: [...candidates.notShared, ...unmapped] };
}

export type PrimaryFolderSetting = 'first' | 'activeEditor' | 'ask';

/**
 * Which candidate is primary under `acpWorkspace.primaryFolder`: the first folder, or the folder of the
 * active editor (falling back to the first). `ask` returns undefined: the caller asks the user.
 */
export function choosePrimary(
  candidates: readonly CandidateRoot[],
  setting: PrimaryFolderSetting,
  activeEditorFolderIndex: number | undefined,
): CandidateRoot | undefined {
  if (candidates.length === 0 || setting === 'ask') return undefined;
  if (setting === 'activeEditor' && activeEditorFolderIndex !== undefined) {
    const match = candidates.find((c) => c.index === activeEditorFolderIndex);
    if (match) return match;
  }
  return candidates[0];
}

/** The other candidates the user has not granted yet (the consent prompt lists them). */
export function foldersNeedingConsent(candidates: Candidates, primary: Root, isGranted: (p: string) => boolean, shareAll: boolean): Root[] {
  if (shareAll) return [];
  return candidates.roots.filter((root) => root.path !== primary.path && !isGranted(root.path));
}

export interface RootPlan {
  /** What the session gets: send exactly this. */
  readonly rootSet: RootSet;
  /** Every workspace folder that is not in `rootSet`, with the reason. */
  readonly notShared: readonly NotShared[];
}

/**
 * The roots to send: the primary folder, then every other granted candidate in workspace order, but only
 * when the agent supports additional directories; everything else is listed in `notShared`.
 */
export function planRoots(
  candidates: Candidates,
  primary: Root,
  isGranted: (p: string) => boolean,
  shareAll: boolean,
  agentSupportsAdditional: boolean,
): RootPlan {
  const notShared: NotShared[] = [...candidates.notShared];
  const additional: Root[] = [];
  for (const root of candidates.roots) {
    if (root.path === primary.path) continue;
    // An agent that takes one folder is never asked about the others: that is why they are left out.
    if (!agentSupportsAdditional) notShared.push({ name: root.name, location: root.path, reason: 'agent-unsupported' });
    else if (!shareAll && !isGranted(root.path)) notShared.push({ name: root.name, location: root.path, reason: 'not-granted' });
    else additional.push({ path: root.path, name: root.name });
  }
  return { rootSet: createRootSet({ path: primary.path, name: primary.name }, additional), notShared };
}

/** Words for why a folder is not shared. */
export function describeNotShared(reason: NotSharedReason): string {
  switch (reason) {
    case 'not-local':
      return 'not on this machine’s file system (virtual or remote), so it cannot be shared as a path';
    case 'missing':
      return 'does not exist';
    case 'not-granted':
      return 'not allowed (use ACP: Manage Shared Folders)';
    case 'agent-unsupported':
      return 'this agent can only see one folder';
    case 'not-mapped':
      return 'this remote agent has no path mapping for it (remote.pathMappings in acpWorkspace.agents)';
  }
}
