/**
 * Which folders the user allowed each agent to see, per workspace (persisted through a Memento-like store,
 * validated when read back). A grant names the agent it was given to: the prompt says "Share workspace folders
 * with X?", and another agent is asked again. The primary folder of a session needs no grant: starting a
 * session in it is the user's choice.
 */
import * as z from 'zod';
import { Emitter, type Event } from '../common/events';
import { sameRootPaths } from './rootSet';

/** The part of VS Code's `Memento` this needs (so this module stays free of `vscode`). */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** What changed for one agent; `revoked` are the folders it may no longer see. */
export interface GrantsChange {
  readonly agent: string;
  readonly revoked: readonly string[];
}

const KEY = 'acpWorkspace.sharedFoldersByAgent';

/** A list of `{agent, folders}`, not a record: an agent's name is the user's text, `__proto__` included. */
const Stored = z.array(z.unknown());
const Entry = z.object({ agent: z.string(), folders: z.array(z.unknown()) });

export class FolderGrants {
  private readonly changeEmitter = new Emitter<GrantsChange>();

  /** An agent's grants changed (after they were saved). */
  readonly onDidChange: Event<GrantsChange> = this.changeEmitter.event;

  constructor(private readonly store: KeyValueStore) {}

  /** Real paths of the folders granted to `agent`, in the order they were granted. */
  granted(agent: string): string[] {
    return this.read().get(agent) ?? [];
  }

  isGranted(agent: string, folderPath: string): boolean {
    return this.granted(agent).includes(folderPath);
  }

  /** The agents that have been granted any folder here. */
  agents(): string[] {
    return [...this.read()].filter(([, folders]) => folders.length > 0).map(([agent]) => agent);
  }

  async grant(agent: string, paths: readonly string[]): Promise<void> {
    const current = this.granted(agent);
    const next = [...current, ...paths.filter((p, i) => !current.includes(p) && paths.indexOf(p) === i)];
    if (next.length !== current.length) await this.save(agent, next);
  }

  async revoke(agent: string, paths: readonly string[]): Promise<void> {
    const current = this.granted(agent);
    const next = current.filter((p) => !paths.includes(p));
    if (next.length !== current.length) await this.save(agent, next);
  }

  /** Replaces an agent's whole list (the Manage Shared Folders picker). */
  async set(agent: string, paths: readonly string[]): Promise<void> {
    if (sameRootPaths(this.granted(agent), paths)) return;
    await this.save(agent, [...paths]);
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  /** The stored grants; entries that do not read as such are skipped (a damaged store never fails). */
  private read(): Map<string, string[]> {
    const result = new Map<string, string[]>();
    const stored = Stored.safeParse(this.store.get<unknown>(KEY));
    if (!stored.success) return result;
    for (const raw of stored.data) {
      const entry = Entry.safeParse(raw);
      if (!entry.success || result.has(entry.data.agent)) continue;
      result.set(entry.data.agent, entry.data.folders.filter((f): f is string => typeof f === 'string'));
    }
    return result;
  }

  private async save(agent: string, paths: string[]): Promise<void> {
    const all = this.read();
    const revoked = (all.get(agent) ?? []).filter((p) => !paths.includes(p));
    all.set(agent, paths);
    await this.store.update(
      KEY,
      [...all].filter(([, folders]) => folders.length > 0).map(([name, folders]) => ({ agent: name, folders })),
    );
    this.changeEmitter.fire({ agent, revoked });
  }
}
