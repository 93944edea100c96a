/** Disposables: everything the extension registers is owned by something that disposes it. */
import type * as vscode from 'vscode';

/** A base class that owns disposables and disposes them in reverse order of registration. */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  /** Takes ownership of `disposable` and returns it. */
  protected _register<T extends vscode.Disposable>(disposable: T): T {
    if (this.disposed) {
      disposable.dispose();
    } else {
      this.owned.push(disposable);
    }
    return disposable;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const disposable of this.owned.splice(0).reverse()) {
      try {
        disposable.dispose();
      } catch {
        // One failing disposable must not keep the others alive.
      }
    }
  }
}
