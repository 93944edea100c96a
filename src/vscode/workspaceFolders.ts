/** The workspace's folders as plain records for `src/roots/`, and the folder of the active editor. */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { candidateRoots, type Candidates, type FolderInfo } from '../roots/workspaceRoots';

export function folderInfos(): FolderInfo[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => ({
    name: folder.name,
    uri: folder.uri.toString(),
    scheme: folder.uri.scheme,
    fsPath: folder.uri.scheme === 'file' ? folder.uri.fsPath : undefined,
  }));
}

/** The real path of a folder, or undefined if it does not exist or cannot be resolved. */
export function realpathOrUndefined(folderPath: string): string | undefined {
  try {
    return fs.realpathSync.native(folderPath);
  } catch {
    return undefined;
  }
}

/** The workspace folders that can be roots now. */
export function currentCandidates(): Candidates {
  return candidateRoots(folderInfos(), realpathOrUndefined);
}

/** Index of the workspace folder holding the active editor's file, if any. */
export function activeEditorFolderIndex(): number | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return uri ? vscode.workspace.getWorkspaceFolder(uri)?.index : undefined;
}
