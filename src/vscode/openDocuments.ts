/**
 * Open editors for the guarded fs: an agent reading a file gets the editor's unsaved text, and an agent
 * writing a file that is open changes the editor (then saves it), so nothing the user sees goes stale.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { OpenDocuments } from '../roots/guardedFs';

function findDocument(requestedPath: string, realPath: string): vscode.TextDocument | undefined {
  const documents = vscode.workspace.textDocuments.filter((doc) => doc.uri.scheme === 'file' && !doc.isClosed);
  return (
    documents.find((doc) => doc.uri.fsPath === realPath || doc.uri.fsPath === requestedPath) ??
    documents.find((doc) => {
      try {
        return fs.realpathSync.native(doc.uri.fsPath) === realPath;
      } catch {
        return false;
      }
    })
  );
}

export const vscodeOpenDocuments: OpenDocuments = {
  textOf(requestedPath, realPath) {
    return findDocument(requestedPath, realPath)?.getText();
  },

  async replace(requestedPath, realPath, content) {
    const document = findDocument(requestedPath, realPath);
    if (!document) return false;
    const edit = new vscode.WorkspaceEdit();
    const whole = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
    edit.replace(document.uri, whole, content);
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(vscode.l10n.t('Could not update the open editor for {0}.', requestedPath));
    await document.save();
    return true;
  },
};

/** An editor holds unsaved changes to this file (a restore must not overwrite them silently). */
export function isDirtyFile(file: string): boolean {
  return findDocument(file, file)?.isDirty === true;
}
