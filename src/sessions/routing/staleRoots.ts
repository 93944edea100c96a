/**
 * ACP has no mid-session change of roots. When workspace folders are added or removed (MCP's `list_changed`
 * situation), what a session may reach and what it could be given change: a root removed from the workspace is
 * withdrawn at once (see AgentSession.withdraw), and a folder added that the session's agent could take is an
 * offer to reopen. Either way the session is stale until reopened or kept as it is.
 */
import * as l10n from '@vscode/l10n';
import { listInWords, rootPaths, type RootSet } from '../../roots/rootSet';
import type { CandidateRoot } from '../../roots/workspaceRoots';
import type { StaleRoots } from './agentSession';

/** What a folder change does to one session. */
export interface FolderChangeEffect {
  readonly stale: StaleRoots;
  /** The session's roots that left the workspace (to withdraw). */
  readonly removed: readonly string[];
}

/**
 * Whether a folder change affects a session: one of its roots was removed from the workspace, or a folder was
 * added that it could be given (only when its agent takes more than one folder). Undefined when it does not.
 */
export function staleAfterFolderChange(
  session: RootSet,
  before: readonly CandidateRoot[],
  after: readonly CandidateRoot[],
  takesMoreFolders: boolean,
): FolderChangeEffect | undefined {
  const afterPaths = new Set(after.map((root) => root.path));
  const beforePaths = new Set(before.map((root) => root.path));
  const sessionRoots = [session.cwd, ...session.additionalDirectories];
  const sessionPaths = new Set(rootPaths(session));
  const removed = sessionRoots.filter((root) => beforePaths.has(root.path) && !afterPaths.has(root.path));
  const added = takesMoreFolders ? after.filter((root) => !beforePaths.has(root.path) && !sessionPaths.has(root.path)) : [];
  if (removed.length === 0 && added.length === 0) return undefined;
  const addedText =
    added.length === 0
      ? undefined
      : added.length === 1
        ? l10n.t('{0} was added to the workspace', added[0]!.name)
        : l10n.t('{0} were added to the workspace', listInWords(added.map((r) => r.name)));
  const removedText =
    removed.length === 0
      ? undefined
      : removed.length === 1
        ? l10n.t('{0} was removed from it and can no longer be reached', removed[0]!.name)
        : l10n.t('{0} were removed from it and can no longer be reached', listInWords(removed.map((r) => r.name)));
  const change = addedText && removedText ? l10n.t('{0}, and {1}', addedText, removedText) : (addedText ?? removedText!);
  return { stale: { reason: l10n.t('{0}. Reopen the session to give the agent the current folders.', change) }, removed: removed.map((r) => r.path) };
}

/** The workspace-level change in words: "tools was added, lib was removed". */
export function describeFolderChange(before: readonly CandidateRoot[], after: readonly CandidateRoot[]): string {
  const beforePaths = new Set(before.map((root) => root.path));
  const afterPaths = new Set(after.map((root) => root.path));
  const added = after.filter((root) => !beforePaths.has(root.path)).map((root) => root.name);
  const removed = before.filter((root) => !afterPaths.has(root.path)).map((root) => root.name);
  const parts: string[] = [];
  if (added.length > 0) parts.push(`${listInWords(added)} ${added.length === 1 ? 'was' : 'were'} added`);
  if (removed.length > 0) parts.push(`${listInWords(removed)} ${removed.length === 1 ? 'was' : 'were'} removed`);
  return parts.join(', ');
}
