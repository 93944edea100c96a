/**
 * Tool-call diffs in VS Code's own diff editor: the old and new text are served as read-only virtual
 * documents (`acp-diff:` URIs ending in the file's name, so the language is detected).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DIFF_SCHEME } from '../contributionIds';

export class DiffDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private counter = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }

  /** Opens the diff editor for one change of a file. */
  async open(filePath: string, oldText: string | null | undefined, newText: string, title?: string): Promise<void> {
    const id = ++this.counter;
    const name = path.basename(filePath);
    const left = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${id}/before/${name}` });
    const right = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${id}/after/${name}` });
    this.texts.set(left.path, oldText ?? '');
    this.texts.set(right.path, newText);
    // Keep the last few diffs only: these are snapshots, not live files.
    for (const key of [...this.texts.keys()].slice(0, Math.max(0, this.texts.size - 40))) this.texts.delete(key);
    const label = title ?? `${name} (${oldText === null || oldText === undefined ? 'new file' : 'proposed change'})`;
    await vscode.commands.executeCommand('vscode.diff', left, right, label, { preview: true });
  }
}
