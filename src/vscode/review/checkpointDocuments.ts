/**
 * Files as a checkpoint (or a review base) has them, as read-only virtual documents (`acp-checkpoint:`
 * URIs ending in the file's name, so VS Code picks the language), for VS Code's own diff editor.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChangeReview } from '../../sessions/review/changeReview';
import { contentSourceQuery, readContentSourceQuery, type ContentSource } from '../../sessions/review/contentSource';
import { CHECKPOINT_SCHEME } from '../contributionIds';

export class CheckpointDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly review: ChangeReview) {}

  /** A URI for a file as `source` has it. */
  static uri(source: ContentSource): vscode.Uri {
    return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${path.posix.basename(source.path) || 'file'}`, query: contentSourceQuery(source) });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const source = readContentSourceQuery(uri.query);
    return source ? this.review.text(source) : '';
  }
}

/** The file on disk, or an empty document when it does not exist (a deleted file's right side). */
export function currentUri(root: string, file: string, exists: boolean): vscode.Uri {
  return exists
    ? vscode.Uri.file(path.join(root, ...file.split('/')))
    : CheckpointDocuments.uri({ kind: 'absent', agentName: '', sessionId: '', root, path: file });
}
