/**
 * Stand-ins registered at activation for the parts VS Code asks for by itself (a view it shows, a chat tab it
 * restores, a document of ours it opens): each hands the call to the core's own provider, which `target`
 * loads on first use (see LazyCore). Events of the core's provider are passed on once it is reached; VS Code
 * only listens to them for what it got through the stand-in, so none that matters is missed.
 */
import * as vscode from 'vscode';

/** A tree view's data from the core's provider (`getChildren` and `getTreeItem` only). */
export class LazyTreeDataProvider<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<T | T[] | undefined | null | void>();
  readonly onDidChangeTreeData = this.changed.event;
  private reached: vscode.TreeDataProvider<T> | undefined;
  private forwarding: vscode.Disposable | undefined;

  constructor(private readonly target: () => vscode.TreeDataProvider<T>) {}

  getChildren(element?: T): vscode.ProviderResult<T[]> {
    return this.provider().getChildren(element);
  }

  getTreeItem(element: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.provider().getTreeItem(element);
  }

  dispose(): void {
    this.forwarding?.dispose();
    this.changed.dispose();
  }

  private provider(): vscode.TreeDataProvider<T> {
    if (!this.reached) {
      this.reached = this.target();
      this.forwarding = this.reached.onDidChangeTreeData?.((change) => this.changed.fire(change));
    }
    return this.reached;
  }
}

/** A webview view resolved by the core's provider. */
export class LazyWebviewViewProvider implements vscode.WebviewViewProvider {
  constructor(private readonly target: () => vscode.WebviewViewProvider) {}

  resolveWebviewView(view: vscode.WebviewView, context: vscode.WebviewViewResolveContext, token: vscode.CancellationToken): void | Thenable<void> {
    return this.target().resolveWebviewView(view, context, token);
  }
}

/** Webview panels VS Code restores after a reload, handed to the core's serializer. */
export class LazyWebviewPanelSerializer<S = unknown> implements vscode.WebviewPanelSerializer<S> {
  constructor(private readonly target: () => vscode.WebviewPanelSerializer<S>) {}

  deserializeWebviewPanel(panel: vscode.WebviewPanel, state: S): Thenable<void> {
    return this.target().deserializeWebviewPanel(panel, state);
  }
}

/** Read-only documents of one scheme served by the core's provider. */
export class LazyTextDocumentContentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private reached: vscode.TextDocumentContentProvider | undefined;
  private forwarding: vscode.Disposable | undefined;

  constructor(private readonly target: () => vscode.TextDocumentContentProvider) {}

  provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): vscode.ProviderResult<string> {
    return this.provider().provideTextDocumentContent(uri, token);
  }

  dispose(): void {
    this.forwarding?.dispose();
    this.changed.dispose();
  }

  private provider(): vscode.TextDocumentContentProvider {
    if (!this.reached) {
      this.reached = this.target();
      this.forwarding = this.reached.onDidChange?.((uri) => this.changed.fire(uri));
    }
    return this.reached;
  }
}
