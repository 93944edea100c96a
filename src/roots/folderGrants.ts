/**
 * Which folders the user allowed each agent to see, per workspace (persisted through a Memento-like store,
 * validated when read back). A grant names the agent it was given to: the prompt says "Share workspace folders
 * with X?", and another agent is asked again. The primary folder of a session needs no grant: starting a
 * session in it is the user's choice. What the user took back from an agent is remembered too (until it is
 * granted to it again): reopening a session that had such a folder asks for it again rather than taking the
 * session's list as consent.
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
  /** The folders it may see now that it could not before. */
  readonly granted: readonly string[];
}

const KEY = 'acpWorkspace.sharedFoldersByAgent';
const TAKEN_BACK_KEY = 'acpWorkspace.takenBackFoldersByAgent';

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
    return this.read(KEY).get(agent) ?? [];
  }

  isGranted(agent: string, folderPath: string): boolean {
    return this.granted(agent).includes(folderPath);
  }

  /** Whether the user took this folder back from `agent` (revoked it) and has not granted it again since. */
  isTakenBack(agent: string, folderPath: string): boolean {
    return (this.read(TAKEN_BACK_KEY).get(agent) ?? []).includes(folderPath);
  }

  /** The agents that have been granted any folder here. */
  agents(): string[] {
    return [...this.read(KEY)].filter(([, folders]) => folders.length > 0).map(([agent]) => agent);
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

  /** The stored lists (grants, or what was taken back); entries that do not read as such are skipped (a damaged store never fails). */
  private read(key: string): Map<string, string[]> {
    const result = new Map<string, string[]>();
    const stored = Stored.safeParse(this.store.get<unknown>(key));
    if (!stored.success) return result;
    for (const raw of stored.data) {
      const entry = Entry.safeParse(raw);
      if (!entry.success || result.has(entry.data.agent)) continue;
      result.set(
        entry.data.agent,
        entry.data.folders.filter((f): f is string => typeof f === 'string'),
      );
    }
    return result;
  }

  private async save(agent: string, paths: string[]): Promise<void> {
    const all = this.read(KEY);
    const before = all.get(agent) ?? [];
    const revoked = before.filter((p) => !paths.includes(p));
    const granted = paths.filter((p) => !before.includes(p));
    all.set(agent, paths);
    const takenBack = this.read(TAKEN_BACK_KEY);
    const wasTaken = takenBack.get(agent) ?? [];
    takenBack.set(agent, [...wasTaken.filter((p) => !paths.includes(p)), ...revoked.filter((p) => !wasTaken.includes(p))]);
    await this.store.update(TAKEN_BACK_KEY, asStored(takenBack));
    await this.store.update(KEY, asStored(all));
    this.changeEmitter.fire({ agent, revoked, granted });
  }
}

function asStored(lists: Map<string, string[]>): Array<{ agent: string; folders: string[] }> {
  return [...lists].filter(([, folders]) => folders.length > 0).map(([agent, folders]) => ({ agent, folders }));
}
