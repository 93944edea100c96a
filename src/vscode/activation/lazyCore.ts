/**
 * The extension's core (src/core.ts, bundled apart as dist/core.js) loaded the first time something needs
 * it: a command, a view VS Code shows, a chat tab it restores, one of our documents. Activation only
 * registers those parts (see src/extension.ts), so it costs a few milliseconds instead of parsing and running
 * the whole extension; the core then loads in one synchronous step, so nothing can run half-way through it.
 *
 * Until then every command of the manifest is a stand-in: it loads the core, which registers the real
 * command under the same id, and runs that with the same arguments. The stand-ins go just before the core
 * loads (the real registrations would collide with them); the core reads the state of VS Code (folders,
 * settings, trust, editors) when it is composed, so nothing that happened before is lost.
 */
import * as vscode from 'vscode';
import type { Logger } from '../../common/logger';

export interface LazyCoreOptions<T> {
  /** Requires the core's bundle and composes it. Runs at most once. */
  readonly load: () => T;
  /** The commands the core registers (the manifest's `contributes.commands`): stand-ins until it loads. */
  readonly commands: readonly string[];
  readonly logger: Logger;
}

type State<T> = { readonly kind: 'waiting' } | { readonly kind: 'loaded'; readonly core: T } | { readonly kind: 'failed'; readonly error: Error };

export class LazyCore<T> implements vscode.Disposable {
  private state: State<T> = { kind: 'waiting' };
  private standIns: vscode.Disposable[];

  constructor(private readonly options: LazyCoreOptions<T>) {
    this.standIns = this.registerStandIns();
  }

  /** True once the core is loaded and composed. */
  get loaded(): boolean {
    return this.state.kind === 'loaded';
  }

  /**
   * The core, loaded now if it is not yet (`reason` says what needed it, for the log). Throws what loading
   * threw, on this and every later call.
   */
  get(reason: string): T {
    switch (this.state.kind) {
      case 'loaded':
        return this.state.core;
      case 'failed':
        throw this.state.error;
      case 'waiting':
        return this.load(reason);
    }
  }

  dispose(): void {
    for (const standIn of this.standIns.splice(0)) standIn.dispose();
  }

  private load(reason: string): T {
    const started = performance.now();
    this.dispose();
    try {
      const core = this.options.load();
      this.state = { kind: 'loaded', core };
      this.options.logger.info(`Core loaded in ${(performance.now() - started).toFixed(0)} ms (for ${reason}).`);
      return core;
    } catch (cause) {
      const error = cause instanceof Error ? cause : new Error(String(cause));
      this.state = { kind: 'failed', error };
      this.options.logger.error(`The core could not load (for ${reason}): ${error.stack ?? error.message}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('ACP Workspace could not start: {0}', error.message));
      // The commands the core did not register before it failed keep saying so.
      this.standIns = this.registerStandIns();
      throw error;
    }
  }

  private registerStandIns(): vscode.Disposable[] {
    const registered: vscode.Disposable[] = [];
    for (const id of this.options.commands) {
      try {
        registered.push(
          vscode.commands.registerCommand(id, (...args: unknown[]) => {
            this.get(`the command ${id}`);
            return vscode.commands.executeCommand(id, ...args);
          }),
        );
      } catch {
        // Registered by a core that failed half-way: that one stays.
      }
    }
    return registered;
  }
}
