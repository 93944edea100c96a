/** The workspace and the settings that shape sessions, as the application layer's {@link WorkspacePort}. */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { candidateRoots, type Candidates, type FolderInfo } from '../roots/workspaceRoots';
import type { WorkspacePort } from '../sessions/ports';
import { readDefaultAgent, readPrimaryFolder, readShareAllFolders } from './settings';

function folderInfos(): FolderInfo[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => ({
    name: folder.name,
    uri: folder.uri.toString(),
    scheme: folder.uri.scheme,
    fsPath: folder.uri.scheme === 'file' ? folder.uri.fsPath : undefined,
  }));
}

/** The real path of a folder, or undefined if it does not exist or cannot be resolved. */
function realpathOrUndefined(folderPath: string): string | undefined {
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

export const vscodeWorkspace: WorkspacePort = {
  isTrusted: () => vscode.workspace.isTrusted,
  candidates: currentCandidates,
  activeEditorFolderIndex() {
    const uri = vscode.window.activeTextEditor?.document.uri;
    return uri ? vscode.workspace.getWorkspaceFolder(uri)?.index : undefined;
  },
  defaultAgent: readDefaultAgent,
  primaryFolder: readPrimaryFolder,
  shareAllFolders: readShareAllFolders,
  addFolder(folder) {
    const at = vscode.workspace.workspaceFolders?.length ?? 0;
    return vscode.workspace.updateWorkspaceFolders(at, 0, { uri: vscode.Uri.file(folder) });
  },
  async openFolderInNewWindow(folder) {
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(folder), { forceNewWindow: true });
  },
};

/** The local folders of the workspace (for MCP configuration files). */
export function localFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
