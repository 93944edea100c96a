/**
 * Which folders the user allowed agents to see, per workspace (persisted through a Memento-like store).
 * The primary folder of a session needs no grant: starting a session in it is the user's choice.
 */

import { sameRootPaths } from './rootSet';

/** The part of VS Code's `Memento` this needs (so this module stays free of `vscode`). */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

const KEY = 'acpWorkspace.sharedFolders';

export class FolderGrants {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly store: KeyValueStore) {}

  /** Real paths of the granted folders, in the order they were granted. */
  granted(): string[] {
    const value = this.store.get<unknown>(KEY);
    return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
  }

  isGranted(folderPath: string): boolean {
    return this.granted().includes(folderPath);
  }

  async grant(paths: readonly string[]): Promise<void> {
    const current = this.granted();
    const next = [...current, ...paths.filter((p) => !current.includes(p))];
    if (next.length !== current.length) await this.save(next);
  }

  async revoke(paths: readonly string[]): Promise<void> {
    const current = this.granted();
    const next = current.filter((p) => !paths.includes(p));
    if (next.length !== current.length) await this.save(next);
  }

  /** Replaces the whole list (the Manage Shared Folders picker). */
  async set(paths: readonly string[]): Promise<void> {
    const current = this.granted();
    if (sameRootPaths(current, paths)) return;
    await this.save([...paths]);
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private async save(paths: string[]): Promise<void> {
    await this.store.update(KEY, paths);
    for (const listener of [...this.listeners]) listener();
  }
}
