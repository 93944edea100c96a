/**
 * ACP has no mid-session change of roots. When workspace folders are added or removed (MCP's
 * `list_changed` situation), a session whose roots no longer match what the workspace offers is stale:
 * the user can reopen it with the current folders or keep its roots.
 */
import { listInWords, type RootSet } from '../roots/rootSet';
import type { CandidateRoot } from '../roots/workspaceRoots';
import type { StaleRoots } from './agentSession';

/**
 * Whether a folder change affects a session: one of its roots was removed from the workspace, or a folder
 * was added that it could be given. Returns undefined when it does not.
 */
export function staleAfterFolderChange(
  session: RootSet,
  before: readonly CandidateRoot[],
  after: readonly CandidateRoot[],
): StaleRoots | undefined {
  const afterPaths = new Set(after.map((root) => root.path));
  const beforePaths = new Set(before.map((root) => root.path));
  const sessionRoots = [session.cwd, ...session.additionalDirectories];
  const removed = sessionRoots.filter((root) => beforePaths.has(root.path) && !afterPaths.has(root.path));
  const added = after.filter((root) => !beforePaths.has(root.path));
  if (removed.length === 0 && added.length === 0) return undefined;
  const parts: string[] = [];
  if (added.length > 0) parts.push(`${listInWords(added.map((r) => r.name))} ${added.length === 1 ? 'was' : 'were'} added to the workspace`);
  if (removed.length > 0) parts.push(`${listInWords(removed.map((r) => r.name))} ${removed.length === 1 ? 'was' : 'were'} removed from it`);
  return { reason: `${parts.join(', and ')}. The session still has its old folders.` };
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
