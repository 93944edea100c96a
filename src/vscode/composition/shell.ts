import type * as vscode from 'vscode';
import type { Logger } from '../../common/logger';

/** What activation made before the core: it stays the owner of these. */
export interface Shell {
  readonly channel: vscode.LogOutputChannel;
  readonly logger: Logger;
  /** The Agents view, whose badge VS Code also shows on the ACP container. */
  readonly agentsTree: vscode.TreeView<unknown>;
}
