/**
 * Which roots a reopened or forked session gets. The session's own roots come from `session/list`
 * (`additionalDirectories` when the agent gave them) or from the client's record; the workspace's come from
 * its current folders. When they differ, or the session's include folders the user has not allowed, the user
 * chooses between the two lists (or cancels). Folders that no longer exist are named and never sent, and
 * the complete chosen list is always sent (an omitted list would mean "no other folders").
 */
import * as l10n from '@vscode/l10n';
import { listInWords, sameRootPaths } from '../roots/rootSet';

export interface ReopenInput {
  /** The session's working folder and its other roots (undefined when nobody recorded them). */
  readonly cwd: string;
  readonly additionalDirectories: readonly string[] | undefined;
  /** The root list a new session with this agent would get now (`[cwd, ...others]`), empty without local folders. */
  readonly workspaceRoots: readonly string[];
  /** The workspace's local folders (real paths): an agent that takes one folder may work in any of them. */
  readonly workspaceFolders: readonly string[];
  readonly supportsAdditional: boolean;
  exists(folder: string): boolean;
  isGranted(folder: string): boolean;
}

export interface RootChoice {
  /** `[cwd, ...additionalDirectories]` to send. */
  readonly roots: readonly string[];
}

export interface ReopenPlan {
  /** The session's roots that still exist, cwd first; empty when its cwd is gone. */
  readonly sessionRoots: readonly string[];
  /** The session's roots that no longer exist (named to the user, never sent). */
  readonly missing: readonly string[];
  readonly workspaceRoots: readonly string[];
  /** Going from the session's roots to the workspace's. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Folders of either list the user has not allowed yet (a working folder needs no grant). */
  readonly notGranted: readonly string[];
  /** The agent did not report the session's other roots and the client has no record of them. */
  readonly unknownRoots: boolean;
  /** Ask the user: the lists differ, or the session's include folders not allowed yet. */
  readonly needsChoice: boolean;
  /** Without a choice: the list to send. */
  readonly roots: readonly string[] | undefined;
}

export function planReopen(input: ReopenInput): ReopenPlan {
  const declared = [input.cwd, ...(input.supportsAdditional ? (input.additionalDirectories ?? []) : [])];
  const unique = declared.filter((p, i) => declared.indexOf(p) === i);
  const missing = unique.filter((p) => !input.exists(p));
  const cwdExists = input.exists(input.cwd);
  const sessionRoots = cwdExists ? unique.filter((p) => input.exists(p)) : [];
  // An agent that takes one folder gets the session's own folder when it is one of the workspace's: a new
  // session could have started there just as well, so there is nothing to choose.
  const workspaceRoots = input.supportsAdditional
    ? [...input.workspaceRoots]
    : cwdExists && input.workspaceFolders.includes(input.cwd)
      ? [input.cwd]
      : input.workspaceRoots.slice(0, 1);
  const added = workspaceRoots.filter((p) => !sessionRoots.includes(p));
  const removed = sessionRoots.filter((p) => !workspaceRoots.includes(p));
  // Either list's other folders may not be shared yet; the one chosen is shared from then on.
  const others = [...sessionRoots.slice(1), ...workspaceRoots.slice(1)];
  const notGranted = others.filter((p, i) => others.indexOf(p) === i && !input.isGranted(p));
  const same = sameRootPaths(sessionRoots, workspaceRoots);
  const needsChoice = !same || notGranted.length > 0 || missing.length > 0 || sessionRoots.length === 0;
  return {
    sessionRoots,
    missing,
    workspaceRoots,
    added,
    removed,
    notGranted,
    unknownRoots: input.supportsAdditional && input.additionalDirectories === undefined,
    needsChoice,
    roots: needsChoice ? undefined : sessionRoots,
  };
}

/** What changes between the two lists, in words, for the prompt. */
export function describeRootChange(plan: ReopenPlan, name: (folder: string) => string): string[] {
  const lines: string[] = [];
  if (plan.sessionRoots.length > 0) lines.push(l10n.t("The session's folders: {0}.", plan.sessionRoots.map(name).join(', ')));
  else lines.push(l10n.t("The session's working folder no longer exists."));
  if (plan.unknownRoots) lines.push(l10n.t('The agent did not report which other folders the session had, and this client has no record of them.'));
  if (plan.workspaceRoots.length > 0) lines.push(l10n.t("This workspace's folders: {0}.", plan.workspaceRoots.map(name).join(', ')));
  if (plan.added.length > 0) {
    const added = listInWords(plan.added.map(name));
    lines.push(
      plan.added.length === 1 ? l10n.t("With the workspace's folders, {0} is added.", added) : l10n.t("With the workspace's folders, {0} are added.", added),
    );
  }
  if (plan.removed.length > 0) {
    const removed = listInWords(plan.removed.map(name));
    lines.push(
      plan.removed.length === 1
        ? l10n.t("With the workspace's folders, {0} is left out.", removed)
        : l10n.t("With the workspace's folders, {0} are left out.", removed),
    );
  }
  if (plan.notGranted.length > 0) lines.push(l10n.t('Not shared with agents yet: {0}.', listInWords(plan.notGranted.map(name))));
  if (plan.missing.length > 0) lines.push(l10n.t('No longer on this machine (never sent): {0}.', listInWords(plan.missing.map(name))));
  return lines;
}
