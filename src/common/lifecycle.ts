/** Disposables: everything the extension registers is owned by something that disposes it. */

/** Anything that can be disposed (VS Code's `Disposable` has this shape). */
export interface IDisposable {
  dispose(): void;
}

/** A base class that owns disposables and disposes them in reverse order of registration. */
export abstract class Disposable implements IDisposable {
  private readonly owned: IDisposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  /** Takes ownership of `disposable` and returns it. */
  protected _register<T extends IDisposable>(disposable: T): T {
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
