/**
 * The complete root list a session from the history is reopened or forked with: the session's folders or
 * the workspace's, asking the user when they differ or include folders not allowed yet (see
 * `history/reopenPlan.ts`), and what to do when the session worked in a folder outside this workspace.
 * The list the user saw and chose counts as consent for its folders, except a folder the user took back from
 * the agent: that one is asked for again (the consent question), never granted back by the choice of a list.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import type { AgentConnection } from '../../acp/port/agentConnection';
import { describeRootChange, planReopen } from '../../history/reopenPlan';
import type { SessionView, WorkspaceShape } from '../../history/sessionView';
import type { FolderGrants } from '../../roots/folderGrants';
import { createRootSet, namedRoot, type Root, type RootSet } from '../../roots/rootSet';
import type { RootsUi, WorkspacePort } from '../ports';

export interface ReopenRootsContext {
  readonly workspace: WorkspacePort;
  /** The workspace as the history sees it (its folders, the roots a new session would get). */
  readonly shape: WorkspaceShape;
  readonly grants: FolderGrants;
  readonly ui: RootsUi;
  /**
   * The folders the user chose to keep the session with when the workspace's changed (a chat restored after a
   * window reload): taken without asking while the session still has them all, shared and on this machine.
   */
  readonly kept?: readonly string[];
}

/** The roots to send, after the user's choice where one is needed; undefined when cancelled. */
export async function chooseReopenRoots(
  view: SessionView,
  connection: AgentConnection,
  verbLabel: string,
  context: ReopenRootsContext,
): Promise<RootSet | undefined> {
  const { workspace, shape, grants, ui } = context;
  const shareAll = workspace.shareAllFolders();
  const agent = { name: view.agentName, running: true, caps: connection.caps, catalog: undefined };
  const plan = planReopen({
    cwd: view.cwd,
    additionalDirectories: view.rootsKnown ? view.additionalDirectories : undefined,
    workspaceRoots: shape.rootSetFor(agent),
    workspaceFolders: shape.folders,
    supportsAdditional: connection.caps.sessions.additionalDirectories,
    exists: isDirectory,
    isGranted: (folder) => shareAll || grants.isGranted(view.agentName, folder),
  });
  const name = (folder: string) => folderName(workspace, folder);
  let roots = plan.roots;
  const chosenToKeep = context.kept;
  const isShared = (folder: string) => shareAll || grants.isGranted(view.agentName, folder);
  if (
    !roots &&
    chosenToKeep &&
    chosenToKeep[0] === plan.sessionRoots[0] &&
    chosenToKeep.every((folder) => plan.sessionRoots.includes(folder)) &&
    chosenToKeep.slice(1).every(isShared)
  ) {
    roots = chosenToKeep;
  }
  if (!roots) {
    const choice = await ui.chooseReopenRoots({
      agentName: view.agentName,
      verb: verbLabel,
      title: view.title,
      lines: describeRootChange(plan, (folder) => `“${name(folder)}” (${folder})`),
      canUseSession: plan.sessionRoots.length > 0,
      canUseWorkspace: plan.workspaceRoots.length > 0,
    });
    if (!choice) return undefined;
    roots = choice === 'session' ? plan.sessionRoots : plan.workspaceRoots;
  }
  const [cwd, ...others] = roots;
  if (cwd === undefined) return undefined;
  if (!shape.folders.includes(cwd)) {
    const choice = await ui.outsideFolder(view.agentName, cwd);
    if (!choice) return undefined;
    if (choice === 'open') {
      await workspace.openFolderInNewWindow(cwd);
      return undefined;
    }
    if (choice === 'add' && !workspace.addFolder(cwd)) throw new Error(l10n.t('{0} could not be added to the workspace.', cwd));
  }
  const named = (folder: string): Root => ({ path: folder, name: name(folder) });
  // A folder the user took back from this agent is asked for again: choosing a list is not consent for it.
  const takenBack = shareAll ? [] : others.filter((folder) => !grants.isGranted(view.agentName, folder) && grants.isTakenBack(view.agentName, folder));
  let kept = others;
  if (takenBack.length > 0) {
    const allowed = await ui.askConsent(view.agentName, named(cwd), takenBack.map(named));
    if (!allowed) return undefined;
    kept = others.filter((folder) => !takenBack.includes(folder) || allowed.some((root) => root.path === folder));
  }
  // The list was shown and chosen (or every folder in it was allowed already): remember the consent.
  await grants.grant(view.agentName, kept);
  return createRootSet(named(cwd), kept.map(named));
}

function isDirectory(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** A workspace folder's name (folders are compared by real path), else the folder's base name. */
function folderName(workspace: WorkspacePort, folder: string): string {
  return workspace.candidates().roots.find((root) => root.path === folder)?.name ?? namedRoot(folder).name;
}
